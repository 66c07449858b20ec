// `gpuspec specs --check`: every datasheet figure recomputed from first principles. A
// disagreement is either a data-entry error in specs/gpus.json or a datasheet quirk that the
// row's check_notes must explain (docs/specs.md lists them).

#include "gpuspec/reports/judge/spec_check.hpp"

#include <cmath>

#include <fmt/format.h>

#include "gpuspec/reports/model/arch_rates.hpp"

namespace gpuspec::reports::inline judge {

std::string_view to_string(spec_finding_status status) {
  switch (status) {
  case spec_finding_status::agrees:
    return "agrees";
  case spec_finding_status::explained:
    return "explained";
  case spec_finding_status::disagrees:
    return "disagrees";
  case spec_finding_status::not_checked:
    return "not_checked";
  }
  return "not_checked";
}

std::optional<double> datasheet_clock_mhz(const gpu_spec& row, std::string_view key) {
  if (row.tensor_clock_mhz && is_low_precision_tensor_key(key)) {
    return row.tensor_clock_mhz;
  }
  if (row.boost_clock_mhz > 0) {
    return row.boost_clock_mhz;
  }
  return std::nullopt;
}

std::optional<double> recomputed_peak(const gpu_spec& row, std::string_view key) {
  const auto clock = datasheet_clock_mhz(row, key);
  if (!clock || !row.arch_rates_apply) {
    return std::nullopt;
  }
  const auto peak = clock_adjusted_peak(row.cc_major, row.cc_minor, row.sm_count, *clock, key);
  // GeForce datasheets state these keys with FP32 accumulate, at half the table's rate.
  if (peak && is_geforce_name(row.name) &&
      geforce_halves_fp32_accumulate(row.cc_major, row.cc_minor, key)) {
    return *peak / 2;
  }
  return peak;
}

namespace {

void judge(spec_finding& f, const gpu_spec& row, double tolerance) {
  f.deviation = (*f.stated - *f.computed) / *f.computed;
  if (std::abs(*f.deviation) <= tolerance) {
    f.status = spec_finding_status::agrees;
  } else if (const auto note = row.check_notes.find(f.field); note != row.check_notes.end()) {
    f.status = spec_finding_status::explained;
    f.detail = note->second;
  } else {
    f.status = spec_finding_status::disagrees;
    f.detail =
        fmt::format("off by {:+.1f}% (more than {:.0f}%)", *f.deviation * 100, tolerance * 100);
  }
}

} // namespace

std::vector<spec_finding> check_spec_table(const spec_table& table, double tolerance) {
  std::vector<spec_finding> findings;
  for (const auto& row : table.rows) {
    const bool known_arch = find_arch_rates(row.cc_major, row.cc_minor) != nullptr;
    for (const std::string_view key_view : peak_keys) { // in the contract's order
      const std::string key(key_view);
      const auto peak = row.peaks.find(key);
      if (peak == row.peaks.end()) {
        continue;
      }
      const double stated = peak->second;
      spec_finding f;
      f.row_id = row.id;
      f.field = "peaks." + key;
      f.stated = stated;
      f.clock_mhz = datasheet_clock_mhz(row, key);
      f.computed = recomputed_peak(row, key);
      if (!row.arch_rates_apply) {
        f.detail = fmt::format("the {}.{} rates do not hold for this model (arch_rates_apply "
                               "false; the row's notes say why)",
                               row.cc_major, row.cc_minor);
      } else if (!known_arch) {
        f.detail = fmt::format("no rates for compute capability {}.{} in the architecture table",
                               row.cc_major, row.cc_minor);
      } else if (!f.clock_mhz) {
        f.detail = "the row states no boost clock (not given in a vendor document)";
      } else if (!f.computed) {
        f.detail = fmt::format("the architecture table has no {} rate for {}.{}", key, row.cc_major,
                               row.cc_minor);
      } else {
        judge(f, row, tolerance);
      }
      findings.push_back(std::move(f));
    }
    spec_finding m;
    m.row_id = row.id;
    m.field = "memory.bandwidth_gbs";
    m.stated = row.memory_bandwidth_gbs;
    if (row.memory_clock_mhz && row.memory_transfers_per_clock) {
      m.clock_mhz = row.memory_clock_mhz;
      m.computed = memory_bandwidth_gbs(*row.memory_clock_mhz, row.memory_bus_width_bits,
                                        *row.memory_transfers_per_clock);
      judge(m, row, tolerance);
    } else {
      m.detail = "the row states no memory clock (not given in a vendor document)";
    }
    findings.push_back(std::move(m));
  }
  return findings;
}

} // namespace gpuspec::reports::judge
