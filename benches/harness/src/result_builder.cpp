#include "gpuspec/benches/result_builder.hpp"

#include <stdexcept>
#include <utility>

#include <fmt/format.h>

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

void add_observation(reports::result& r, const bench_case& c, const std::string& key,
                     nlohmann::ordered_json value) {
  for (const auto& [name, asked] : c.values)
    if (name == key)
      throw std::logic_error(fmt::format("{}: \"{}\" is an axis of the case ({}); a benchmark "
                                         "records what it found under another name",
                                         c.id(), key, asked));
  r.observations[key] = std::move(value);
}

} // namespace gpuspec::benches
