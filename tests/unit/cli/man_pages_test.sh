#!/usr/bin/env bash
# The man pages the build generated (<build>/man/man1), against gpuspec's own --help: one page
# per public subcommand plus gpuspec.1, no other; each formats without a warning (groff -ww, and
# man --warnings where man-db is installed); each lists in its OPTIONS (for db, in each
# subcommand's section) every option and positional that command's --help lists, with the
# choices of those that have them; the installed .1.gz is the page, gzip'ed without a time stamp.
# Skipped (77) where groff is not installed (scripts/install-deps.sh installs groff-base).
#
#   man_pages_test.sh GPUSPEC MAN1_DIR WORK_DIR
set -uo pipefail

absolute() { [[ $1 == /* ]] && printf '%s\n' "$1" || printf '%s\n' "$PWD/$1"; }
gpuspec="$(absolute "$1")"
man1="$(absolute "$2")"
work="$(absolute "$3")"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tests/unit/cli/cli_help.sh
source "$here/cli_help.sh"

command -v groff >/dev/null || {
  echo "SKIP: no groff installed"
  exit 77
}
help_cache_dir="$work/help"
rm -rf "$work"
mkdir -p "$help_cache_dir"
"$gpuspec" --help >/dev/null || {
  echo "FAIL: $gpuspec --help" >&2
  exit 1
}

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

expected_pages="$( (
  echo gpuspec.1
  help_subcommands | sed 's/^/gpuspec-/; s/$/.1/'
) | LC_ALL=C sort)"
got_pages="$(find "$man1" -maxdepth 1 -name "*.1" -printf "%f\n" | LC_ALL=C sort)"
[[ $got_pages == "$expected_pages" ]] ||
  fail "pages in $man1: [$(tr '\n' ' ' <<<"$got_pages")], expected [$(tr '\n' ' ' <<<"$expected_pages")]"

# section TEXT_FILE TITLE [SUBSECTION]: the lines of one section (a line "TITLE" up to the next
# unindented line), or of one subsection in it (a line "   SUBSECTION" up to the next such line).
section() {
  awk -v title="$2" -v sub_title="${3:-}" '
    /^[^ ]/ { in_section = ($0 == title); in_sub = 0; next }
    in_section && sub_title == "" { print; next }
    in_section && /^   [^ ]/ { in_sub = ($0 == "   " sub_title); next }
    in_sub { print }' "$1"
}

# expect_listed PAGE TEXT WHERE WORD...: every option and positional of `gpuspec WORD...`, and
# its choices, appear in TEXT (a section of PAGE).
expect_listed() {
  local page="$1" text="$2" where="$3" section names type name
  shift 3
  while IFS=$'\t' read -r section names type; do
    [[ $section == option || $section == positional ]] || continue
    for name in ${names//,/ }; do
      grep -qE -- "(^|[ ,])${name}([ ,.]|$)" <<<"$text" || fail "$page: $where does not list $name"
    done
    if [[ $type == *:\{* ]]; then
      local choices
      choices="One of: $(choices_of "$type" | paste -sd, | sed 's/,/, /g')."
      grep -qF -- "$choices" <<<"$text" || fail "$page: $where does not say '$choices' for $names"
    fi
  done < <(help_entries "$@")
}

for page in $expected_pages; do
  file="$man1/$page"
  [[ -e $file ]] || continue
  warnings="$(groff -man -ww -z "$file" 2>&1)"
  [[ -z $warnings ]] || fail "$page: groff -man -ww: $warnings"
  if command -v man >/dev/null; then
    warnings="$(MANWIDTH=80 man --warnings -l "$file" 2>&1 >/dev/null)"
    [[ -z $warnings ]] || fail "$page: man --warnings: $warnings"
  fi
  if [[ ! -e $file.gz ]]; then
    fail "$page: no $page.gz beside it (what is installed)"
  else
    cmp -s "$file" <(gzip -dc "$file.gz") || fail "$page.gz is not $page gzip'ed"
    # The gzip header's MTIME (bytes 4-7) is zero and no name follows: gzip -n.
    [[ "$(od -An -tx1 -j3 -N5 "$file.gz" | tr -d ' ')" == 0000000000 ]] ||
      fail "$page.gz has a name or a time stamp in its header (not gzip -n)"
  fi

  text="$work/$page.txt"
  groff -man -Tascii -P-cbou -rLL=200n "$file" >"$text" 2>/dev/null
  if [[ $page == gpuspec.1 ]]; then
    words=()
  else
    command="${page#gpuspec-}"
    words=("${command%.1}")
  fi
  subs="$(help_subcommands "${words[@]}")"
  expect_listed "$page" "$(section "$text" OPTIONS)" OPTIONS "${words[@]}"
  for sub in $subs; do
    if ((${#words[@]} == 0)); then
      grep -qE "^       $sub( |$)" <<<"$(section "$text" COMMANDS)" ||
        fail "$page: COMMANDS does not list $sub"
    else
      body="$(section "$text" COMMANDS "gpuspec ${words[*]} $sub")"
      [[ -n $body ]] || fail "$page: COMMANDS has no section 'gpuspec ${words[*]} $sub'"
      expect_listed "$page" "$body" "COMMANDS, gpuspec ${words[*]} $sub" "${words[@]}" "$sub"
    fi
  done
  grep -q '^EXIT STATUS$' "$text" || fail "$page: no EXIT STATUS"
  if ((${#words[@]})); then
    # Examples (cli/src/command_examples.cpp): the page's EXAMPLES are the --help footer's, and
    # each uses only options of its command (for db, of the subcommand it names).
    examples="$(help_of "${words[@]}" | sed -n '/^Examples:$/,/^Exit codes:/{/^  gpuspec /p}' | sed 's/^  //')"
    [[ -n $examples ]] || fail "gpuspec ${words[*]} --help: no Examples"
    help_of "${words[@]}" | grep -q '^Exit codes: 0 pass, 1 warn, 2 fail, 3 unknown$' ||
      fail "gpuspec ${words[*]} --help: no exit codes line"
    grep -q '^EXAMPLES$' "$text" || fail "$page: no EXAMPLES"
    while read -r example; do
      [[ -n $example ]] || continue
      grep -qF -- "$example" "$text" || fail "$page: EXAMPLES lacks '$example'"
      read -ra tokens <<<"$example"
      scope=("${words[@]}")
      [[ -n $subs && ${#tokens[@]} -gt 2 ]] && scope+=("${tokens[2]}")
      for token in "${tokens[@]}"; do
        [[ $token == -* ]] || continue
        help_options "${scope[@]}" | grep -qxF -- "$token" ||
          fail "example '$example': gpuspec ${scope[*]} has no option $token"
      done
    done <<<"$examples"
  fi
done

if ((failures)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "man pages: one per command, no warnings, every option listed, examples that exist"
