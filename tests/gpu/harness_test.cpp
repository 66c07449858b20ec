// Host tests of the harness's pure parts: PCI bus id matching, array sizing, the registry
// (suites, axes, filter), verification helpers, NCCL version text, node_state's sampling and
// result (the one builder). The ceilings are host code and tested in the host tier
// (tests/unit/host/ceilings_test.cpp).

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "gpuspec/benches/array_sizing.hpp"
#include "gpuspec/benches/device_offer.hpp"
#include "gpuspec/benches/node_state.hpp"
#include "gpuspec/benches/registry.hpp"
#include "gpuspec/benches/verification.hpp"
#include "gpuspec/collectives/nccl_version.hpp"
#include "gpuspec/host/measurement_options.hpp"
#include "gpuspec/host/p2p_plan.hpp"
#include "gpuspec/host/pci_bus_id.hpp"
#include "gpuspec/kernels/stream_math.hpp"

namespace b = gpuspec::benches;
using gpuspec::reports::verification_status;

TEST(pci_bus_id, nvml_and_cuda_spellings_match) {
  EXPECT_EQ(gpuspec::host::normalize_pci_bus_id("00000000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(gpuspec::host::normalize_pci_bus_id("0000:3b:00.0"), "0000:3b:00.0");
  EXPECT_EQ(gpuspec::host::normalize_pci_bus_id("00000001:C1:1F.7"), "0001:c1:1f.7");
  EXPECT_EQ(gpuspec::host::normalize_pci_bus_id(" 0000:3b:00.0\n"), "0000:3b:00.0");
  EXPECT_EQ(gpuspec::host::normalize_pci_bus_id("0000:3b:00.0"),
            gpuspec::host::normalize_pci_bus_id("00000000:3B:00.0"));
  EXPECT_NE(gpuspec::host::normalize_pci_bus_id("0000:3b:00.0"),
            gpuspec::host::normalize_pci_bus_id("0000:3c:00.0"));
}

TEST(pci_bus_id, garbage_gives_empty) {
  EXPECT_EQ(gpuspec::host::normalize_pci_bus_id(""), "");
  EXPECT_EQ(gpuspec::host::normalize_pci_bus_id("GPU-1234"), "");
  EXPECT_EQ(gpuspec::host::normalize_pci_bus_id("0000:3b:00"), "");
  EXPECT_EQ(gpuspec::host::normalize_pci_bus_id("0000:3g:00.0"), "");
  EXPECT_EQ(gpuspec::host::normalize_pci_bus_id("0000:3b:00.9"), "");
}

TEST(array_sizing, keeps_the_request_when_it_fits) {
  const auto fit = b::fit_arrays(std::uint64_t{1} << 30, 3, std::uint64_t{80} << 30,
                                 std::uint64_t{256} << 20, std::uint64_t{50} << 20);
  EXPECT_EQ(fit.bytes_per_array, std::uint64_t{1} << 30);
  EXPECT_FALSE(fit.shrunk);
  EXPECT_FALSE(fit.below_4x_l2);
}

TEST(array_sizing, shrinks_to_an_equal_share_in_whole_mib) {
  // 1 GiB + 256 MiB reserve free: three arrays get (1 GiB)/3 each, rounded down to a MiB.
  const auto fit = b::fit_arrays(std::uint64_t{1} << 30, 3,
                                 (std::uint64_t{1} << 30) + (std::uint64_t{256} << 20),
                                 std::uint64_t{256} << 20, std::uint64_t{6} << 20);
  EXPECT_TRUE(fit.shrunk);
  EXPECT_EQ(fit.bytes_per_array, std::uint64_t{341} << 20);
  EXPECT_EQ(fit.bytes_per_array % (std::uint64_t{1} << 20), 0u);
  EXPECT_FALSE(fit.below_4x_l2);
}

TEST(array_sizing, flags_arrays_under_four_l2_and_nothing_free) {
  const auto small =
      b::fit_arrays(std::uint64_t{1} << 20, 2, std::uint64_t{8} << 30, 0, std::uint64_t{50} << 20);
  EXPECT_TRUE(small.below_4x_l2);
  EXPECT_FALSE(small.shrunk);
  const auto none = b::fit_arrays(std::uint64_t{1} << 30, 3, std::uint64_t{100} << 20,
                                  std::uint64_t{256} << 20, 0);
  EXPECT_EQ(none.bytes_per_array, 0u);
  EXPECT_TRUE(none.shrunk);
}

namespace {
void noop(b::bench_state& /*state*/) {}
} // namespace

TEST(registry, rejects_bad_ids_suites_and_axes) {
  b::registry r;
  EXPECT_THROW(r.add("Memory.Stream", "", noop), std::invalid_argument);
  EXPECT_THROW(r.add("nodots", "", noop), std::invalid_argument);
  r.add("a.b", "", noop);
  EXPECT_THROW(r.add("a.b", "", noop), std::invalid_argument);
  EXPECT_THROW(r.add("a.c", "", noop).in_suites({"nightly"}), std::invalid_argument);
  EXPECT_THROW(r.add("a.d", "", noop).with_axis("dtype", {}), std::invalid_argument);
  EXPECT_THROW(r.add("a.e", "", noop).with_axis("x", {"1"}).with_axis("x", {"2"}),
               std::invalid_argument);
  EXPECT_THROW(r.add("a.f", "", nullptr), std::invalid_argument);
}

TEST(registry, suites_take_the_quick_values_or_all_values) {
  b::registry r;
  r.add("mem.x", "x", noop)
      .in_suites({"quick", "standard"})
      .with_axis("dtype", {"fp32", "fp64"})
      .with_axis("size", {"s", "m", "l"}, 2);
  r.add("mem.y", "y", noop).in_suites({"standard"});
  r.add("gemm.z", "z", noop).in_suites({"burnin"}).with_axis("dtype", {"fp16", "bf16"});

  const auto quick = b::select_cases(r, "quick", "");
  ASSERT_EQ(quick.size(), 2u); // fp32 x {s, m}
  EXPECT_EQ(quick[0].parameters_text(), "dtype=fp32 size=s");
  EXPECT_EQ(quick[1].parameters_text(), "dtype=fp32 size=m");
  EXPECT_EQ(quick[1].value("size"), "m");
  EXPECT_THROW((void)quick[1].value("nope"), std::out_of_range);

  const auto standard = b::select_cases(r, "standard", "");
  ASSERT_EQ(standard.size(), 7u); // 2 x 3 of mem.x, then mem.y
  EXPECT_EQ(standard[0].id(), "mem.x");
  EXPECT_EQ(standard[5].parameters_text(), "dtype=fp64 size=l");
  EXPECT_EQ(standard[6].id(), "mem.y");
  EXPECT_EQ(standard[6].parameters_text(), "");

  const auto burnin = b::select_cases(r, "burnin", "");
  ASSERT_EQ(burnin.size(), 1u);
  EXPECT_EQ(burnin[0].id(), "gemm.z");

  EXPECT_EQ(b::select_cases(r, "full", "").size(), 9u); // everything, every value
}

TEST(registry, a_node_axis_is_planned_from_the_gpus_measured) {
  b::registry r;
  const b::node_function node_noop = [](b::node_state&) {};
  r.add_node("peer.x", "x", node_noop)
      .in_suites({"quick", "standard"})
      .with_node_axis("pair", gpuspec::host::p2p_planned_pairs)
      .with_axis("engine", {"ce", "sm"});
  EXPECT_TRUE(b::select_cases(r, "quick", "", {0}).empty()) << "one GPU: no pair, no case";
  EXPECT_TRUE(b::select_cases(r, "quick", "").empty()) << "no GPU given: no case";
  EXPECT_EQ(b::select_cases(r, "quick", "", {0, 1}).size(), 2u); // 2 pairs x ce
  EXPECT_EQ(b::select_cases(r, "quick", "", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}).size(), 20u);
  const auto standard = b::select_cases(r, "standard", "", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  ASSERT_EQ(standard.size(), 90u * 2);
  EXPECT_EQ(standard.back().parameters_text(), "pair=9->8 engine=sm");
  EXPECT_NE(r.find("peer.x")->axes_text().find("pair=<planned from the node's GPUs>"),
            std::string::npos);
  EXPECT_THROW(r.add_node("peer.y", "", node_noop).with_node_axis("pair", nullptr),
               std::invalid_argument);
}

TEST(registry, filter_is_an_ecmascript_search_in_the_id) {
  b::registry r;
  r.add("memory.stream.copy", "", noop).in_suites({"quick"});
  r.add("memory.stream.triad", "", noop).in_suites({"quick"});
  r.add("gemm.cublas.fp16_tc", "", noop).in_suites({"quick"});
  EXPECT_EQ(b::select_cases(r, "quick", "triad").size(), 1u);
  EXPECT_EQ(b::select_cases(r, "quick", "^memory\\.").size(), 2u);
  EXPECT_EQ(b::select_cases(r, "quick", "copy|fp16").size(), 2u);
  EXPECT_EQ(b::select_cases(r, "quick", "^stream").size(), 0u);
  EXPECT_THROW((void)b::select_cases(r, "quick", "(unclosed"), std::invalid_argument);
  EXPECT_THROW((void)b::select_cases(r, "weekly", ""), std::invalid_argument);
  EXPECT_EQ(b::check_selection("quick", "a|b"), "");
  EXPECT_NE(b::check_selection("quick", "[").find("not a valid regular expression"),
            std::string::npos);
  EXPECT_NE(b::check_selection("nope", "").find("not a suite"), std::string::npos);
}

TEST(registry, the_stream_family_is_registered) {
  const auto listing = b::list_benchmarks();
  std::vector<std::string> ids;
  for (const auto& l : listing)
    ids.push_back(l.id);
  for (const auto& row : gpuspec::kernels::stream_ops) {
    const std::string id = "memory.stream." + std::string(row.name);
    EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << id;
  }
  for (const auto& l : listing) {
    if (l.id.rfind("memory.stream.", 0) != 0)
      continue;
    EXPECT_EQ(l.parameters, "dtype=fp32|fp64");
    EXPECT_FALSE(l.description.empty());
    EXPECT_NE(std::find(l.suites.begin(), l.suites.end(), "quick"), l.suites.end());
  }
  const auto quick = b::select_cases(b::benchmark_registry(), "quick", "^memory\\.stream\\.");
  EXPECT_EQ(quick.size(), gpuspec::kernels::stream_ops.size()); // quick: one dtype, one case a row
  const auto standard = b::select_cases(b::benchmark_registry(), "standard", "^memory\\.stream\\.");
  EXPECT_EQ(standard.size(), 2 * gpuspec::kernels::stream_ops.size()); // fp32 and fp64
}

TEST(verification, elementwise_passes_exact_output) {
  std::vector<float> got(1000);
  for (std::size_t i = 0; i < got.size(); ++i)
    got[i] = 1.0f + static_cast<float>(i);
  const auto r = b::check_elementwise(
      got.data(), got.size(), [](std::size_t i) { return 1.0 + static_cast<double>(i); }, 1e-6);
  EXPECT_EQ(r.checked, 1000u);
  EXPECT_EQ(r.failures, 0u);
  EXPECT_EQ(r.max_rel_error, 0.0);
  const auto v = b::to_verification(r, 1e-6, "test");
  EXPECT_EQ(v.status, verification_status::passed);
  ASSERT_TRUE(v.max_rel_error.has_value());
  EXPECT_EQ(*v.tolerance, 1e-6);
}

TEST(verification, elementwise_catches_nan_and_wrong_values_in_a_big_parallel_array) {
  const std::size_t n = std::size_t{5} << 20; // several threads
  std::vector<double> got(n, 2.0);
  got[123] = std::numeric_limits<double>::quiet_NaN(); // a poisoned element never written
  got[n - 1] = 2.5;
  const auto r = b::check_elementwise(
      got.data(), n, [](std::size_t) { return 2.0; }, 1e-12);
  EXPECT_EQ(r.checked, n);
  EXPECT_EQ(r.failures, 2u);
  EXPECT_EQ(r.non_finite, 1u);
  ASSERT_TRUE(r.first_failure.has_value());
  EXPECT_EQ(*r.first_failure, 123u);
  EXPECT_DOUBLE_EQ(r.max_rel_error, 0.25);
  EXPECT_EQ(r.worst_index, n - 1);
  const auto v = b::to_verification(r, 1e-12, "test");
  EXPECT_EQ(v.status, verification_status::failed);
  EXPECT_NE(v.detail.find("index 123"), std::string::npos);
  EXPECT_NE(v.detail.find("not finite"), std::string::npos);
}

TEST(verification, poison_left_in_place_is_reported_as_not_written) {
  // An int32 output poisoned with 0x80808080 (the tensor.mma.int8 poison): element 7 never
  // written, element 9 written wrong, element 3 written as -1 (a legal result, and right here).
  const auto poison = static_cast<std::int32_t>(0x80808080u);
  std::vector<std::int32_t> got(16, 42);
  got[3] = -1;
  got[7] = poison;
  got[9] = 41;
  const auto expected = [](std::size_t i) { return i == 3 ? -1.0 : 42.0; };
  const auto r = b::check_elementwise(got.data(), got.size(), expected, 0.0,
                                      [&](std::size_t i) { return got[i] == poison; });
  EXPECT_EQ(r.failures, 2u);
  EXPECT_EQ(r.not_written, 1u);
  EXPECT_EQ(r.non_finite, 0u);
  ASSERT_TRUE(r.first_failure.has_value());
  EXPECT_EQ(*r.first_failure, 7u);
  EXPECT_TRUE(r.first_not_written);
  const auto v = b::to_verification(r, 0.0, "test");
  EXPECT_EQ(v.status, verification_status::failed);
  EXPECT_NE(v.detail.find("1 of them not written (still holding the poison)"), std::string::npos)
      << v.detail;
  EXPECT_NE(v.detail.find("first at index 7: not written"), std::string::npos) << v.detail;
  // Without the poison predicate the same element is only "out of tolerance".
  const auto plain = b::check_elementwise(got.data(), got.size(), expected, 0.0);
  EXPECT_EQ(plain.failures, 2u);
  EXPECT_EQ(plain.not_written, 0u);
  EXPECT_EQ(b::to_verification(plain, 0.0, "test").detail.find("not written"), std::string::npos);
}

TEST(verification, a_nan_poison_is_not_written_when_the_check_knows_it) {
  const std::size_t n = std::size_t{3} << 20; // several threads
  std::vector<float> got(n, 1.5f);
  std::uint32_t all_ones = 0xFFFFFFFFu; // what poison_with_nan leaves
  std::memcpy(&got[n - 2], &all_ones, sizeof(float));
  got[1] = std::numeric_limits<float>::quiet_NaN(); // a computed NaN, not the poison
  const auto r = b::check_elementwise(
      got.data(), n, [](std::size_t) { return 1.5; }, 0.0,
      [&](std::size_t i) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, &got[i], sizeof bits);
        return bits == all_ones;
      });
  EXPECT_EQ(r.failures, 2u);
  EXPECT_EQ(r.not_written, 1u);
  EXPECT_EQ(r.non_finite, 1u);
  EXPECT_EQ(*r.first_failure, 1u);
  EXPECT_FALSE(r.first_not_written);
}

