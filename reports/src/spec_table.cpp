// Strict loading of the spec table (specs/gpus.json), in the manner of report_json.cpp: every
// required key present, no unknown keys, exact types, no negative or non-finite figure, no
// duplicate id, PCI id or match name; the first problem comes back as an input_error naming
// the file and the field path ("rows[3].peaks.fp32"). Bad input never throws.

#include "gpuspec/reports/spec_table.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "json_input.hpp"

namespace gpuspec::reports {
namespace {

using json = nlohmann::ordered_json;
using detail::fail;
using detail::field_failure;

std::string type_name(const json& j) {
  if (j.is_number_integer() || j.is_number_unsigned())
    return "an integer";
  if (j.is_number_float())
    return "a number";
  if (j.is_string())
    return "a string";
  if (j.is_boolean())
    return "a boolean";
  if (j.is_null())
    return "null";
  if (j.is_array())
    return "an array";
  return "an object";
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

/// An object's members, checked against the allowed keys; unknown keys are rejected.
class object_reader {
public:
  object_reader(const json& j, std::string path, std::initializer_list<std::string_view> allowed)
      : m_j(j), m_path(std::move(path)) {
    if (!j.is_object()) {
      fail(m_path.empty() ? "(document)" : m_path,
           fmt::format("expected an object, got {}", type_name(j)));
    }
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end()) {
        fail(at(it.key()), "unknown key");
      }
    }
  }

  [[nodiscard]] std::string at(std::string_view key) const {
    return m_path.empty() ? std::string(key) : fmt::format("{}.{}", m_path, key);
  }
  [[nodiscard]] bool has(std::string_view key) const {
    return m_j.contains(std::string(key)) && !m_j.at(std::string(key)).is_null();
  }
  [[nodiscard]] const json& get(std::string_view key) const {
    if (!m_j.contains(std::string(key))) {
      fail(at(key), "missing");
    }
    return m_j.at(std::string(key));
  }

  [[nodiscard]] std::string string(std::string_view key, bool allow_empty = false) const {
    const json& v = get(key);
    if (!v.is_string()) {
      fail(at(key), fmt::format("expected a string, got {}", type_name(v)));
    }
    auto s = v.get<std::string>();
    if (!allow_empty && s.empty()) {
      fail(at(key), "must not be empty");
    }
    return s;
  }

  /// A finite number >= 0 (> 0 when `positive`).
  [[nodiscard]] double number(std::string_view key, bool positive = true) const {
    return checked_number(get(key), at(key), positive);
  }
  [[nodiscard]] std::optional<double> optional_number(std::string_view key) const {
    if (!has(key)) {
      return std::nullopt;
    }
    return number(key);
  }

  [[nodiscard]] int integer(std::string_view key) const {
    const json& v = get(key);
    if (!v.is_number_integer()) {
      fail(at(key), fmt::format("expected an integer, got {}", type_name(v)));
    }
    const auto n = v.get<std::int64_t>();
    if (n <= 0 || n > 1'000'000) {
      fail(at(key), fmt::format("{} is out of range (expected 1 to 1000000)", n));
    }
    return static_cast<int>(n);
  }

  [[nodiscard]] const json& array(std::string_view key) const {
    const json& v = get(key);
    if (!v.is_array()) {
      fail(at(key), fmt::format("expected an array, got {}", type_name(v)));
    }
    return v;
  }

