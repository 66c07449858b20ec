#!/usr/bin/env bash
# Every shell script of the tree through shellcheck at warning level: the shipped ones (scripts/,
# deploy/, packaging/), the tests' and CI's. A script is a file named *.sh or one whose first line
# is a sh or bash shebang; the build folders and .deps are not the tree's.
#   usage: shellcheck_all.sh SOURCE_DIR
set -euo pipefail
src="$(cd "$1" && pwd)"
command -v shellcheck >/dev/null || { echo "shellcheck_all: no shellcheck (scripts/install-deps.sh installs it): skipped"; exit 77; }

scripts=()
while IFS= read -r -d '' file; do
  case "$file" in
  *.sh) scripts+=("$file") ;;
  *) head -n1 "$file" | grep -Eq '^#!.*[/ ](ba)?sh( |$)' && scripts+=("$file") ;;
  esac
done < <(find "$src" \( -path "$src/build" -o -path "$src/.deps" -o -path "$src/.git" \) -prune -o \
  -type f \( -name '*.sh' -o -perm -u+x \) -print0)
[ "${#scripts[@]}" -ge 20 ] || { echo "shellcheck_all: FAIL: only ${#scripts[@]} scripts found under $src"; exit 1; }
cd "$src"
shellcheck -S warning -x "${scripts[@]#"$src"/}"
echo "shellcheck_all: ok (${#scripts[@]} scripts)"