TEST(verification, compensated_sum_is_accurate_where_naive_double_is_not) {
  // 1 followed by many tiny terms: naive summation loses them all.
  const std::size_t n = std::size_t{4} << 20;
  const auto total = b::compensated_sum(n, [](std::size_t i) { return i == 0 ? 1.0 : 1e-17; });
  EXPECT_NEAR(total.sum, 1.0 + 1e-17 * static_cast<double>(n - 1), 1e-15);
  EXPECT_EQ(total.sum, total.sum_abs);
}

TEST(verification, scalar_check) {
  EXPECT_EQ(b::scalar_verification(1.0 + 1e-9, 1.0, 1e-8, "x").status, verification_status::passed);
  EXPECT_EQ(b::scalar_verification(1.0 + 1e-7, 1.0, 1e-8, "x").status, verification_status::failed);
  const auto nan = b::scalar_verification(std::numeric_limits<double>::quiet_NaN(), 1.0, 1e-8, "x");
  EXPECT_EQ(nan.status, verification_status::failed);
  EXPECT_FALSE(nan.max_rel_error.has_value()); // JSON has no NaN
}

TEST(nccl_version, decodes_both_encodings) {
  EXPECT_EQ(gpuspec::collectives::decode_nccl_version(22809), "2.28.9");
  EXPECT_EQ(gpuspec::collectives::decode_nccl_version(21903), "2.19.3");
  EXPECT_EQ(gpuspec::collectives::decode_nccl_version(2708), "2.7.8");
  EXPECT_NE(gpuspec::collectives::decode_nccl_version(0).find("unknown"), std::string::npos);
  EXPECT_FALSE(gpuspec::collectives::nccl_version().empty());
}

