// The one entry of the importers (import.hpp): recognise the tool, read the log, name the file
// and line of anything that cannot be read.
#include "gpuspec/reports/import/import.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "gpuspec/reports/import/log_lines.hpp"
#include "gpuspec/reports/model/network_ceiling.hpp"
#include "gpuspec/reports/model/reference.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "readers.hpp"
#include "sha256.hpp"

namespace gpuspec::reports::inline import {
namespace {

input_error error_at(const std::string& file, std::size_t line, const std::string& why) {
  return input_error{file, line == 0 ? std::string() : fmt::format("line {}", line), why};
}

} // namespace

std::string_view tool_name(foreign_tool tool) {
  return tool.reader < detail::k_readers.size() ? detail::k_readers[tool.reader]->tool : "unknown";
}

std::optional<foreign_tool> tool_from_name(std::string_view name) {
  for (std::size_t i = 0; i < detail::k_readers.size(); ++i)
    if (detail::k_readers[i]->tool == name)
      return foreign_tool{i};
  return std::nullopt;
}

std::vector<std::string_view> tool_names() {
  std::vector<std::string_view> out;
  for (const auto* reader : detail::k_readers)
    out.push_back(reader->tool);
  return out;
}

std::optional<foreign_tool> detect_tool(std::string_view text) {
  const auto lines = split_log_lines(text);
  for (std::size_t i = 0; i < detail::k_readers.size(); ++i)
    if (detail::k_readers[i]->recognises(lines))
      return foreign_tool{i};
  return std::nullopt;
}

outcome<report> import_log(std::string_view text, const std::string& file,
                           std::optional<foreign_tool> tool) {
  const auto lines = split_log_lines(text);
  if (!tool)
    tool = detect_tool(text);
  if (!tool || tool->reader >= detail::k_readers.size())
    return error_at(file, lines.empty() ? 0 : 1,
                    fmt::format("not a log gpuspec can import: no line of {} was recognised",
                                fmt::join(tool_names(), " or ")));
  const auto& reader = *detail::k_readers[tool->reader];
  run_source source;
  source.tool = std::string(reader.tool);
  source.file = file;
  source.sha256 = detail::sha256_hex(text);
  try {
    return reader.read(lines, std::move(source));
  } catch (const log_error& e) {
    return error_at(file, e.line(), fmt::format("{} log: {}", reader.tool, e.what()));
  }
}

outcome<report> load_log(const std::filesystem::path& file, std::optional<foreign_tool> tool) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    return input_error{file.string(), "", "cannot be opened"};
  std::ostringstream text;
  text << in.rdbuf();
  return import_log(text.str(), file.string(), tool);
}

