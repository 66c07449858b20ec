#pragma once
// An imported real log judged the way `gpuspec check` judges it: the shipped spec table and
// expectation rules (tests/support/shipped_tables.hpp).
#include <stdexcept>
#include <string>

#include "gpuspec/reports/import/import.hpp"
#include "gpuspec/reports/judge/check.hpp"
#include "import_fixtures.hpp"
#include "shipped_tables.hpp"

namespace gpuspec::test {

inline reports::report imported_fixture(const std::string& name) {
  auto r = reports::load_log(import_fixture_path(name));
  if (!r)
    throw std::runtime_error(r.error().to_string());
  return std::move(r).value();
}

inline reports::check_outcome judged_fixture(const std::string& name) {
  return reports::check(imported_fixture(name), testing::shipped_specs(), testing::shipped_rules());
}

/// Whether any verdict of `outcome` carries the diagnosis `code`.
inline bool has_code(const reports::check_outcome& outcome, const std::string& code) {
  for (const auto& n : outcome.nodes) {
    for (const auto& d : n.diagnoses)
      if (d.code == code)
        return true;
    for (const auto& g : n.gpus)
      for (const auto& d : g.diagnoses)
        if (d.code == code)
          return true;
    for (const auto& r : n.results)
      for (const auto& d : r.diagnoses)
        if (d.code == code)
          return true;
  }
  return false;
}

/// The first result of `r` with `bench_id` on GPU list `devices`, or nullptr.
inline const reports::result* find_imported(const reports::report& r, const std::string& bench_id,
                                            const std::vector<int>& devices) {
  for (const auto& res : r.results)
    if (res.bench_id == bench_id && res.devices == devices)
      return &res;
  return nullptr;
}

} // namespace gpuspec::test
