#include "gpuspec/collectives/nccl_tests_table.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "gpuspec/collectives/collective_kind.hpp"
#include "gpuspec/reports/model/report_json.hpp"

namespace gpuspec::collectives {

namespace {

using json = nlohmann::ordered_json;

template <class T> std::optional<T> observed(const reports::result& r, const char* key) {
  const auto it = r.observations.find(key);
  if (it == r.observations.end() || !it->is_number())
    return std::nullopt;
  return it->get<T>();
}

std::string axis(const reports::result& r, const char* key) {
  const auto it = r.axes.find(key);
  return it != r.axes.end() && it->is_string() ? it->get<std::string>() : std::string();
}

/// The four body columns of one placement ("  %7s  %6s  %6s  %6g"), or blanks where nothing
/// was measured. A result failed by its check keeps its figures: #wrong is the point.
std::string body(const reports::result* r) {
  if (r == nullptr || r->samples.empty())
    return std::string(32, ' ');
  const double time_us = observed<double>(*r, "time_us").value_or(0.0);
  const double algbw = observed<double>(*r, "algbw_gbs").value_or(0.0);
  const auto wrong = observed<std::int64_t>(*r, "wrong");
  return fmt::format("  {:>7}  {:>6}  {:>6}  {:>6}", nccl_tests_number(time_us, 7),
                     nccl_tests_number(algbw, 6), nccl_tests_number(r->stats.median, 6),
                     wrong ? fmt::format("{:g}", static_cast<double>(*wrong)) : "N/A");
}

struct row {
  std::uint64_t size_sort = 0;
  const reports::result* placement[2] = {nullptr, nullptr}; // out of place, in place
};

std::string header() {
  std::string h = "#\n";
  h += fmt::format("# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}           out-of-place               "
                   "        in-place          \n",
                   "", "", "", "", "");
  h += fmt::format("# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  "
                   "{:>6}  {:>6}  {:>6} \n",
                   "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong",
                   "time", "algbw", "busbw", "#wrong");
  h += fmt::format("# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  "
                   "{:>6}  {:>6}  {:>6} \n",
                   "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)",
                   "(GB/s)", "(GB/s)", "");
  return h;
}

/// nccl-tests' closing lines, which scripts grep (NVIDIA/nccl-tests src/common.cu, the end of
/// run()): "# Out of bounds values : N OK|FAILED", the sum of #wrong, and "# Avg bus bandwidth
/// : %g", the mean busbw over every size and placement timed; then "#".
template <class Rows> std::string footer(const Rows& rows) {
  std::int64_t wrong = 0;
  double busbw = 0;
  std::size_t timed = 0;
  for (const auto& [size, rw] : rows)
    for (const auto* p : rw.placement) {
      if (p == nullptr || p->samples.empty())
        continue;
      wrong += observed<std::int64_t>(*p, "wrong").value_or(0);
      busbw += p->stats.median;
      ++timed;
    }
  return fmt::format("# Out of bounds values : {} {}\n# Avg bus bandwidth    : {:g}\n#\n", wrong,
                     wrong != 0 ? "FAILED" : "OK",
                     timed > 0 ? busbw / static_cast<double>(timed) : 0.0);
}

std::uint64_t parse_size(const std::string& text) {
  std::uint64_t value = 0;
  std::size_t i = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9')
    value = value * 10 + static_cast<std::uint64_t>(text[i++] - '0');
  const std::string unit = text.substr(i);
  const int shift = unit == "KiB" ? 10 : unit == "MiB" ? 20 : unit == "GiB" ? 30 : 0;
  return value << shift;
}

} // namespace

std::string nccl_tests_number(double value, int width) {
  for (const char* spec : {"{:>{}.2f}", "{:>{}.1f}", "{:>{}.0f}"}) {
    const std::string s = fmt::format(fmt::runtime(spec), value, width);
    if (static_cast<int>(s.size()) <= width)
      return s;
  }
  return fmt::format(fmt::runtime(width >= 7 ? "{:>{}.1e}" : "{:>{}.0e}"), value, width);
}

std::string render_nccl_tests_table(const reports::report& r) {
  // (collective, dtype) -> rows by size, in the order of first appearance.
  std::vector<std::pair<std::string, std::string>> order;
  std::map<std::pair<std::string, std::string>, std::map<std::uint64_t, row>> groups;
  for (const auto& res : r.results) {
    if (!res.bench_id.starts_with("collective."))
      continue;
    const auto key = std::make_pair(res.bench_id, axis(res, "dtype"));
    if (!groups.contains(key))
      order.push_back(key);
    const std::uint64_t size = parse_size(axis(res, "size"));
    row& rw = groups[key][size];
    rw.size_sort = size;
    rw.placement[axis(res, "placement") == "in_place" ? 1 : 0] = &res;
  }
  if (order.empty())
    return "# no collective results in this report\n";

  std::string out;
  for (const auto& key : order) {
    const auto kind = parse_collective(std::string_view(key.first).substr(11));
    const auto type = parse_element_type(key.second);
    const auto& rows = groups[key];
    const reports::result* any = nullptr;
    for (const auto& [size, rw] : rows)
      for (const auto* p : rw.placement)
        if (p != nullptr && any == nullptr)
          any = p;
    const auto nranks = any != nullptr ? observed<int>(*any, "nranks") : std::nullopt;
    out += fmt::format("# {} ({}), {} rank(s), NCCL {}\n", key.first, key.second,
                       nranks ? std::to_string(*nranks) : "?",
                       any != nullptr && any->observations.contains("nccl_version") &&
                               any->observations["nccl_version"].is_string()
                           ? any->observations["nccl_version"].get<std::string>()
                           : std::string("?"));
    out += header();
    for (const auto& [size, rw] : rows) {
      const reports::result* first = rw.placement[0] != nullptr ? rw.placement[0] : rw.placement[1];
      const auto bytes = observed<std::uint64_t>(*first, "size_bytes").value_or(size);
      const auto count = observed<std::uint64_t>(*first, "count");
      const std::string type_name =
          type ? std::string(nccl_tests_type_name(*type)) : std::string(key.second);
      const std::string redop = kind && has_reduction(*kind) ? "sum" : "none";
      const int root = kind && has_root(*kind) ? observed<int>(*first, "root").value_or(0) : -1;
      out += fmt::format("{:>12}  {:>12}  {:>8}  {:>6}  {:>6}", bytes,
                         count ? std::to_string(*count) : std::string("-"), type_name, redop, root);
      out += body(rw.placement[0]);
      out += body(rw.placement[1]);
      out += "\n";
      for (int p = 0; p < 2; ++p)
        if (const auto* res = rw.placement[p];
            res != nullptr && res->status != reports::result_status::ok)
          out += fmt::format("#   {} {}: {}: {}\n", p == 0 ? "out-of-place" : "in-place",
                             axis(*res, "size"), reports::to_string(res->status), res->reason);
    }
    out += footer(rows);
  }
  return out;
}

} // namespace gpuspec::collectives
