// The multi-node launcher's pure core: the plan, the rank assignment (local ranks, one rank per
// GPU by PCI bus id, the error for more ranks than GPUs), and rank 0's merge of the replies
// (the slowest rank and node, the dispositions, the missing ranks).

#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "gpuspec/collectives/mpi/mpi_case.hpp"
#include "gpuspec/collectives/mpi/rank_identity.hpp"
#include "gpuspec/collectives/mpi/rank_measure.hpp"
#include "gpuspec/collectives/mpi/rank_merge.hpp"
#include "gpuspec/collectives/mpi/rank_messages.hpp"
#include "gpuspec/reports/model/report_json.hpp"

namespace m = gpuspec::collectives::mpi;
namespace r = gpuspec::reports;

namespace {

m::environment_lookup table(std::map<std::string, std::string> values) {
  return [values](std::string_view name) -> std::optional<std::string> {
    const auto it = values.find(std::string(name));
    if (it == values.end())
      return std::nullopt;
    return it->second;
  };
}

r::device_info gpu(int index, std::string bus_id) {
  r::device_info d;
  d.index = index;
  d.name = "NVIDIA H100 80GB HBM3";
  d.pci_bus_id = std::move(bus_id);
  return d;
}

m::rank_hello hello(int rank, std::string host, std::vector<r::device_info> devices,
                    std::optional<int> local = std::nullopt) {
  m::rank_hello h;
  h.rank = rank;
  h.host = std::move(host);
  h.pid = 1000 + rank;
  h.devices = std::move(devices);
  if (local)
    h.local_rank = m::launcher_local_rank{*local, "OMPI_COMM_WORLD_LOCAL_RANK"};
  return h;
}

/// A rank's ok result as a measure returns it: a bandwidth with a few samples.
r::result ok_result(const m::mpi_case& c, double median) {
  r::result x;
  x.bench_id = c.bench_id;
  x.axes = c.axes;
  x.metric = "busbw";
  x.unit = r::metric_unit::gigabytes_per_second;
  x.samples = {median, median, median};
  x.stats.n = 3;
  x.stats.median = x.stats.mean = x.stats.min = x.stats.max = median;
  return x;
}

std::vector<m::rank_assignment> four_ranks_two_hosts() {
  const std::vector<m::rank_hello> hellos = {
      hello(0, "a", {gpu(0, "00000000:18:00.0"), gpu(1, "00000000:2A:00.0")}),
      hello(1, "a", {gpu(0, "00000000:18:00.0"), gpu(1, "00000000:2A:00.0")}),
      hello(2, "b", {gpu(0, "00000000:18:00.0"), gpu(1, "00000000:2A:00.0")}),
      hello(3, "b", {gpu(0, "00000000:18:00.0"), gpu(1, "00000000:2A:00.0")})};
  return m::assign_ranks(hellos).ranks;
}

} // namespace

TEST(MpiAssign, EachRankTakesAGpuItsOwnCudaSeesWithItsOwnOrdinal) {
  // srun --gpus-per-task=1: NVML lists both GPUs to both ranks, but each rank's CUDA sees only
  // its own, as ordinal 0; the launcher's local ranks go against the bus order (rank 0 was
  // given the second GPU).
  auto visible = [](r::device_info d, std::optional<int> ordinal) {
    d.cuda_index = ordinal;
    return d;
  };
  const auto g0 = gpu(0, "00000000:18:00.0"), g1 = gpu(1, "00000000:2A:00.0");
  const std::vector<m::rank_hello> hellos = {
      hello(0, "a", {visible(g0, std::nullopt), visible(g1, 0)}, 0),
      hello(1, "a", {visible(g0, 0), visible(g1, std::nullopt)}, 1)};
  const auto out = m::assign_ranks(hellos);
  ASSERT_TRUE(out.error.empty()) << out.error;
  ASSERT_TRUE(out.ranks[0].device && out.ranks[1].device);
  EXPECT_EQ(out.ranks[0].device->pci_bus_id, "00000000:2A:00.0");
  EXPECT_EQ(out.ranks[0].device->cuda_index, 0); // its own process's ordinal
  EXPECT_EQ(out.ranks[1].device->pci_bus_id, "00000000:18:00.0");
  EXPECT_EQ(out.ranks[1].device->cuda_index, 0);
  // Both ranks see only the same GPU: the second has none, and says why.
  const std::vector<m::rank_hello> same = {
      hello(0, "a", {visible(g0, 0), visible(g1, std::nullopt)}, 0),
      hello(1, "a", {visible(g0, 0), visible(g1, std::nullopt)}, 1)};
  const auto clash = m::assign_ranks(same);
  ASSERT_TRUE(clash.ranks[0].device);
  EXPECT_FALSE(clash.ranks[1].device);
  EXPECT_NE(clash.ranks[1].no_device_reason.find("CUDA_VISIBLE_DEVICES"), std::string::npos);
}

