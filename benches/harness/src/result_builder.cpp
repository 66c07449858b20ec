#include "gpuspec/benches/result_builder.hpp"

#include <utility>

namespace gpuspec::benches {

reports::result build_result(reports::result r, const bench_case& c,
                             const reports::run_ending& ending,
                             std::span<const double> host_seconds) {
  // What was asked: the case's values, the key that pairs this result across reports.
  r.axes = nlohmann::ordered_json::object();
  for (const auto& [name, value] : c.values)
    r.axes[name] = value;
  reports::settle_measurement(r, host_seconds);
  reports::settle_status(r, ending);
  return r;
}

} // namespace gpuspec::benches
