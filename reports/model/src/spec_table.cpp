// Strict loading of the spec table (specs/gpus.json), with the one object reader of every file
// gpuspec loads (json_reader.hpp): every required key present, no unknown or repeated keys,
// exact types, no negative or non-finite figure, no duplicate id, PCI id or match name; the
// first problem comes back as an input_error naming the file and the field path
// ("rows[3].peaks.fp32"). Bad input never throws.

#include "gpuspec/reports/model/spec_table.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpuspec/reports/model/json_reader.hpp"

namespace gpuspec::reports::inline model {
namespace {

using detail::describe;
using detail::element;
using detail::fail;
using detail::field_failure;
using detail::object_reader;
using detail::presence;

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string type_name(element e) {
  if (e.is_int64() || e.is_uint64())
    return "an integer";
  return describe(e);
}

/// A spec-table object: the shared strict reader (keys may be left out), with the spec table's
/// own rules for its values: strings not empty, figures finite and positive, counts whole.
class spec_reader {
public:
  spec_reader(element e, std::string path, std::span<const std::string_view> keys)
      : m_reader(checked(e, path), path, keys, presence::optional_keys) {}

  [[nodiscard]] std::string at(std::string_view key) const { return m_reader.path_of(key); }
  [[nodiscard]] bool has(std::string_view key) const { return m_reader.has(key); }
  [[nodiscard]] element get(std::string_view key) const { return m_reader.at(key); }

  [[nodiscard]] std::string string(std::string_view key, bool allow_empty = false) const {
    const element v = get(key);
    if (!v.is_string()) {
      fail(at(key), fmt::format("expected a string, got {}", type_name(v)));
    }
    std::string text(v.get_string().value_unsafe());
    if (!allow_empty && text.empty()) {
      fail(at(key), "must not be empty");
    }
    return text;
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
    const element v = get(key);
    if (!v.is_int64() && !v.is_uint64()) {
      fail(at(key), fmt::format("expected an integer, got {}", type_name(v)));
    }
    const auto n = v.is_int64() ? v.get_int64().value_unsafe() : std::int64_t{-1};
    if (n <= 0 || n > 1'000'000) {
      fail(at(key), fmt::format("{} is out of range (expected 1 to 1000000)",
                                v.is_int64() ? std::to_string(n)
                                             : std::to_string(v.get_uint64().value_unsafe())));
    }
    return static_cast<int>(n);
  }

  [[nodiscard]] simdjson::dom::array array(std::string_view key) const {
    const element v = get(key);
    if (!v.is_array()) {
      fail(at(key), fmt::format("expected an array, got {}", type_name(v)));
    }
    return v.get_array().value_unsafe();
  }

  static double checked_number(element v, const std::string& path, bool positive) {
    if (!v.is_number()) {
      fail(path, fmt::format("expected a number, got {}", type_name(v)));
    }
    const double d = detail::read_double(v, path);
    if (d < 0) {
      fail(path, fmt::format("{} is negative; rates and sizes are never negative", d));
    }
    if (positive && d == 0) {
      fail(path, "must be greater than 0 (leave the key out when the figure is unknown)");
    }
    return d;
  }

private:
  /// The document itself is "(document)" in the spec table's messages.
  static element checked(element e, const std::string& path) {
    if (!e.is_object()) {
      fail(path.empty() ? "(document)" : path,
           fmt::format("expected an object, got {}", type_name(e)));
    }
    return e;
  }