TEST(MpiPlan, SizesParseWithBinarySuffixesAndBadItemsAreNamed) {
  EXPECT_EQ(m::parse_sizes("8,4K,1M,1G"),
            (std::vector<std::int64_t>{8, 4096, 1048576, 1073741824}));
  try {
    (void)m::parse_sizes("1M,lots");
    FAIL() << "no error for 'lots'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'lots'"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)m::parse_sizes("0"), std::invalid_argument);
  EXPECT_THROW((void)m::parse_sizes("1T"), std::invalid_argument);
  EXPECT_THROW((void)m::parse_sizes(""), std::invalid_argument);
}

TEST(MpiPlan, CasesAreEveryCollectiveAtEverySizeAndSurviveTheWire) {
  m::plan_options o;
  o.collectives = {"all_reduce", "all_gather"};
  o.sizes = {4096, 1 << 20};
  o.case_timeout_s = 7;
  const auto cases = m::plan_cases(o, {0, 1, 2});
  ASSERT_EQ(cases.size(), 4U);
  EXPECT_EQ(cases[2].bench_id, "collective.all_gather");
  // The one-node family's axes, so that check, diff and compare pair the two.
  EXPECT_EQ(
      cases[2].axes,
      (nlohmann::ordered_json{{"dtype", "fp32"}, {"size", "4KiB"}, {"placement", "out_of_place"}}));
  EXPECT_EQ(cases[3].axes.at("size"), "1MiB");
  EXPECT_EQ(cases[3].index, 3);
  EXPECT_EQ(cases[3].deadline_s, 7);
  auto c = cases[1];
  c.nccl_unique_id_hex = m::to_hex(m::nccl_unique_id{'\x01', '\xff'});
  EXPECT_EQ(m::case_from_json(m::to_json(c)).value(), c);
  // A message of another shape is an error naming the field.
  const auto short_case = m::case_from_json({{"index", 1}});
  ASSERT_FALSE(short_case);
  EXPECT_EQ(short_case.error().field, "bench_id") << short_case.error().to_string();
  EXPECT_EQ(short_case.error().message, "missing");
  auto unknown = m::to_json(c);
  unknown["deadline"] = 1;
  ASSERT_FALSE(m::case_from_json(unknown));
  EXPECT_EQ(m::case_from_json(unknown).error().field, "deadline");
  auto mistyped = m::to_json(c);
  mistyped["group"] = {0, "1"};
  ASSERT_FALSE(m::case_from_json(mistyped));
  EXPECT_EQ(m::case_from_json(mistyped).error().field, "group[1]");
  // The first case of an id carries the communicator's own init allowance; never negative.
  EXPECT_EQ(cases[1].init_allowance_s, 0);
  c.init_allowance_s = 30;
  EXPECT_EQ(m::case_from_json(m::to_json(c)).value(), c);
  auto bad = m::to_json(c);
  bad["init_allowance_s"] = -1;
  const auto negative = m::case_from_json(bad);
  ASSERT_FALSE(negative);
  EXPECT_EQ(negative.error().field, "init_allowance_s") << negative.error().to_string();
}

