// The bash script: one table function (each command's subcommands, options and the options that
// take a value), one for option values, one for positionals, and _gpuspec, which walks the words
// typed so far through that table. Plain bash 4 (complete -F, compgen, mapfile); bash-completion's
// _filedir where it is loaded (it quotes and expands ~ better than compgen -f alone).

#include <cctype>

#include <fmt/format.h>

#include "gpuspec/cli/completion_script.hpp"

namespace gpuspec::cli {

namespace {

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words)
    out += (out.empty() ? "" : " ") + w;
  return out;
}

/// A command's key in the script: "gpuspec_db_ingest".
std::string key_of(const command_spec& c) {
  std::string key;
  for (const auto& p : c.path)
    for (char ch : (key.empty() ? p : "_" + p))
      key += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return key;
}

/// The shell code that fills COMPREPLY for a value of this kind.
std::string value_action(const argument_spec& a) {
  switch (a.kind) {
  case value_kind::choice:
    return "_gpuspec_words " + quoted(joined(a.choices));
  case value_kind::file:
    return "_gpuspec_files";
  case value_kind::folder:
    return "_gpuspec_folders";
  case value_kind::benchmark:
    return "_gpuspec_benchmarks";
  case value_kind::none:
    break;
  }
  return "";
}

void for_each_command(const command_spec& c, const auto& f) {
  f(c);
  for (const auto& sub : c.subcommands)
    for_each_command(sub, f);
}

std::string table_function(const command_spec& root) {
  std::string out =
      "# _gpuspec_command KEY: sets subcommands, options and valued (the options that "
      "take a value,\n# space-delimited) for one command.\n"
      "_gpuspec_command() {\n  case $1 in\n";
  for_each_command(root, [&](const command_spec& c) {
    std::vector<std::string> subs, options, valued;
    for (const auto& s : c.subcommands)
      subs.push_back(s.name());
    for (const auto& o : c.options)
      for (const auto& n : o.names) {
        options.push_back(n);
        if (o.takes_value)
          valued.push_back(n);
      }
    out += fmt::format("  {})\n    subcommands={}\n    options={}\n    valued={}\n    ;;\n",
                       key_of(c), quoted(joined(subs)), quoted(joined(options)),
                       quoted(" " + joined(valued) + " "));
  });
  return out + "  esac\n}\n";
}

std::string values_function(const command_spec& root) {
  std::string out = "# _gpuspec_values KEY OPTION: COMPREPLY for a value of OPTION.\n"
                    "_gpuspec_values() {\n  case \"$1 $2\" in\n";
  for_each_command(root, [&](const command_spec& c) {
    for (const auto& o : c.options) {
      const auto action = value_action(o);
      if (!o.takes_value || action.empty())
        continue;
      std::string patterns;
      for (const auto& n : o.names)
        patterns += (patterns.empty() ? "" : " | ") + quoted(key_of(c) + " " + n);
      out += fmt::format("  {}) {} ;;\n", patterns, action);
    }
  });
  return out + "  esac\n}\n";
}

std::string positionals_function(const command_spec& root) {
  std::string out = "# _gpuspec_positional KEY INDEX: COMPREPLY for the INDEXth positional "
                    "argument (from 0).\n_gpuspec_positional() {\n  case $1 in\n";
  for_each_command(root, [&](const command_spec& c) {
    std::string cases;
    for (std::size_t i = 0; i < c.positionals.size(); ++i) {
      const auto& p = c.positionals[i];
      const bool last = i + 1 == c.positionals.size();
      const auto action = value_action(p);
      if (!action.empty())
        cases += fmt::format("    {}) {} ;;\n",
                             last && p.many ? std::string("*") : std::to_string(i), action);
    }
    if (!cases.empty())
      out += fmt::format("  {})\n    case $2 in\n{}    esac\n    ;;\n", key_of(c), cases);
  });
  return out + "  esac\n}\n";
}

