#include "gpuspec/collectives/mpi/mpi_case.hpp"

#include <cctype>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "gpuspec/kernels/pointer_chase.hpp" // size_text

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

std::optional<mpi_case> case_from_json(const nlohmann::ordered_json& j) {
  try {
    mpi_case c;
    c.index = j.at("index").get<int>();
    c.bench_id = j.at("bench_id").get<std::string>();
    c.axes = j.at("axes");
    c.group = j.at("group").get<std::vector<int>>();
    c.pair = j.at("pair").get<std::string>();
    c.deadline_s = j.at("deadline_s").get<double>();
    c.nccl_unique_id_hex = j.at("nccl_unique_id_hex").get<std::string>();
    c.init_allowance_s = j.at("init_allowance_s").get<double>();
    if (!c.axes.is_object() || c.bench_id.empty() || c.group.empty() || !(c.deadline_s > 0) ||
        c.init_allowance_s < 0)
      return std::nullopt;
    return c;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
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
