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

#include "gpuspec/collectives/collective_case.hpp"
#include "gpuspec/collectives/collective_figures.hpp"
#include "gpuspec/collectives/collective_run.hpp"
#include "gpuspec/collectives/mpi/rank_measure.hpp"
#include "gpuspec/collectives/nccl_version.hpp"
#include "gpuspec/kernels/pointer_chase.hpp" // parse_size_text
#include "gpuspec/reports/model/statistics.hpp"

namespace gpuspec::collectives::mpi {

static_assert(std::is_same_v<nccl_unique_id, collectives::unique_id>,
              "the launcher's id on the wire is the runner's ncclUniqueId bytes");

namespace {

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

/// The one collective body's sink for one rank: its reports::result.
class rank_sink final : public case_sink {
public:
  rank_sink(reports::result& r, const rank_context& ctx) : m_r(r), m_ctx(ctx) {}

  void parameter(const std::string& name, nlohmann::ordered_json value) override {
    m_r.observations[name] = std::move(value);
  }
  void nccl_facts(collective_kind, std::uint64_t) override {
    m_r.observations["nccl_version"] = nccl_version();
  }
  std::string not_arrived(const std::vector<int>& ranks) override {
    return fmt::format("rank {} of the group", fmt::join(ranks, ", "));
  }
  std::string communicators() const override { return "communicator"; }
  void not_supported(std::string why) override {
    m_r = with_status(m_r, reports::result_status::not_supported, std::move(why));
  }
  void failed(std::string why) override {
    m_r = with_status(m_r, reports::result_status::failed, std::move(why));
  }
  void figures(const collective_case&, const collective_outcome& o, collective_figures f) override {
    m_r.metric = "busbw";
    m_r.unit = reports::metric_unit::gigabytes_per_second;
    m_r.higher_is_better = true;
    m_r.sample_seconds = o.seconds_per_iteration;
    m_r.samples = std::move(f.busbw_gbs);
    m_r.stats = reports::summarize(m_r.samples);
    m_r.bytes_per_iteration = f.algbw_bytes;
  }
  void checked(std::int64_t wrong, const std::vector<std::int64_t>&) override {
    m_r.check.status =
        wrong == 0 ? reports::verification_status::passed : reports::verification_status::failed;
    m_r.check.detail = fmt::format("every output element of this rank against its exact value "
                                   "(seeded integers); #wrong {}",
                                   wrong);
    if (wrong == 0) {
      m_r.check.max_rel_error = 0.0;
      return;
    }
    m_r = with_status(m_r, reports::result_status::failed,
                      fmt::format("verification failed: {} wrong element(s) on rank {} of the "
                                  "group (its GPU {}, {})",
                                  wrong, m_ctx.group_rank, m_ctx.self.device->index,
                                  m_ctx.self.device->pci_bus_id));
    m_r.failure = reports::failure_kind::verification;
  }

private:
  reports::result& m_r;
  const rank_context& m_ctx;
};

/// The case's axes (the bench id's collective included), or the reason it is not supported.
std::optional<collective_case> read_case(const mpi_case& c, int group_size, std::string& why) {
  const std::string prefix = "collective.";
  const auto kind = c.bench_id.rfind(prefix, 0) == 0
                        ? parse_collective(std::string_view(c.bench_id).substr(prefix.size()))
                        : std::nullopt;
  if (!kind) {
    why = c.bench_id + " is not one of NCCL's collectives gpuspec runs";
    return std::nullopt;
  }
  const auto type = parse_element_type(c.axes.value("dtype", std::string("fp32")));
  if (!type) {
    why = "dtype " + c.axes.value("dtype", std::string()) + " is not fp32, fp16 or bf16";
    return std::nullopt;
  }
  collective_case cc;
  cc.kind = *kind;
  cc.type = *type;
  cc.size_text = c.axes.value("size", std::string());
  cc.size_bytes = kernels::parse_size_text(cc.size_text);
  cc.in_place = c.axes.value("placement", std::string("out_of_place")) == "in_place";
  why = in_place_refusal(cc.kind, cc.in_place, group_size);
  if (!why.empty())
    return std::nullopt;
  return cc;
}

/// This rank's communicator for the case's group: the one kept for the id rank 0 sent, or a new
/// one joined within the case's init allowance. nullptr, with `why`, when NCCL refuses.
std::shared_ptr<node_communicators> group_comms(communicator_cache& cache, const rank_context& ctx,
                                                const mpi_case& c, double budget,
                                                std::string& why) {
  auto& held = cache.by_group[c.group];
  if (held.first != c.nccl_unique_id_hex || !held.second || held.second->aborted())
    held = {}; // a new id for the group: the old communicator goes first
  if (held.second)
    return held.second;
  const double init_s =
      c.init_allowance_s > 0 ? std::min(c.init_allowance_s, budget) : 0.5 * budget;
  try {
    held = {c.nccl_unique_id_hex,
            node_communicators::join(*ctx.self.device->cuda_index, ctx.unique_id, ctx.group_size,
                                     ctx.group_rank, init_s)};
  } catch (const nccl_unavailable& e) {
    why = fmt::format("NCCL unavailable: {} (communicator of {} ranks, {:.0f} s allowed for its "
                      "init)",
                      e.what(), ctx.group_size, init_s);
    return nullptr;
  }
  return held.second;
}

reports::result measure_rank(communicator_cache& cache, const rank_context& ctx,
                             const mpi_case& c) {
  reports::result r = skipped_result(c, ctx, "");
  r.status = reports::result_status::ok;
  const auto skip = [&](std::string why) {
    return with_status(r, reports::result_status::skipped, std::move(why));
  };
  std::string why;
  const auto cc = read_case(c, ctx.group_size, why);
  if (!cc)
    return with_status(r, reports::result_status::not_supported, why);
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
  const auto comms = group_comms(cache, ctx, c, budget, why);
  if (!comms)
    return skip(why);

  case_run run;
  run.request = case_request(*cc, 10, std::max(0.05, 0.8 * seconds_until(ctx.deadline) - 1.0));
  run.group_rank = ctx.group_rank;
  rank_sink sink(r, ctx);
  try {
    run_collective_case(*comms, sink, *cc, run);
  } catch (const std::exception& e) {
    comms->abort(); // a failed call leaves the communicator unusable; never finalise it
    cache.by_group[c.group] = {};
    return with_status(r, reports::result_status::failed, e.what());
  }
  if (comms->aborted())
    cache.by_group[c.group] = {};
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
