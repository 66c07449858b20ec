#include "gpuspec/collectives/mpi/mpi_case.hpp"

#include <array>
#include <cctype>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "gpuspec/kernels/pointer_chase.hpp" // size_text
#include "gpuspec/reports/model/json_reader.hpp"

namespace gpuspec::collectives::mpi {

nlohmann::ordered_json to_json(const mpi_case& c) {
  return {{"index", c.index},
          {"bench_id", c.bench_id},
          {"axes", c.axes},
          {"group", c.group},
          {"pair", c.pair},
          {"deadline_s", c.deadline_s},
          {"nccl_unique_id_hex", c.nccl_unique_id_hex},
          {"init_allowance_s", c.init_allowance_s}};
}

namespace {

using reports::detail::element;
using reports::detail::fail;
using reports::detail::object_reader;
using reports::detail::path_ref;

constexpr std::array<std::string_view, 8> case_keys{
    "index",           "bench_id", "axes", "group", "pair", "deadline_s", "nccl_unique_id_hex",
    "init_allowance_s"};

mpi_case read_case(element e) {
  const object_reader o(e, "", case_keys, reports::detail::presence::optional_keys);
  mpi_case c;
  c.index = o.integer<int>("index");
  c.bench_id = o.string("bench_id");
  if (c.bench_id.empty())
    fail(o.path_of("bench_id"), "expected a benchmark id, got \"\"");
  const element axes = o.at("axes");
  if (!axes.is_object())
    fail(o.path_of("axes"),
         fmt::format("expected an object of axis values, got {}", reports::detail::describe(axes)));
  c.axes = reports::detail::to_json_value(axes, o.field("axes"));
  c.group = reports::detail::read_array(o.at("group"), o.field("group"),
                                        [](element rank, const path_ref& at) {
                                          return reports::detail::read_integer<int>(rank, at);
                                        });
  if (c.group.empty())
    fail(o.path_of("group"), "expected at least one rank");
  c.pair = o.string("pair");
  c.deadline_s = o.number("deadline_s");
  if (!(c.deadline_s > 0))
    fail(o.path_of("deadline_s"), "expected a positive number of seconds");
  c.nccl_unique_id_hex = o.string("nccl_unique_id_hex");
  c.init_allowance_s = o.number("init_allowance_s");
  if (c.init_allowance_s < 0)
    fail(o.path_of("init_allowance_s"), "expected 0 or more seconds");
  return c;
}

} // namespace

reports::outcome<mpi_case> case_from_json(const nlohmann::ordered_json& j) {
  return reports::detail::read_json_value(j, "case message", "case", read_case);
}

std::vector<mpi_case> plan_cases(const plan_options& options, std::vector<int> group,
                                 std::string pair, int first_index) {
  std::vector<mpi_case> out;
  for (const auto& collective : options.collectives)
    for (const auto bytes : options.sizes) {
      mpi_case c;
      c.index = first_index + static_cast<int>(out.size());
      c.bench_id = "collective." + collective;
      // The one-node family's axes and spelling (benches/families/collective.cpp), so that
      // check, diff and compare pair an MPI result with a one-node one: nccl-tests' default
      // type (float; the reductions sum), out of place.
      c.axes = {{"dtype", "fp32"},
                {"size", kernels::size_text(static_cast<std::uint64_t>(bytes))},
                {"placement", "out_of_place"}};
      c.group = group;
      c.pair = pair;
      c.deadline_s = options.case_timeout_s;
      out.push_back(std::move(c));
    }
  return out;
}

std::vector<std::int64_t> parse_sizes(std::string_view text) {
  std::vector<std::int64_t> out;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    const std::string item(text.substr(begin, end - begin));
    std::size_t digits = 0;
    while (digits < item.size() && std::isdigit(static_cast<unsigned char>(item[digits])) != 0)
      ++digits;
    const std::string suffix = item.substr(digits);
    int shift = -1;
    if (suffix.empty())
      shift = 0;
    else if (suffix == "K" || suffix == "k")
      shift = 10;
    else if (suffix == "M" || suffix == "m")
      shift = 20;
    else if (suffix == "G" || suffix == "g")
      shift = 30;
    if (digits == 0 || digits > 12 || shift < 0)
      throw std::invalid_argument("'" + item + "' is not a size (expected e.g. 1M,64M,1G or 8)");
    const std::int64_t value = std::stoll(item.substr(0, digits));
    if (value <= 0 || value > (std::numeric_limits<std::int64_t>::max() >> shift))
      throw std::invalid_argument("'" + item + "' is not a size above 0");
    out.push_back(value << shift);
    if (end == text.size())
      break;
    begin = end + 1;
  }
  return out;
}

} // namespace gpuspec::collectives::mpi