TEST(MpiPlan, UniqueIdsRoundTripThroughHex) {
  m::nccl_unique_id id{};
  for (std::size_t i = 0; i < id.size(); ++i)
    id[i] = static_cast<char>(i * 7);
  EXPECT_EQ(m::unique_id_from_hex(m::to_hex(id)), id);
  EXPECT_EQ(m::unique_id_from_hex("abc"), std::nullopt);
  EXPECT_EQ(m::unique_id_from_hex(std::string(256, 'g')), std::nullopt);
}

TEST(MpiIdentity, LocalRankComesFromTheLauncherInOrder) {
  EXPECT_EQ(m::local_rank_from_environment(table({})), std::nullopt);
  const auto slurm = m::local_rank_from_environment(table({{"SLURM_LOCALID", "3"}}));
  ASSERT_TRUE(slurm);
  EXPECT_EQ(slurm->local_rank, 3);
  EXPECT_EQ(slurm->variable, "SLURM_LOCALID");
  const auto both = m::local_rank_from_environment(
      table({{"SLURM_LOCALID", "3"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}}));
  EXPECT_EQ(both->variable, "OMPI_COMM_WORLD_LOCAL_RANK");
  EXPECT_EQ(m::local_rank_from_environment(table({{"SLURM_LOCALID", "x"}})), std::nullopt);
}

TEST(MpiIdentity, OneRankPerGpuInPciBusIdOrderPerHost) {
  // NVML lists them out of bus order here: the bus id decides, not the index.
  const std::vector<r::device_info> gpus = {gpu(0, "00000000:2A:00.0"), gpu(1, "00000000:18:00.0")};
  const std::vector<m::rank_hello> hellos = {hello(0, "a", gpus), hello(1, "b", gpus),
                                             hello(2, "a", gpus)};
  const auto out = m::assign_ranks(hellos);
  ASSERT_TRUE(out.error.empty()) << out.error;
  ASSERT_EQ(out.ranks.size(), 3U);
  EXPECT_EQ(out.ranks[0].local_rank, 0);
  EXPECT_EQ(out.ranks[0].local_ranks, 2);
  EXPECT_EQ(out.ranks[0].device->pci_bus_id, "00000000:18:00.0");
  EXPECT_EQ(out.ranks[2].local_rank, 1);
  EXPECT_EQ(out.ranks[2].device->pci_bus_id, "00000000:2A:00.0");
  EXPECT_EQ(out.ranks[1].host, "b");
  EXPECT_EQ(out.ranks[1].local_ranks, 1);
  EXPECT_EQ(m::hosts_of(out.ranks), (std::vector<std::string>{"a", "b"}));
}

TEST(MpiIdentity, TheLaunchersLocalRanksWinWhenTheyNumberTheHost) {
  const std::vector<r::device_info> gpus = {gpu(0, "0000:18:00.0"), gpu(1, "0000:2a:00.0")};
  const std::vector<m::rank_hello> given = {hello(0, "a", gpus, 1), hello(1, "a", gpus, 0)};
  const auto out = m::assign_ranks(given);
  EXPECT_EQ(out.ranks[0].local_rank, 1);
  EXPECT_EQ(out.ranks[0].device->index, 1);
  // Two ranks claiming local rank 0: the launcher's numbering is not used.
  const std::vector<m::rank_hello> clash = {hello(0, "a", gpus, 0), hello(1, "a", gpus, 0)};
  const auto fallback = m::assign_ranks(clash);
  EXPECT_EQ(fallback.ranks[1].local_rank, 1);
}

TEST(MpiIdentity, MoreRanksThanGpusIsAnErrorNamingHostAndCounts) {
  const std::vector<m::rank_hello> hellos = {hello(0, "node7", {gpu(0, "0000:18:00.0")}),
                                             hello(1, "node7", {gpu(0, "0000:18:00.0")})};
  const auto out = m::assign_ranks(hellos);
  EXPECT_TRUE(out.ranks.empty());
  EXPECT_NE(out.error.find("host node7: 2 ranks but 1 GPU"), std::string::npos) << out.error;
  // The healthy counterpart: one rank per GPU.
  EXPECT_TRUE(m::assign_ranks(std::vector<m::rank_hello>{hellos[0]}).error.empty());
}

