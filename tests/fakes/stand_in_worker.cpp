// gpuspec_stand_in_worker: a worker that measures nothing, for the spine's tests. `gpuspec run`
// starts it instead of itself when $GPUSPEC_WORKER names it. It follows a script
// ($GPUSPEC_STAND_IN_SCRIPT, format in README.md here) that gives each GPU a behaviour: answer
// normally, hang, die on SIGSEGV, exit 1 half-way, write a line cut short, write garbage, be
// slow but within its deadline, or fail a case with a sticky CUDA error (the worker then exits
// with the spine's sticky_error_exit_code). Cases are counted as the GPU's plan counts them, so a
// fresh worker that takes over from a lost one (its assignment's first_case) strikes only at a
// case of "at_cases" it reaches. A case with "burnin": true runs for the assignment's --duration
// as the burn-in does (burnin_timeline.hpp), with a checksum that changes from iteration
// "checksum_changes_at" on where the script says so. Its hello and plan say backend "stand-in", so
// every report it produces says so, and `gpuspec check` never passes it.

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuspec/host/burnin_timeline.hpp"
#include "gpuspec/host/p2p_plan.hpp"
#include "gpuspec/reports/model/reference.hpp"
#include "gpuspec/reports/model/statistics.hpp"
#include "gpuspec/spine/protocol.hpp"
#include "gpuspec/spine/worker.hpp"

namespace {

using json = nlohmann::json;
namespace spine = gpuspec::spine;
namespace reports = gpuspec::reports;

json load_script() {
  const char* path = std::getenv("GPUSPEC_STAND_IN_SCRIPT");
  if (path == nullptr || *path == '\0') {
    std::cerr << "stand-in worker: GPUSPEC_STAND_IN_SCRIPT is not set\n";
    std::exit(2);
  }
  std::ifstream in(path);
  json j = json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    std::cerr << "stand-in worker: " << path << " is not a JSON object\n";
    std::exit(2);
  }
  return j;
}

struct behaviour {
  /// normal, hang, segv, exit1, truncated, garbage, slow, silent, sticky (README.md here)
  std::string kind = "normal";
  /// The cases it strikes in (or before, for exit1): "at_case" (one) or "at_cases" (several),
  /// by their index in the GPU's plan.
  std::vector<int> at_cases{0};
  int checksum_changes_at = -1; ///< burn-in: the first iteration whose checksum differs
  /// burn-in: iteration 0's checksum, the same on every GPU unless the script gives one (a GPU
  /// that computes wrong from its first iteration on: only the other GPUs can tell)
  std::uint64_t reference_checksum = 0x5e5e00000000c0deull;

  [[nodiscard]] bool strikes_at(int index) const {
    return std::find(at_cases.begin(), at_cases.end(), index) != at_cases.end();
  }
};

/// The behaviour of GPU `device`'s worker, or of the node-wide worker (key "node").
behaviour behaviour_of(const json& script, const std::string& key) {
  behaviour b;
  if (script.contains("gpus") && script["gpus"].contains(key)) {
    const json& g = script["gpus"][key];
    b.kind = g.value("behaviour", "normal");
    if (g.contains("at_cases"))
      b.at_cases = g["at_cases"].get<std::vector<int>>();
    else
      b.at_cases = {g.value("at_case", 0)};
    b.checksum_changes_at = g.value("checksum_changes_at", -1);
    if (g.contains("reference_checksum"))
      b.reference_checksum = std::stoull(g["reference_checksum"].get<std::string>(), nullptr, 16);
  }
  return b;
}

/// The script's cases for the request. A case with "pairs": true stands for the peer
/// benchmarks: one case per pair the real plan gives the request's GPUs and suite
/// (p2p_planned_pairs), its axis "pair" first; none on one GPU.
spine::worker_plan plan_of(const json& script, const spine::plan_request& request) {
  spine::worker_plan plan;
  plan.backend = "stand-in";
  plan.startup_allowance_s = script.value("startup_allowance_s", 5.0);
  const double allowance = script.value("setup_allowance_s", 1.0);
  for (const json& c : script.at("cases")) {
    spine::planned_case p;
    p.bench_id = c.at("bench_id").get<std::string>();
    const json axes = c.value("axes", json::object());
    for (const auto& [name, value] : axes.items())
      p.axes.emplace_back(name, value.get<std::string>());
    p.setup_allowance_s = allowance;
    p.node_wide = c.value("node_wide", false);
    p.runs_for_duration = c.value("burnin", false);
    if (!c.value("pairs", false)) {
      plan.cases.push_back(std::move(p));
      continue;
    }
    for (const auto& pair : gpuspec::host::p2p_planned_pairs(request.gpus, request.suite)) {
      spine::planned_case one = p;
      one.axes.insert(one.axes.begin(), {"pair", pair});
      plan.cases.push_back(std::move(one));
    }
  }
  return plan;
}

