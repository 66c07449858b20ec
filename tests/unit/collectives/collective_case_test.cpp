// The one collective body's report of an outcome (collective_case.hpp), as the one-node family
// and gpuspec-mpi's rank both receive it: the parameters in nccl-tests' names and one order,
// the timeout's words, an empty call, the figures and the check, for every row of the table.

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpuspec/collectives/collective_case.hpp"
#include "gpuspec/collectives/collective_sizes.hpp"

namespace gpuspec::collectives {
namespace {

/// Every call, in order.
class recording_sink final : public case_sink {
public:
  std::vector<std::string> names;
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  std::string failed_why, not_supported_why;
  std::vector<double> busbw;
  double algbw_bytes = 0;
  std::int64_t wrong = -1;
  std::uint64_t fact_bytes = 0;

  void parameter(const std::string& name, nlohmann::ordered_json value) override {
    names.push_back(name);
    params[name] = std::move(value);
  }
  void nccl_facts(collective_kind, std::uint64_t call_bytes) override {
    names.emplace_back("<facts>");
    fact_bytes = call_bytes;
  }
  std::string not_arrived(const std::vector<int>& ranks) override {
    return "ranks " + std::to_string(ranks.size());
  }
  std::string communicators() const override { return "communicators"; }
  void not_supported(std::string why) override { not_supported_why = std::move(why); }
  void failed(std::string why) override { failed_why = std::move(why); }
  void figures(const collective_case&, const collective_outcome&, collective_figures f) override {
    names.emplace_back("<figures>");
    busbw = f.busbw_gbs;
    algbw_bytes = f.algbw_bytes;
  }
  void checked(std::int64_t w, const std::vector<std::int64_t>&) override { wrong = w; }
};

collective_case one_mib(collective_kind kind) {
  collective_case c;
  c.kind = kind;
  c.type = element_type::fp16;
  c.size_text = "1MiB";
  c.size_bytes = std::uint64_t{1} << 20;
  return c;
}

collective_outcome measured(const collective_case& c, int nranks) {
  collective_outcome o;
  o.nranks = nranks;
  o.counts = counts_for_size(c.kind, c.size_bytes, element_size(c.type), nranks);
  o.seconds_per_iteration = {2e-5, 1e-5, 3e-5};
  o.wrong_per_rank = std::vector<std::int64_t>(nranks, 0);
  return o;
}

TEST(CollectiveCase, EveryRowReportsTheSameParametersInOneOrder) {
  for (const collective_row& row : collective_table) {
    const auto c = one_mib(row.kind);
    case_run run;
    run.request = case_request(c, 10, 30.0);
    const auto o = measured(c, 4);
    recording_sink sink;
    report_case(sink, c, run, o);
    const std::vector<std::string> want{"nranks",
                                        "size_bytes",
                                        "count",
                                        "nccl_tests_type",
                                        "redop",
                                        "root",
                                        "iterations_per_sample",
                                        "<facts>",
                                        "time_us",
                                        "algbw_gbs",
                                        "bus_factor",
                                        "<figures>",
                                        "wrong_per_rank",
                                        "wrong"};
    EXPECT_EQ(sink.names, want) << row.name;
    EXPECT_EQ(sink.params["redop"], row.takes_redop ? "sum" : "none") << row.name;
    EXPECT_EQ(sink.params["root"], row.rooted ? 0 : -1) << row.name;
    EXPECT_EQ(sink.params["count"], o.counts.param_count) << row.name;
    EXPECT_EQ(sink.params["nccl_tests_type"], "half");
    EXPECT_EQ(sink.fact_bytes, o.counts.param_count * 2) << row.name;
    // The middle sample (1e-5, 2e-5, 3e-5 sorted), nccl-tests' figures from it.
    EXPECT_DOUBLE_EQ(sink.params["time_us"].get<double>(), 20.0) << row.name;
    EXPECT_DOUBLE_EQ(sink.params["bus_factor"].get<double>(), bus_factor(row.kind, 4));
    EXPECT_EQ(sink.busbw.size(), 3u);
    EXPECT_EQ(sink.wrong, 0);
    EXPECT_TRUE(sink.failed_why.empty());
  }
}

TEST(CollectiveCase, AManyProcessRankSaysItsGroupRankAfterTheRanks) {
  const auto c = one_mib(collective_kind::all_reduce);
  case_run run;
  run.request = case_request(c, 10, 30.0);
  run.group_rank = 3;
  recording_sink sink;
  report_case(sink, c, run, measured(c, 8));
  ASSERT_GE(sink.names.size(), 2u);
  EXPECT_EQ(sink.names[0], "nranks");
  EXPECT_EQ(sink.names[1], "group_rank");
  EXPECT_EQ(sink.params["group_rank"], 3);
}

TEST(CollectiveCase, ATimeoutNamesThePhaseAndTheRanksAndReportsNoFigures) {
  const auto c = one_mib(collective_kind::all_gather);
  case_run run;
  run.request = case_request(c, 10, 2.5);
  auto o = measured(c, 2);
  o.timed_out = true;
  o.phase = "sample 3";
  o.ranks_not_finished = {1};
  recording_sink sink;
  report_case(sink, c, run, o);
  EXPECT_EQ(sink.failed_why, "collective timed out: all_gather of 1MiB did not finish within 2.5 "
                             "s (sample 3); not arrived: ranks 1; communicators aborted");
  EXPECT_EQ(sink.params["ranks_not_finished"], nlohmann::ordered_json::array({1}));
  EXPECT_TRUE(sink.busbw.empty());
  EXPECT_EQ(sink.wrong, -1); // no check reported
}

TEST(CollectiveCase, ACallWithNoElementPerRankIsNotSupported) {
  auto c = one_mib(collective_kind::reduce_scatter);
  c.size_text = "8B";
  c.size_bytes = 8; // 4 halves over 8 ranks: a chunk of 0
  case_run run;
  run.request = case_request(c, 10, 30.0);
  recording_sink sink;
  report_case(sink, c, run, measured(c, 8));
  EXPECT_EQ(sink.not_supported_why,
            "8B over 8 ranks leaves no element per rank (nccl-tests prints size 0)");
  EXPECT_TRUE(sink.busbw.empty());
}

TEST(CollectiveCase, WrongElementsAreSummedOverTheRanks) {
  const auto c = one_mib(collective_kind::broadcast);
  case_run run;
  run.request = case_request(c, 10, 30.0);
  auto o = measured(c, 2);
  o.wrong_per_rank = {0, 5};
  recording_sink sink;
  report_case(sink, c, run, o);
  EXPECT_EQ(sink.wrong, 5);
  EXPECT_EQ(sink.params["wrong"], 5);
}

TEST(CollectiveCase, TheRequestTakesMoreCallsPerSampleAtSmallSizesAndTheInPlaceRuleIsTheRows) {
  auto c = one_mib(collective_kind::all_reduce);
  EXPECT_EQ(case_request(c, 10, 1.0).iterations, 200); // 1 GiB / 1 MiB = 1024, capped
  c.size_bytes = std::uint64_t{1} << 30;
  EXPECT_EQ(case_request(c, 10, 1.0).iterations, 20);
  EXPECT_EQ(case_request(c, 12, 1.0).samples, 12);
  EXPECT_EQ(case_request(c, 10, 1.0).seed, collective_seed);
  for (const collective_row& row : collective_table) {
    EXPECT_EQ(in_place_refusal(row.kind, true, 4).empty(), row.in_place_over_ranks) << row.name;
    EXPECT_TRUE(in_place_refusal(row.kind, true, 1).empty()) << row.name;
    EXPECT_TRUE(in_place_refusal(row.kind, false, 4).empty()) << row.name;
  }
}

} // namespace
} // namespace gpuspec::collectives