  object_reader m_reader;
};

constexpr std::array<std::string_view, 24> row_keys{"id",
                                                    "name",
                                                    "match_names",
                                                    "pci_device_ids",
                                                    "architecture",
                                                    "compute_capability",
                                                    "sm_count",
                                                    "base_clock_mhz",
                                                    "boost_clock_mhz",
                                                    "tensor_clock_mhz",
                                                    "memory",
                                                    "peaks",
                                                    "tdp_w",
                                                    "pcie",
                                                    "nvlink_gbs",
                                                    "sources",
                                                    "notes",
                                                    "check_notes",
                                                    "nvlink_version",
                                                    "nvlink_links",
                                                    "nvlink_link_gbs",
                                                    "arch_rates_apply",
                                                    "c2c_gbs",
                                                    "host_interconnect"};
constexpr std::array<std::string_view, 6> memory_keys{
    "size_gb", "type", "bus_width_bits", "bandwidth_gbs", "clock_mhz", "transfers_per_clock"};
constexpr std::array<std::string_view, 2> pcie_keys{"gen", "width"};
constexpr std::array<std::string_view, 2> table_keys{"schema", "rows"};

std::uint32_t parse_pci_id(element v, const std::string& path) {
  if (!v.is_string()) {
    fail(path, fmt::format("expected a string such as \"0x2330\", got {}", type_name(v)));
  }
  const std::string s(v.get_string().value_unsafe());
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

/// What names a row and matches it to a GPU, its architecture, SMs and clocks.
void read_identity(const spec_reader& r, gpu_spec& row) {
  row.id = r.string("id");
  row.name = r.string("name");
  std::size_t i = 0;
  for (const element name : r.array("match_names")) {
    const auto p = fmt::format("{}[{}]", r.at("match_names"), i++);
    if (!name.is_string() || name.get_string().value_unsafe().empty()) {
      fail(p, fmt::format("expected a non-empty string, got {}", type_name(name)));
    }
    row.match_names.emplace_back(name.get_string().value_unsafe());
  }
  i = 0;
  for (const element id : r.array("pci_device_ids")) {
    row.pci_device_ids.push_back(
        parse_pci_id(id, fmt::format("{}[{}]", r.at("pci_device_ids"), i++)));
  }
  row.architecture = r.string("architecture");
  parse_compute_capability(r.string("compute_capability"), r.at("compute_capability"), row);
  row.sm_count = r.integer("sm_count");
  row.base_clock_mhz = r.optional_number("base_clock_mhz").value_or(0);
  row.boost_clock_mhz = r.optional_number("boost_clock_mhz").value_or(0);
  row.tensor_clock_mhz = r.optional_number("tensor_clock_mhz");
  if (r.has("arch_rates_apply")) {
    const element v = r.get("arch_rates_apply");
    if (!v.is_bool()) {
      fail(r.at("arch_rates_apply"), fmt::format("expected true or false, got {}", type_name(v)));
    }
    row.arch_rates_apply = v.get_bool().value_unsafe();
  }
}

/// The memory figures: left out as a whole where no vendor document gives them (B300); the bus
/// width alone may be left out (the Blackwell datasheet gives none).
void read_memory(const spec_reader& r, gpu_spec& row) {
  if (!r.has("memory")) {
    return;
  }
  const spec_reader mem(r.get("memory"), r.at("memory"), memory_keys);
  row.memory_gib = mem.number("size_gb");
  row.memory_type = mem.string("type");
  if (mem.has("bus_width_bits")) {
    row.memory_bus_width_bits = mem.integer("bus_width_bits");
  }
  row.memory_bandwidth_gbs = mem.number("bandwidth_gbs");
  row.memory_clock_mhz = mem.optional_number("clock_mhz");
  row.memory_transfers_per_clock = mem.optional_number("transfers_per_clock");
  if (row.memory_clock_mhz.has_value() != row.memory_transfers_per_clock.has_value()) {
    fail(mem.at(row.memory_clock_mhz ? "transfers_per_clock" : "clock_mhz"),
         "clock_mhz and transfers_per_clock come together or not at all");
  }
}

/// The dense peak rates by precision: left out where no vendor document gives one (the row then
/// names the GPU only), at least one where present.
void read_peaks(const spec_reader& r, gpu_spec& row) {
  if (!r.has("peaks")) {
    return;
  }
  detail::for_each_member(
      r.get("peaks"), r.at("peaks"), "an object",
      [&](std::string_view key, element value, const detail::path_ref&) {
        const auto p = fmt::format("{}.{}", r.at("peaks"), key);
        if (std::find(std::begin(peak_keys), std::end(peak_keys), key) == std::end(peak_keys)) {
          fail(p, "unknown peak key (expected one of fp64, fp64_tc, fp32, fp16, bf16, tf32_tc, "
                  "fp16_tc, bf16_tc, int8_tc, fp8_tc, fp6_tc, fp4_tc)");
        }
        row.peaks[std::string(key)] = spec_reader::checked_number(value, p, true);
      });
  if (row.peaks.empty()) {
    fail(r.at("peaks"), "must hold at least one peak rate");
  }
}

/// The source document of each figure group, the notes and the check notes.
void read_sources(const spec_reader& r, gpu_spec& row) {
  const element sources = r.get("sources");
  if (!sources.is_object() || detail::object_of(sources).size() == 0) {
    fail(r.at("sources"), "expected an object naming the source document of each figure group");
  }
  detail::for_each_member(sources, r.at("sources"), "an object",
                          [&](std::string_view key, element value, const detail::path_ref&) {
                            const auto p = fmt::format("{}.{}", r.at("sources"), key);
                            if (!value.is_string() || value.get_string().value_unsafe().empty()) {
                              fail(p, "expected a non-empty string naming a document");
                            }
                            row.sources[std::string(key)] =
                                std::string(value.get_string().value_unsafe());
                          });
  if (r.has("notes")) {
    row.notes = r.string("notes", true);
  }
  if (r.has("check_notes")) {
    detail::for_each_member(r.get("check_notes"), r.at("check_notes"), "an object",
                            [&](std::string_view key, element value, const detail::path_ref&) {
                              const auto p = fmt::format("{}[\"{}\"]", r.at("check_notes"), key);
                              if (!value.is_string() || value.get_string().value_unsafe().empty()) {
                                fail(p, "expected a non-empty string explaining the exception");
                              }
                              row.check_notes[std::string(key)] =
                                  std::string(value.get_string().value_unsafe());
                            });
  }
}

/// nvlink_gbs (null: no NVLink) and, where a vendor document gives them, the generation, the
/// links per GPU and one link's rate, whose product must be nvlink_gbs (within 1%).
void read_nvlink(const spec_reader& r, gpu_spec& row) {
  row.nvlink_gbs = r.optional_number("nvlink_gbs");
  if (r.has("nvlink_version")) {
    row.nvlink_version = r.integer("nvlink_version");
  }
  if (r.has("nvlink_links")) {
    row.nvlink_links = r.integer("nvlink_links");
  }
  row.nvlink_link_gbs = r.optional_number("nvlink_link_gbs");
  if (row.nvlink_links && row.nvlink_link_gbs && row.nvlink_gbs &&
      std::abs(*row.nvlink_links * *row.nvlink_link_gbs - *row.nvlink_gbs) >
          0.01 * *row.nvlink_gbs) {
    fail(r.at("nvlink_link_gbs"),
         fmt::format("{} links x {:g} GB/s is not nvlink_gbs {:g}", *row.nvlink_links,
                     *row.nvlink_link_gbs, *row.nvlink_gbs));
  }
}

gpu_spec read_row(element j, const std::string& path) {
  const spec_reader r(j, path, row_keys);
  gpu_spec row;
  read_identity(r, row);
  read_memory(r, row);
  read_peaks(r, row);
  row.tdp_w = r.optional_number("tdp_w").value_or(0);
  if (r.has("pcie")) {
    const spec_reader pcie(r.get("pcie"), r.at("pcie"), pcie_keys);
    row.pcie_gen = pcie.integer("gen");
    row.pcie_width = pcie.integer("width");
  }
  read_nvlink(r, row);
  row.c2c_gbs = r.optional_number("c2c_gbs");
  if (r.has("host_interconnect")) {
    row.host_interconnect = r.string("host_interconnect");
    if (row.host_interconnect != host_interconnect_c2c)
      fail(r.at("host_interconnect"), fmt::format("\"{}\" is not \"{}\" (the only value a row "
                                                  "states: PCIe is the default)",
                                                  row.host_interconnect, host_interconnect_c2c));
  }

  read_sources(r, row);
  // The C2C figure judges every host transfer of the GPU: it names its document.
  if (row.c2c_gbs && !row.sources.contains("c2c"))
    fail(r.at("sources"), "c2c_gbs is given, so sources.c2c must name its document");
  // The host link decides which rules judge the GPU's host side: it names its document too.
  if (!row.host_interconnect.empty() && !row.sources.contains("host_interconnect"))
    fail(r.at("sources"),
         "host_interconnect is given, so sources.host_interconnect must name its document");
  return row;
}

spec_table read_table(element j) {
  const spec_reader top(j, "", table_keys);
  const auto schema = top.string("schema");
  if (schema != spec_table_schema) {
    fail("schema", fmt::format("\"{}\" is not \"{}\"", schema, spec_table_schema));
  }
  spec_table table;
  std::set<std::string> ids, names;
  std::set<std::uint32_t> pci_ids;
  std::size_t i = 0;
  for (const element item : top.array("rows")) {
    const auto path = fmt::format("rows[{}]", i++);
    gpu_spec row = read_row(item, path);
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

outcome<spec_table> read_document(const outcome<detail::json_document>& document,
                                  std::string_view file) {
  if (!document) {
    return document.error();
  }
  return detail::read_guarded(file, "", [&]() { return read_table(document.value().root()); });
}

} // namespace

const gpu_spec* spec_table::find(std::string_view id) const {
  const auto it =
      std::find_if(rows.begin(), rows.end(), [id](const gpu_spec& r) { return r.id == id; });
  return it == rows.end() ? nullptr : &*it;
}

outcome<spec_table> parse_spec_table(const nlohmann::ordered_json& j, std::string_view file) {
  return read_document(detail::parse_json_value(j, file, "spec table"), file);
}

outcome<spec_table> parse_spec_table_text(std::string_view text, std::string_view file) {
  return read_document(detail::parse_json(text, file, "spec table"), file);
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

const gpu_spec* spec_of(const spec_table& table, const device_info& device) {
  // The row id the report carries stands where the GPU's identity (PCI device id, NVML name)
  // fits that row, or where this table knows the GPU by no identity (a site row, a synthetic
  // GPU). Where the identity names another row, the identity wins: a harness with an older or
  // looser table may have written a sibling's id (an H20 as h100-sxm5-80gb), and a model must
  // never be judged by a sibling's figures.
  const gpu_spec* carried = device.spec_id.empty() ? nullptr : table.find(device.spec_id);
  const gpu_spec* matched = match_device(table, device);
  if (carried == nullptr || matched == nullptr || matched == carried)
    return carried != nullptr ? carried : matched;
  const bool id_fits = device.pci_device_id &&
                       std::find(carried->pci_device_ids.begin(), carried->pci_device_ids.end(),
                                 *device.pci_device_id) != carried->pci_device_ids.end();
  const bool name_fits =
      !device.name.empty() &&
      std::any_of(carried->match_names.begin(), carried->match_names.end(),
                  [&](const std::string& n) { return lower(n) == lower(device.name); });
  return id_fits || name_fits ? carried : matched;
}

} // namespace gpuspec::reports::model