constexpr const char* helpers =
    R"(_gpuspec_words() { mapfile -t COMPREPLY < <(compgen -W "$1" -- "$cur"); }
_gpuspec_files() {
  if declare -F _filedir >/dev/null; then _filedir; return; fi
  compopt -o filenames 2>/dev/null
  mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}
_gpuspec_folders() {
  if declare -F _filedir >/dev/null; then _filedir -d; return; fi
  compopt -o filenames 2>/dev/null
  mapfile -t COMPREPLY < <(compgen -d -- "$cur")
}
)";

constexpr const char* main_function =
    R"(# _gpuspec: walks the words before the cursor through _gpuspec_command (subcommands entered,
# options skipped with their values), then completes the current word: an option's value, an
# option, a subcommand or a positional argument. "--format=js" arrives split at '=' when
# COMP_WORDBREAKS holds it (bash's default), whole when not; both are handled.
_gpuspec() {
  local cur="${COMP_WORDS[COMP_CWORD]}" prev="" key=gpuspec word i npos=0 skip=0 option="" prefix=""
  local subcommands options valued
  COMPREPLY=()
  ((COMP_CWORD > 0)) && prev="${COMP_WORDS[COMP_CWORD - 1]}"
  _gpuspec_command "$key"
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="${COMP_WORDS[i]}"
    if ((skip)); then
      skip=0
      continue
    fi
    case $word in
    =) skip=1 ;;
    -*=*) ;;
    -*) [[ $valued == *" $word "* && ${COMP_WORDS[i + 1]} != = ]] && skip=1 ;;
    *)
      if [[ " $subcommands " == *" $word "* ]]; then
        key="${key}_${word//[^a-zA-Z0-9]/_}"
        npos=0
        _gpuspec_command "$key"
      else
        npos=$((npos + 1))
      fi
      ;;
    esac
  done
  if [[ $cur == = && $prev == -* ]]; then
    option=$prev
    cur=""
  elif ((skip)); then
    option=$prev
    [[ $option == = ]] && option="${COMP_WORDS[COMP_CWORD - 2]}"
  elif [[ $cur == -*=* ]]; then
    option="${cur%%=*}"
    prefix="$option="
    cur="${cur#*=}"
  fi
  if [[ -n $option ]]; then
    [[ $valued == *" $option "* ]] && _gpuspec_values "$key" "$option"
    [[ -n $prefix ]] && COMPREPLY=("${COMPREPLY[@]/#/$prefix}")
    return 0
  fi
  if [[ $cur == -* ]]; then
    _gpuspec_words "$options"
  elif [[ -n $subcommands ]]; then
    _gpuspec_words "$subcommands"
  else
    _gpuspec_positional "$key" "$npos"
  fi
  return 0
}
complete -F _gpuspec gpuspec
)";

} // namespace

std::string bash_completion_script(const command_spec& root, const completion_words& words) {
  std::string out =
      "# bash completion for gpuspec, generated by `gpuspec completion bash` from its command "
      "line's\n# definition: source it (source <(gpuspec completion bash)) or install it as\n"
      "# share/bash-completion/completions/gpuspec. Works with bash-completion and without.\n\n";
  out += table_function(root) + "\n" + values_function(root) + "\n" + positionals_function(root) +
         "\n" + helpers;
  out +=
      fmt::format("# The registry's benchmark ids and their dotted prefixes (none in a host-only "
                  "build); no space\n# after a lone prefix, so that the id can be typed on.\n"
                  "_gpuspec_benchmarks() {{\n  _gpuspec_words {}\n"
                  "  [[ ${{#COMPREPLY[@]}} -eq 1 && ${{COMPREPLY[0]}} == *. ]] && compopt -o "
                  "nospace 2>/dev/null\n  return 0\n}}\n\n",
                  quoted(joined(words.benchmarks)));
  return out + main_function;
}

} // namespace gpuspec::cli
