#include "gpuspec/benches/node_state.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "gpuspec/benches/result_builder.hpp"

namespace gpuspec::benches {

void node_cache::erase(const std::string& key) {
  m_objects.erase(key);
  std::erase(m_order, key);
}

node_cache::~node_cache() {
  // Communicators before the buffers they were built over: the last made goes first.
  for (auto it = m_order.rbegin(); it != m_order.rend(); ++it)
    m_objects.erase(*it);
}

node_state::node_state(const bench_case& c, std::vector<node_device> devices,
                       const host::run_options& options, node_cache& cache,
                       const std::atomic<bool>& interrupted,
                       std::chrono::steady_clock::time_point deadline)
    : m_case(c), m_devices(std::move(devices)), m_options(options), m_cache(cache),
      m_interrupted(interrupted), m_deadline(deadline) {
  m_result.bench_id = c.id();
  for (const auto& d : m_devices)
    m_result.devices.push_back(d.info.index);
}

double node_state::seconds_left() const {
  // The coordinator's rule (coordinator.hpp): the deadline moves out by 3 x the longest run
  // reported so far.
  const auto now = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(m_deadline - now).count() + 3.0 * m_longest_run_s;
}

void node_state::ran(int runs, double run_seconds) {
  m_longest_run_s = std::max(m_longest_run_s, run_seconds);
  if (m_options.on_run)
    m_options.on_run(runs, run_seconds);
}

std::vector<double> node_state::time_samples(const std::function<double()>& run) {
  (void)run(); // warm-up, discarded
  const int samples = std::max(10, m_options.stopping.min_samples);
  std::vector<double> seconds;
  const auto window_begin = std::chrono::steady_clock::now();
  for (int i = 0; i < samples && !interrupted(); ++i) {
    const double t = run();
    seconds.push_back(t);
    ran(i + 1, t);
  }
  set_window(window_begin, std::chrono::steady_clock::now());
  return seconds;
}

void node_state::add_parameter(const std::string& key, nlohmann::ordered_json value) {
  add_observation(m_result, m_case, key, std::move(value));
}

void node_state::set_samples(std::vector<double> sample_seconds, std::vector<double> values,
                             reports::metric_unit unit, std::string metric, bool higher_is_better) {
  if (sample_seconds.size() != values.size())
    throw std::logic_error(fmt::format("{}: {} sample times for {} values", id(),
                                       sample_seconds.size(), values.size()));
  for (double v : values)
    if (!std::isfinite(v))
      throw std::logic_error(fmt::format("{}: a sample value is not finite", id()));
  m_result.sample_seconds = std::move(sample_seconds);
  m_result.samples = std::move(values);
  m_result.unit = unit;
  m_result.metric = std::move(metric);
  m_result.higher_is_better = higher_is_better;
}

void node_state::set_work_samples(std::vector<double> sample_seconds,
                                  const reports::work_per_iteration& work) {
  std::vector<double> values;
  values.reserve(sample_seconds.size());
  for (double t : sample_seconds)
    values.push_back(reports::metric_value(work, t));
  reports::metric_kind kind = reports::metric_of(work);
  set_samples(std::move(sample_seconds), std::move(values), kind.unit, std::move(kind.metric),
              kind.higher_is_better);
  if (work.bytes)
    set_bytes_per_iteration(*work.bytes);
}

void node_state::set_bytes_per_iteration(double bytes) {
  if (!(bytes > 0.0) || !std::isfinite(bytes))
    throw std::logic_error(fmt::format("{}: bytes per iteration must be positive", id()));
  m_result.bytes_per_iteration = bytes;
}

void node_state::skip(std::string reason) {
  m_result.status = reports::result_status::skipped;
  m_result.reason = std::move(reason);
}

void node_state::not_supported(std::string reason) {
  m_result.status = reports::result_status::not_supported;
  m_result.reason = std::move(reason);
}

void node_state::fail(std::string reason) {
  m_result.status = reports::result_status::failed;
  m_result.reason = std::move(reason);
}

reports::result node_state::take_result() {
  reports::run_ending ending;
  if (m_result.status != reports::result_status::ok) {
    ending.disposition = m_result.status;
    ending.disposition_reason = m_result.reason;
  }
  ending.interrupted = interrupted();
  return build_result(std::move(m_result), m_case, ending);
}

} // namespace gpuspec::benches
