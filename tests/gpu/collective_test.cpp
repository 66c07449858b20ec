// NCCL collectives on a real GPU (skipped without one, or in a build without NCCL): a one-rank
// collective of every kind gives #wrong 0 in every element type, and a deadline of ~0 s ends in
// an aborted communicator and a timed-out outcome naming the rank, never a hang. The rank of a
// many-process communicator (join(), gpuspec-mpi's) is checked as a group of one.

#include <gtest/gtest.h>

#include "gpu_test_support.hpp"
#include "gpuspec/collectives/collective_case.hpp"
#include "gpuspec/collectives/collective_run.hpp"
#include "gpuspec/collectives/nccl_version.hpp"

namespace gpuspec::collectives {
namespace {

class collective_gpu_test : public testing::gpu_test {
protected:
  void SetUp() override {
    gpu_test::SetUp();
    if (IsSkipped())
      return;
    if (!built_with_nccl())
      GTEST_SKIP() << "gpuspec was built without NCCL";
    if (const auto why = nccl_unusable_reason(); !why.empty())
      GTEST_SKIP() << why; // NCCL is opened at run time: absent here
  }
};

TEST_F(collective_gpu_test, OneRankCollectivesAreExactInEveryType) {
  const auto comms = node_communicators::create({0}, 60.0);
  ASSERT_EQ(comms->nranks(), 1);
  for (collective_kind kind : all_collective_kinds)
    for (element_type type : {element_type::fp32, element_type::fp16, element_type::bf16})
      for (bool in_place : {false, true}) {
        collective_request q;
        q.kind = kind;
        q.type = type;
        q.size_bytes = std::uint64_t{1} << 20;
        q.in_place = in_place;
        q.seed = 7;
        q.samples = 2;
        q.iterations = 2;
        q.warmup_iterations = 1;
        const auto o = run_collective(*comms, q);
        ASSERT_FALSE(o.timed_out) << collective_name(kind);
        ASSERT_EQ(o.wrong_per_rank.size(), 1u);
        EXPECT_EQ(o.wrong_per_rank[0], 0)
            << collective_name(kind) << " " << element_type_name(type) << " in place " << in_place;
        EXPECT_EQ(o.seconds_per_iteration.size(), 2u);
        for (double s : o.seconds_per_iteration)
          EXPECT_GT(s, 0.0);
      }
}

TEST_F(collective_gpu_test, APastDeadlineAbortsAndNamesTheRank) {
  const auto comms = node_communicators::create({0}, 60.0);
  collective_request q;
  q.kind = collective_kind::all_reduce;
  q.size_bytes = std::uint64_t{1} << 30;
  q.iterations = 200;
  q.deadline_s = 1e-6;
  const auto o = run_collective(*comms, q);
  EXPECT_TRUE(o.timed_out);
  EXPECT_EQ(o.ranks_not_finished, std::vector<int>{0});
  EXPECT_TRUE(comms->aborted());
  EXPECT_THROW((void)run_collective(*comms, q), nccl_error);
}

TEST_F(collective_gpu_test, AJoinedRankFromAUniqueIdRunsAndChecks) {
  // gpuspec-mpi's path with one process: rank 0 of 1 from an id this process made.
  const auto comms = node_communicators::join(0, make_unique_id(), 1, 0, 60.0);
  ASSERT_EQ(comms->nranks(), 1);
  EXPECT_EQ(comms->group_size(), 1);
  collective_request q;
  q.kind = collective_kind::all_reduce;
  q.size_bytes = std::uint64_t{1} << 20;
  q.samples = 2;
  q.iterations = 2;
  const auto o = run_collective(*comms, q);
  ASSERT_FALSE(o.timed_out);
  EXPECT_EQ(o.nranks, 1);
  EXPECT_EQ(o.wrong_per_rank, std::vector<std::int64_t>{0});
  EXPECT_THROW((void)node_communicators::join(0, make_unique_id(), 2, 2, 1.0), nccl_unavailable);
}

/// What the one body reports, kept for the test.
class kept_sink final : public case_sink {
public:
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  std::string failed_why, not_supported_why;
  std::size_t samples = 0;
  std::int64_t wrong = -1;

  void parameter(const std::string& name, nlohmann::ordered_json value) override {
    params[name] = std::move(value);
  }
  void nccl_facts(collective_kind, std::uint64_t) override {}
  std::string not_arrived(const std::vector<int>& ranks) override {
    return std::to_string(ranks.size());
  }
  std::string communicators() const override { return "communicators"; }
  void not_supported(std::string why) override { not_supported_why = std::move(why); }
  void failed(std::string why) override { failed_why = std::move(why); }
  void figures(const collective_case&, const collective_outcome&, collective_figures f) override {
    samples = f.busbw_gbs.size();
  }
  void checked(std::int64_t w, const std::vector<std::int64_t>&) override { wrong = w; }
};

TEST_F(collective_gpu_test, TheOneBodyRunsEveryRowOverEitherCommunicator) {
  // The one-node family's communicators (create) and gpuspec-mpi's rank (join), one body.
  const auto made = node_communicators::create({0}, 60.0);
  const auto joined = node_communicators::join(0, make_unique_id(), 1, 0, 60.0);
  for (const auto& comms : {made, joined})
    for (const collective_row& row : collective_table) {
      collective_case c;
      c.kind = row.kind;
      c.type = element_type::bf16;
      c.size_text = "1MiB";
      c.size_bytes = std::uint64_t{1} << 20;
      case_run run;
      run.request = case_request(c, 2, 60.0);
      kept_sink sink;
      run_collective_case(*comms, sink, c, run);
      EXPECT_TRUE(sink.failed_why.empty()) << row.name << ": " << sink.failed_why;
      EXPECT_EQ(sink.samples, 2u) << row.name;
      EXPECT_EQ(sink.wrong, 0) << row.name;
      EXPECT_EQ(sink.params["nranks"], 1) << row.name;
    }
}

} // namespace
} // namespace gpuspec::collectives
