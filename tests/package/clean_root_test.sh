#!/usr/bin/env bash
# The packages as an operator installs them: from the local apt repository package_test.sh
# wrote, into a clean Debian root that mmdebstrap makes from Debian's archive; then used by a user
# without root (nobody), then purged, leaving no path behind.
#   clean_root_test.sh SUITE CACHE_DIR REPO_DIR STAND_IN_DIR SOURCE_DIR OUT_DIR [LATER_REPO_DIR]
# SUITE: bookworm (Debian 12) or trixie (Debian 13). The root is CACHE_DIR/SUITE.tar, made once
# by make_clean_root.sh (or by .ci/run in the background, while it builds).
# REPO_DIR: the repository (packaging/apt-repository.sh). STAND_IN_DIR: a second one, of the
# stand-ins for NVIDIA's packages that gpuspec-cuda13 depends on (empty: no gpuspec-cuda13); they
# hold no library, so the CUDA build meets a node without cuBLAS.
# LATER_REPO_DIR: a later commit's gpuspec: installed over this one with apt-get upgrade.
# Only the local repositories are apt's sources inside the root: anything else the packages
# needed would fail the install, which is the check that they need nothing the root lacks.
set -euo pipefail
suite=$1 cache=$2 repo=$3 stand_ins=$4 src=$5 out=$6 later=${7:-}
fail() { echo "clean_root_test[$suite]: FAIL: $*" >&2; exit 1; }
say() { echo "clean_root_test[$suite]: $*"; }
root="$out/root-$suite"
tarball="$cache/$suite.tar"
mkdir -p "$cache" "$out"
bash "$(dirname "${BASH_SOURCE[0]}")/make_clean_root.sh" "$suite" "$cache" || fail "no clean $suite root"
rm -rf --one-file-system "$root" && mkdir -p "$root"
cleanup() {
  umount "$root/proc" 2>/dev/null || true
  rm -rf --one-file-system "$root" # never into a /proc still mounted
}
trap cleanup EXIT
tar -xf "$tarball" -C "$root"
mount -t proc proc "$root/proc" # gpuspec finds its spec table from /proc/self/exe

# Every path of the root but the package manager's own state, sorted: compared after the purge.
paths() {
  (cd "$root" && find . -xdev \( -path ./proc -o -path ./tmp -o -path ./srv -o -path ./etc/apt \
    -o -path ./var/lib/apt -o -path ./var/lib/dpkg -o -path ./var/cache -o -path ./var/log \) \
    -prune -o -print | sort)
}
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }
# As nobody (base-passwd's user 65534): what an operator without root runs.
as_user() { chroot --userspec=65534:65534 "$root" env -i PATH=/usr/bin:/bin HOME=/tmp "$@"; }
expect_user() { # expect_user CODE COMMAND...: its exit code (output in $out/last-SUITE.out)
  local want=$1 rc=0
  shift
  as_user "$@" >"$out/last-$suite.out" 2>&1 || rc=$?
  [ "$rc" = "$want" ] || fail "$* exited $rc, expected $want: $(tail -3 "$out/last-$suite.out")"
}
one_line() { # one_line PATTERN: the cause is said on one line of the last output, not scattered
  [ "$(grep -c -- "$1" "$out/last-$suite.out")" = 1 ] ||
    fail "not one line with '$1' in: $(cat "$out/last-$suite.out")"
}
sources() { # the local repositories named, one line each
  local list="$root/etc/apt/sources.list.d/gpuspec.list"
  : >"$list"
  for dir in "$@"; do
    mkdir -p "$root/srv/$(basename "$dir")" && cp -a "$dir/." "$root/srv/$(basename "$dir")/"
    echo "deb [trusted=yes] file:/srv/$(basename "$dir") ./" >>"$list"
  done
  in_root apt-get -o Dir::Etc::SourceList=/etc/apt/sources.list.d/gpuspec.list \
    -o Dir::Etc::SourceParts=/dev/null update -qq >"$out/apt-update-$suite.log" 2>&1 ||
    fail "apt-get update: $(tail -3 "$out/apt-update-$suite.log")"
}
apt() {
  in_root apt-get -o Dir::Etc::SourceList=/etc/apt/sources.list.d/gpuspec.list \
    -o Dir::Etc::SourceParts=/dev/null -y -qq --no-install-recommends "$@" \
    >"$out/apt-$suite.log" 2>&1 || fail "apt-get $*: $(tail -5 "$out/apt-$suite.log")"
}

