#!/bin/sh
# cmake/GpuspecBuildStamp.cmake on its own: in a throwaway git repository, the stamp names HEAD,
# names the new HEAD after a commit, says -dirty for a changed tracked file, is left untouched
# when nothing changed (so a no-op build relinks nothing), takes SOURCE_DATE_EPOCH's date, and
# says "unknown" outside git (a source tarball), even inside another repository; and the
# version: 9.8.7+g<commits>.<hash> with no release tag, X.Y.Z at a tag vX.Y.Z and
# X.Y.Z+g<commits since>.<hash> past it, each later commit's above the earlier's as dpkg orders
# versions (so a later build's package upgrades an earlier one's), 9.8.7 outside git.
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
commit_of() { sed -n 's|^// stamp: [^ ]* \([^ ]*\).*|\1|p' "$1"; }
version_of() { sed -n 's|^// stamp: \([^ ]*\) .*|\1|p' "$1"; }
date_of() { sed -n 's|.*build_stamp() { return {"[^"]*", "[^"]*", "\([^"]*\)".*|\1|p' "$1"; }
# newer A B: dpkg orders version A above version B.
newer() { dpkg --compare-versions "$1" gt "$2" || fail "dpkg does not order $1 above $2"; }

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
v1=$(version_of "$out")
[ "$v1" = "9.8.7+g1.$(git -C "$src" rev-parse --short=12 HEAD)" ] || fail "version '$v1' with no tag"
grep -q "\"$v1\", \"$c\", \"" "$out" || fail "the definition does not hold version and commit"
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

v2=$(version_of "$out")
[ "$v2" = "9.8.7+g2.$(git -C "$src" rev-parse --short=12 HEAD)" ] || fail "version '$v2' after a commit"
newer "$v2" "$v1"

# A changed tracked file: -dirty.
echo three >"$src/file"
stamp "$src" "$out"
[ "$(commit_of "$out")" = "$c2-dirty" ] || fail "a changed file: '$(commit_of "$out")', not $c2-dirty"
git -C "$src" checkout -q file

# A release tag: its version, then +g<commits since> past it, each above the one before.
git -C "$src" tag v9.9.0
stamp "$src" "$out"
[ "$(version_of "$out")" = 9.9.0 ] || fail "at tag v9.9.0: '$(version_of "$out")'"
newer 9.9.0 "$v2"
for n in 1 2 3 4 5 6 7 8 9 10; do
  echo "$n" >"$src/file"
  git -C "$src" commit -q -a -m "$n"
  before_version=$(version_of "$out")
  stamp "$src" "$out"
  [ "$(version_of "$out")" = "9.9.0+g$n.$(git -C "$src" rev-parse --short=12 HEAD)" ] ||
    fail "$n past v9.9.0: '$(version_of "$out")'"
  newer "$(version_of "$out")" "$before_version" # +g10 above +g9: numeric, not text
done
# A file beside the stamp for the packages, holding the version alone.
"$cmake" -DSOURCE_DIR="$src" -DOUTPUT="$out" -DVERSION=9.8.7 -DVERSION_FILE="$work/version.txt" -P "$script"
[ "$(cat "$work/version.txt")" = "$(version_of "$out")" ] || fail "version file '$(cat "$work/version.txt")'"

# SOURCE_DATE_EPOCH: its date, whatever the clock says.
SOURCE_DATE_EPOCH=1000000000 stamp "$src" "$out"
[ "$(date_of "$out")" = "2001-09-09T01:46:40Z" ] || fail "SOURCE_DATE_EPOCH: '$(date_of "$out")'"

# Not a git checkout, or a folder inside another one (a tarball unpacked in a repository).
mkdir "$work/tarball" "$src/unpacked"
stamp "$work/tarball" "$work/t.cpp"
[ "$(commit_of "$work/t.cpp")" = unknown ] || fail "outside git: '$(commit_of "$work/t.cpp")'"
[ "$(version_of "$work/t.cpp")" = 9.8.7 ] || fail "outside git, version '$(version_of "$work/t.cpp")'"
stamp "$src/unpacked" "$work/u.cpp"
[ "$(commit_of "$work/u.cpp")" = unknown ] || fail "inside another repository: '$(commit_of "$work/u.cpp")'"
echo "build stamp: ok"
