#include "perf_inputs.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include "check_fixtures.hpp"
#include "gpuspec/reports/model/report_json.hpp"

namespace gpuspec::perf {

reports::report big_report(double scale) {
  reports::report r = reports::testing::healthy_report("dgx-h200-perf", scale);
  const std::vector<reports::result> base = r.results;
  r.results.clear();
  r.results.reserve(10000);
  // Distinct cases (a size axis), each on its GPU, as a sweep of a full suite would give.
  for (int i = 0; r.results.size() < 10000; ++i)
    for (const auto& res : base) {
      if (r.results.size() == 10000)
        break;
      auto copy = res;
      copy.axes["size"] = i;
      r.results.push_back(std::move(copy));
    }
  return r;
}

const inputs& perf_inputs() {
  static const inputs made = [] {
    inputs in;
    in.folder = std::filesystem::temp_directory_path() /
                fmt::format("gpuspec-perf-{}", static_cast<long>(::getpid()));
    std::filesystem::create_directories(in.folder);
    in.big = in.folder / "big.json";
    reports::save_report(in.big, big_report());
    in.big_slower = in.folder / "big-slower.json";
    reports::save_report(in.big_slower, big_report(0.97));
    for (int n = 0; n < 1000; ++n) {
      const auto file = in.folder / fmt::format("node-{:04d}.json", n);
      reports::save_report(file, reports::testing::healthy_report(fmt::format("node-{:04d}", n),
                                                                  1.0 + 0.001 * (n % 7)));
      in.fleet.push_back(file);
    }
    return in;
  }();
  return made;
}

} // namespace gpuspec::perf
