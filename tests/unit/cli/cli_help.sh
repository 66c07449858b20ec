# shellcheck shell=bash
# Sourced by the completion and man page tests: gpuspec's command line as its --help prints it
# (CLI11's formatter), read independently of cli/src/cli_model.cpp, from which the completion scripts
# and the pages are generated, so that a command, an option or a choice the generator loses
# makes a test fail. Needs $gpuspec (the executable, or its emulator wrapper).

# shellcheck disable=SC2154 # gpuspec and help_cache_dir: set by the test that sources this
# help_of WORD...: `gpuspec WORD... --help`, run once per command: kept as a file in
# $help_cache_dir (set by the test; subshells see the files, as they would not see a variable).
help_of() {
  local file="$help_cache_dir/help${*:+_}${*// /_}"
  if [[ ! -e $file ]]; then
    # Written beside, then renamed: parallel subshells (process substitutions) ask too.
    local partial="$file.$BASHPID"
    "$gpuspec" "$@" --help >"$partial" || {
      echo "FAIL: gpuspec $* --help exited non-zero" >&2
      return 1
    }
    mv "$partial" "$file"
  fi
  cat "$file"
}

# help_entries WORD...: "SECTION<TAB>NAMES<TAB>TYPE" per entry of the Options (option groups'
# included), Positionals and Subcommands sections; TYPE is what follows the names
# ("FILE", "TEXT:{table,md}=table"), empty for a flag or a subcommand.
help_entries() {
  help_of "$@" | awk '
    /^Options:$/ || /^  Options:$/ { section = "option"; next }
    /^Positionals:$/ { section = "positional"; next }
    /^Subcommands:$/ { section = "subcommand"; next }
    /^\[Option Group: / { section = ""; next }
    /^[^ ]/ { section = ""; next }
    section != "" && (/^  [^ ]/ || /^    [^ ]/) {
      line = $0
      sub(/^ +/, "", line)
      # The names and their type end where the description starts (two spaces) or at the end.
      cut = index(line, "  ")
      if (cut > 0) line = substr(line, 1, cut - 1)
      names = line; type = ""
      space = index(line, " ")
      if (space > 0) { names = substr(line, 1, space - 1); type = substr(line, space + 1) }
      if (section == "subcommand") type = ""
      printf "%s\t%s\t%s\n", section, names, type
    }'
}

# help_subcommands WORD...: the public subcommands of `gpuspec WORD...`, one a line.
help_subcommands() { help_entries "$@" | awk -F'\t' '$1 == "subcommand" { print $2 }'; }

# help_options WORD...: every option name ("-o", "--output"), one a line.
help_options() {
  help_entries "$@" | awk -F'\t' '$1 == "option" { n = split($2, a, ","); for (i = 1; i <= n; i++) print a[i] }'
}

# help_commands: every command path ("", "check", "db history"), one a line, depth first.
help_commands() {
  local prefix="$1" sub words
  printf '%s\n' "$prefix"
  read -ra words <<<"$prefix"
  for sub in $(help_subcommands "${words[@]}"); do
    help_commands "${prefix:+$prefix }$sub"
  done
}

# choices_of TYPE: "TEXT:{table,md}=table" or "TEXT:{a->1,b->2}" -> the words, one a line.
choices_of() {
  local type="$1"
  [[ $type == *:\{*\}* ]] || return 0
  type="${type#*:\{}"
  type="${type%%\}*}"
  tr ',' '\n' <<<"$type" | sed 's/->.*//'
}
