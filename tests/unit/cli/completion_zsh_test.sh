#!/usr/bin/env bash
# The zsh completion the build generated (<build>/completion/_gpuspec): it parses (zsh -n); in a
# bare zsh (zsh -f) with compinit, found in $fpath it is registered for gpuspec by its #compdef
# line, and sourced it registers itself; it defines a function for every command gpuspec's
# --help lists, and each function's _arguments names every option that command's --help lists,
# with its choices. Skipped (77) where zsh is not installed (scripts/install-deps.sh installs it).
#
#   completion_zsh_test.sh GPUSPEC COMPLETION_SCRIPT WORK_DIR
set -uo pipefail

absolute() { [[ $1 == /* ]] && printf '%s\n' "$1" || printf '%s\n' "$PWD/$1"; }
gpuspec="$(absolute "$1")"
script="$(absolute "$2")"
work="$(absolute "$3")"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
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
got="$(HOME="$work" "$zsh" -f -c 'fpath=("$1" $fpath); autoload -Uz compinit
compinit -u -d "$2/zcompdump"; print -r -- "${_comps[gpuspec]-none}"' zsh "$work/fpath" "$work")"
[[ $got == _gpuspec ]] || fail "from \$fpath, compinit registered '$got' for gpuspec, not _gpuspec"

# Sourced after compinit: it registers itself, and every command's function is defined. The
# functions' text is kept for the option checks below.
functions_file="$work/functions"
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

if ((failures)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "zsh completion: parses, registers, every command and option present"
