#include "gpuspec/benches/bench_state.cuh"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <vector>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "device_context.cuh"
#include "gpuspec/benches/result_builder.hpp"
#include "gpuspec/host/ceilings.hpp"
#include "gpuspec/host/pcie_link.hpp"
#include "gpuspec/host/telemetry.hpp"
#include "gpuspec/reports/model/reference.hpp"
#include "gpuspec/reports/model/statistics.hpp"

namespace gpuspec::benches {

namespace {

// Warm-up: at least 2 runs and 20 ms of device time (clocks ramp up from idle, lazy module
// loading, TLB and page-table warm-up), at most 1000 runs. Discarded.
constexpr int warmup_min_runs = 2;
constexpr double warmup_min_seconds = 0.02;
constexpr int warmup_max_runs = 1000;

// The hold kernel gives up after this long. Enqueueing one sample's work takes microseconds,
// so a timeout means the host was held up (or a bug); the sample is discarded, and after a few
// the result fails rather than report figures that may include launch latency.
constexpr double hold_timeout_seconds = 1.0;
constexpr int max_hold_timeouts = 3;

// Samples whose events read 0 s (work shorter than the ~0.5 us event resolution) are discarded;
// this many in a row fail the result.
constexpr int max_unresolved_samples = 100;

using host_clock = std::chrono::steady_clock;

} // namespace

bench_state::bench_state(const bench_case& c, const reports::device_info& device,
                         device_context& context, const host::run_options& options,
                         host::telemetry_sampler* telemetry, const std::atomic<bool>& interrupted)
    : m_case(c), m_device(device), m_context(context), m_options(options), m_telemetry(telemetry),
      m_interrupted(interrupted) {
  m_result.bench_id = c.id();
  m_result.devices = {device.index};
  m_result.telemetry.status = "not measured";
}

int bench_state::cuda_device() const { return m_context.cuda_index(); }

std::int64_t bench_state::l2_bytes() const { return m_context.l2_bytes(); }

kernels::stream_ref bench_state::stream() const { return m_context.stream(); }

void bench_state::add_parameter(const std::string& key, nlohmann::ordered_json value) {
  add_observation(m_result, m_case, key, std::move(value));
}

void bench_state::set_bytes_per_iteration(double bytes) {
  if (!(bytes > 0.0) || !std::isfinite(bytes))
    throw std::invalid_argument(
        fmt::format("{}: bytes per iteration must be positive, got {}", id(), bytes));
  m_result.bytes_per_iteration = bytes;
}

void bench_state::set_flops_per_iteration(double flops) {
  if (!(flops >= 0.0) || !std::isfinite(flops))
    throw std::invalid_argument(
        fmt::format("{}: flops per iteration must be non-negative, got {}", id(), flops));
  m_result.flops_per_iteration = flops;
}

void bench_state::set_integer_ops_per_iteration(double ops) {
  set_flops_per_iteration(ops);
  m_integer_ops = true;
}

void bench_state::set_items_per_iteration(double items, std::string item) {
  if (!(items > 0.0) || !std::isfinite(items))
    throw std::invalid_argument(
        fmt::format("{}: items per iteration must be positive, got {}", id(), items));
  m_items_per_iteration = items;
  add_parameter("items_per_iteration", items);
  add_parameter("item", std::move(item));
}

void bench_state::set_compute_ceiling(std::string key, bool fp32_accumulate) {
  m_ceiling_kind = ceiling_kind::compute_peak;
  m_ceiling_key = std::move(key);
  m_fp32_accumulate = fp32_accumulate;
}

void bench_state::set_pcie_ceiling(int directions) {
  if (directions != 1 && directions != 2)
    throw std::invalid_argument(
        fmt::format("{}: a transfer moves data in 1 or 2 directions, not {}", id(), directions));
  m_ceiling_kind = ceiling_kind::pcie_link;
  m_pcie_directions = directions;
}

void bench_state::set_roofline_bytes(double bytes) {
  if (!(bytes > 0.0) || !std::isfinite(bytes))
    throw std::invalid_argument(
        fmt::format("{}: roofline bytes must be positive, got {}", id(), bytes));
  m_roofline_bytes = bytes;
  add_parameter("roofline_bytes", bytes);
}

const reports::gpu_spec* bench_state::spec_row() const {
  if (m_device.spec_id.empty())
    return nullptr;
  const auto it = m_options.spec_rows.find(m_device.spec_id);
  return it == m_options.spec_rows.end() ? nullptr : &it->second;
}

void bench_state::skip(std::string reason) {
  if (!m_disposition)
    m_disposition = reports::result_status::skipped;
  m_disposition_reason = std::move(reason);
}

void bench_state::not_supported(std::string reason) {
  if (!m_disposition)
    m_disposition = reports::result_status::not_supported;
  m_disposition_reason = std::move(reason);
}

void bench_state::fail(std::string reason) {
  m_disposition = reports::result_status::failed;
  m_disposition_reason = std::move(reason);
}

void bench_state::exec(const std::function<void(kernels::stream_ref)>& work) {
  if (m_exec_done)
    throw std::logic_error(id() + ": exec() called twice");
  if (m_disposition)
    throw std::logic_error(id() + ": exec() called after skip() or not_supported()");
  m_exec_done = true;
  m_result.cache_state = m_cache_mode == cache_mode::cold ? "cold" : "hot";

  warm_up(work);
  const auto window_begin = host::telemetry_clock::now();
  const reports::stop_decision decision = take_samples(work);
  const auto window_end = host::telemetry_clock::now();
  m_window_begin = window_begin;
  m_window_end = window_end;
  m_result.stop_reason = m_was_interrupted ? std::string() : decision.reason;
  summarise_window(window_begin, window_end);
  attach_ceiling();
}

double bench_state::timed_run(const std::function<void(kernels::stream_ref)>& work) {
  const kernels::stream_ref s = stream();
  const double seconds = m_context.timer().time(s, [&] { work(s); });
  ran(seconds);
  return seconds;
}

void bench_state::ran(double seconds) {
  ++m_timed_runs;
  if (m_options.on_run)
    m_options.on_run(m_timed_runs, seconds);
}

void bench_state::warm_up(const std::function<void(kernels::stream_ref)>& work) {
  double warm_seconds = 0.0;
  for (int runs = 0;
       runs < warmup_min_runs || (warm_seconds < warmup_min_seconds && runs < warmup_max_runs);
       ++runs) {
    if (interrupted())
      break;
    warm_seconds += timed_run(work);
  }
}

reports::stop_decision
bench_state::take_samples(const std::function<void(kernels::stream_ref)>& work) {
  // Samples go straight into the result, so a failure part-way keeps those already taken.
  const reports::work_per_iteration declared = declared_work();
  sample_guards guards;
  double total_seconds = 0.0;
  reports::stop_decision decision;
  for (;;) {
    if (interrupted()) {
      m_was_interrupted = true;
      break;
    }
    const std::optional<sample_time> t = take_sample(work, guards);
    if (!t)
      continue;
    m_result.sample_seconds.push_back(t->device_seconds);
    m_host_seconds.push_back(t->host_seconds);
    m_result.samples.push_back(reports::metric_value(declared, t->device_seconds));
    total_seconds += t->device_seconds;
    decision = reports::should_stop(m_options.stopping, m_result.samples, total_seconds);
    if (decision.stop)
      break;
  }
  return decision;
}

std::optional<bench_state::sample_time>
bench_state::take_sample(const std::function<void(kernels::stream_ref)>& work,
                         sample_guards& guards) {
  const kernels::stream_ref s = stream();
  device_context& ctx = m_context;
  if (m_cache_mode == cache_mode::cold) {
    ctx.flusher().flush(s);
    s.synchronize(); // the flush is done before the hold: nothing of it overlaps the sample
  }
  if (m_launch_hold)
    ctx.blocker().block(s, hold_timeout_seconds);
  const double host_elapsed = enqueue_sample(work);
  if (m_launch_hold && ctx.blocker().timed_out()) {
    if (++guards.hold_timeouts > max_hold_timeouts)
      throw std::runtime_error(fmt::format(
          "the hold kernel timed out {} times (after {} s each): the host could not enqueue one "
          "sample's work in time, so launch latency could not be kept out of the timing",
          guards.hold_timeouts, hold_timeout_seconds));
    return std::nullopt;
  }
  const double seconds = ctx.timer().seconds();
  ran(seconds);
  if (!(seconds > 0.0)) {
    if (++guards.unresolved > max_unresolved_samples)
      throw std::runtime_error("the work takes less time than the CUDA event resolution (about "
                               "0.5 us): nothing to measure");
    return std::nullopt;
  }
  guards.unresolved = 0;
  return sample_time{seconds, host_elapsed};
}

double bench_state::enqueue_sample(const std::function<void(kernels::stream_ref)>& work) {
  const kernels::stream_ref s = stream();
  device_context& ctx = m_context;
  try {
    release_guard guard(ctx.blocker());
    // Without the hold the work starts as it is enqueued: the host time runs from there.
    const auto enqueue_began = host_clock::now();
    ctx.timer().begin(s);
    work(s);
    ctx.timer().end(s);
    const auto released_at = m_launch_hold ? host_clock::now() : enqueue_began;
    guard.release();
    ctx.timer().wait();
    return std::chrono::duration<double>(host_clock::now() - released_at).count();
  } catch (...) {
    // The guard has released the hold; let what was enqueued drain, so the next case starts
    // on an idle stream (the hold kernel requires one). Its own error, if any, is not ours.
    (void)cudaStreamSynchronize(s.get());
    (void)cudaGetLastError();
    throw;
  }
}

void bench_state::summarise_window(host::telemetry_clock::time_point begin,
                                   host::telemetry_clock::time_point end) {
  std::optional<double> sm_clock_max;
  if (m_device.sm_clock_max_mhz)
    sm_clock_max = *m_device.sm_clock_max_mhz;
  if (m_telemetry != nullptr)
    m_result.telemetry = m_telemetry->summary(m_device.index, begin, end, sm_clock_max);
  else
    m_result.telemetry.status = "no telemetry: NVML is not available (see host.gpu_status)";
  const auto since_origin = [&](host::telemetry_clock::time_point t) {
    return std::chrono::duration<double>(t - m_options.clock_origin).count();
  };
  m_result.telemetry.window_start_s = since_origin(begin);
  m_result.telemetry.window_end_s = since_origin(end);
}

double bench_state::time_run(const std::function<void(kernels::stream_ref)>& work) {
  if (m_exec_done)
    throw std::logic_error(id() + ": time_run() after exec()");
  return timed_run(work);
}

double bench_state::setup_seconds(const std::function<void(kernels::stream_ref)>& work) {
  if (m_exec_done)
    throw std::logic_error(id() + ": setup_seconds() after exec()");
  const kernels::stream_ref s = stream();
  return m_context.timer().time(s, [&] { work(s); });
}

bench_state::batch_times
bench_state::time_batch(int iterations, const std::function<void(int, kernels::stream_ref)>& timed,
                        const std::function<void(int, kernels::stream_ref)>& untimed) {
  constexpr int max_iterations = 1024;
  if (m_exec_done)
    throw std::logic_error(id() + ": time_batch() after exec()");
  if (iterations < 1 || iterations > max_iterations)
    throw std::invalid_argument(fmt::format("{}: a batch holds 1 to {} iterations, not {}", id(),
                                            max_iterations, iterations));
  const auto n = static_cast<std::size_t>(iterations);
  m_batch_marks.reserve(2 * n);
  const kernels::stream_ref s = stream();
  m_context.timer().begin(s);
  for (int i = 0; i < iterations; ++i) {
    const auto k = static_cast<std::size_t>(i);
    m_batch_marks.mark(2 * k, s);
    timed(i, s);
    m_batch_marks.mark(2 * k + 1, s);
    untimed(i, s);
  }
  m_context.timer().end(s);
  m_context.timer().wait();
  batch_times out;
  out.seconds = m_context.timer().seconds();
  out.timed_seconds.reserve(n);
  for (std::size_t k = 0; k < n; ++k)
    out.timed_seconds.push_back(m_batch_marks.seconds_between(2 * k, 2 * k + 1));
  ran(out.seconds);
  return out;
}

double bench_state::run_clock_s() const {
  return std::chrono::duration<double>(host::telemetry_clock::now() - m_options.clock_origin)
      .count();
}

namespace {

host::telemetry_clock::time_point at_run_clock(const host::run_options& o, double seconds) {
  return o.clock_origin + std::chrono::duration_cast<host::telemetry_clock::duration>(
                              std::chrono::duration<double>(seconds));
}

} // namespace

reports::telemetry_summary bench_state::telemetry_between(double begin_s, double end_s) const {
  if (m_telemetry == nullptr) {
    reports::telemetry_summary t;
    t.status = "no telemetry: NVML is not available (see host.gpu_status)";
    return t;
  }
  std::optional<double> sm_clock_max;
  if (m_device.sm_clock_max_mhz)
    sm_clock_max = *m_device.sm_clock_max_mhz;
  auto t = m_telemetry->summary(m_device.index, at_run_clock(m_options, begin_s),
                                at_run_clock(m_options, end_s), sm_clock_max);
  t.window_start_s = begin_s;
  t.window_end_s = end_s;
  return t;
}

std::vector<reports::burnin_sample> bench_state::samples_between(double begin_s,
                                                                 double end_s) const {
  std::vector<reports::burnin_sample> out;
  if (m_telemetry == nullptr)
    return out;
  for (const auto& s : m_telemetry->samples(m_device.index, at_run_clock(m_options, begin_s),
                                            at_run_clock(m_options, end_s))) {
    reports::burnin_sample b;
    b.time_s = std::chrono::duration<double>(s.at - m_options.clock_origin).count();
    b.sm_clock_mhz = s.sm_clock_mhz;
    b.mem_clock_mhz = s.mem_clock_mhz;
    b.temperature_c = s.temperature_c;
    b.power_w = s.power_w;
    if (s.throttle_mask)
      b.throttle_reasons = host::throttle_reason_names(*s.throttle_mask);
    out.push_back(std::move(b));
  }
  return out;
}

void bench_state::finish_sustained(std::vector<double> samples, std::vector<double> sample_seconds,
                                   reports::burnin_record record, double begin_s, double end_s) {
  if (m_exec_done)
    throw std::logic_error(id() + ": finish_sustained() called twice, or after exec()");
  m_exec_done = true;
  m_sustained = true;
  m_result.cache_state = "hot";
  m_result.samples = std::move(samples);
  m_result.sample_seconds = std::move(sample_seconds);
  m_result.stop_reason = "time_cap";
  m_result.telemetry = telemetry_between(begin_s, end_s);
  // The sampler keeps its latest 21 minutes; the intervals were summarised as the run went, so
  // the whole run's peak temperature and throttle reasons come from them.
  for (const auto& in : record.intervals) {
    auto& t = m_result.telemetry;
    if (in.temperature_c_max &&
        (!t.temperature_c_max || *in.temperature_c_max > *t.temperature_c_max))
      t.temperature_c_max = in.temperature_c_max;
    if (in.power_w_max && (!t.power_w_max || *in.power_w_max > *t.power_w_max))
      t.power_w_max = in.power_w_max;
    for (const auto& r : in.throttle_reasons)
      if (std::find(t.throttle_reasons.begin(), t.throttle_reasons.end(), r) ==
          t.throttle_reasons.end())
        t.throttle_reasons.push_back(r);
  }
  m_result.burnin = std::move(record);
  attach_ceiling();
}

reports::ceiling bench_state::memory_ceiling(const reports::gpu_spec* spec) const {
  std::optional<double> clock;
  std::string origin;
  if (m_result.telemetry.mem_clock_mhz_median) {
    clock = m_result.telemetry.mem_clock_mhz_median;
    origin = "median of the NVML memory clock sampled during the measurement";
  } else if (m_device.mem_clock_mhz) {
    clock = *m_device.mem_clock_mhz;
    origin = "NVML memory clock read with the inventory before the run; no telemetry during it";
  }
  return host::memory_bandwidth_ceiling(clock, origin, m_device.memory_bus_width_bits, spec);
}

void bench_state::attach_ceiling() {
  const reports::gpu_spec* spec = spec_row();
  switch (m_ceiling_kind) {
  case ceiling_kind::none:
    return;
  case ceiling_kind::device_memory_bandwidth:
    m_result.ceiling_value = memory_ceiling(spec);
    return;
  case ceiling_kind::pcie_link: {
    host::pcie_ceiling_inputs in;
    in.directions = m_pcie_directions;
    in.inventory = {m_device.pcie.gen_current, m_device.pcie.width_current};
    in.reachable = reports::pcie_reachable_link(m_device, spec);
    in.spec = spec;
    in.c2c = reports::is_c2c_attached(m_device, spec);
    if (m_telemetry != nullptr) {
      const host::pcie_link_seen seen =
          m_telemetry->pcie_link(m_device.index, m_window_begin, m_window_end);
      if (seen.samples > 0) {
        in.under_load = host::pcie_link_state{seen.gen_max, seen.width_max};
        in.under_load_samples = static_cast<int>(seen.samples);
      }
      add_parameter("pcie_gen_under_load", seen.gen_max ? nlohmann::ordered_json(*seen.gen_max)
                                                        : nlohmann::ordered_json());
      add_parameter("pcie_width_under_load", seen.width_max
                                                 ? nlohmann::ordered_json(*seen.width_max)
                                                 : nlohmann::ordered_json());
      add_parameter("pcie_link_samples_under_load", seen.samples);
    }
    m_result.ceiling_value = host::pcie_transfer_ceiling(in);
    return;
  }
  case ceiling_kind::compute_peak:
  case ceiling_kind::shared_memory_bandwidth: {
    std::optional<double> clock;
    std::string origin;
    if (m_result.telemetry.sm_clock_mhz_median) {
      clock = m_result.telemetry.sm_clock_mhz_median;
      origin = "median of the NVML SM clock sampled during the measurement";
    } else if (m_device.sm_clock_max_mhz) {
      clock = *m_device.sm_clock_max_mhz;
      origin = "NVML maximum SM clock from the inventory; no telemetry during the run, so this "
               "is an upper bound";
    }
    if (m_ceiling_kind == ceiling_kind::shared_memory_bandwidth) {
      m_result.ceiling_value = host::shared_memory_ceiling(m_device.sm_count, clock, origin);
      return;
    }
    host::compute_ceiling_inputs in;
    in.key = m_ceiling_key;
    in.cc_major = m_device.cc_major;
    in.cc_minor = m_device.cc_minor;
    in.sm_count = m_device.sm_count;
    in.sm_clock_mhz = clock;
    in.clock_origin = origin;
    in.device_name = m_device.name;
    in.fp32_accumulate = m_fp32_accumulate;
    in.spec = spec;
    m_result.ceiling_value = host::compute_ceiling(in);
    if (m_roofline_bytes && m_result.flops_per_iteration)
      m_result.ceiling_value =
          host::apply_roofline(std::move(m_result.ceiling_value), *m_result.flops_per_iteration,
                               *m_roofline_bytes, memory_ceiling(spec));
    return;
  }
  }
}

reports::work_per_iteration bench_state::declared_work() const {
  reports::work_per_iteration w;
  w.items = m_items_per_iteration;
  w.bytes = m_result.bytes_per_iteration;
  w.ops = m_result.flops_per_iteration;
  w.integer_ops = m_integer_ops;
  return w;
}

reports::result bench_state::take_result() {
  const reports::metric_kind kind = reports::metric_of(declared_work());
  m_result.metric = kind.metric;
  m_result.unit = kind.unit;
  m_result.higher_is_better = kind.higher_is_better;
  reports::run_ending ending;
  ending.disposition = m_disposition;
  ending.disposition_reason = m_disposition_reason;
  ending.interrupted = m_was_interrupted && !m_sustained;
  ending.measured = m_exec_done;
  return build_result(std::move(m_result), m_case, ending, m_host_seconds);
}

} // namespace gpuspec::benches
