#include "fleet_samples.hpp"

#include <atomic>
#include <stdexcept>

#include <unistd.h>

#include "check_fixtures.hpp"

namespace gpuspec::fleet::testing {

reports::report node_report(const std::string& node, const std::string& at,
                            const std::string& driver) {
  auto r = reports::testing::healthy_report(node);
  r.run.started_utc = at;
  r.run.finished_utc = at;
  r.host.driver_version = driver;
  for (auto& d : r.devices)
    d.serial = node + "-GPU" + std::to_string(d.index);
  return r;
}

const judge& shipped_judge() {
  static const auto specs = [] {
    auto s = reports::load_spec_table(GPUSPEC_SPECS_DIR "/gpus.json");
    if (!s)
      throw std::runtime_error(s.error().to_string());
    return std::move(s).value();
  }();
  static const auto rules = [] {
    auto e = reports::load_expectations(GPUSPEC_SPECS_DIR "/expect.json");
    if (!e)
      throw std::runtime_error(e.error().to_string());
    return std::move(e).value();
  }();
  static const judge j{specs, rules, "shipped specs/ (test)"};
  return j;
}

scratch::scratch() {
  static std::atomic<int> n{0};
  dir = std::filesystem::temp_directory_path() /
        ("gpuspec-fleet-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
}

scratch::~scratch() {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

} // namespace gpuspec::fleet::testing
