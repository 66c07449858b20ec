#!/usr/bin/env bash
# A clean Debian root as a tarball, made once from Debian's archive with mmdebstrap (its apt
# variant: the Essential packages and apt, so libc6, libstdc++6 and libgcc-s1 and nothing of ours).
#   make_clean_root.sh SUITE CACHE_DIR
# Writes CACHE_DIR/SUITE.tar unless it is there; delete it to make it anew. Under a lock on
# CACHE_DIR/SUITE.lock, so that the package test waits for a root that .ci/run is still making in
# the background, rather than making a second one beside it.
set -euo pipefail
suite=$1 cache=$2
tarball="$cache/$suite.tar"
mkdir -p "$cache"
exec 9>"$cache/$suite.lock"
flock 9
[ -f "$tarball" ] && [ -s "$tarball" ] && exit 0
rm -rf --one-file-system "$tarball" "$tarball.part" # a folder or a part left by an older run
made=$(date +%s)
# --format=tar: mmdebstrap picks the format from the name's extension otherwise, and ".part"
# has none, which makes a folder.
mmdebstrap --quiet --variant=apt --mode=root --format=tar "$suite" "$tarball.part" http://deb.debian.org/debian \
  >"$cache/mmdebstrap-$suite.log" 2>&1 || {
  echo "make_clean_root: mmdebstrap $suite: $(tail -3 "$cache/mmdebstrap-$suite.log")" >&2
  exit 1
}
mv "$tarball.part" "$tarball"
echo "make_clean_root: made $tarball in $(($(date +%s) - made)) s"
