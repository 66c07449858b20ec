#pragma once
/// Internal to the reader: what a report of version 1 did not say, derived the one way it can
/// be (docs/report.md, "Versions"). Version 1 wrote every parameter in one object, `parameters`,
/// and no reference; the harness that wrote it is known (the benchmark registry and
/// specs/expect.json at commit 810c368), so its axes and references are a frozen fact, not a
/// policy: these tables never change.

#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::reports::inline model::detail {

/// Splits a version 1 result's `parameters` into axes (the keys the version 1 registry declared
/// as axes of its bench id; every key, for a bench id it did not have) and observations; derives
/// the ceiling's spec figure and roofline from what the version 1 harness recorded
/// (`ceiling_key`, `roofline_bytes`), then its reference by choose_reference.
void derive_version_1(result& r, const nlohmann::ordered_json& parameters);

} // namespace gpuspec::reports::model::detail