// ------------------------------------------------------------- node_state: the one builder
// node_state is host code: a node-wide case's result goes through the same builder as
// bench_state's (build_result), and its samples through the harness's sampling loop.

namespace {

struct node_case {
  b::registry r;
  std::vector<b::bench_case> cases;
  gpuspec::host::run_options options;
  b::node_cache cache;
  std::atomic<bool> interrupted{false};
  node_case() {
    r.add_node("peer.copy", "x", [](b::node_state&) {})
        .in_suites({"quick"})
        .with_axis("size", {"64M"});
    cases = b::select_cases(r, "quick", "");
  }
  b::node_state state() {
    return b::node_state(cases.at(0), {}, options, cache, interrupted,
                         std::chrono::steady_clock::now() + std::chrono::hours(1));
  }
};

gpuspec::reports::ceiling nvlink_ceiling() {
  gpuspec::reports::ceiling c;
  c.spec_figure = "nvlink_gbs"; // a figure the card is sold on: the datasheet judges
  c.datasheet = 400.0;
  c.clock_adjusted = 320.0;
  return c;
}

} // namespace

TEST(node_state, time_samples_warms_up_then_takes_the_rules_samples_told_to_progress) {
  node_case n;
  n.options.stopping.min_samples = 12;
  std::vector<std::pair<int, double>> told;
  n.options.on_run = [&](int runs, double s) { told.emplace_back(runs, s); };
  b::node_state state = n.state();
  int calls = 0;
  const auto seconds = state.time_samples([&] { return 1e-3 * ++calls; });
  EXPECT_EQ(calls, 13) << "one warm-up run, discarded, then max(10, min_samples)";
  ASSERT_EQ(seconds.size(), 12u);
  EXPECT_DOUBLE_EQ(seconds.front(), 2e-3);
  ASSERT_EQ(told.size(), 12u);
  EXPECT_EQ(told.back().first, 12);
  EXPECT_TRUE(state.window().has_value());
}

