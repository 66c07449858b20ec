// What one rank of gpuspec-mpi measures, with CUDA and NCCL's header (CMake picks this file or
// collective_measure_absent.cpp): the one-node collectives' runner (collectives/
// collective_run.hpp) over this process's one rank of a communicator across the job.
//
// What it measures: the same as the one-node family (benches/families/collective.cpp), under
// the same bench id, axes and observation names: busbw in GB/s from the time of one call on
// this rank's GPU (CUDA events on its stream, batches of 20 to 200 calls, 5 warm-up calls),
// algbw, time_us, nccl-tests' size and count, and #wrong from a fresh seeded input, one call and
// the counting kernel. Rank 0's merge keeps the slowest rank (nccl-tests' convention).
//
// Bootstrap: rank 0 made the group's ncclUniqueId (make_unique_id) and sent it with the case;
// every rank joins with ncclCommInitRankConfig, non-blocking, on its GPU (the CUDA ordinal its
// own process's inventory matched by PCI bus id, among the GPUs its CUDA sees), within the case's
// init allowance, once per id: the communicator is kept for the group's next cases (rank 0 sends
// the same id while the group's cases end ok) and dropped when an abort spoils it or a new id
// replaces it. Watchdog: the collective is abandoned and the communicator
// aborted (ncclCommAbort) well before the case's deadline, so that this rank's reply names
// what was stuck instead of rank 0 naming this rank as silent.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuspec/collectives/collective_figures.hpp"
#include "gpuspec/collectives/collective_run.hpp"
#include "gpuspec/collectives/mpi/rank_measure.hpp"
#include "gpuspec/collectives/nccl_version.hpp"
#include "gpuspec/kernels/pointer_chase.hpp" // parse_size_text
#include "gpuspec/reports/statistics.hpp"

