// collective.{all_reduce,all_gather,reduce_scatter,broadcast,reduce,alltoall,sendrecv}: NCCL
// collectives over every selected GPU of the node, with nccl-tests' figures.
//
// What it measures: busbw in GB/s (nccl-tests' definition, bandwidth.hpp), from the time of one
// call on the slowest GPU; the observations carry algbw, the time per call in microseconds,
// nccl-tests' size and count, #wrong per rank, and what NCCL says it used (version, transport
// per channel, algorithm and protocol). Bound by the GPU-to-GPU links at large sizes (NVLink,
// NVSwitch, PCIe) and by latency at small ones. Hardware: any CUDA GPUs NCCL supports; one GPU
// runs one-rank collectives (NCCL allows nranks = 1; nothing crosses a bus).
//
// Shape (the lead's decision, docs/collectives.md): one worker process owns every selected GPU
// and drives them with one communicator per GPU made together in this process, launched through
// ncclGroupStart/End from one thread (nccl-tests `-g N`). The communicators are made once per
// worker (node_cache) and reused by every case; one that was aborted is dropped.
//
// Axes: dtype fp32 | fp16 | bf16 (sum for the reducing collectives, the element type for the
// others), size 8 B to 1 GiB by factors of 2 (nccl-tests' "size": collective_sizes.hpp; quick
// runs 1 GiB, 1 MiB and 8 B), placement out_of_place | in_place. In place, alltoall and sendrecv
// over several ranks would read a buffer while it is overwritten: not supported.
//
// Check: every output element against its exact expected value (integer inputs: exact sums in
// all three types), counted per rank as nccl-tests' #wrong; any wrong element fails the result.
//
// Timing: blocking communicators, the calls of a sample back to back, NCCL's per-call tuning
// log off; the algorithm and protocol are read from the check's one untimed call, with the log
// switched on for it (collective_driver.hpp, nccl_log_session.hpp, docs/collectives.md).
//
// Watchdog: each case gets a deadline well inside the worker's (state.seconds_left()); past it
// the communicators are aborted, dropped from the cache, and the result fails naming the size,
// the phase and the ranks (GPUs) that had not finished. The report is still written.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>

#include "gpuspec/benches/families.hpp"
#include "gpuspec/benches/node_state.hpp"
#include "gpuspec/collectives/bandwidth.hpp"
#include "gpuspec/collectives/collective_figures.hpp"
#include "gpuspec/collectives/collective_run.hpp"
#include "gpuspec/collectives/nccl_debug_log.hpp"
#include "gpuspec/collectives/nccl_debug_setup.hpp"
#include "gpuspec/collectives/nccl_log_session.hpp"
#include "gpuspec/collectives/nccl_version.hpp"
#include "gpuspec/host/collective_ceiling.hpp"
#include "gpuspec/kernels/pointer_chase.hpp" // size_text, parse_size_text