TEST(MpiIdentity, NoGpuGivesEveryRankTheReasonNotAnError) {
  auto h0 = hello(0, "a", {});
  auto h1 = hello(1, "a", {gpu(0, "0000:18:00.0")});
  h0.no_gpu_reason = h1.no_gpu_reason = "no NVIDIA driver: libnvidia-ml.so.1 could not be opened";
  const auto out = m::assign_ranks(std::vector<m::rank_hello>{h0, h1});
  ASSERT_TRUE(out.error.empty());
  EXPECT_FALSE(out.ranks[1].device);
  EXPECT_EQ(out.ranks[1].no_device_reason, h0.no_gpu_reason);
  const auto empty = m::assign_ranks(std::vector<m::rank_hello>{hello(0, "a", {})});
  EXPECT_EQ(empty.ranks[0].no_device_reason, "no GPU in the inventory");
}

TEST(MpiIdentity, HellosAndAssignmentsSurviveTheWire) {
  auto h = hello(1, "a", {gpu(0, "00000000:18:00.0")}, 0);
  h.host_info.hostname = "a";
  EXPECT_EQ(m::hello_from_json(m::to_json(h)).value(), h);
  const auto a = m::assign_ranks(std::vector<m::rank_hello>{h}).ranks;
  ASSERT_EQ(a.size(), 1U);
  EXPECT_EQ(m::assignment_from_json(m::to_json(a[0])).value(), a[0]);
  // A message of another shape is an error naming the field, nested ones with their path.
  const auto short_hello = m::hello_from_json({{"rank", 1}});
  ASSERT_FALSE(short_hello);
  EXPECT_EQ(short_hello.error().field, "host") << short_hello.error().to_string();
  auto bad_hello = m::to_json(h);
  bad_hello["local_rank"] = {{"local_rank", "0"}, {"variable", "SLURM_LOCALID"}};
  ASSERT_FALSE(m::hello_from_json(bad_hello));
  EXPECT_EQ(m::hello_from_json(bad_hello).error().field, "local_rank.local_rank");
  auto bad_inventory = m::to_json(h);
  bad_inventory["inventory"]["devices"][0]["index"] = "zero";
  ASSERT_FALSE(m::hello_from_json(bad_inventory));
  EXPECT_EQ(m::hello_from_json(bad_inventory).error().field, "inventory.devices[0].index");
  auto with_gpu = a[0];
  with_gpu.device = h.devices.front();
  EXPECT_EQ(m::assignment_from_json(m::to_json(with_gpu)).value(), with_gpu);
  auto two = m::to_json(with_gpu);
  const auto first_gpu = two["inventory"]["devices"][0];
  two["inventory"]["devices"].push_back(first_gpu);
  ASSERT_FALSE(m::assignment_from_json(two));
  EXPECT_EQ(m::assignment_from_json(two).error().field, "inventory.devices")
      << m::assignment_from_json(two).error().to_string();
}

