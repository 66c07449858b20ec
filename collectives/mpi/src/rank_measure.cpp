#include "gpuspec/collectives/mpi/rank_measure.hpp"

namespace gpuspec::collectives::mpi {

reports::result skipped_result(const mpi_case& c, const rank_context& rank, std::string reason) {
  reports::result r;
  r.bench_id = c.bench_id;
  r.axes = c.axes;
  if (rank.self.device)
    r.devices = {rank.self.device->index};
  r.status = reports::result_status::skipped;
  r.reason = std::move(reason);
  return r;
}

measure_backend unavailable_backend(std::string reason) {
  measure_backend b;
  b.name = "none";
  b.unavailable_reason = reason;
  b.measure = [reason](const rank_context& rank, const mpi_case& c) {
    return skipped_result(c, rank, reason);
  };
  b.make_unique_id = [] { return std::optional<nccl_unique_id>(); };
  return b;
}

std::string to_hex(const nccl_unique_id& id) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * id.size());
  for (char c : id) {
    const auto byte = static_cast<unsigned char>(c);
    out += digits[byte >> 4];
    out += digits[byte & 0xf];
  }
  return out;
}

std::optional<nccl_unique_id> unique_id_from_hex(std::string_view hex) {
  if (hex.size() != 2 * nccl_unique_id_bytes)
    return std::nullopt;
  const auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
    return -1;
  };
  nccl_unique_id id{};
  for (std::size_t i = 0; i < id.size(); ++i) {
    const int hi = nibble(hex[2 * i]);
    const int lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0)
      return std::nullopt;
    id[i] = static_cast<char>((hi << 4) | lo);
  }
  return id;
}

} // namespace gpuspec::collectives::mpi
