#include "gpuspec/benches/device_timing.cuh"

namespace gpuspec::benches {

double event_pair::time(kernels::stream_ref s, const std::function<void()>& enqueue) {
  begin(s);
  enqueue();
  end(s);
  wait();
  return seconds();
}

double device_seconds(kernels::stream_ref s, const std::function<void()>& enqueue) {
  event_pair events;
  return events.time(s, enqueue);
}

void event_marks::reserve(std::size_t count) {
  while (m_events.size() < count)
    m_events.emplace_back();
}

void event_marks::mark(std::size_t i, kernels::stream_ref s) { m_events.at(i).record(s); }

} // namespace gpuspec::benches