TEST(MpiMessages, EachMessageOfTheWireReadsBackAndAnotherShapeIsNamed) {
  auto h = hello(1, "a", {gpu(0, "00000000:18:00.0")}, 0);
  EXPECT_EQ(m::hello_from_text(m::to_json(h).dump(), "rank 1's hello").value(), h);
  const auto garbled = m::hello_from_text("{\"rank\":", "rank 1's hello");
  ASSERT_FALSE(garbled);
  EXPECT_EQ(garbled.error().file, "rank 1's hello");
  auto a = m::assign_ranks(std::vector<m::rank_hello>{h}).ranks.front();
  a.device = h.devices.front();
  const nlohmann::ordered_json welcome = {
      {"type", "welcome"}, {"error", ""}, {"ranks", {m::to_json(a)}}};
  EXPECT_EQ(m::welcome_from_text(welcome.dump()).value().ranks, std::vector<m::rank_assignment>{a});
  // An error travels without the ranks.
  const auto refused = m::welcome_from_text(R"({"type":"welcome","error":"host a: 2 ranks"})");
  ASSERT_TRUE(refused) << refused.error().to_string();
  EXPECT_EQ(refused.value().error, "host a: 2 ranks");
  auto bad_rank = welcome;
  bad_rank["ranks"][0]["local_rank"] = "0";
  const auto bad_welcome = m::welcome_from_text(bad_rank.dump());
  ASSERT_FALSE(bad_welcome);
  EXPECT_EQ(bad_welcome.error().field, "ranks[0].local_rank") << bad_welcome.error().to_string();
  EXPECT_EQ(m::welcome_from_text(R"({"type":"stop"})").error().field, "type");

  m::plan_options o;
  o.collectives = {"all_reduce"};
  o.sizes = {4096};
  const auto c = m::plan_cases(o, {0, 1}).front();
  const nlohmann::ordered_json message = {{"type", "case"}, {"case", m::to_json(c)}};
  const auto control = m::control_from_text(message.dump());
  ASSERT_TRUE(control) << control.error().to_string();
  EXPECT_FALSE(control.value().stop);
  EXPECT_EQ(control.value().measure, c);
  EXPECT_TRUE(m::control_from_text(R"({"type":"stop"})").value().stop);
  auto short_case = message;
  short_case["case"].erase("deadline_s");
  EXPECT_EQ(m::control_from_text(short_case.dump()).error().field, "case.deadline_s");
  EXPECT_EQ(m::control_from_text(R"({"type":"welcome"})").error().field, "type");

  const auto ack = m::reply_from_text(R"({"index":3,"result":null})", "rank 2");
  ASSERT_TRUE(ack) << ack.error().to_string();
  EXPECT_EQ(ack.value().index, 3);
  EXPECT_TRUE(ack.value().result.is_null());
  const auto no_result = m::reply_from_text(R"({"index":3})", "rank 2");
  ASSERT_FALSE(no_result);
  EXPECT_EQ(no_result.error().file, "rank 2");
  EXPECT_EQ(no_result.error().field, "result");
  EXPECT_EQ(m::reply_from_text(R"({"index":"3","result":null})", "rank 2").error().field, "index");
}

TEST(MpiMerge, EveryRankSkippedGivesOneSkippedResultNamingTheRanks) {
  const auto ranks = four_ranks_two_hosts();
  const auto c = m::plan_cases({}, {0, 1, 2, 3}).front();
  std::vector<m::rank_reply> replies;
  for (const auto& a : ranks) {
    m::rank_context ctx;
    ctx.self = a;
    replies.push_back({a.rank, m::skipped_result(c, ctx, "not built with CUDA and NCCL")});
  }
  const auto merged = m::merge_case(c, replies, ranks, "a");
  EXPECT_EQ(merged.status, r::result_status::skipped);
  EXPECT_EQ(merged.reason, "not built with CUDA and NCCL (ranks 0, 1 on a; ranks 2, 3 on b)");
  EXPECT_EQ(merged.devices, (std::vector<int>{0, 1})); // the report's host's GPUs only
  EXPECT_EQ(merged.observations.at("ranks").size(), 4U);
  EXPECT_EQ(merged.observations.at("nodes"), (nlohmann::ordered_json{"a", "b"}));
  EXPECT_FALSE(merged.observations.contains("slowest_rank"));
  // What the report writes loads back (the writer's own rules hold).
  r::report rep;
  rep.results = {merged};
  EXPECT_TRUE(r::parse_report(r::to_json_text(rep), "merged.json"));
}

TEST(MpiMerge, TheSlowestRankAndItsNodeAreNamedAndItsFigureStands) {
  const auto ranks = four_ranks_two_hosts();
  const auto c = m::plan_cases({}, {0, 1, 2, 3}).front();
  const std::vector<m::rank_reply> replies = {
      {0, ok_result(c, 100)}, {1, ok_result(c, 101)}, {2, ok_result(c, 60)}, {3, ok_result(c, 99)}};
  const auto merged = m::merge_case(c, replies, ranks, "a");
  EXPECT_EQ(merged.status, r::result_status::ok);
  EXPECT_EQ(merged.stats.median, 60);
  EXPECT_EQ(merged.observations.at("slowest_rank"), 2);
  EXPECT_EQ(merged.observations.at("slowest_host"), "b");
  EXPECT_NEAR(merged.observations.at("rank_spread").get<double>(), (99.5 - 60) / 99.5, 1e-12);
  const auto spread = m::spread_of(replies, ranks);
  ASSERT_TRUE(spread);
  EXPECT_EQ(spread->slowest_rank, 2);
  // Where lower is better (a time), the slowest is the highest.
  auto timed = replies;
  for (auto& x : timed)
    x.result.higher_is_better = false;
  EXPECT_EQ(m::spread_of(timed, ranks)->slowest_rank, 1);
  // Even ranks: nobody is behind.
  const std::vector<m::rank_reply> even = {{0, ok_result(c, 100)}, {1, ok_result(c, 100)}};
  EXPECT_EQ(m::spread_of(even, ranks)->behind, 0);
  EXPECT_EQ(m::spread_of(even, ranks)->slowest_rank, 0);
}