/// `--plan --suite S --filter F --gpus 0,1,...` as the coordinator passes them.
spine::plan_request plan_request_of(int argc, char** argv) {
  spine::plan_request request;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--suite")
      request.suite = value;
    else if (key == "--filter")
      request.filter = value;
    else if (key == "--gpus")
      request.gpus = spine::parse_plan_gpus(value);
  }
  return request;
}

/// Sleeps `seconds` in steps, telling progress, until done or stopped.
bool sleep_with_progress(double seconds, const spine::progress_callback& progress,
                         const std::atomic<bool>& stop) {
  const auto step = std::chrono::milliseconds(100);
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int runs = 0;
  while (std::chrono::steady_clock::now() < until) {
    if (stop.load())
      return false;
    std::this_thread::sleep_for(step);
    if (progress)
      progress(++runs, 0.1);
  }
  return true;
}

/// What a harness result of a case looks like, with made-up samples: never a measurement.
reports::result synthetic_result(const spine::planned_case& c, std::vector<int> devices,
                                 double value) {
  reports::result r;
  r.bench_id = c.bench_id;
  r.devices = std::move(devices);
  for (const auto& [name, v] : c.axes)
    r.axes[name] = v;
  r.metric = "bandwidth";
  r.unit = reports::metric_unit::gigabytes_per_second;
  r.cache_state = "cold";
  r.bytes_per_iteration = 1e9;
  for (int i = 0; i < 10; ++i)
    r.samples.push_back(value * (1.0 + 0.001 * i));
  r.sample_seconds.assign(r.samples.size(), 1.0 / value);
  r.stats = reports::summarize(r.samples);
  r.stop_reason = "cv_target";
  r.check.detail = "stand-in: nothing was computed, nothing was checked";
  r.telemetry.status = "stand-in: nothing was sampled";
  return r;
}

/// The GPUs an assignment's results cover, and the key of its behaviour in the script.
bool is_node_wide(const spine::worker_assignment& a) {
  return !a.cases.empty() && a.cases.front().node_wide;
}
std::vector<int> devices_of(const spine::worker_assignment& a) {
  std::vector<int> out;
  for (const auto& d : a.devices)
    out.push_back(d.index);
  if (out.empty() || !is_node_wide(a))
    out = {a.device.index};
  return out;
}
/// "node", "0", or for a MIG device's worker "0:mig3" when the script has that key (else the
/// GPU's behaviour holds for each of its MIG devices).
std::string behaviour_key(const json& script, const spine::worker_assignment& a) {
  if (is_node_wide(a))
    return "node";
  if (const auto* m = reports::find_mig_instance(a.device.mig_instances, a.mig_uuid)) {
    const std::string key = fmt::format("{}:mig{}", a.device.index, m->mig_index);
    if (script.contains("gpus") && script["gpus"].contains(key))
      return key;
  }
  return std::to_string(a.device.index);
}

/// The script's entry for a planned case (the assignment holds a subset of the plan).
const json& script_case(const json& script, const spine::planned_case& c) {
  for (const json& s : script.at("cases")) {
    if (s.at("bench_id").get<std::string>() != c.bench_id)
      continue;
    const json axes = s.value("axes", json::object());
    // A "pairs" entry stands for every pair: its cases carry the axis "pair" besides its own.
    const bool pairs = s.value("pairs", false);
    bool same = axes.size() + (pairs ? 1 : 0) == c.axes.size();
    for (const auto& [name, value] : c.axes)
      same = same && ((pairs && name == "pair") || (axes.contains(name) && axes[name] == value));
    if (same)
      return s;
  }
  throw std::runtime_error("stand-in worker: the script has no case " + c.label());
}

