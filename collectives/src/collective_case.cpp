// The one body of a measured collective case (collective_case.hpp): what the one-node family
// and gpuspec-mpi's rank both report, in one order, under nccl-tests' names. Pure: the run is
// run_collective's (collective_case_run.cpp).

#include "gpuspec/collectives/collective_case.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

namespace gpuspec::collectives {

std::string in_place_refusal(collective_kind kind, bool in_place, int nranks) {
  if (in_place && nranks > 1 && !collective_of(kind).in_place_over_ranks)
    return "in place, a rank's buffer is overwritten while it is sent";
  return "";
}

collective_request case_request(const collective_case& c, int samples, double deadline_s) {
  collective_request q;
  q.kind = c.kind;
  q.type = c.type;
  q.size_bytes = c.size_bytes;
  q.in_place = c.in_place;
  q.seed = collective_seed;
  // More calls per sample at small sizes, so the events' resolution does not dominate.
  q.iterations = static_cast<int>(std::clamp<std::uint64_t>(
      (std::uint64_t{1} << 30) / std::max<std::uint64_t>(c.size_bytes, 1), 20, 200));
  q.samples = samples;
  q.deadline_s = deadline_s;
  return q;
}

namespace {

/// The call as nccl-tests' table prints it.
void call_parameters(case_sink& sink, const collective_case& c, const case_run& run,
                     const collective_outcome& o) {
  const collective_row& row = collective_of(c.kind);
  sink.parameter("nranks", o.nranks);
  if (run.group_rank)
    sink.parameter("group_rank", *run.group_rank);
  sink.parameter("size_bytes", o.counts.table_bytes);
  sink.parameter("count", o.counts.param_count);
  sink.parameter("nccl_tests_type", std::string(nccl_tests_type_name(c.type)));
  sink.parameter("redop", row.takes_redop ? "sum" : "none");
  sink.parameter("root", row.rooted ? run.request.root : -1);
  sink.parameter("iterations_per_sample", run.request.iterations);
}

} // namespace

void report_case(case_sink& sink, const collective_case& c, const case_run& run,
                 const collective_outcome& o) {
  const int eb = element_size(c.type);
  call_parameters(sink, c, run, o);
  sink.nccl_facts(c.kind, o.counts.param_count * static_cast<std::uint64_t>(eb));
  if (o.timed_out) {
    sink.parameter("ranks_not_finished", o.ranks_not_finished);
    sink.failed(fmt::format("collective timed out: {} of {} did not finish within {:.1f} s "
                            "({}); not arrived: {}; {} aborted",
                            collective_name(c.kind), c.size_text, run.request.deadline_s, o.phase,
                            sink.not_arrived(o.ranks_not_finished), sink.communicators()));
    return;
  }
  if (o.counts.param_count == 0) {
    sink.not_supported(fmt::format("{} over {} ranks leaves no element per rank (nccl-tests "
                                   "prints size 0)",
                                   c.size_text, o.nranks));
    return;
  }
  auto f = figures_of(c.kind, o.counts.param_count, eb, o.nranks, o.seconds_per_iteration,
                      o.wrong_per_rank);
  sink.parameter("time_us", f.median_seconds * 1e6);
  sink.parameter("algbw_gbs", f.median.algbw_gbs);
  sink.parameter("bus_factor", f.bus_factor);
  const std::int64_t wrong = f.wrong;
  sink.figures(c, o, std::move(f));
  sink.parameter("wrong_per_rank", o.wrong_per_rank);
  sink.parameter("wrong", wrong);
  sink.checked(wrong, o.wrong_per_rank);
}

} // namespace gpuspec::collectives
