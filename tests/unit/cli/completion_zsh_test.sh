#!/usr/bin/env bash
# The zsh completion the build generated (<build>/completion/_gpuspec): it parses (zsh -n); in a
# bare zsh (zsh -f) with compinit, found in $fpath it is registered for gpuspec by its #compdef
# line, and sourced it registers itself; it defines a function for every command gpuspec's
# --help lists, and each function's _arguments names every option that command's --help lists,
# with its choices; and completion itself, in a zsh at a pseudo-terminal, offers every
# subcommand, option, choice and file as the bash test checks them. Skipped (77) where zsh is not installed (scripts/install-deps.sh installs it).
#
#   completion_zsh_test.sh GPUSPEC COMPLETION_SCRIPT WORK_DIR
set -uo pipefail

absolute() { [[ $1 == /* ]] && printf '%s\n' "$1" || printf '%s\n' "$PWD/$1"; }
gpuspec="$(absolute "$1")"
script="$(absolute "$2")"
work="$(absolute "$3")"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tests/unit/cli/cli_help.sh
source "$here/cli_help.sh"

zsh="$(command -v zsh)" || {
  echo "SKIP: no zsh installed"
  exit 77
}
help_cache_dir="$work/help"
rm -rf "$work"
mkdir -p "$help_cache_dir" "$work/fpath"
"$gpuspec" --help >/dev/null || {
  echo "FAIL: $gpuspec --help" >&2
  exit 1
}

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

"$zsh" -n "$script" || fail "zsh -n $script: does not parse"

# Installed: _gpuspec in a folder of $fpath, picked up by compinit from its #compdef line.
cp "$script" "$work/fpath/_gpuspec"
# shellcheck disable=SC2016 # zsh code, expanded by zsh
got="$(HOME="$work" "$zsh" -f -c 'fpath=("$1" $fpath); autoload -Uz compinit
compinit -u -d "$2/zcompdump"; print -r -- "${_comps[gpuspec]-none}"' zsh "$work/fpath" "$work")"
[[ $got == _gpuspec ]] || fail "from \$fpath, compinit registered '$got' for gpuspec, not _gpuspec"

# Sourced after compinit: it registers itself, and every command's function is defined. The
# functions' text is kept for the option checks below.
functions_file="$work/functions"
# shellcheck disable=SC2016 # zsh code, expanded by zsh
HOME="$work" "$zsh" -f -c 'autoload -Uz compinit; compinit -u -d "$2/zcompdump"
source "$1" || exit 1
print -r -- "registered ${_comps[gpuspec]-none}"
for f in ${(ok)functions[(I)_gpuspec*]}; do print -r -- "function $f"; functions $f; done' \
  zsh "$script" "$work" >"$functions_file" 2>"$work/zsh.err" || fail "sourcing $script in zsh failed"
[[ -s $work/zsh.err ]] && fail "zsh printed errors: $(cat "$work/zsh.err")"
grep -qx 'registered _gpuspec' "$functions_file" || fail "sourced, $script registered no _gpuspec"

# function_text NAME: the body of one function, as zsh prints it.
function_text() {
  awk -v name="$1" '/^function / { on = ($2 == name); next } on' "$functions_file"
}

while IFS= read -r path; do
  read -ra words <<<"$path"
  name="_gpuspec${path:+_${path// /_}}"
  body="$(function_text "$name")"
  if [[ -z $body ]]; then
    fail "no function $name for 'gpuspec $path'"
    continue
  fi
  for sub in $(help_subcommands "${words[@]}"); do
    grep -qF "'$sub:" <<<"$body" || fail "$name does not offer the subcommand $sub"
  done
  while IFS=$'\t' read -r section names type; do
    [[ $section == option ]] || continue
    for option in ${names//,/ }; do
      # An _arguments spec names it as '--specs=', {-o+,--output=} or '--json['.
      grep -qE -- "(^|[{'(, ])${option}([]=+,}' []|\$)" <<<"$body" ||
        fail "$name has no spec for $option"
    done
    if [[ $type == *:\{* ]]; then
      choices="($(choices_of "$type" | tr '\n' ' ' | sed 's/ $//'))"
      grep -qF -- "$choices" <<<"$body" || fail "$name: ${names##*,} does not offer $choices"
    fi
  done < <(help_entries "${words[@]}")
done < <(help_commands "")

# Completion itself, as a user at a terminal gets it (zsh_complete.zsh: a zsh in a pseudo-terminal,
# a Tab typed), against --help as the bash test does: subcommands, options, choices, files.
files_dir="$work/files"
mkdir -p "$files_dir/reports.d"
: >"$files_dir/report-a.json"
: >"$files_dir/report-b.json"
file_words=$'report-a.json\nreport-b.json\nreports.d'
# zcomplete LINE: the sorted matches for LINE (cursor at the end).
zcomplete() {
  (cd "$files_dir" && HOME="$work" timeout 20 "$zsh" -f "$here/zsh_complete.zsh" "$script" \
    "$work/zcompdump-pty" "$1") | sed '/^$/d' | LC_ALL=C sort -u
}
# zexpect DESCRIPTION EXPECTED LINE
zexpect() {
  local got expected
  got="$(zcomplete "$3")"
  expected="$(LC_ALL=C sort -u <<<"$2" | sed '/^$/d')"
  [[ $got == "$expected" ]] ||
    fail "zsh: $1: '$3' completed to [$(tr '\n' ' ' <<<"$got")], expected [$(tr '\n' ' ' <<<"$expected")]"
}
if [[ "$(zcomplete 'gpuspec ch')" != check ]]; then
  fail "zsh: 'gpuspec ch' does not complete to check in a pseudo-terminal: completion itself unchecked"
else
  zexpect "option prefix" --format 'gpuspec check --fo'
  zexpect "--format=j" $'json\njunit' 'gpuspec check --format=j'
  zexpect "after a flag" "$file_words" 'gpuspec check --json '
  zexpect "a file positional" "$file_words" 'gpuspec check rep'
  zexpect "db subcommand" history 'gpuspec db hi'
  benchmarks=""
  if listing="$("$gpuspec" list --json 2>/dev/null)"; then
    benchmarks="$(python3 -c 'import json, sys
words = set()
for e in json.load(sys.stdin):
    parts = e["id"].split(".")
    words.add(e["id"])
    words.update(".".join(parts[:i]) + "." for i in range(1, len(parts)))
print("\n".join(sorted(words)))' <<<"$listing")"
  fi
  while IFS= read -r path; do
    read -ra words <<<"$path"
    line="gpuspec${path:+ $path} "
    subs="$(help_subcommands "${words[@]}")"
    if [[ -n $subs ]]; then
      zexpect "${line}subcommands" "$subs" "$line"
      continue
    fi
    zexpect "${line}options" "$(help_options "${words[@]}")" "$line-"
    while IFS=$'\t' read -r section names type; do
      [[ -n $type ]] || continue
      if [[ $section == positional ]]; then
        [[ $type == *:\{* ]] && zexpect "$line${names}'s choices" "$(choices_of "$type")" "$line"
        continue
      fi
      case $type in
      *:\{*) zexpect "$line${names##*,}'s choices" "$(choices_of "$type")" "$line${names##*,} " ;;
      FILE*) zexpect "$line${names##*,} FILE" "$file_words" "$line${names##*,} " ;;
      DIR*) zexpect "$line${names##*,} DIR" reports.d "$line${names##*,} " ;;
      BENCH*) zexpect "$line${names##*,} BENCH" "$benchmarks" "$line${names##*,} " ;;
      esac
    done < <(help_entries "${words[@]}")
  done < <(help_commands "")
fi

if ((failures)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "zsh completion: parses, registers, every command and option present"
