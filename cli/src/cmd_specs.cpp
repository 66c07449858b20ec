// `gpuspec specs`: the spec table (specs/gpus.json) as a table, one row in full, or --check, which
// recomputes every datasheet figure from the per-architecture rates (reports/arch_rates.hpp).

#include "gpuspec/cli/cmd_specs.hpp"

#include <filesystem>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuspec/cli/cli_model.hpp"
#include "gpuspec/cli/specs_location.hpp"
#include "gpuspec/cli/text_table.hpp"
#include "gpuspec/reports/model/arch_rates.hpp"

namespace gpuspec::cli {
namespace {

using json = nlohmann::ordered_json;
using reports::gpu_spec;

std::string number(double v) { return fmt::format("{:g}", v); }
std::string number(const std::optional<double>& v) { return v ? number(*v) : "-"; }

std::string peak(const gpu_spec& row, const std::string& key) {
  const auto it = row.peaks.find(key);
  return it == row.peaks.end() ? "-" : number(it->second);
}

json optional_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
json optional_json(const std::optional<int>& v) { return v ? json(*v) : json(nullptr); }
/// A figure the row leaves out (0: no vendor document gives it) is null.
json stated_json(double v) { return v > 0 ? json(v) : json(nullptr); }

json memory_json(const gpu_spec& row) {
  if (!(row.memory_bandwidth_gbs > 0)) {
    return nullptr;
  }
  return {{"size_gb", row.memory_gib},
          {"type", row.memory_type},
          {"bus_width_bits",
           row.memory_bus_width_bits > 0 ? json(row.memory_bus_width_bits) : json(nullptr)},
          {"bandwidth_gbs", row.memory_bandwidth_gbs},
          {"clock_mhz", optional_json(row.memory_clock_mhz)},
          {"transfers_per_clock", optional_json(row.memory_transfers_per_clock)}};
}

json row_json(const gpu_spec& row) {
  json ids = json::array();
  for (auto id : row.pci_device_ids) {
    ids.push_back(fmt::format("0x{:04X}", id));
  }
  json peaks = json::object();
  for (const auto& [k, v] : row.peaks) {
    peaks[k] = v;
  }
  json ceilings = json::object();
  for (const auto& [k, v] : row.peaks) {
    ceilings[k] = optional_json(reports::recomputed_peak(row, k));
  }
  return json{
      {"id", row.id},
      {"name", row.name},
      {"match_names", row.match_names},
      {"pci_device_ids", ids},
      {"architecture", row.architecture},
      {"compute_capability", fmt::format("{}.{}", row.cc_major, row.cc_minor)},
      {"sm_count", row.sm_count},
      {"base_clock_mhz", row.base_clock_mhz > 0 ? json(row.base_clock_mhz) : json(nullptr)},
      {"boost_clock_mhz", row.boost_clock_mhz > 0 ? json(row.boost_clock_mhz) : json(nullptr)},
      {"tensor_clock_mhz", optional_json(row.tensor_clock_mhz)},
      {"memory", memory_json(row)},
      {"peaks", peaks},
      {"recomputed_peaks", ceilings},
      {"tdp_w", stated_json(row.tdp_w)},
      {"pcie",
       row.pcie_gen > 0 ? json{{"gen", row.pcie_gen}, {"width", row.pcie_width}} : json(nullptr)},
      {"nvlink_gbs", optional_json(row.nvlink_gbs)},
      {"nvlink_version", optional_json(row.nvlink_version)},
      {"nvlink_links", optional_json(row.nvlink_links)},
      {"nvlink_link_gbs", optional_json(row.nvlink_link_gbs)},
      {"sources", row.sources},
      {"notes", row.notes},
      {"check_notes", row.check_notes}};
}

json finding_json(const reports::spec_finding& f) {
  return json{{"id", f.row_id},
              {"field", f.field},
              {"stated", optional_json(f.stated)},
              {"computed", optional_json(f.computed)},
              {"deviation", optional_json(f.deviation)},
              {"clock_mhz", optional_json(f.clock_mhz)},
              {"status", std::string(reports::to_string(f.status))},
              {"detail", f.detail}};
}

exit_code list_rows(const reports::spec_table& table, bool as_json) {
  if (as_json) {
    json out = json::array();
    for (const auto& row : table.rows) {
      out.push_back(row_json(row));
    }
    std::cout << out.dump(2) << '\n';
    return exit_code::pass;
  }
  using al = text_table::align;
  text_table t(
      {"id", "name", "cc", "SMs", "boost MHz", "memory", "GB/s", "fp32", "fp16_tc", "TDP W"},
      {al::left, al::left, al::left, al::right, al::right, al::left, al::right, al::right,
       al::right, al::right});
  for (const auto& row : table.rows) {
    t.add_row({row.id, row.name, fmt::format("{}.{}", row.cc_major, row.cc_minor),
               std::to_string(row.sm_count),
               row.boost_clock_mhz > 0 ? number(row.boost_clock_mhz) : "-",
               row.memory_gib > 0 ? fmt::format("{} GB {}", number(row.memory_gib), row.memory_type)
                                  : "-",
               row.memory_bandwidth_gbs > 0 ? number(row.memory_bandwidth_gbs) : "-",
               peak(row, "fp32"), peak(row, "fp16_tc"), row.tdp_w > 0 ? number(row.tdp_w) : "-"});
  }
  fmt::print("{}", t.render());
  fmt::print("Peaks in TFLOP/s (dense, never sparsity). `gpuspec specs ID` shows a row and its "
             "sources.\n");
  return exit_code::pass;
}

exit_code show_row(const reports::spec_table& table, const std::string& id, bool as_json) {
  const gpu_spec* row = table.find(id);
  if (row == nullptr) {
    std::string ids;
    for (const auto& r : table.rows) {
      ids += (ids.empty() ? "" : ", ") + r.id;
    }
    fmt::print(stderr, "gpuspec specs: no row with id \"{}\"; the ids are: {}\n", id, ids);
    return exit_code::unknown;
  }
  if (as_json) {
    std::cout << row_json(*row).dump(2) << '\n';
    return exit_code::pass;
  }
  fmt::print("{} ({})\n", row->name, row->id);
  fmt::print("  architecture      {} (compute capability {}.{}), {} SMs\n", row->architecture,
             row->cc_major, row->cc_minor, row->sm_count);
  fmt::print("  clocks            base {} MHz, boost {} MHz{}\n",
             row->base_clock_mhz > 0 ? number(row->base_clock_mhz) : "-",
             row->boost_clock_mhz > 0 ? number(row->boost_clock_mhz) : "-",
             row->tensor_clock_mhz
                 ? fmt::format(", Tensor Core figures at {} MHz", number(*row->tensor_clock_mhz))
                 : "");
  const auto stated = [](double v, std::string_view unit) {
    return v > 0 ? fmt::format("{}{}", number(v), unit) : std::string("-");
  };
  fmt::print("  memory            {} {}, {}, {}", stated(row->memory_gib, " GB"), row->memory_type,
             stated(row->memory_bus_width_bits, "-bit"),
             stated(row->memory_bandwidth_gbs, " GB/s"));
  if (row->memory_clock_mhz) {
    fmt::print(" ({} MHz x {} transfers/clock)", number(*row->memory_clock_mhz),
               number(row->memory_transfers_per_clock));
  }
  fmt::print("\n  TDP               {}\n  PCIe              {}\n", stated(row->tdp_w, " W"),
             row->pcie_gen > 0 ? fmt::format("gen {} x{}", row->pcie_gen, row->pcie_width)
                               : std::string("-"));
  fmt::print("  NVLink            {}{}\n",
             row->nvlink_gbs ? number(*row->nvlink_gbs) + " GB/s" : std::string("-"),
             row->nvlink_links
                 ? fmt::format(" (NVLink {}, {} links{})",
                               row->nvlink_version ? *row->nvlink_version : 0, *row->nvlink_links,
                               row->nvlink_link_gbs
                                   ? fmt::format(" x {} GB/s", number(*row->nvlink_link_gbs))
                                   : "")
                 : std::string());
  std::string ids, names;
  for (auto pid : row->pci_device_ids) {
    ids += fmt::format("{}0x{:04X}", ids.empty() ? "" : ", ", pid);
  }
  for (const auto& n : row->match_names) {
    names += (names.empty() ? "\"" : ", \"") + n + "\"";
  }
  fmt::print("  PCI device ids    {}\n  NVML names        {}\n", ids, names);
  using al = text_table::align;
  text_table t({"peak", "datasheet", "SMs x clock x rate", "rate/SM/clock"},
               {al::left, al::right, al::right, al::right});
  for (const std::string_view key_view : reports::peak_keys) {
    const std::string key(key_view);
    if (!row->peaks.contains(key)) {
      continue;
    }
    t.add_row({key, number(row->peaks.at(key)), number(reports::recomputed_peak(*row, key)),
               number(reports::rate_per_sm_per_clock(row->cc_major, row->cc_minor, key))});
  }
  fmt::print("\nDense peaks, TFLOP/s (TOPS for int8_tc)\n{}", t.render());
  fmt::print("\nSources\n");
  for (const auto& [group, doc] : row->sources) {
    fmt::print("  {:<8} {}\n", group, doc);
  }
  if (!row->notes.empty()) {
    fmt::print("\nNotes\n  {}\n", row->notes);
  }
  for (const auto& [field, note] : row->check_notes) {
    fmt::print("  check note {}: {}\n", field, note);
  }
  return exit_code::pass;
}

exit_code check_rows(const reports::spec_table& table, bool as_json) {
  const auto findings = reports::check_spec_table(table);
  exit_code code = exit_code::pass;
  for (const auto& f : findings) {
    if (f.status == reports::spec_finding_status::disagrees) {
      code = exit_code::warn;
    }
  }
  if (as_json) {
    json out = json::array();
    for (const auto& f : findings) {
      out.push_back(finding_json(f));
    }
    std::cout << json{{"tolerance", reports::spec_check_tolerance}, {"findings", out}}.dump(2)
              << '\n';
    return code;
  }
  fmt::print("{}", spec_findings_table(findings));
  std::size_t counts[4] = {0, 0, 0, 0};
  for (const auto& f : findings) {
    ++counts[static_cast<int>(f.status)];
  }
  fmt::print("{} agree within {:.0f}%, {} explained by a check note, {} disagree, {} not "
             "checked\n",
             counts[0], reports::spec_check_tolerance * 100, counts[1], counts[2], counts[3]);
  return code;
}

} // namespace

std::string spec_findings_table(const std::vector<reports::spec_finding>& findings) {
  using al = text_table::align;
  text_table t(
      {"id", "field", "datasheet", "recomputed", "clock MHz", "off", "status", "detail"},
      {al::left, al::left, al::right, al::right, al::right, al::right, al::left, al::left});
  for (const auto& f : findings) {
    t.add_row({f.row_id, f.field, number(f.stated), number(f.computed), number(f.clock_mhz),
               f.deviation ? fmt::format("{:+.1f}%", *f.deviation * 100) : "-",
               std::string(reports::to_string(f.status)), f.detail});
  }
  return t.render();
}

void setup_specs(CLI::App& app, specs_options& options) {
  auto* cmd = app.add_subcommand(
      "specs", "List the spec table (datasheet figures), show one GPU model, or --check it");
  cmd->add_option("id", options.id, "Show this row in full (with its sources)");
  cmd->add_option("--table", options.table,
                  "Spec table file (default: $GPUSPEC_SPECS, else the source tree's "
                  "specs/gpus.json)")
      ->type_name(value_name::file);
  cmd->add_flag("--check", options.check,
                "Recompute every peak from SMs x clock x rate per SM per clock and every "
                "bandwidth from memory clock x bus width x transfers per clock; flag any figure "
                "more than 2% off (exit 1) unless a check note explains it");
  cmd->add_flag("--json", options.json, "Print JSON for programs instead of a table");
}

exit_code run_specs(const specs_options& options) {
  const std::filesystem::path file = options.table.empty()
                                         ? reports::default_spec_table_path(specs_dir().string())
                                         : std::filesystem::path(options.table);
  const auto loaded = reports::load_spec_table(file);
  if (!loaded) {
    fmt::print(stderr, "gpuspec specs: {}\n", loaded.error().to_string());
    return exit_code::unknown;
  }
  const auto& table = loaded.value();
  if (options.check) {
    if (!options.id.empty()) {
      reports::spec_table one;
      if (const auto* row = table.find(options.id)) {
        one.rows.push_back(*row);
        return check_rows(one, options.json);
      }
      return show_row(table, options.id, options.json); // prints the unknown-id message
    }
    return check_rows(table, options.json);
  }
  if (!options.id.empty()) {
    return show_row(table, options.id, options.json);
  }
  return list_rows(table, options.json);
}

} // namespace gpuspec::cli