/// A burn-in as benches/families/burnin.cpp runs it, with made-up work, on the real schedule
/// (burnin_timeline.hpp): GEMM phases of `gemm_phase_s` (the whole run unless the script says)
/// alternating with memory-test phases of `memtest_phase_s`, for `duration_s` (or until
/// stopped). A GEMM "iteration" every `iteration_s`, each with a checksum that equals the first
/// unless the script makes it change; a memory "pass" of `memtest_words` words every
/// `memtest_pass_s`, every word right. Summarised per `interval_s` by the real timeline; the
/// memtest record is written only when a pass completed, as the harness writes it.
/// The GEMM part of the stand-in's burn-in record before its first iteration.
reports::burnin_gemm stand_in_gemm(std::uint64_t reference) {
  reports::burnin_gemm g;
  g.dtype = "bf16";
  g.m = g.n = g.k = 8192;
  g.seed = 20261201;
  g.algorithm = "stand-in: no algorithm";
  g.reduction = "none";
  g.determinism_note = "stand-in: a made-up checksum";
  g.reference_checksum = gpuspec::host::hex_word(reference);
  return g;
}

/// The burn-in's result from what it did: its record, the timeline's throughputs as samples,
/// failed on a checksum that changed.
reports::result stand_in_burnin_result(const spine::planned_case& c, int device, double tflops,
                                       double iteration_s, double pass_s,
                                       reports::burnin_record b) {
  reports::result r = synthetic_result(c, {device}, tflops);
  r.metric = "throughput";
  r.unit = reports::metric_unit::teraflop_per_second;
  r.cache_state = "hot";
  r.bytes_per_iteration.reset();
  r.flops_per_iteration = tflops * 1e12 * iteration_s;
  b.busy_s = static_cast<double>(b.gemm->iterations) * iteration_s +
             static_cast<double>(b.memtest ? b.memtest->passes : 0) * pass_s;
  r.samples.clear();
  for (const auto& in : b.intervals)
    if (in.throughput)
      r.samples.push_back(*in.throughput);
  r.sample_seconds.assign(r.samples.size(), b.interval_s);
  r.stats = reports::summarize(r.samples);
  r.stop_reason = "time_cap";
  const bool mismatched = b.gemm->checksum_mismatches > 0;
  r.burnin = std::move(b);
  if (mismatched) {
    r.status = reports::result_status::failed;
    r.failure = reports::failure_kind::verification;
    r.reason = "a GEMM checksum differs from iteration 0's";
    r.check.status = reports::verification_status::failed;
  }
  return r;
}

reports::result stand_in_burnin(const spine::planned_case& c, int device, const json& spec,
                                double duration_s, const behaviour& misbehaviour,
                                const spine::progress_callback& progress,
                                const std::atomic<bool>& stop, double clock_origin_s) {
  using clock = std::chrono::steady_clock;
  const double iteration_s = spec.value("iteration_s", 0.05);
  const double tflops = spec.value("value", 100.0);
  const auto now_s = [&] {
    return std::chrono::duration<double>(clock::now().time_since_epoch()).count() - clock_origin_s;
  };
  const double start = now_s();
  gpuspec::host::burnin_timeline timeline(start, spec.value("interval_s", 60.0));
  const int changes_at = misbehaviour.checksum_changes_at;
  const std::uint64_t reference = misbehaviour.reference_checksum;
  reports::burnin_gemm g = stand_in_gemm(reference);
  const gpuspec::host::burnin_schedule schedule{duration_s, spec.value("gemm_phase_s", duration_s),
                                                spec.value("memtest_phase_s", 0.0)};
  const double pass_s = spec.value("memtest_pass_s", 0.1);
  const std::int64_t words = spec.value("memtest_words", std::int64_t{1} << 20);
  reports::burnin_memtest m;
  bool stopped = false;
  for (;;) {
    const auto phase = gpuspec::host::phase_at(schedule, now_s() - start);
    if (phase == gpuspec::host::burnin_phase::done)
      break;
    if (stop.load()) {
      stopped = true;
      break;
    }
    if (phase == gpuspec::host::burnin_phase::memtest) {
      std::this_thread::sleep_for(std::chrono::duration<double>(pass_s));
      static constexpr std::array<const char*, 5> names{"walking_ones", "walking_zeros",
                                                        "moving_inversions", "address", "random"};
      m.patterns.emplace_back(names[static_cast<std::size_t>(m.passes) % names.size()]);
      m.bytes = 8 * words;
      ++m.passes;
      m.words_checked += words;
      timeline.add_memtest(now_s(), words, 0);
      if (progress)
        progress(static_cast<int>(g.iterations + m.passes), pass_s);
      continue;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(iteration_s));
    const bool mismatch = changes_at >= 0 && g.iterations >= changes_at;
    if (mismatch) {
      if (g.mismatches.size() < reports::burnin_max_mismatches)
        g.mismatches.push_back({g.iterations, now_s(), g.reference_checksum,
                                gpuspec::host::hex_word(reference ^ 0x10000)});
      ++g.checksum_mismatches;
    }
    const double flops = tflops * 1e12 * iteration_s;
    timeline.add_gemm(now_s(), iteration_s, flops, mismatch);
    ++g.iterations;
    if (progress)
      progress(static_cast<int>(g.iterations), iteration_s);
  }
  reports::burnin_record b;
  b.duration_s = duration_s;
  b.elapsed_s = now_s() - start;
  b.interval_s = timeline.interval_s();
  b.gemm = g;
  if (m.passes > 0)
    b.memtest = m;
  b.intervals = timeline.intervals();
  (void)stopped; // an interrupted burn-in keeps what it did: its record says how much
  return stand_in_burnin_result(c, device, tflops, iteration_s, pass_s, std::move(b));
}