TEST(node_state, time_samples_stops_when_interrupted) {
  node_case n;
  b::node_state state = n.state();
  int calls = 0;
  const auto seconds = state.time_samples([&] {
    if (++calls == 3)
      n.interrupted = true;
    return 1e-3;
  });
  EXPECT_EQ(seconds.size(), 2u); // the warm-up, two samples, then the stop was seen
  gpuspec::reports::work_per_iteration work;
  work.items = 1.0;
  state.set_work_samples(seconds, work);
  const auto r = state.take_result();
  EXPECT_EQ(r.status, gpuspec::reports::result_status::skipped);
  EXPECT_EQ(r.reason, "interrupted after 2 sample(s)");
}

TEST(node_state, work_samples_become_bandwidth_judged_against_the_reference) {
  node_case n;
  b::node_state state = n.state();
  gpuspec::reports::work_per_iteration work;
  work.bytes = 3e9;
  state.set_work_samples({0.01, 0.01, 0.01}, work); // 300 GB/s each
  state.set_ceiling(nvlink_ceiling());
  const auto r = state.take_result();
  EXPECT_EQ(r.status, gpuspec::reports::result_status::ok);
  EXPECT_EQ(r.metric, "bandwidth");
  EXPECT_EQ(r.unit, gpuspec::reports::metric_unit::gigabytes_per_second);
  ASSERT_TRUE(r.bytes_per_iteration.has_value());
  EXPECT_DOUBLE_EQ(*r.bytes_per_iteration, 3e9);
  EXPECT_EQ(r.axes.at("size"), "64M");
  EXPECT_DOUBLE_EQ(r.stats.median, 300.0);
  EXPECT_EQ(r.ceiling_value.reference, gpuspec::reports::reference_kind::datasheet);
  ASSERT_TRUE(r.efficiency && r.efficiency_clock_adjusted);
  EXPECT_DOUBLE_EQ(*r.efficiency, 0.75);                  // against the datasheet, as check
  EXPECT_DOUBLE_EQ(*r.efficiency_clock_adjusted, 0.9375); // the clock-adjusted one apart
}