namespace {

/// A PCI address as domain, bus, device and function, from the forms the tools write: NVML's
/// "00000000:04:00.0", nccl-tests' "0000:04:00", lspci's "04:00.0" (a missing domain or function
/// reads 0).
std::optional<std::array<unsigned long, 4>> pci_address(std::string_view text) {
  std::array<unsigned long, 4> out{};
  std::vector<std::string_view> parts;
  std::size_t from = 0;
  for (std::size_t at = 0; at <= text.size(); ++at)
    if (at == text.size() || text[at] == ':' || text[at] == '.') {
      parts.push_back(text.substr(from, at - from));
      from = at + 1;
    }
  const bool has_function = text.find('.') != std::string_view::npos;
  const std::size_t fields = parts.size() - (has_function ? 1 : 0); // domain?, bus, device
  if (fields < 2 || fields > 3)
    return std::nullopt;
  std::array<unsigned long, 4> read{};
  for (std::size_t k = 0; k < parts.size(); ++k) {
    if (parts[k].empty() || parts[k].size() > 8)
      return std::nullopt;
    const auto [end, ec] =
        std::from_chars(parts[k].data(), parts[k].data() + parts[k].size(), read[k], 16);
    if (ec != std::errc{} || end != parts[k].data() + parts[k].size())
      return std::nullopt;
  }
  const std::size_t skip = fields == 3 ? 0 : 1; // no domain: 0
  for (std::size_t k = 0; k < parts.size(); ++k)
    out[k + skip] = read[k];
  return out;
}

/// The same GPU by its bus id, whichever form each side wrote it in.
bool same_pci_address(const std::string& a, const std::string& b) {
  if (a == b)
    return true;
  const auto x = pci_address(a);
  const auto y = pci_address(b);
  return x && y && *x == *y;
}

/// A log that names no GPU (nccl-tests without its "# Using devices" lines): the inventory's
/// GPUs are the node's, and every result that names none ran on all of them, unless its rank
/// count (read from the figures) is not the inventory's GPU count: then the run was not this
/// node's alone, and only the log's own rank lines could say which GPUs it used.
std::optional<input_error> adopt_inventory_gpus(report& r, const report& inv,
                                                const std::filesystem::path& file) {
  std::vector<int> all;
  for (const auto& d : inv.devices)
    all.push_back(d.index);
  for (auto& x : r.results) {
    if (!x.devices.empty())
      continue;
    if (const auto n = x.observations.find("nranks");
        n != x.observations.end() && n->is_number_integer() && n->get<long long>() > 0 &&
        n->get<long long>() != static_cast<long long>(all.size()))
      return input_error{
          file.string(), "",
          fmt::format("the log names no GPU and its figures are of {} ranks, where this "
                      "inventory has {} GPUs: a run across nodes, or on some of this node's "
                      "GPUs, needs the log's \"# Using devices\" lines to be judged",
                      n->get<long long>(), all.size())};
    x.devices = all;
  }
  r.devices = inv.devices;
  r.run.devices = all;
  r.run.source->notes.push_back("the log names no GPU: its results are taken to have run on every "
                                "GPU of the inventory, " +
                                file.string());
  return std::nullopt;
}

/// A log across nodes (nccl-tests' rank lines on several hosts) held to the network, as our own
/// runs are (network_ceiling.hpp): the inventory's active ports, one per rank of each node. One
/// node's inventory is given, so the other nodes' ports are taken to be the same, and said to
/// be. Without an active port the results keep no ceiling, and the note says why.
void hold_to_inventory_network(report& r, const report& inv, const std::filesystem::path& file) {
  if (r.nodes.empty())
    return;
  const auto& ports = inv.host.network_ports;
  std::size_t held = 0;
  for (auto& x : r.results) {
    const auto per_host = ranks_per_host(x);
    if (!x.bench_id.starts_with("collective.") || per_host.size() < 2 || !ports)
      continue;
    std::vector<std::vector<network_port>> node_ports;
    std::vector<std::string> names;
    std::vector<int> ranks;
    for (const auto& [host, count] : per_host) {
      node_ports.push_back(*ports);
      names.push_back(host);
      ranks.push_back(count);
    }
    const network_bound net = slowest_node_network(node_ports, names, ranks);
    if (!net.gbs)
      continue;
    auto& c = x.ceiling_value;
    c.datasheet.reset();
    c.spec_figure.clear();
    c.datasheet_source = "no datasheet figure for the network between nodes: the ports' rate as "
                         "found judges";
    c.clock_adjusted = net.gbs;
    c.clock_adjusted_source = fmt::format(
        "the network between nodes from the inventory {} (one node's: the other nodes' ports "
        "taken to be the same), its active InfiniBand / RoCE ports as the kernel reports their "
        "rate (Gb/s / 8), as many as the log's ranks on the node: {} = {:g} GB/s; {}; the link "
        "inside the node is not weighed beside it",
        file.string(), net.slowest, *net.gbs, one_port_per_rank_text);
    c.reference = choose_reference(c);
    x.observations["ceiling_link"] = "network";
    if (!x.observations.contains("network_transport") && !net.transport.empty())
      x.observations["network_transport"] = net.transport;
    x.efficiency.reset();
    x.efficiency_clock_adjusted.reset();
    if (x.status == result_status::ok)
      settle_efficiency(x);
    ++held;
  }
  auto& notes = r.run.source->notes;
  const auto no_ceiling = std::find_if(notes.begin(), notes.end(), [](const std::string& n) {
    return n.starts_with("the ranks span several hosts");
  });
  if (no_ceiling == notes.end())
    return;
  if (held > 0)
    *no_ceiling = fmt::format("the ranks span several hosts: busbw is held to the network, the "
                              "active ports of the inventory {}, one per rank on each node",
                              file.string());
  else
    *no_ceiling +=
        fmt::format("; the inventory {} lists no active InfiniBand or RoCE port", file.string());
}

} // namespace

