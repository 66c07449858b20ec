#!/bin/sh
# cmake/GpuspecBuildStamp.cmake on its own: in a throwaway git repository, the stamp names HEAD,
# names the new HEAD after a commit, says -dirty for a changed tracked file, is left untouched
# when nothing changed (so a no-op build relinks nothing), takes SOURCE_DATE_EPOCH's date, and
# says "unknown" outside git (a source tarball), even inside another repository.
# Usage: build_stamp_test.sh CMAKE GpuspecBuildStamp.cmake
set -eu
cmake=$1
script=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
stamp() { # stamp SOURCE_DIR OUTPUT
  "$cmake" -DSOURCE_DIR="$1" -DOUTPUT="$2" -DVERSION=9.8.7 -P "$script"
}
commit_of() { sed -n 's|^// stamp: 9\.8\.7 \([^ ]*\).*|\1|p' "$1"; }
date_of() { sed -n 's|.*"9\.8\.7", "[^"]*", "\([^"]*\)".*|\1|p' "$1"; }

unset SOURCE_DATE_EPOCH || true
src=$work/src
mkdir "$src"
git -C "$src" init -q
git -C "$src" config user.email test@example.invalid
git -C "$src" config user.name test
echo one >"$src/file"
git -C "$src" add file
git -C "$src" commit -q -m one
out=$work/stamp.cpp

stamp "$src" "$out"
head=$(git -C "$src" rev-parse HEAD)
c=$(commit_of "$out")
[ ${#c} -ge 12 ] || fail "commit '$c' is not 12 hex digits"
case $head in "$c"*) ;; *) fail "commit '$c' is not HEAD $head" ;; esac
grep -q "\"9.8.7\", \"$c\", \"" "$out" || fail "the definition does not hold version and commit"
date_of "$out" | grep -Eq '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$' ||
  fail "build date '$(date_of "$out")' is not ISO 8601 UTC"

# Nothing changed: the file is not rewritten (same inode and time stamp; date kept).
touch -d '2001-01-01 00:00:00' "$out"
before=$(ls -l --time-style=full-iso "$out")
stamp "$src" "$out"
[ "$(ls -l --time-style=full-iso "$out")" = "$before" ] || fail "rewritten though nothing changed"

# A new commit: the new HEAD, without reconfiguring anything.
echo two >"$src/file"
git -C "$src" commit -q -a -m two
stamp "$src" "$out"
head2=$(git -C "$src" rev-parse HEAD)
c2=$(commit_of "$out")
case $head2 in "$c2"*) ;; *) fail "after a commit: '$c2' is not the new HEAD $head2" ;; esac

# A changed tracked file: -dirty.
echo three >"$src/file"
stamp "$src" "$out"
[ "$(commit_of "$out")" = "$c2-dirty" ] || fail "a changed file: '$(commit_of "$out")', not $c2-dirty"
git -C "$src" checkout -q file

# SOURCE_DATE_EPOCH: its date, whatever the clock says.
SOURCE_DATE_EPOCH=1000000000 stamp "$src" "$out"
[ "$(date_of "$out")" = "2001-09-09T01:46:40Z" ] || fail "SOURCE_DATE_EPOCH: '$(date_of "$out")'"

# Not a git checkout, or a folder inside another one (a tarball unpacked in a repository).
mkdir "$work/tarball" "$src/unpacked"
stamp "$work/tarball" "$work/t.cpp"
[ "$(commit_of "$work/t.cpp")" = unknown ] || fail "outside git: '$(commit_of "$work/t.cpp")'"
stamp "$src/unpacked" "$work/u.cpp"
[ "$(commit_of "$work/u.cpp")" = unknown ] || fail "inside another repository: '$(commit_of "$work/u.cpp")'"
echo "build stamp: ok"
