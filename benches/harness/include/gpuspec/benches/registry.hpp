#pragma once
/// The benchmark registry (nvbench's model): a benchmark is one function plus one registration
/// line. Host types only.
///
///   void stream_triad(bench_state& state);              // allocate, declare, exec, verify
///
///   void register_stream_benchmarks(registry& r) {      // one line per benchmark
///     r.add("memory.stream.triad", "a = b + s*c", stream_triad)
///         .in_suites({"quick", "standard", "full"})
///         .with_axis("dtype", {"fp32", "fp64"});
///   }
///
/// Each family's register function is called by register_all_families (all_families.cpp), and
/// benchmark_registry() fills the one registry once (a function-local static; no static
/// initialisers elsewhere).
///
/// Suites (docs/design.md): quick (the default: one size per family), standard, burnin, full. A
/// benchmark runs in the suites it names, and every benchmark runs in full. In quick and burnin
/// each axis takes only its leading `quick_count` values (1 unless said); standard and full take
/// every value.

#include <cstddef>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuspec/spine/deadlines.hpp"

namespace gpuspec::benches {

class bench_state;
class node_state;
using benchmark_function = std::function<void(bench_state&)>;
using node_function = std::function<void(node_state&)>;

/// Where a benchmark runs: on each selected GPU in its own worker (bench_state), or once over
/// the node's selected GPUs together in one worker (node_state: collectives, peer copies).
enum class bench_scope { device, node };

inline constexpr std::string_view suite_names[] = {"quick", "standard", "burnin", "full"};
[[nodiscard]] bool is_known_suite(std::string_view suite);

/// The values of an axis that depends on the node: given the NVML indices of the GPUs the plan
/// is for (spine::plan_request::gpus) and the suite, every value to run (transfer.p2p's pairs).
using node_axis_values =
    std::function<std::vector<std::string>(const std::vector<int>& gpus, std::string_view suite)>;

/// A parameter axis, e.g. dtype {fp32, fp64}. Values are strings: the benchmark reads
/// state.axis("dtype") and dispatches.
struct axis {
  std::string name;
  std::vector<std::string> values;
  std::size_t quick_count = 1; ///< values run in quick and burnin (the leading ones)
  /// Set for an axis planned from the node (with_node_axis): `values` is then empty, and the
  /// suite's choice is the function's.
  node_axis_values from_node;
};

class benchmark_definition {
public:
  benchmark_definition(std::string id, std::string description, benchmark_function run);
  benchmark_definition(std::string id, std::string description, node_function run);

  /// Suites this benchmark belongs to (it always belongs to full). Throws std::invalid_argument
  /// for a name that is not a suite.
  benchmark_definition& in_suites(std::vector<std::string> suites);
  /// Adds an axis. Throws std::invalid_argument for an empty or duplicate axis, or no values.
  benchmark_definition& with_axis(std::string name, std::vector<std::string> values,
                                  std::size_t quick_count = 1);
  /// Adds an axis whose values are planned from the node's GPUs (node_axis_values): a node-wide
  /// benchmark's pairs. No values on a node (one GPU): the benchmark has no case there. Throws
  /// std::invalid_argument for an empty or duplicate name or no function.
  benchmark_definition& with_node_axis(std::string name, node_axis_values values);
  /// More time than the default 60 s for what a case does outside its timed runs (allocation,
  /// initialisation, host-side verification): the watchdog's allowance (docs/architecture.md,
  /// "Deadlines"). Throws std::invalid_argument for a value that is not positive.
  benchmark_definition& with_setup_allowance(double seconds);
  /// The benchmark runs for the burn-in's --duration (run_options::duration_s) whatever the
  /// stopping rule; the watchdog adds the duration to its cases' deadline (deadlines.hpp).
  benchmark_definition& runs_for_the_duration();

  [[nodiscard]] const std::string& id() const { return m_id; }
  [[nodiscard]] const std::string& description() const { return m_description; }
  [[nodiscard]] const std::vector<std::string>& suites() const { return m_suites; }
  [[nodiscard]] const std::vector<axis>& axes() const { return m_axes; }
  /// The one-GPU function (scope device); empty for a node-wide benchmark.
  [[nodiscard]] const benchmark_function& function() const { return m_run; }
  /// The node-wide function (scope node); empty for a one-GPU benchmark.
  [[nodiscard]] const node_function& node_run() const { return m_node_run; }
  [[nodiscard]] bench_scope scope() const {
    return m_node_run ? bench_scope::node : bench_scope::device;
  }
  [[nodiscard]] double setup_allowance_s() const { return m_setup_allowance_s; }
  [[nodiscard]] bool runs_for_duration() const { return m_runs_for_duration; }
  /// True if the benchmark runs in `suite` (full holds every benchmark).
  [[nodiscard]] bool runs_in(std::string_view suite) const;
  /// "dtype=fp32|fp64 size=..." for `gpuspec list`.
  [[nodiscard]] std::string axes_text() const;

private:
  std::string m_id;
  std::string m_description;
  benchmark_function m_run;
  node_function m_node_run;
  std::vector<std::string> m_suites;
  std::vector<axis> m_axes;
  double m_setup_allowance_s = spine::default_setup_allowance_s;
  bool m_runs_for_duration = false;
};

class registry {
public:
  /// Registers a benchmark and returns it for the chained in_suites/with_axis calls (the
  /// reference stays valid: definitions live in a deque). Throws std::invalid_argument for an
  /// id that is not dotted lower-case ("memory.stream.triad") or is already registered.
  benchmark_definition& add(std::string id, std::string description, benchmark_function run);
  /// Registers a node-wide benchmark (node_state.hpp): one case runs once over every selected
  /// GPU, in one worker, after the one-GPU cases. Same rules for the id.
  benchmark_definition& add_node(std::string id, std::string description, node_function run);

  [[nodiscard]] const std::deque<benchmark_definition>& benchmarks() const { return m_benchmarks; }
  [[nodiscard]] const benchmark_definition* find(std::string_view id) const;

private:
  /// Throws std::invalid_argument for an id that is not dotted lower-case or already taken.
  void check_new_id(const std::string& id) const;
  std::deque<benchmark_definition> m_benchmarks;
};

/// One case: a definition with one value per axis.
struct bench_case {
  const benchmark_definition* definition = nullptr;
  std::vector<std::pair<std::string, std::string>> values; ///< (axis, value), in axis order

  [[nodiscard]] const std::string& id() const { return definition->id(); }
  /// "dtype=fp32" ("" without axes), for progress lines and names.
  [[nodiscard]] std::string parameters_text() const;
  /// The value of `axis`; throws std::out_of_range naming the axis and the benchmark.
  [[nodiscard]] const std::string& value(std::string_view axis) const;
};

/// "" if `suite` and `filter` are usable, else one sentence saying what is wrong.
[[nodiscard]] std::string check_selection(std::string_view suite, std::string_view filter);

/// The cases of `suite` whose id the ECMAScript regex `filter` finds anywhere ("" = every id),
/// in registration order, axes expanded (the first axis varies slowest); an axis planned from
/// the node takes its values for `gpus` (NVML indices of the GPUs measured). Throws
/// std::invalid_argument with check_selection's sentence for a bad suite or filter.
[[nodiscard]] std::vector<bench_case> select_cases(const registry& r, std::string_view suite,
                                                   std::string_view filter,
                                                   const std::vector<int>& gpus = {});

/// Every family's benchmarks, registered on first use.
[[nodiscard]] const registry& benchmark_registry();

} // namespace gpuspec::benches