class stand_in_executor final : public spine::case_executor {
public:
  stand_in_executor(json script, const spine::worker_assignment& a, const std::atomic<bool>& stop)
      : m_script(std::move(script)), m_devices(devices_of(a)), m_stop(stop),
        m_behaviour(behaviour_of(m_script, behaviour_key(m_script, a))),
        m_duration_s(a.options.duration_s.value_or(0)),
        m_clock_origin_s(static_cast<double>(a.clock_origin_ns) * 1e-9), m_next(a.first_case) {}

  reports::result run(const spine::planned_case& c,
                      const spine::progress_callback& progress) override {
    const int index = m_next++;
    const json& spec = script_case(m_script, c);
    const double seconds = spec.value("seconds", 0.01);
    const double value = spec.value("value", 100.0);
    if (m_behaviour.strikes_at(index)) {
      if (m_behaviour.kind == "hang")
        for (;;) // a kernel that never returns: SIGTERM only sets the stop flag
          std::this_thread::sleep_for(std::chrono::seconds(1));
      if (m_behaviour.kind == "segv") {
        // The default action, whatever a sanitizer installed (AddressSanitizer would catch the
        // signal and exit 1): a worker that dies on SIGSEGV, as a driver crash leaves it.
        std::signal(SIGSEGV, SIG_DFL);
        ::raise(SIGSEGV);
      }
      if (m_behaviour.kind == "exit1")
        std::_Exit(1);
      if (m_behaviour.kind == "sticky") {
        // A kernel that faulted: the case fails, and the context is unusable from now on.
        m_sticky = "cudaErrorIllegalAddress";
        reports::result r = synthetic_result(c, m_devices, value);
        r.status = reports::result_status::failed;
        r.failure = reports::failure_kind::benchmark;
        r.reason = "stand-in: an illegal memory access was encountered";
        return r;
      }
    }
    if (spec.value("burnin", false))
      return stand_in_burnin(c, m_devices.front(), spec, m_duration_s, m_behaviour, progress,
                             m_stop, m_clock_origin_s);
    const double slow = m_behaviour.kind == "slow" ? m_script.value("slow_s", 2.0) : 0.0;
    const double began_s = since_origin();
    if (!sleep_with_progress(seconds + slow, progress, m_stop)) {
      reports::result r = synthetic_result(c, m_devices, value);
      r.status = reports::result_status::skipped;
      r.reason = "interrupted after 0 sample(s)";
      return r;
    }
    // The window the pretended measurement took, on the run's clock, as the harness records it
    // (the kernel log's Xids are placed by it).
    reports::result r = synthetic_result(c, m_devices, value);
    // A datasheet ceiling where the script gives one, as the harness attaches it (the worker's
    // loop scales it for a MIG device).
    if (spec.contains("ceiling")) {
      r.ceiling_value.spec_figure = spec["ceiling"].value("spec_figure", "");
      r.ceiling_value.datasheet = spec["ceiling"].at("datasheet").get<double>();
      r.ceiling_value.datasheet_source = "stand-in: the script's figure";
      r.ceiling_value.reference = reports::choose_reference(r.ceiling_value);
      reports::settle_efficiency(r);
    }
    // What the coordinator selected the device with, for the tests to see (docs/mig.md).
    if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES"); visible != nullptr)
      r.observations["CUDA_VISIBLE_DEVICES"] = visible;
    r.telemetry.window_start_s = began_s;
    r.telemetry.window_end_s = since_origin();
    return r;
  }

  std::string sticky_error() override { return m_sticky; }

private:
  [[nodiscard]] double since_origin() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
               .count() -
           m_clock_origin_s;
  }
  json m_script;
  std::vector<int> m_devices;
  const std::atomic<bool>& m_stop;
  behaviour m_behaviour;
  double m_duration_s;
  double m_clock_origin_s;
  int m_next = 0;
  std::string m_sticky; ///< the sticky error a "sticky" case left, "" before
};

