#pragma once
/// Fleet reports for the db tests: the check tests' healthy DGX H200 (check_fixtures.hpp, built
/// the way the harness writes reports) on a named node, at a time, with a driver, its GPUs'
/// serials made the node's own so that each GPU is one GPU of the fleet.

#include <filesystem>
#include <string>

#include "gpuspec/fleet/ingest.hpp"
#include "gpuspec/reports/judge/expectations.hpp"
#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/reports/model/spec_table.hpp"

namespace gpuspec::fleet::testing {

/// healthy_report(node) started at `at`, with serials "<node>-GPU<i>" and the driver given.
[[nodiscard]] reports::report node_report(const std::string& node, const std::string& at,
                                          const std::string& driver = "550.54.15");

/// The shipped spec table and rules, as `db ingest` judges with them by default.
[[nodiscard]] const judge& shipped_judge();

/// A fresh folder under the system's temporary folder, removed by the destructor.
struct scratch {
  scratch();
  ~scratch();
  scratch(const scratch&) = delete;
  scratch& operator=(const scratch&) = delete;
  std::filesystem::path dir;
};

} // namespace gpuspec::fleet::testing
