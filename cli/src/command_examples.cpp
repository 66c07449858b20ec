// The examples table (command_examples.hpp). Each line uses only options its command defines
// (cli_examples_test parses every one of them with gpuspec's own command line definition).

#include "gpuspec/cli/command_examples.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "gpuspec/cli/exit_code.hpp"

namespace gpuspec::cli {

namespace {

struct command_examples {
  std::string_view command;
  std::span<const command_example> examples;
};

constexpr command_example info_examples[] = {
    {"gpuspec info", "the host, its GPUs, links and host checks"},
    {"gpuspec info --json > node-info.json", "the inventory for `import --inventory`"},
};
constexpr command_example list_examples[] = {
    {"gpuspec list", "every benchmark, its suites and parameters"},
};
constexpr command_example run_examples[] = {
    {"gpuspec run", "the quick suite on every GPU; the report and the verdicts"},
    {"gpuspec run --suite standard -o node.json --html node.html", "keep the report and its page"},
    {"gpuspec run --filter 'memory\\.stream' --devices 0,2", "STREAM on GPUs 0 and 2 only"},
    {"gpuspec run --suite burnin --duration 8h", "an acceptance burn-in"},
};
constexpr command_example check_examples[] = {
    {"gpuspec check node.json", "judge a report against the spec table"},
    {"gpuspec check -v node.json", "also list the passing results"},
    {"gpuspec check reports/*.json", "a fleet: the nodes not passing first"},
    {"gpuspec check --baseline before.json after.json", "against a node's own earlier run"},
    {"gpuspec check --format html -o node.html node.json", "the page for a ticket"},
    {"gpuspec check all_reduce_perf.log", "another tool's log (docs/import.md)"},
};
constexpr command_example import_examples[] = {
    {"gpuspec import all_reduce_perf.log -o node.json", "an nccl-tests log into a report"},
    {"gpuspec import gpu_burn.log --inventory node-info.json -o node.json",
     "with the node's links and serials"},
};
constexpr command_example specs_examples[] = {
    {"gpuspec specs", "the spec table"},
    {"gpuspec specs h100-sxm5-80gb", "one model's datasheet figures"},
    {"gpuspec specs --check", "recompute every peak from its parts"},
};
constexpr command_example diff_examples[] = {
    {"gpuspec diff before.json after.json", "the regressions first, judged against noise"},
    {"gpuspec diff --format md -o diff.md before.json after.json", "for a ticket"},
};
constexpr command_example compare_examples[] = {
    {"gpuspec compare node-*.json", "the outliers of a fleet, named"},
    {"gpuspec compare -v a100-node.json t4-node.json", "every GPU side by side, by spec"},
};
constexpr command_example health_examples[] = {
    {"gpuspec health", "the passive check: counters, Xids, links, driver"},
    {"gpuspec health --format reason", "one line for a scheduler's drain reason"},
    {"gpuspec health --format prom -o /var/lib/prometheus/node-exporter/gpuspec.prom",
     "for node_exporter's textfile collector"},
};
constexpr command_example db_examples[] = {
    {"gpuspec db ingest --db fleet.sqlite reports/", "file every report in a folder"},
    {"gpuspec db history --db fleet.sqlite --node node-7", "a node's runs over time"},
    {"gpuspec db stale --db fleet.sqlite --older-than 30d", "nodes not passed in 30 days"},
    {"gpuspec db lemons --db fleet.sqlite", "GPUs that failed more than once"},
};
constexpr command_example completion_examples[] = {
    {"gpuspec completion bash > /etc/bash_completion.d/gpuspec", "bash completion"},
};

constexpr command_examples table[] = {
    {"info", info_examples},
    {"list", list_examples},
    {"run", run_examples},
    {"check", check_examples},
    {"import", import_examples},
    {"specs", specs_examples},
    {"diff", diff_examples},
    {"compare", compare_examples},
    {"health", health_examples},
    {"db", db_examples},
    {"completion", completion_examples},
};

} // namespace

std::span<const command_example> examples_of(std::string_view command) {
  for (const auto& row : table)
    if (row.command == command)
      return row.examples;
  return {};
}

std::string help_footer(std::string_view command) {
  std::string out;
  const auto examples = examples_of(command);
  if (!examples.empty()) {
    out += "Examples:\n";
    for (const auto& e : examples)
      out += fmt::format("  {}\n      {}\n", e.command_line, e.what);
  }
  out += "Exit codes:";
  for (const auto& m : exit_code_meanings) {
    const std::string_view meaning = m.meaning;
    out += fmt::format(" {} {},", to_int(m.code), meaning.substr(0, meaning.find(':')));
  }
  out.back() = '\n';
  out += "(man gpuspec";
  if (!examples.empty())
    out += fmt::format("-{}", command);
  out += " says more)";
  return out;
}

void add_example_footers(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands({}))
    if (!sub->get_group().empty())
      sub->footer(help_footer(sub->get_name()));
}

} // namespace gpuspec::cli