  static double checked_number(const json& v, const std::string& path, bool positive) {
    if (!v.is_number()) {
      fail(path, fmt::format("expected a number, got {}", type_name(v)));
    }
    const double d = v.get<double>();
    if (!std::isfinite(d)) {
      fail(path, "must be finite");
    }
    if (d < 0) {
      fail(path, fmt::format("{} is negative; rates and sizes are never negative", d));
    }
    if (positive && d == 0) {
      fail(path, "must be greater than 0 (leave the key out when the figure is unknown)");
    }
    return d;
  }

private:
  const json& m_j;
  std::string m_path;
};

std::uint32_t parse_pci_id(const json& v, const std::string& path) {
  if (!v.is_string()) {
    fail(path, fmt::format("expected a string such as \"0x2330\", got {}", type_name(v)));
  }
  const auto s = v.get<std::string>();
  const bool ok =
      s.size() == 6 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
      std::all_of(s.begin() + 2, s.end(), [](unsigned char c) { return std::isxdigit(c) != 0; });
  if (!ok) {
    fail(path, fmt::format("\"{}\" is not a 16-bit PCI device id written as 0xNNNN", s));
  }
  return static_cast<std::uint32_t>(std::strtoul(s.c_str() + 2, nullptr, 16));
}

void parse_compute_capability(const std::string& text, const std::string& path, gpu_spec& row) {
  const auto dot = text.find('.');
  const auto digits = [](std::string_view s) {
    return !s.empty() && s.size() <= 2 &&
           std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
  };
  if (dot == std::string::npos || !digits(std::string_view(text).substr(0, dot)) ||
      !digits(std::string_view(text).substr(dot + 1))) {
    fail(path, fmt::format("\"{}\" is not a compute capability such as \"9.0\"", text));
  }
  row.cc_major = std::stoi(text.substr(0, dot));
  row.cc_minor = std::stoi(text.substr(dot + 1));
}

gpu_spec read_row(const json& j, const std::string& path) {
  const object_reader r(j, path,
                        {"id", "name", "match_names", "pci_device_ids", "architecture",
                         "compute_capability", "sm_count", "base_clock_mhz", "boost_clock_mhz",
                         "tensor_clock_mhz", "memory", "peaks", "tdp_w", "pcie", "nvlink_gbs",
                         "sources", "notes", "check_notes"});
  gpu_spec row;
  row.id = r.string("id");
  row.name = r.string("name");
  const json& names = r.array("match_names");
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto p = fmt::format("{}[{}]", r.at("match_names"), i);
    if (!names[i].is_string() || names[i].get<std::string>().empty()) {
      fail(p, fmt::format("expected a non-empty string, got {}", type_name(names[i])));
    }
    row.match_names.push_back(names[i].get<std::string>());
  }
  const json& ids = r.array("pci_device_ids");
  for (std::size_t i = 0; i < ids.size(); ++i) {
    row.pci_device_ids.push_back(
        parse_pci_id(ids[i], fmt::format("{}[{}]", r.at("pci_device_ids"), i)));
  }
  row.architecture = r.string("architecture");
  parse_compute_capability(r.string("compute_capability"), r.at("compute_capability"), row);
  row.sm_count = r.integer("sm_count");
  row.base_clock_mhz = r.optional_number("base_clock_mhz").value_or(0);
  row.boost_clock_mhz = r.optional_number("boost_clock_mhz").value_or(0);
  row.tensor_clock_mhz = r.optional_number("tensor_clock_mhz");

  const object_reader mem(
      r.get("memory"), r.at("memory"),
      {"size_gb", "type", "bus_width_bits", "bandwidth_gbs", "clock_mhz", "transfers_per_clock"});
  row.memory_gib = mem.number("size_gb");
  row.memory_type = mem.string("type");
  row.memory_bus_width_bits = mem.integer("bus_width_bits");
  row.memory_bandwidth_gbs = mem.number("bandwidth_gbs");
  row.memory_clock_mhz = mem.optional_number("clock_mhz");
  row.memory_transfers_per_clock = mem.optional_number("transfers_per_clock");
  if (row.memory_clock_mhz.has_value() != row.memory_transfers_per_clock.has_value()) {
    fail(mem.at(row.memory_clock_mhz ? "transfers_per_clock" : "clock_mhz"),
         "clock_mhz and transfers_per_clock come together or not at all");
  }

  const json& peaks = r.get("peaks");
  if (!peaks.is_object()) {
    fail(r.at("peaks"), fmt::format("expected an object, got {}", type_name(peaks)));
  }
  for (auto it = peaks.begin(); it != peaks.end(); ++it) {
    const auto p = fmt::format("{}.{}", r.at("peaks"), it.key());
    if (std::find(std::begin(peak_keys), std::end(peak_keys), it.key()) == std::end(peak_keys)) {
      fail(p, "unknown peak key (expected one of fp64, fp64_tc, fp32, fp16, bf16, tf32_tc, "
              "fp16_tc, bf16_tc, int8_tc, fp8_tc)");
    }
    row.peaks[it.key()] = object_reader::checked_number(it.value(), p, true);
  }
  if (row.peaks.empty()) {
    fail(r.at("peaks"), "must hold at least one peak rate");
  }

  row.tdp_w = r.number("tdp_w");
  const object_reader pcie(r.get("pcie"), r.at("pcie"), {"gen", "width"});
  row.pcie_gen = pcie.integer("gen");
  row.pcie_width = pcie.integer("width");
  row.nvlink_gbs = r.optional_number("nvlink_gbs");