namespace gpuspec::benches {

namespace {

using collectives::collective_kind;

constexpr std::uint64_t collective_seed = 0x676375737065636bull;

/// The size axis: quick's three first (1 GiB plateau, 1 MiB middle, 8 B latency), then every
/// other power of two from 8 B to 1 GiB.
std::vector<std::string> collective_sizes() {
  std::vector<std::string> sizes{kernels::size_text(std::uint64_t{1} << 30),
                                 kernels::size_text(std::uint64_t{1} << 20), "8B"};
  for (std::uint64_t b = 16; b < (std::uint64_t{1} << 30); b *= 2)
    if (b != (std::uint64_t{1} << 20))
      sizes.push_back(kernels::size_text(b));
  return sizes;
}

/// NCCL's log of this worker (nccl_log_session.hpp): kept in the node cache.
struct nccl_log {
  std::shared_ptr<collectives::nccl_log_session>
      session; // shared: the cache holds copyable objects
};

/// Sets NCCL_DEBUG* for this worker (only those the user did not set) before NCCL's first call;
/// the session switches NCCL's tuning log on for each case's untimed call only.
nccl_log prepare_nccl_log() {
  char host[256] = {};
  (void)gethostname(host, sizeof host - 1);
  const std::string own = fmt::format("/tmp/gpuspec-nccl-{}.log", static_cast<long>(getpid()));
  auto setup = collectives::plan_nccl_debug(
      [](std::string_view name) -> std::optional<std::string> {
        const char* v = std::getenv(std::string(name).c_str());
        return v != nullptr ? std::optional<std::string>(v) : std::nullopt;
      },
      own, host, static_cast<long>(getpid()));
  for (const auto& [name, value] : setup.to_set)
    setenv(name.c_str(), value.c_str(), 0); // 0: never over a value set since
  collectives::nccl_log_session::reset_log reset;
  if (collectives::nccl_resets_debug())
    reset = [] { collectives::reset_nccl_debug(); };
  nccl_log log;
  log.session = std::make_shared<collectives::nccl_log_session>(
      std::move(setup),
      [](const std::string& name, const std::string& value) {
        setenv(name.c_str(), value.c_str(), 1); // ours (switchable): the worker set it
      },
      std::move(reset));
  return log;
}

std::string devices_key(const std::vector<node_device>& devices) {
  std::string key = "nccl:";
  for (const auto& d : devices)
    key += std::to_string(d.cuda_device) + ",";
  return key;
}

/// NCCL's name of the call in its tuning lines.
std::string_view nccl_function(collective_kind kind) {
  switch (kind) {
  case collective_kind::all_reduce:
    return "AllReduce";
  case collective_kind::all_gather:
    return "AllGather";
  case collective_kind::reduce_scatter:
    return "ReduceScatter";
  case collective_kind::broadcast:
    return "Broadcast";
  case collective_kind::reduce:
    return "Reduce";
  case collective_kind::alltoall:
  case collective_kind::sendrecv:
    return "SendRecv";
  }
  return "";
}

/// Point-to-point calls (alltoall, sendrecv) print no tuning line: no untimed call is switched.
bool logs_a_choice(collective_kind kind) {
  return kind != collective_kind::alltoall && kind != collective_kind::sendrecv;
}

void record_nccl_facts(node_state& state, nccl_log& log, collective_kind kind,
                       std::uint64_t call_bytes) {
  auto& session = *log.session;
  const auto choices = session.read_new();
  state.add_parameter("nccl_version", collectives::nccl_version());
  if (!session.setup().limitation.empty())
    state.add_parameter("nccl_log_limitation", session.setup().limitation);
  nlohmann::ordered_json transports = nlohmann::ordered_json::array();
  for (auto t : collectives::transports_used(session.facts()))
    transports.push_back(std::string(collectives::transport_name(t)));
  state.add_parameter("nccl_transports", transports);
  if (session.facts().nvls_channels)
    state.add_parameter("nccl_nvls_channels", *session.facts().nvls_channels);
  collectives::nccl_debug_facts these;
  these.choices = choices;
  if (const auto choice = collectives::choice_for(these, nccl_function(kind), call_bytes)) {
    state.add_parameter("nccl_algorithm", choice->algorithm);
    state.add_parameter("nccl_protocol", choice->protocol);
  } else if (!logs_a_choice(kind)) {
    state.add_parameter("nccl_algorithm", "not in NCCL's log (point-to-point calls print none)");
  } else if (!session.probes()) {
    state.add_parameter("nccl_algorithm", session.why_no_probe());
  } else {
    state.add_parameter("nccl_algorithm", "not in NCCL's log for the untimed call");
  }
}

/// The link that bounds busbw (collective_ceiling.hpp): NVLink per direction from the spec rows
/// when the inventory has the GPUs' links up, else the PCIe link; none for one rank.
void attach_link_ceiling(node_state& state, collective_kind kind) {
  collective_ceiling_inputs in;
  for (const auto& d : state.devices()) {
    const auto row = state.options().spec_rows.find(d.info.spec_id);
    in.gpus.push_back({&d.info, row == state.options().spec_rows.end() ? nullptr : &row->second});
  }
  // Only an all-reduce gains from the switch's reduction (NVLink SHARP); its busbw may then
  // reach 2(n-1)/n x the link, which is what nccl-tests' factor multiplies.
  const int nranks = static_cast<int>(in.gpus.size());
  in.in_switch_factor = kind == collective_kind::all_reduce
                            ? std::max(1.0, collectives::bus_factor(kind, nranks))
                            : 1.0;
  const auto choice = collective_link_ceiling(in);
  state.add_parameter("ceiling_link", std::string(to_string(choice.link)));
  state.add_parameter("ceiling_why", choice.why);
  state.set_ceiling(choice.ceiling);
}

void collective_case(node_state& state, collective_kind kind) {
  if (!collectives::built_with_nccl()) {
    state.not_supported("gpuspec was built without NCCL");
    return;
  }
  // NCCL is opened at run time (collectives/nccl_library.hpp): absent or unusable, the case is
  // skipped with the loader's words, before anything of NCCL's is touched.
  if (const auto why = collectives::nccl_unusable_reason(); !why.empty()) {
    state.skip(why);
    return;
  }
  const auto type = collectives::parse_element_type(state.axis("dtype"));
  if (!type)
    throw std::invalid_argument("dtype " + state.axis("dtype") + " is not fp32, fp16 or bf16");
  const std::uint64_t size = kernels::parse_size_text(state.axis("size"));
  const bool in_place = state.axis("placement") == "in_place";
  const auto& devices = state.devices();
  const int nranks = static_cast<int>(devices.size());
  if (in_place && nranks > 1 &&
      (kind == collective_kind::alltoall || kind == collective_kind::sendrecv)) {
    state.not_supported("in place, a rank's buffer is overwritten while it is sent");
    return;
  }

  const std::string key = devices_key(devices);
  auto& log = state.cache().get<nccl_log>("nccl-log", prepare_nccl_log);
  std::shared_ptr<collectives::node_communicators> comms;
  try {
    std::vector<int> ordinals;
    for (const auto& d : devices)
      ordinals.push_back(d.cuda_device);
    const double init_budget = std::max(1.0, 0.5 * state.seconds_left());
    comms = state.cache().get<std::shared_ptr<collectives::node_communicators>>(
        key, [&] { return collectives::node_communicators::create(ordinals, init_budget); });
  } catch (const collectives::nccl_unavailable& e) {
    state.skip(std::string("NCCL unavailable: ") + e.what());
    return;
  }

  collectives::collective_request q;
  q.kind = kind;
  q.type = *type;
  q.size_bytes = size;
  q.in_place = in_place;
  q.seed = collective_seed;
  // More calls per sample at small sizes, so the events' resolution does not dominate.
  q.iterations = static_cast<int>(std::clamp<std::uint64_t>(
      (std::uint64_t{1} << 30) / std::max<std::uint64_t>(size, 1), 20, 200));
  q.samples = std::max(10, state.options().stopping.min_samples);
  // Well inside the worker's deadline, so that this result, not the coordinator, says what
  // was stuck.
  q.deadline_s = std::max(0.05, 0.8 * state.seconds_left() - 1.0);
  q.on_run = [&state](int runs, double seconds) { state.ran(runs, seconds); };
  // NCCL's tuning line is written inside each call: on for the check's untimed call only.
  if (logs_a_choice(kind) && log.session->probes())
    q.tuning_log = [&log](bool on) { log.session->tuning(on); };

  collectives::collective_outcome o;
  try {
    o = collectives::run_collective(*comms, q);
  } catch (const std::exception& e) {
    if (comms->aborted())
      state.cache().erase(key);
    state.fail(e.what());
    return;
  }
  if (comms->aborted())
    state.cache().erase(key);

  const auto& c = o.counts;
  const int eb = collectives::element_size(*type);
  state.add_parameter("nranks", nranks);
  state.add_parameter("size_bytes", c.table_bytes);
  state.add_parameter("count", c.param_count);
  state.add_parameter("nccl_tests_type", std::string(collectives::nccl_tests_type_name(*type)));
  state.add_parameter("redop", collectives::has_reduction(kind) ? "sum" : "none");
  state.add_parameter("root", collectives::has_root(kind) ? q.root : -1);
  state.add_parameter("iterations_per_sample", q.iterations);
  record_nccl_facts(state, log, kind, c.param_count * static_cast<std::uint64_t>(eb));

  if (o.timed_out) {
    std::vector<std::string> who;
    for (int r : o.ranks_not_finished)
      who.push_back(fmt::format("rank {} (GPU {})", r, devices[r].info.index));
    state.add_parameter("ranks_not_finished", o.ranks_not_finished);
    state.fail(fmt::format("collective timed out: {} of {} did not finish within {:.1f} s "
                           "({}); not arrived: {}; communicators aborted",
                           collectives::collective_name(kind), state.axis("size"), q.deadline_s,
                           o.phase, fmt::join(who, ", ")));
    return;
  }
  if (c.param_count == 0) {
    state.not_supported(fmt::format("{} over {} ranks leaves no element per rank (nccl-tests "
                                    "prints size 0)",
                                    state.axis("size"), nranks));
    return;
  }

  auto f = collectives::figures_of(kind, c.param_count, eb, nranks, o.seconds_per_iteration,
                                   o.wrong_per_rank);
  state.add_parameter("time_us", f.median_seconds * 1e6);
  state.add_parameter("algbw_gbs", f.median.algbw_gbs);
  state.add_parameter("bus_factor", f.bus_factor);
  if (nranks == 1)
    state.add_parameter("one_rank", "one rank: nothing crosses a bus (busbw factor " +
                                        fmt::format("{:g}", collectives::bus_factor(kind, 1)) +
                                        "); reported, not judged");
  state.set_samples(o.seconds_per_iteration, std::move(f.busbw_gbs),
                    reports::metric_unit::gigabytes_per_second, "busbw");
  state.set_bytes_per_iteration(f.algbw_bytes);
  attach_link_ceiling(state, kind);

  const std::int64_t wrong = f.wrong;
  state.add_parameter("wrong_per_rank", o.wrong_per_rank);
  state.add_parameter("wrong", wrong);
  reports::verification v;
  v.status =
      wrong == 0 ? reports::verification_status::passed : reports::verification_status::failed;
  v.detail = fmt::format("every output element against its exact value (seeded integers); "
                         "#wrong {} (per rank: {})",
                         wrong, fmt::join(o.wrong_per_rank, ", "));
  if (wrong == 0)
    v.max_rel_error = 0.0;
  state.set_verification(v);
}

} // namespace

void register_collective_benchmarks(registry& r) {
  const std::vector<std::string> dtypes{"fp32", "fp16", "bf16"};
  const std::vector<std::string> placements{"out_of_place", "in_place"};
  for (collective_kind kind : collectives::all_collective_kinds) {
    const std::string name(collectives::collective_name(kind));
    r.add_node("collective." + name,
               "NCCL " + name + " over every selected GPU: nccl-tests' time, algbw, busbw, #wrong",
               [kind](node_state& state) { collective_case(state, kind); })
        .in_suites({"quick", "standard", "full"})
        .with_axis("dtype", dtypes)
        .with_axis("size", collective_sizes(), 3)
        .with_axis("placement", placements);
  }
}

} // namespace gpuspec::benches