TEST(node_state, work_samples_of_items_become_latency_lower_is_better) {
  node_case n;
  b::node_state state = n.state();
  gpuspec::reports::work_per_iteration work;
  work.items = 1000.0;
  state.set_work_samples({2e-6, 2e-6}, work);
  const auto r = state.take_result();
  EXPECT_EQ(r.metric, "latency");
  EXPECT_EQ(r.unit, gpuspec::reports::metric_unit::nanoseconds);
  EXPECT_FALSE(r.higher_is_better);
  EXPECT_DOUBLE_EQ(r.stats.median, 2.0);
  EXPECT_FALSE(r.bytes_per_iteration.has_value());
  EXPECT_FALSE(r.efficiency.has_value()); // no ceiling
}

TEST(node_state, a_disposition_keeps_its_reason_and_nothing_measured_fails) {
  node_case n;
  b::node_state skipped = n.state();
  skipped.skip("one GPU");
  const auto s = skipped.take_result();
  EXPECT_EQ(s.status, gpuspec::reports::result_status::skipped);
  EXPECT_EQ(s.reason, "one GPU");
  b::node_state empty = n.state();
  const auto e = empty.take_result();
  EXPECT_EQ(e.status, gpuspec::reports::result_status::failed);
  EXPECT_EQ(e.reason, "no sample was taken");
  EXPECT_EQ(e.failure, gpuspec::reports::failure_kind::benchmark);
}