paths >"$out/paths-before-$suite.txt"
packages=(gpuspec)
if [ -n "$(ls "$stand_ins"/*.deb 2>/dev/null)" ]; then
  packages+=(gpuspec-cuda13)
  sources "$repo" "$stand_ins"
else
  sources "$repo"
fi
apt install "${packages[@]}"
version=$(in_root dpkg-query -W -f='${Version}' gpuspec)
cp "$src/tests/fixtures/check/healthy.json" "$root/tmp/healthy.json"
chmod 644 "$root/tmp/healthy.json"

expect_user 0 gpuspec --version
grep -qx "gpuspec $version" "$out/last-$suite.out" ||
  fail "gpuspec --version does not say gpuspec $version: $(cat "$out/last-$suite.out")"
expect_user 0 gpuspec check /tmp/healthy.json
# No driver in the root (no NVML): no verdict, exit 3, the cause on one line.
expect_user 3 gpuspec health
one_line 'GPUs: no NVIDIA driver: '
if [ "${#packages[@]}" = 2 ]; then
  # gpuspec-cuda13 installed, NVIDIA's cuBLAS not (the stand-ins hold no library): the run is
  # refused in one line naming the library, before anything else; --version still answers.
  expect_user 3 gpuspec run -o /tmp/run.json
  one_line 'needs libcublas.so.13 (from libcublas-13-0), which the loader did not find'
  [ "$(wc -l <"$out/last-$suite.out")" = 1 ] ||
    fail "gpuspec run without cuBLAS printed more than its one line: $(cat "$out/last-$suite.out")"
  expect_user 0 gpuspec --version
  one_line 'needs libcublas.so.13'
  grep -qx "gpuspec $version" "$out/last-$suite.out" || fail "gpuspec --version without cuBLAS"
else
  expect_user 3 gpuspec run -o /tmp/run.json
  one_line 'gpuspec run: no GPU: no NVIDIA driver: '
fi
say "${packages[*]} $version installed from the local repository; --version, check, health (exit 3), run (exit 3) as nobody"

purge_and_compare() {
  apt purge "${@}"
  apt autoremove --purge
  paths >"$out/paths-after-$suite.txt"
  diff "$out/paths-before-$suite.txt" "$out/paths-after-$suite.txt" >"$out/paths-left-$suite.txt" ||
    fail "left after apt-get purge: $(head -5 "$out/paths-left-$suite.txt")"
}
if [ "${#packages[@]}" = 2 ]; then
  mapfile -t stand_in_names < <(cd "$stand_ins" && for deb in *.deb; do echo "${deb%%_*}"; done)
  purge_and_compare gpuspec-cuda13 gpuspec "${stand_in_names[@]}"
else
  purge_and_compare gpuspec
fi
say "purged: no path left"

# An upgrade: this build's gpuspec, then a later commit's from the same source line.
if [ -n "$later" ]; then
  apt install gpuspec
  sources "$repo" "$later"
  apt upgrade
  upgraded=$(in_root dpkg-query -W -f='${Version}' gpuspec)
  [ "$upgraded" = "$(dpkg-deb -f "$(ls "$later"/gpuspec_*.deb)" Version)" ] ||
    fail "apt-get upgrade left gpuspec at $upgraded, not the later build's version"
  [ "$(as_user gpuspec --version | head -1)" = "gpuspec $upgraded" ] ||
    fail "after the upgrade, gpuspec --version says $(as_user gpuspec --version | head -1)"
  purge_and_compare gpuspec
  say "gpuspec $version upgraded to $upgraded with apt-get upgrade; purged"
fi