std::optional<input_error> apply_inventory(report& r, const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    return input_error{file.string(), "", "cannot be opened"};
  std::ostringstream text;
  text << in.rdbuf();
  nlohmann::ordered_json info;
  try {
    info = nlohmann::ordered_json::parse(text.str());
  } catch (const std::exception& e) {
    return input_error{file.string(), "", fmt::format("not valid JSON: {}", e.what())};
  }
  if (!info.is_object() || !info.contains("host") || !info.contains("devices"))
    return input_error{file.string(), "",
                       "not the output of gpuspec info --json (no \"host\" and \"devices\")"};
  // Read through the report loader, so the inventory is held to the report's own rules.
  report frame;
  frame.run.backend = "imported";
  nlohmann::ordered_json j = to_json(frame);
  j["host"] = info.at("host");
  j["devices"] = info.at("devices");
  const auto inventory = report_from_json(j, file.string());
  if (!inventory)
    return inventory.error();
  const report& inv = inventory.value();
  const auto nccl = r.host.nccl_version;
  const auto driver = r.host.driver_version;
  r.host = inv.host;
  if (!nccl.empty())
    r.host.nccl_version = nccl;
  if (r.host.driver_version.empty())
    r.host.driver_version = driver;
  if (r.devices.empty())
    if (auto error = adopt_inventory_gpus(r, inv, file))
      return error;
  for (auto& d : r.devices) {
    const device_info* match = nullptr;
    for (const auto& i : inv.devices)
      if ((!d.uuid.empty() && i.uuid == d.uuid) ||
          (d.uuid.empty() && !d.pci_bus_id.empty() && same_pci_address(i.pci_bus_id, d.pci_bus_id)))
        match = &i;
    for (const auto& i : inv.devices)
      if (match == nullptr && d.uuid.empty() && d.pci_bus_id.empty() && i.index == d.index)
        match = &i;
    if (match == nullptr)
      return input_error{file.string(), "",
                         fmt::format("GPU {} of the log ({}) is not in this inventory", d.index,
                                     d.name.empty() ? d.uuid : d.name)};
    if (!d.name.empty() && !match->name.empty() && d.name != match->name &&
        match->name.find(d.name) == std::string::npos &&
        d.name.find(match->name) == std::string::npos)
      return input_error{file.string(), "",
                         fmt::format("GPU {} is a {} in the log and a {} in the inventory", d.index,
                                     d.name, match->name)};
    const int index = d.index;
    d = *match;
    d.index = index;
  }
  hold_to_inventory_network(r, inv, file);
  r.run.source->notes.push_back("the GPUs' and the host's inventory is " + file.string() +
                                "'s (gpuspec info --json), not the log's");
  return std::nullopt;
}

namespace {

/// Whether a file starts as a JSON document does: '{', or '[' followed by a JSON value (a shell
/// prompt such as "[root@host dir]# ./gpu_burn", which starts several posted logs, is not one).
bool starts_as_json(std::istream& in) {
  const auto blank = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
  char c = 0;
  while (in.get(c) && blank(c)) {
  }
  if (!in || c == '{')
    return true;
  if (c != '[')
    return false;
  std::string next;
  while (next.size() < 5 && in.get(c))
    if (!blank(c) || !next.empty())
      next += c;
  if (next.empty())
    return true;
  const char first = next.front();
  return first == '{' || first == '[' || first == ']' || first == '"' || first == '-' ||
         (first >= '0' && first <= '9') || next.starts_with("true") || next.starts_with("false") ||
         next.starts_with("null");
}

/// A file that starts as JSON: the log of a tool that writes JSON (dcgmi diag -j) when such a
/// reader recognises its opening (a JSON log names its tool in its first key), else a gpuspec
/// report, read once by the report loader.
outcome<report> json_log_or_report(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string opening(4096, '\0');
  in.read(opening.data(), static_cast<std::streamsize>(opening.size()));
  opening.resize(static_cast<std::size_t>(in.gcount()));
  const auto lines = split_log_lines(opening);
  for (std::size_t i = 0; i < detail::k_readers.size(); ++i)
    if (detail::k_readers[i]->reads_json && detail::k_readers[i]->recognises(lines))
      return load_log(file, foreign_tool{i});
  return load_report(file);
}

} // namespace

outcome<report> load_report_or_log(const std::filesystem::path& file,
                                   std::optional<foreign_tool> tool) {
  if (!tool) {
    std::ifstream in(file, std::ios::binary);
    if (!in || starts_as_json(in))
      return json_log_or_report(file);
  }
  return load_log(file, tool);
}

} // namespace gpuspec::reports::import
