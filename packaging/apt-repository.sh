#!/usr/bin/env bash
# Writes a flat apt repository of the given packages (apt-ftparchive, Debian's apt-utils), so that
# a site installs gpuspec with one source line and `apt-get install gpuspec` (docs/deploy.md,
# "One apt source"):
#   packaging/apt-repository.sh DIR PACKAGE.deb...
# DIR gets the packages, Packages, Packages.gz and Release; packages already there stay, so a later
# build's packages added beside an earlier one's are an upgrade (apt takes the highest version).
# The repository is unsigned: its source line says [trusted=yes], or a site signs Release with
# its own key (gpg --clearsign -o InRelease Release) and gives apt that key.
set -euo pipefail
if [ "$#" -lt 2 ]; then
  echo "usage: apt-repository.sh DIR PACKAGE.deb..." >&2
  exit 3
fi
dir=$1
shift
command -v apt-ftparchive >/dev/null ||
  { echo "apt-repository: no apt-ftparchive (apt-get install apt-utils)" >&2; exit 3; }
mkdir -p "$dir"
for deb in "$@"; do
  [ -f "$deb" ] || { echo "apt-repository: $deb: no such package file" >&2; exit 3; }
  cp -f "$deb" "$dir/"
done
cd "$dir"
apt-ftparchive packages . >Packages
gzip -9nkf Packages
apt-ftparchive -o APT::FTPArchive::Release::Origin=gpuspec -o APT::FTPArchive::Release::Label=gpuspec \
  release . >Release
echo "apt-repository: $(grep -c '^Package:' Packages) packages in $dir"