  const json& sources = r.get("sources");
  if (!sources.is_object() || sources.empty()) {
    fail(r.at("sources"), "expected an object naming the source document of each figure group");
  }
  for (auto it = sources.begin(); it != sources.end(); ++it) {
    const auto p = fmt::format("{}.{}", r.at("sources"), it.key());
    if (!it.value().is_string() || it.value().get<std::string>().empty()) {
      fail(p, "expected a non-empty string naming a document");
    }
    row.sources[it.key()] = it.value().get<std::string>();
  }
  if (r.has("notes")) {
    row.notes = r.string("notes", true);
  }
  if (r.has("check_notes")) {
    const json& notes = r.get("check_notes");
    if (!notes.is_object()) {
      fail(r.at("check_notes"), fmt::format("expected an object, got {}", type_name(notes)));
    }
    for (auto it = notes.begin(); it != notes.end(); ++it) {
      const auto p = fmt::format("{}[\"{}\"]", r.at("check_notes"), it.key());
      if (!it.value().is_string() || it.value().get<std::string>().empty()) {
        fail(p, "expected a non-empty string explaining the exception");
      }
      row.check_notes[it.key()] = it.value().get<std::string>();
    }
  }
  return row;
}

spec_table read_table(const json& j) {
  const object_reader top(j, "", {"schema", "rows"});
  const auto schema = top.string("schema");
  if (schema != spec_table_schema) {
    fail("schema", fmt::format("\"{}\" is not \"{}\"", schema, spec_table_schema));
  }
  const json& rows = top.array("rows");
  spec_table table;
  std::set<std::string> ids, names;
  std::set<std::uint32_t> pci_ids;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto path = fmt::format("rows[{}]", i);
    gpu_spec row = read_row(rows[i], path);
    if (!ids.insert(row.id).second) {
      fail(path + ".id", fmt::format("duplicate id \"{}\"", row.id));
    }
    for (std::size_t k = 0; k < row.pci_device_ids.size(); ++k) {
      if (!pci_ids.insert(row.pci_device_ids[k]).second) {
        fail(fmt::format("{}.pci_device_ids[{}]", path, k),
             fmt::format("duplicate PCI device id 0x{:04x}", row.pci_device_ids[k]));
      }
    }
    for (std::size_t k = 0; k < row.match_names.size(); ++k) {
      if (!names.insert(lower(row.match_names[k])).second) {
        fail(fmt::format("{}.match_names[{}]", path, k),
             fmt::format("duplicate match name \"{}\"", row.match_names[k]));
      }
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

} // namespace

const gpu_spec* spec_table::find(std::string_view id) const {
  const auto it =
      std::find_if(rows.begin(), rows.end(), [id](const gpu_spec& r) { return r.id == id; });
  return it == rows.end() ? nullptr : &*it;
}

outcome<spec_table> parse_spec_table(const nlohmann::ordered_json& j, std::string_view file) {
  try {
    return read_table(j);
  } catch (const field_failure& failure) {
    return input_error{std::string(file), failure.field, failure.message};
  } catch (const nlohmann::json::exception& e) {
    return input_error{std::string(file), "", detail::library_message(e)};
  } catch (const std::out_of_range& e) {
    return input_error{std::string(file), "", e.what()};
  } catch (const std::invalid_argument& e) {
    return input_error{std::string(file), "", e.what()};
  }
}

outcome<spec_table> parse_spec_table_text(std::string_view text, std::string_view file) {
  auto document = detail::parse_json_document(text, file, "spec table");
  if (!document) {
    return document.error();
  }
  return parse_spec_table(document.value(), file);
}

outcome<spec_table> load_spec_table(const std::filesystem::path& file) {
  auto text = detail::read_input_file(file, "spec table");
  if (!text) {
    return text.error();
  }
  return parse_spec_table_text(text.value(), file.string());
}

std::filesystem::path default_spec_table_path(std::string_view compiled_specs_dir) {
  if (const char* env = std::getenv("GPUSPEC_SPECS"); env != nullptr && *env != '\0') {
    return env;
  }
  return std::filesystem::path(compiled_specs_dir) / "gpus.json";
}

const gpu_spec* match_device(const spec_table& table, const device_info& device) {
  if (device.pci_device_id) {
    for (const auto& row : table.rows) {
      if (std::find(row.pci_device_ids.begin(), row.pci_device_ids.end(), *device.pci_device_id) !=
          row.pci_device_ids.end()) {
        return &row;
      }
    }
  }
  if (!device.name.empty()) {
    const auto name = lower(device.name);
    for (const auto& row : table.rows) {
      for (const auto& candidate : row.match_names) {
        if (lower(candidate) == name) {
          return &row;
        }
      }
    }
  }
  return nullptr;
}

} // namespace gpuspec::reports
