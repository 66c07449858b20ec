#include "gpuspec/cli/cli_model.hpp"

#include <algorithm>
#include <set>

namespace gpuspec::cli {

std::string command_spec::display_path() const {
  std::string out;
  for (const auto& p : path)
    out += (out.empty() ? "" : " ") + p;
  return out;
}

std::vector<std::string> choices_of(std::string_view type_name) {
  // CLI11 appends each validator's description to the type name after a ':'; a set prints as
  // "{a,b,c}" (detail::generate_set), a map as "{a->x,b->y}" (detail::generate_map).
  const auto open = type_name.find(":{");
  if (open == std::string_view::npos || type_name.back() != '}')
    return {};
  const std::string_view set = type_name.substr(open + 2, type_name.size() - open - 3);
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= set.size()) {
    const auto comma = std::min(set.find(',', start), set.size());
    std::string_view word = set.substr(start, comma - start);
    word = word.substr(0, word.find("->"));
    if (!word.empty())
      out.emplace_back(word);
    start = comma + 1;
  }
  return out;
}

namespace {

value_kind kind_of(const std::string& name, const std::vector<std::string>& choices) {
  if (!choices.empty())
    return value_kind::choice;
  if (name == value_name::file)
    return value_kind::file;
  if (name == value_name::folder)
    return value_kind::folder;
  if (name == value_name::benchmark)
    return value_kind::benchmark;
  return value_kind::none;
}

argument_spec describe_option(const CLI::Option& opt) {
  argument_spec a;
  a.positional = opt.get_positional();
  if (a.positional) {
    a.names.push_back(opt.get_name(true));
  } else {
    for (const auto& s : opt.get_snames())
      a.names.push_back("-" + s);
    for (const auto& l : opt.get_lnames())
      a.names.push_back("--" + l);
  }
  // A flag's type size is CLI11's default (1); add_flag sets its expected count to 0.
  a.takes_value = opt.get_items_expected_max() > 0;
  const std::string type = opt.get_type_name();
  a.value_name = type.substr(0, type.find(':'));
  a.choices = choices_of(type);
  a.kind = a.takes_value ? kind_of(a.value_name, a.choices) : value_kind::none;
  a.default_value = opt.get_default_str();
  a.description = opt.get_description();
  a.required = opt.get_required();
  a.many = opt.get_items_expected_max() > 1;
  return a;
}

bool hidden(const CLI::Option* opt) { return opt->get_group().empty(); }

/// The options of `app` and of its option groups (CLI11 keeps those in nameless subcommands).
void collect_arguments(const CLI::App& app, command_spec& out) {
  for (const CLI::Option* opt : app.get_options()) {
    if (hidden(opt))
      continue;
    auto a = describe_option(*opt);
    auto& list = a.positional ? out.positionals : out.options;
    // An option group repeats its parent's help flag ("--help"): listed once.
    if (std::none_of(list.begin(), list.end(), [&](const argument_spec& seen) {
          return std::find(seen.names.begin(), seen.names.end(), a.names.back()) !=
                 seen.names.end();
        }))
      list.push_back(std::move(a));
  }
  for (const CLI::App* group :
       app.get_subcommands([](const CLI::App* sub) { return sub->get_name().empty(); }))
    collect_arguments(*group, out);
}

command_spec describe(const CLI::App& app, std::vector<std::string> path) {
  command_spec out;
  out.path = std::move(path);
  out.description = app.get_description();
  out.needs_subcommand = app.get_require_subcommand_min() > 0;
  collect_arguments(app, out);
  for (const CLI::App* sub : app.get_subcommands(
           [](const CLI::App* s) { return !s->get_name().empty() && !s->get_group().empty(); })) {
    auto sub_path = out.path;
    sub_path.push_back(sub->get_name());
    out.subcommands.push_back(describe(*sub, std::move(sub_path)));
  }
  return out;
}

} // namespace

command_spec describe_command_line(const CLI::App& app) {
  // Not app.get_name(): CLI11 names the root after argv[0] once it has parsed ("./gpuspec").
  return describe(app, {"gpuspec"});
}

std::vector<std::string> benchmark_words(const std::vector<host::benchmark_listing>& listings) {
  std::set<std::string> words;
  for (const auto& l : listings) {
    words.insert(l.id);
    for (auto dot = l.id.find('.'); dot != std::string::npos; dot = l.id.find('.', dot + 1))
      words.insert(l.id.substr(0, dot + 1));
  }
  return {words.begin(), words.end()};
}

} // namespace gpuspec::cli
