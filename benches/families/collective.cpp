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
#include "gpuspec/collectives/collective_case.hpp"
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
  const auto& row = collectives::collective_of(kind);
  if (const auto choice = collectives::choice_for(these, row.nccl_function, call_bytes)) {
    state.add_parameter("nccl_algorithm", choice->algorithm);
    state.add_parameter("nccl_protocol", choice->protocol);
  } else if (!row.logs_choice) {
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
  host::collective_ceiling_inputs in;
  for (const auto& d : state.devices()) {
    const auto row = state.options().spec_rows.find(d.info.spec_id);
    in.gpus.push_back({&d.info, row == state.options().spec_rows.end() ? nullptr : &row->second});
  }
  // Only the rows the switch's reduction carries (NVLink SHARP: all-reduce) gain from it; their
  // busbw may then reach the bus factor x the link.
  in.in_switch_factor = collectives::in_switch_factor(kind, static_cast<int>(in.gpus.size()));
  const auto choice = collective_link_ceiling(in);
  state.add_parameter("ceiling_link", std::string(to_string(choice.link)));
  state.add_parameter("ceiling_why", choice.why);
  state.set_ceiling(choice.ceiling);
}

/// The one collective body's sink for a one-node case: node_state, NCCL's log of this worker,
/// the node's link ceiling.
class node_sink final : public collectives::case_sink {
public:
  node_sink(node_state& state, nccl_log& log) : m_state(state), m_log(log) {}

  void parameter(const std::string& name, nlohmann::ordered_json value) override {
    m_state.add_parameter(name, std::move(value));
  }
  void nccl_facts(collective_kind kind, std::uint64_t call_bytes) override {
    record_nccl_facts(m_state, m_log, kind, call_bytes);
  }
  std::string not_arrived(const std::vector<int>& ranks) override {
    std::vector<std::string> who;
    for (int r : ranks)
      who.push_back(fmt::format("rank {} (GPU {})", r, m_state.devices()[r].info.index));
    return fmt::format("{}", fmt::join(who, ", "));
  }
  std::string communicators() const override { return "communicators"; }
  void not_supported(std::string why) override { m_state.not_supported(std::move(why)); }
  void failed(std::string why) override { m_state.fail(std::move(why)); }
  void figures(const collectives::collective_case& c, const collectives::collective_outcome& o,
               collectives::collective_figures f) override {
    if (o.nranks == 1)
      m_state.add_parameter("one_rank",
                            "one rank: nothing crosses a bus (busbw factor " +
                                fmt::format("{:g}", collectives::bus_factor(c.kind, 1)) +
                                "); reported, not judged");
    m_state.set_samples(o.seconds_per_iteration, std::move(f.busbw_gbs),
                        reports::metric_unit::gigabytes_per_second, "busbw");
    m_state.set_bytes_per_iteration(f.algbw_bytes);
    attach_link_ceiling(m_state, c.kind);
  }
  void checked(std::int64_t wrong, const std::vector<std::int64_t>& per_rank) override {
    reports::verification v;
    v.status =
        wrong == 0 ? reports::verification_status::passed : reports::verification_status::failed;
    v.detail = fmt::format("every output element against its exact value (seeded integers); "
                           "#wrong {} (per rank: {})",
                           wrong, fmt::join(per_rank, ", "));
    if (wrong == 0)
      v.max_rel_error = 0.0;
    m_state.set_verification(v);
  }

private:
  node_state& m_state;
  nccl_log& m_log;
};

/// The case's axes, or nullopt once the state says why it does not run (not supported).
std::optional<collectives::collective_case> read_case(node_state& state, collective_kind kind) {
  const auto type = collectives::parse_element_type(state.axis("dtype"));
  if (!type)
    throw std::invalid_argument("dtype " + state.axis("dtype") + " is not fp32, fp16 or bf16");
  collectives::collective_case c;
  c.kind = kind;
  c.type = *type;
  c.size_text = state.axis("size");
  c.size_bytes = kernels::parse_size_text(c.size_text);
  c.in_place = state.axis("placement") == "in_place";
  const auto refusal =
      collectives::in_place_refusal(kind, c.in_place, static_cast<int>(state.devices().size()));
  if (!refusal.empty()) {
    state.not_supported(refusal);
    return std::nullopt;
  }
  return c;
}

/// The node's communicators over every selected GPU, made once per worker (node_cache), or
/// nullptr once the state says NCCL is unavailable (skipped).
std::shared_ptr<collectives::node_communicators> node_comms(node_state& state,
                                                            const std::string& key) {
  try {
    std::vector<int> ordinals;
    for (const auto& d : state.devices())
      ordinals.push_back(d.cuda_device);
    const double init_budget = std::max(1.0, 0.5 * state.seconds_left());
    return state.cache().get<std::shared_ptr<collectives::node_communicators>>(
        key, [&] { return collectives::node_communicators::create(ordinals, init_budget); });
  } catch (const collectives::nccl_unavailable& e) {
    state.skip(std::string("NCCL unavailable: ") + e.what());
    return nullptr;
  }
}

/// True when this build and this node can run NCCL; else false, and the state says why.
bool nccl_usable(node_state& state) {
  if (!collectives::built_with_nccl()) {
    state.not_supported("gpuspec was built without NCCL");
    return false;
  }
  // NCCL is opened at run time (collectives/nccl_library.hpp): absent or unusable, the case is
  // skipped with the loader's words, before anything of NCCL's is touched.
  if (const auto why = collectives::nccl_unusable_reason(); !why.empty()) {
    state.skip(why);
    return false;
  }
  return true;
}

void collective_case(node_state& state, collective_kind kind) {
  if (!nccl_usable(state))
    return;
  const auto c = read_case(state, kind);
  if (!c)
    return;
  const std::string key = devices_key(state.devices());
  auto& log = state.cache().get<nccl_log>("nccl-log", prepare_nccl_log);
  const auto comms = node_comms(state, key);
  if (!comms)
    return;

  // Well inside the worker's deadline, so that this result, not the coordinator, says what
  // was stuck.
  collectives::case_run run;
  run.request = collectives::case_request(*c, std::max(10, state.options().stopping.min_samples),
                                          std::max(0.05, 0.8 * state.seconds_left() - 1.0));
  run.request.on_run = [&state](int runs, double seconds) { state.ran(runs, seconds); };
  // NCCL's tuning line is written inside each call: on for the check's untimed call only.
  if (collectives::collective_of(kind).logs_choice && log.session->probes())
    run.request.tuning_log = [&log](bool on) { log.session->tuning(on); };

  node_sink sink(state, log);
  try {
    collectives::run_collective_case(*comms, sink, *c, run);
  } catch (const std::exception& e) {
    if (comms->aborted())
      state.cache().erase(key);
    state.fail(e.what());
    return;
  }
  if (comms->aborted())
    state.cache().erase(key);
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
