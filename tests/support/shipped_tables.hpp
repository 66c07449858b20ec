#pragma once
// The spec table and expectation rules that ship (specs/gpus.json, specs/expect.json), loaded
// once per test program, for the tests that judge reports the way `gpuspec check` does. The
// including test target defines GPUSPEC_SPECS_DIR (the source's specs/).

#include <stdexcept>
#include <utility>

#include "gpuspec/reports/judge/expectations.hpp"
#include "gpuspec/reports/model/spec_table.hpp"

namespace gpuspec::testing {

inline const reports::spec_table& shipped_specs() {
  static const reports::spec_table t = [] {
    auto loaded = reports::load_spec_table(GPUSPEC_SPECS_DIR "/gpus.json");
    if (!loaded)
      throw std::runtime_error(loaded.error().to_string());
    return std::move(loaded).value();
  }();
  return t;
}

inline const reports::expectations& shipped_rules() {
  static const reports::expectations e = [] {
    auto loaded = reports::load_expectations(GPUSPEC_SPECS_DIR "/expect.json");
    if (!loaded)
      throw std::runtime_error(loaded.error().to_string());
    return std::move(loaded).value();
  }();
  return e;
}

} // namespace gpuspec::testing
