#!/usr/bin/env bash
# The bash completion the build generated (<build>/completion/gpuspec), sourced in a bare bash and
# driven as readline would drive it (COMP_WORDS, COMP_CWORD, COMP_LINE, COMP_POINT), against
# gpuspec's own --help: every subcommand and every option of every command is offered, an
# option's choices exactly, a file option completes files, a folder option folders, a benchmark
# option the registry's ids (`gpuspec list --json`; none in a host-only build), and a flag takes
# no value. Then once more with bash-completion loaded, where it is installed (its _filedir).
#
#   completion_bash_test.sh GPUSPEC COMPLETION_SCRIPT WORK_DIR
set -uo pipefail

absolute() { [[ $1 == /* ]] && printf '%s\n' "$1" || printf '%s\n' "$PWD/$1"; }
gpuspec="$(absolute "$1")"
script="$(absolute "$2")"
work="$(absolute "$3")"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tests/unit/cli/cli_help.sh
source "$here/cli_help.sh"
help_cache_dir="$work/help"
rm -rf "$help_cache_dir"
mkdir -p "$help_cache_dir"
"$gpuspec" --help >/dev/null || { echo "FAIL: $gpuspec --help" >&2; exit 1; }

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# complete_words WORD...: what _gpuspec offers for the last WORD (the one under the cursor, "" for
# a fresh word), sorted, one a line.
complete_words() {
  local COMP_WORDS=("$@") COMP_CWORD=$(($# - 1)) COMP_LINE="$*" COMP_POINT
  COMP_POINT=${#COMP_LINE}
  COMPREPLY=()
  _gpuspec gpuspec "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null
  ((${#COMPREPLY[@]})) && printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort -u
}

sorted() { LC_ALL=C sort -u; }

# expect_words DESCRIPTION EXPECTED WORD...: the completion of WORD... is exactly EXPECTED (lines).
expect_words() {
  local what="$1" expected="$2"
  shift 2
  local got
  got="$(complete_words "$@")"
  expected="$(sorted <<<"$expected" | sed '/^$/d')"
  [[ $got == "$expected" ]] ||
    fail "$what: '$*' completed to [$(tr '\n' ' ' <<<"$got")], expected [$(tr '\n' ' ' <<<"$expected")]"
}

# The benchmark words: every id of `gpuspec list --json` and every dotted prefix of one.
benchmark_words() {
  local listing
  if ! listing="$("$gpuspec" list --json 2>/dev/null)"; then
    return 0 # a host-only build lists none (exit 3): its completion offers none either
  fi
  python3 -c '
import json, sys
words = set()
for entry in json.load(sys.stdin):
    words.add(entry["id"])
    parts = entry["id"].split(".")
    for i in range(1, len(parts)):
        words.add(".".join(parts[:i]) + ".")
print("\n".join(sorted(words)))' <<<"$listing"
}

# A folder to complete file names in: two reports and a folder.
files_dir="$work/files"
rm -rf "$files_dir"
mkdir -p "$files_dir/reports.d"
: >"$files_dir/report-a.json"
: >"$files_dir/report-b.json"
cd "$files_dir" || exit 1
file_words=$'report-a.json\nreport-b.json\nreports.d'

run_checks() {
  local flavour="$1" path words cmd entry section names type name first
  # The README's examples, exactly.
  expect_words "$flavour: subcommand prefix" check gpuspec ch
  expect_words "$flavour: option prefix" --format gpuspec check --fo
  expect_words "$flavour: db subcommand" history gpuspec db hi
  expect_words "$flavour: --format's choices" "$(choices_of "$(help_entries check |
    awk -F'\t' '$2 == "--format" { print $3 }')")" gpuspec check --format ''
  expect_words "$flavour: --format=j (split at =)" $'json\njunit' gpuspec check --format = j
  # A flag takes no value: the word after it is the report (a file), not --json's value.
  expect_words "$flavour: after a flag" "$file_words" gpuspec check --json ''
  expect_words "$flavour: after an option's value" --format gpuspec check --specs x.json --fo
  expect_words "$flavour: a file positional" $'report-a.json\nreport-b.json\nreports.d' \
    gpuspec check rep

  while IFS= read -r path; do
    read -ra words <<<"$path"
    cmd="gpuspec${path:+ $path}"
    if [[ -n "$(help_subcommands "${words[@]}")" ]]; then
      expect_words "$flavour: $cmd's subcommands" "$(help_subcommands "${words[@]}")" \
        gpuspec "${words[@]}" ''
    else
      expect_words "$flavour: $cmd's options" "$(help_options "${words[@]}")" \
        gpuspec "${words[@]}" -
    fi
    while IFS=$'\t' read -r section names type; do
      [[ $section == option && -n $type ]] || continue
      first="${names##*,}" # the long name
      case $type in
      *:\{*) expect_words "$flavour: $cmd $first's choices" "$(choices_of "$type")" \
        gpuspec "${words[@]}" "$first" '' ;;
      FILE*) expect_words "$flavour: $cmd $first FILE" "$file_words" \
        gpuspec "${words[@]}" "$first" '' ;;
      DIR*) expect_words "$flavour: $cmd $first DIR" reports.d gpuspec "${words[@]}" "$first" '' ;;
      BENCH*) expect_words "$flavour: $cmd $first BENCH" "$(benchmark_words)" \
        gpuspec "${words[@]}" "$first" '' ;;
      esac
    done < <(help_entries "${words[@]}")
    # A positional's choices (completion SHELL: bash, zsh), where it is the first.
    entry="$(help_entries "${words[@]}" | awk -F'\t' '$1 == "positional" { print; exit }')"
    if [[ -n $entry && -z "$(help_subcommands "${words[@]}")" ]]; then
      IFS=$'\t' read -r section name type <<<"$entry"
      case $type in
      *:\{*) expect_words "$flavour: $cmd $name's choices" "$(choices_of "$type")" \
        gpuspec "${words[@]}" '' ;;
      FILE*) expect_words "$flavour: $cmd $name FILE" "$file_words" gpuspec "${words[@]}" '' ;;
      esac
    fi
  done < <(help_commands "")
  # The registry's benchmarks exist in a CUDA build only; there `run --filter` must offer some.
  if [[ -n "$(benchmark_words)" && -z "$(complete_words gpuspec run --filter '')" ]]; then
    fail "$flavour: run --filter offers no benchmark where gpuspec list lists some"
  fi
}

# The tests' own guard: a bash that does not have _gpuspec after sourcing fails here, not later.
# shellcheck source=/dev/null
source "$script" || fail "sourcing $script failed"
declare -F _gpuspec >/dev/null || fail "$script defines no _gpuspec"
[[ "$(complete -p gpuspec 2>/dev/null)" == *"-F _gpuspec gpuspec"* ]] ||
  fail "$script does not register _gpuspec for gpuspec (complete -p: $(complete -p gpuspec 2>&1))"
run_checks "plain bash"

bash_completion=/usr/share/bash-completion/bash_completion
if [[ -r $bash_completion ]]; then
  # shellcheck source=/dev/null
  source "$bash_completion"
  if declare -F _filedir >/dev/null; then
    run_checks "with bash-completion"
  else
    echo "note: $bash_completion defines no _filedir: the bash-completion pass skipped"
  fi
else
  echo "note: no bash-completion installed: its pass skipped"
fi

if ((failures)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "bash completion: every command, option and value checked"