/// A worker that breaks the protocol: its own loop, since the real one cannot.
int misbehave(const behaviour& b, const json& script, const spine::worker_assignment& assignment) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL); // never outlives the coordinator that started it
  const std::optional<spine::worker_assignment> a = assignment;
  const auto send = [](const std::string& s) { (void)!::write(STDOUT_FILENO, s.data(), s.size()); };
  spine::worker_message hello;
  hello.kind = spine::message_kind::hello;
  hello.backend = "stand-in";
  hello.pid = ::getpid();
  hello.device = a.value().device.index;
  send(spine::message_line(hello));
  for (auto i = static_cast<std::size_t>(a.value().first_case); i < a.value().cases.size(); ++i) {
    const auto& c = a.value().cases[i];
    if (b.strikes_at(static_cast<int>(i)) && b.kind == "garbage") {
      send("this is not a message\n");
      for (;;)
        std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    spine::worker_message start;
    start.kind = spine::message_kind::start;
    start.case_index = static_cast<int>(i);
    send(spine::message_line(start));
    spine::worker_message result;
    result.kind = spine::message_kind::result;
    result.case_index = static_cast<int>(i);
    result.result =
        synthetic_result(c, devices_of(*a), script_case(script, c).value("value", 100.0));
    std::string line = spine::message_line(result);
    if (b.strikes_at(static_cast<int>(i)) && b.kind == "truncated") {
      send(line.substr(0, line.size() / 2)); // cut short, then gone
      return 0;
    }
    send(line);
  }
  spine::worker_message done;
  done.kind = spine::message_kind::done;
  send(spine::message_line(done));
  return 0;
}

/// `--probe-mig` (spine/cuda_probe.hpp): answers for the MIG device CUDA_VISIBLE_DEVICES names
/// as the script's "probe" entry for it says: "opened" (the default: one device, that UUID),
/// "not_visible" (no device), "error" (cudaErrorNoDevice), "insufficient_driver" (the driver older
/// than the runtime), "other_device" (another UUID), "hang"
/// (no answer: the health command's timeout kills it) or "segv" (dies before answering).
int probe_mig(const json& script) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::string uuid = visible == nullptr ? "" : visible;
  std::string kind = "opened";
  if (script.contains("probe") && script["probe"].contains(uuid))
    kind = script["probe"][uuid].value("behaviour", "opened");
  spine::cuda_probe_answer a{"stand-in", 1, "", spine::uuid_digits(uuid)};
  if (kind == "not_visible")
    a = {"stand-in", 0, "", ""};
  else if (kind == "error")
    a = {"stand-in", 0, "cudaErrorNoDevice: no CUDA-capable device is detected", ""};
  else if (kind == "insufficient_driver")
    a = {"stand-in", 0,
         "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime "
         "version",
         ""};
  else if (kind == "other_device")
    a.uuid = "0badc0de-0000-4000-8000-000000000000";
  else if (kind == "hang")
    for (;;)
      std::this_thread::sleep_for(std::chrono::seconds(1));
  else if (kind == "segv")
    std::raise(SIGSEGV);
  const std::string line = spine::probe_answer_line(a);
  (void)!::write(STDOUT_FILENO, line.data(), line.size());
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  const json script = load_script();
  spine::worker_backend backend;
  backend.name = "stand-in";
  backend.plan = [&script](const spine::plan_request& r) { return plan_of(script, r); };
  backend.open = [&script](const spine::worker_assignment& a, const std::atomic<bool>& stop) {
    return std::unique_ptr<spine::case_executor>(
        std::make_unique<stand_in_executor>(script, a, stop));
  };
  if (argc > 1 && std::string(argv[1]) == "--probe-mig")
    return probe_mig(script);
  // The coordinator calls `<worker> --plan --suite S --filter F --gpus G`, or `<worker>` alone.
  if (argc > 1 && std::string(argv[1]) == "--plan")
    return spine::worker_plan_main(backend, plan_request_of(argc, argv));
  const std::string text{std::istreambuf_iterator<char>(std::cin),
                         std::istreambuf_iterator<char>()};
  if (auto a = spine::assignment_from_text(text, "stdin")) {
    const behaviour b = behaviour_of(script, behaviour_key(script, a.value()));
    if (b.kind == "garbage" || b.kind == "truncated")
      return misbehave(b, script, a.value());
    if (b.kind == "silent") { // never says hello: a GPU whose context creation hangs
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      for (;;)
        std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  }
  return spine::serve_assignment(backend, text);
}