namespace gpuspec::collectives::mpi {

static_assert(std::is_same_v<nccl_unique_id, collectives::unique_id>,
              "the launcher's id on the wire is the runner's ncclUniqueId bytes");

namespace {

/// The one-node family's seed, so that the two runs check the same inputs.
constexpr std::uint64_t collective_seed = 0x676375737065636bull;

double seconds_until(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(t - std::chrono::steady_clock::now()).count();
}

reports::result with_status(reports::result r, reports::result_status status, std::string reason) {
  r.status = status;
  r.reason = std::move(reason);
  if (status == reports::result_status::failed)
    r.failure = reports::failure_kind::benchmark;
  return r;
}

/// This process's communicators, one per group (the id rank 0 sent), kept across cases.
struct communicator_cache {
  std::map<std::vector<int>, std::pair<std::string, std::shared_ptr<node_communicators>>> by_group;
};

reports::result measure_rank(communicator_cache& cache, const rank_context& ctx,
                             const mpi_case& c) {
  reports::result r = skipped_result(c, ctx, "");
  r.status = reports::result_status::ok;
  const auto skip = [&](std::string why) {
    return with_status(r, reports::result_status::skipped, std::move(why));
  };

  const std::string prefix = "collective.";
  const auto kind = c.bench_id.rfind(prefix, 0) == 0
                        ? parse_collective(std::string_view(c.bench_id).substr(prefix.size()))
                        : std::nullopt;
  if (!kind)
    return with_status(r, reports::result_status::not_supported,
                       c.bench_id + " is not one of NCCL's collectives gpuspec runs");
  const auto type = parse_element_type(c.axes.value("dtype", std::string("fp32")));
  if (!type)
    return with_status(r, reports::result_status::not_supported,
                       "dtype " + c.axes.value("dtype", std::string()) +
                           " is not fp32, fp16 or bf16");
  const std::string size_axis = c.axes.value("size", std::string());
  const std::uint64_t size = kernels::parse_size_text(size_axis);
  const bool in_place = c.axes.value("placement", std::string("out_of_place")) == "in_place";
  if (in_place && (*kind == collective_kind::alltoall || *kind == collective_kind::sendrecv))
    return with_status(r, reports::result_status::not_supported,
                       "in place, a rank's buffer is overwritten while it is sent");
  if (ctx.unique_id == nccl_unique_id{})
    return skip("rank 0 sent no NCCL unique id for this case's group");
  if (!ctx.self.device || !ctx.self.device->cuda_index)
    return skip(fmt::format("the CUDA runtime does not see this rank's GPU ({})",
                            ctx.self.device ? ctx.self.device->pci_bus_id : "none"));

  // Inside the case's deadline, as the one-node family inside its worker's: the communicator
  // within its own allowance (the first case of an id), or half the time where the case has
  // none, then the collective with what is left.
  const double budget = 0.8 * seconds_until(ctx.deadline) - 1.0;
  if (budget <= 0.1)
    return skip(fmt::format("the case's deadline leaves no time ({:.1f} s)", budget));
  auto& held = cache.by_group[c.group];
  if (held.first != c.nccl_unique_id_hex || !held.second || held.second->aborted())
    held = {}; // a new id for the group: the old communicator goes first
  std::shared_ptr<node_communicators> comms = held.second;
  if (!comms) {
    const double init_s =
        c.init_allowance_s > 0 ? std::min(c.init_allowance_s, budget) : 0.5 * budget;
    try {
      comms = node_communicators::join(*ctx.self.device->cuda_index, ctx.unique_id, ctx.group_size,
                                       ctx.group_rank, init_s);
    } catch (const nccl_unavailable& e) {
      return skip(fmt::format("NCCL unavailable: {} (communicator of {} ranks, {:.0f} s allowed "
                              "for its init)",
                              e.what(), ctx.group_size, init_s));
    }
    held = {c.nccl_unique_id_hex, comms};
  }

  collective_request q;
  q.kind = *kind;
  q.type = *type;
  q.size_bytes = size;
  q.in_place = in_place;
  q.seed = collective_seed;
  q.iterations = static_cast<int>(std::clamp<std::uint64_t>(
      (std::uint64_t{1} << 30) / std::max<std::uint64_t>(size, 1), 20, 200));
  q.samples = 10;
  q.deadline_s = std::max(0.05, 0.8 * seconds_until(ctx.deadline) - 1.0);

  collective_outcome o;
  try {
    o = run_collective(*comms, q);
  } catch (const std::exception& e) {
    comms->abort(); // a failed call leaves the communicator unusable; never finalise it
    held = {};
    return with_status(r, reports::result_status::failed, e.what());
  }
  if (comms->aborted())
    held = {};

  const auto& counts = o.counts;
  const int eb = element_size(*type);
  auto& obs = r.observations;
  obs["nranks"] = o.nranks;
  obs["group_rank"] = ctx.group_rank;
  obs["size_bytes"] = counts.table_bytes;
  obs["count"] = counts.param_count;
  obs["nccl_tests_type"] = std::string(nccl_tests_type_name(*type));
  obs["redop"] = has_reduction(*kind) ? "sum" : "none";
  obs["root"] = has_root(*kind) ? q.root : -1;
  obs["iterations_per_sample"] = q.iterations;
  obs["nccl_version"] = nccl_version();
  if (o.timed_out) {
    obs["ranks_not_finished"] = o.ranks_not_finished;
    return with_status(r, reports::result_status::failed,
                       fmt::format("collective timed out: {} of {} did not finish within {:.1f} s "
                                   "({}); not arrived: rank {} of the group; communicator aborted",
                                   collective_name(*kind), size_axis, q.deadline_s, o.phase,
                                   fmt::join(o.ranks_not_finished, ", ")));
  }
  if (counts.param_count == 0)
    return with_status(r, reports::result_status::not_supported,
                       fmt::format("{} over {} ranks leaves no element per rank (nccl-tests "
                                   "prints size 0)",
                                   size_axis, o.nranks));

  auto f = figures_of(*kind, counts.param_count, eb, o.nranks, o.seconds_per_iteration,
                      o.wrong_per_rank);
  obs["time_us"] = f.median_seconds * 1e6;
  obs["algbw_gbs"] = f.median.algbw_gbs;
  obs["bus_factor"] = f.bus_factor;
  obs["wrong_per_rank"] = o.wrong_per_rank;
  obs["wrong"] = f.wrong;
  r.metric = "busbw";
  r.unit = reports::metric_unit::gigabytes_per_second;
  r.higher_is_better = true;
  r.sample_seconds = o.seconds_per_iteration;
  r.samples = std::move(f.busbw_gbs);
  r.stats = reports::summarize(r.samples);
  r.bytes_per_iteration = f.algbw_bytes;
  r.check.status =
      f.wrong == 0 ? reports::verification_status::passed : reports::verification_status::failed;
  r.check.detail = fmt::format("every output element of this rank against its exact value "
                               "(seeded integers); #wrong {}",
                               f.wrong);
  if (f.wrong == 0) {
    r.check.max_rel_error = 0.0;
    return r;
  }
  r = with_status(r, reports::result_status::failed,
                  fmt::format("verification failed: {} wrong element(s) on rank {} of the group "
                              "(its GPU {}, {})",
                              f.wrong, ctx.group_rank, ctx.self.device->index,
                              ctx.self.device->pci_bus_id));
  r.failure = reports::failure_kind::verification;
  return r;
}

} // namespace

measure_backend collective_rank_backend() {
  // NCCL opened at run time: absent or unusable on this node, every case is skipped with the
  // loader's words, and the job still ends with a report.
  if (auto why = nccl_unusable_reason(); !why.empty())
    return unavailable_backend(std::move(why));
  measure_backend b;
  b.name = "cuda";
  auto cache = std::make_shared<communicator_cache>();
  b.measure = [cache](const rank_context& ctx, const mpi_case& c) {
    return measure_rank(*cache, ctx, c);
  };
  b.make_unique_id = []() -> std::optional<nccl_unique_id> {
    try {
      return make_unique_id();
    } catch (const nccl_unavailable&) {
      return std::nullopt; // each rank then skips the case: "rank 0 sent no NCCL unique id"
    }
  };
  return b;
}

} // namespace gpuspec::collectives::mpi