TEST(MpiMerge, OneFailedRankFailsTheCaseWithItsReason) {
  const auto ranks = four_ranks_two_hosts();
  const auto c = m::plan_cases({}, {0, 1, 2, 3}).front();
  auto bad = ok_result(c, 0);
  bad.status = r::result_status::failed;
  bad.failure = r::failure_kind::verification;
  bad.reason = "#wrong 12";
  const std::vector<m::rank_reply> replies = {
      {0, ok_result(c, 100)}, {1, ok_result(c, 100)}, {2, ok_result(c, 100)}, {3, bad}};
  const auto merged = m::merge_case(c, replies, ranks, "a");
  EXPECT_EQ(merged.status, r::result_status::failed);
  EXPECT_EQ(merged.failure, r::failure_kind::verification);
  // The GPU at fault by node, rank, index and PCI bus id: nothing left to decode.
  EXPECT_EQ(merged.reason, "#wrong 12 (rank 3 on b, GPU 1 (00000000:2A:00.0))");
  const auto& entry = merged.observations.at("ranks").at(3);
  EXPECT_EQ(entry.at("status"), "failed");
  EXPECT_EQ(entry.at("failure"), "verification");
  EXPECT_EQ(entry.at("reason"), "#wrong 12");
}

TEST(MpiMerge, MissingRanksAreNamedWithTheSizeAndWhatIsKnown) {
  const auto ranks = four_ranks_two_hosts();
  const auto c = m::plan_cases({}, {0, 1, 2, 3})[1];
  const std::vector<m::rank_reply> arrived = {{0, ok_result(c, 100)}, {2, ok_result(c, 100)}};
  const std::vector<m::missing_rank> missing = {{1, true, "its process (pid 4711) has died"},
                                                {3, false, ""}};
  const auto failed =
      m::missing_ranks_result(c, missing, arrived, ranks, "a", "its 3 s deadline passed");
  EXPECT_EQ(failed.status, r::result_status::failed);
  EXPECT_EQ(failed.failure, r::failure_kind::worker_exit);
  EXPECT_EQ(failed.reason, "collective.all_reduce at 67108864 bytes: 2 of 4 ranks had not "
                           "arrived when its 3 s deadline passed: rank 1 on a, GPU 1 "
                           "(00000000:2A:00.0): its process (pid 4711) has died; rank 3 on b, "
                           "GPU 1 (00000000:2A:00.0)");
  EXPECT_EQ(failed.observations.at("missing_ranks"), (nlohmann::ordered_json{1, 3}));
  // Every rank of the group in "ranks": the missing ones last, with their node and GPU.
  const auto& listed = failed.observations.at("ranks");
  ASSERT_EQ(listed.size(), 4U);
  EXPECT_EQ(listed.at(2).at("rank"), 1);
  EXPECT_EQ(listed.at(2).at("status"), "missing");
  EXPECT_EQ(listed.at(3).at("host"), "b");
  EXPECT_EQ(listed.at(3).at("pci_bus_id"), "00000000:2A:00.0");
  // Nobody known dead: the deadline's failure.
  const std::vector<m::missing_rank> silent = {{3, false, ""}};
  EXPECT_EQ(m::missing_ranks_result(c, silent, arrived, ranks, "a", "x").failure,
            r::failure_kind::worker_timeout);
}
