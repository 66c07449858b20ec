#pragma once
/// Pointer-chase latency kernels (kernels/src/pointer_chase.cu): launchers, and the host-side
/// pieces the benchmark and the tests share: the random cyclic permutation (Sattolo), the host
/// walk that predicts where a chase ends, size texts for the sweep axis, and which memory level
/// a working set is expected to hit. CUDA-free.
///
/// The chain: a working set of `slots` slots of chase_slot_bytes (128 bytes: one L1 line, one
/// L2 line of four 32-byte sectors). The first 8 bytes of slot s hold the device address of
/// slot next[s], where next is a single cycle through every slot in random order. So each
/// load of the chase touches a different cache line from the one before, the address of the
/// next load is the value just loaded (no index arithmetic on the dependent path), and the
/// order defeats any stride prefetcher. The rest of each slot is never read.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuspec/kernels/seeded_values.hpp"
#include "gpuspec/kernels/stream_handle.hpp"

namespace gpuspec::kernels {

/// Bytes per chain slot: at least one cache line between any two elements of the chain.
inline constexpr std::uint32_t chase_slot_bytes = 128;

/// Which load the chase uses.
enum class chase_load {
  ca, ///< ld.global.ca: cached in L1 and L2 (the L1 test, the sweep)
  cg, ///< ld.global.cg: cached in L2 only, L1 bypassed (the L2 and DRAM tests)
};

[[nodiscard]] constexpr std::string_view chase_load_name(chase_load load) {
  return load == chase_load::ca ? "ld.global.ca.u64" : "ld.global.cg.u64";
}

/// What the chase kernel keeps in device memory between launches. Each launch continues the
/// walk from `cursor` (so consecutive launches walk the whole chain in turn rather than the same
/// first slots again, which a repeated launch would find in L2) and adds to `launches` and
/// `steps`; `cycles` is the SM clock (clock64) of the last launch's timed steps alone.
struct chase_state {
  std::uint64_t cursor = 0;   ///< device address of the slot the next launch starts from
  std::uint64_t launches = 0; ///< launches run since the state was set
  std::uint64_t steps = 0;    ///< loads done since the state was set (warm and timed)
  std::int64_t cycles = 0;    ///< clock64 cycles of the last launch's timed loads
};
static_assert(sizeof(chase_state) == 32);

/// The state that starts a walk at slot 0 of the chain at `chain`.
[[nodiscard]] inline chase_state chase_start(const void* chain) {
  chase_state s;
  s.cursor = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(chain));
  return s;
}

/// The slot that device address `cursor` points at in the chain at `chain` of `slots` slots,
/// or nothing if it points elsewhere (outside the chain, or not at a slot's start).
[[nodiscard]] inline std::optional<std::uint32_t>
chase_slot_of(std::uint64_t cursor, const void* chain, std::uint32_t slots) {
  const auto base = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(chain));
  if (cursor < base)
    return std::nullopt;
  const std::uint64_t offset = cursor - base;
  if (offset % chase_slot_bytes != 0 || offset / chase_slot_bytes >= slots)
    return std::nullopt;
  return static_cast<std::uint32_t>(offset / chase_slot_bytes);
}

/// A uniformly random cyclic permutation of [0, n) by Sattolo's algorithm, seeded: next[k] is
/// the slot after k, and following next from any slot visits all n before coming back. The
/// same (n, seed) gives the same permutation on every machine (seeded_bits, not std::
/// distributions, whose output the standard leaves to the library). n = 1 gives the one-slot
/// cycle {0}; n = 0 an empty vector.
[[nodiscard]] inline std::vector<std::uint32_t> sattolo_cycle(std::uint32_t n, std::uint64_t seed) {
  std::vector<std::uint32_t> next(n);
  std::iota(next.begin(), next.end(), std::uint32_t{0});
  for (std::uint32_t i = n == 0 ? 0 : n - 1; i > 0; --i) {
    // j uniform in [0, i): the modulo bias is under i / 2^64, far below anything measurable.
    const auto j = static_cast<std::uint32_t>(seeded_bits(seed, i) % i);
    std::swap(next[i], next[j]);
  }
  return next;
}

/// True if `next` is a permutation of [0, n) made of one cycle through all n entries.
[[nodiscard]] inline bool is_single_cycle(const std::vector<std::uint32_t>& next) {
  const std::size_t n = next.size();
  if (n == 0)
    return false;
  std::vector<bool> seen(n, false);
  std::uint32_t at = 0;
  for (std::size_t step = 0; step < n; ++step) {
    if (next[at] >= n || seen[at])
      return false;
    seen[at] = true;
    at = next[at];
  }
  return at == 0;
}

/// The slot reached from `start` after `steps` steps along the single cycle `next`. Walks at
/// most next.size() - 1 steps (steps is reduced mod the cycle length).
[[nodiscard]] inline std::uint32_t walk_chain(const std::vector<std::uint32_t>& next,
                                              std::uint32_t start, std::uint64_t steps) {
  if (next.empty())
    throw std::invalid_argument("walk_chain: empty chain");
  if (start >= next.size())
    throw std::invalid_argument("walk_chain: start slot outside the chain");
  std::uint32_t at = start;
  for (std::uint64_t left = steps % next.size(); left > 0; --left)
    at = next[at];
  return at;
}

/// "4KiB", "1MiB", "1GiB" for a power-of-two multiple of KiB, MiB or GiB (the largest unit
/// that divides it); plain bytes ("100B") otherwise.
[[nodiscard]] inline std::string size_text(std::uint64_t bytes) {
  constexpr std::uint64_t kib = 1024, mib = kib * 1024, gib = mib * 1024;
  if (bytes != 0 && bytes % gib == 0)
    return std::to_string(bytes / gib) + "GiB";
  if (bytes != 0 && bytes % mib == 0)
    return std::to_string(bytes / mib) + "MiB";
  if (bytes != 0 && bytes % kib == 0)
    return std::to_string(bytes / kib) + "KiB";
  return std::to_string(bytes) + "B";
}

/// The inverse of size_text: "<digits><B|KiB|MiB|GiB>". Throws std::invalid_argument naming the
/// text otherwise (a number without a unit, another unit, overflow).
[[nodiscard]] inline std::uint64_t parse_size_text(std::string_view text) {
  constexpr std::uint64_t max_bytes = std::numeric_limits<std::uint64_t>::max();
  std::size_t digits = 0;
  std::uint64_t value = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') {
    const auto d = static_cast<std::uint64_t>(text[digits] - '0');
    if (value > (max_bytes - d) / 10)
      throw std::invalid_argument("size '" + std::string(text) + "' is too large");
    value = value * 10 + d;
    ++digits;
  }
  const std::string_view unit = text.substr(digits);
  std::uint64_t scale = 0;
  if (unit == "B")
    scale = 1;
  else if (unit == "KiB")
    scale = std::uint64_t{1} << 10;
  else if (unit == "MiB")
    scale = std::uint64_t{1} << 20;
  else if (unit == "GiB")
    scale = std::uint64_t{1} << 30;
  if (digits == 0 || scale == 0)
    throw std::invalid_argument("size '" + std::string(text) +
                                "' is not a number followed by B, KiB, MiB or GiB");
  if (value > max_bytes / scale)
    throw std::invalid_argument("size '" + std::string(text) + "' is too large");
  return value * scale;
}

/// The working sets of latency.sweep: powers of two from 4 KiB to 1 GiB, as size_text. 1 GiB is
/// at least 4x any L2 of up to 256 MiB, so the sweep ends on the device-memory plateau.
[[nodiscard]] inline std::vector<std::string> sweep_size_texts() {
  std::vector<std::string> sizes;
  for (std::uint64_t bytes = std::uint64_t{4} << 10; bytes <= (std::uint64_t{1} << 30); bytes *= 2)
    sizes.push_back(size_text(bytes));
  return sizes;
}

/// Which level of the hierarchy a chase over `bytes` is expected to hit.
enum class memory_level { l1, l1_or_l2, l2, l2_or_dram, dram };

[[nodiscard]] constexpr std::string_view memory_level_name(memory_level level) {
  switch (level) {
  case memory_level::l1:
    return "l1";
  case memory_level::l1_or_l2:
    return "l1_or_l2";
  case memory_level::l2:
    return "l2";
  case memory_level::l2_or_dram:
    return "l2_or_dram";
  case memory_level::dram:
    return "dram";
  }
  return "?";
}

/// The sizes expected_level judges by.
struct cache_sizes {
  std::uint64_t l1_min = 0; ///< L1 left with the largest shared-memory carve-out
  std::uint64_t l1_max = 0; ///< the unified L1/shared-memory array of one SM
  std::uint64_t l2 = 0;     ///< cudaDeviceProp::l2CacheSize
};

/// L1 sizes from what the runtime reports. The unified L1/shared array of an SM is the largest
/// shared-memory carve-out (cudaDevAttrMaxSharedMemoryPerMultiprocessor) plus the L1 that is
/// always left: 32 KiB on compute capability 7.x (96 KiB = 64 + 32 on Turing), 28 KiB from 8.0
/// on (A100 192 = 164 + 28, GA10x/AD10x 128 = 100 + 28, H100 256 = 228 + 28) - the CUDA
/// Programming Guide's per-capability tables.
[[nodiscard]] constexpr cache_sizes cache_sizes_of(int cc_major, std::uint64_t max_shared_per_sm,
                                                   std::uint64_t l2_bytes) {
  const std::uint64_t l1_min = (cc_major >= 8 ? 28u : 32u) * std::uint64_t{1024};
  return {l1_min, max_shared_per_sm + l1_min, l2_bytes};
}

/// The level a chase over `bytes` is expected to hit: L1 up to the L1 that is always there;
/// L1 or L2 up to the whole unified array (it depends on the carve-out the driver picks); L2 up
/// to half the L2 (A100 and H100/H200 split their L2 into two partitions, and how much of the
/// far one a single SM's chase gets is not documented); L2 or DRAM up to twice the L2; DRAM
/// beyond. l2 = 0 (unknown) says l2_or_dram for anything beyond L1.
[[nodiscard]] constexpr memory_level expected_level(std::uint64_t bytes, const cache_sizes& c) {
  if (bytes <= c.l1_min)
    return memory_level::l1;
  if (bytes <= c.l1_max)
    return memory_level::l1_or_l2;
  if (c.l2 == 0)
    return memory_level::l2_or_dram;
  if (bytes <= c.l2 / 2)
    return memory_level::l2;
  if (bytes <= 2 * c.l2)
    return memory_level::l2_or_dram;
  return memory_level::dram;
}

/// Writes the chain of `slots` slots at `chain` (slots * chase_slot_bytes bytes of device
/// memory, 128-byte aligned): the first 8 bytes of slot s get the address of slot next[s].
/// `next` is device memory holding a permutation of [0, slots) (sattolo_cycle's); an entry out
/// of range becomes a self-loop, so a bad chain fails the walk check rather than faulting.
/// Throws std::invalid_argument for null or misaligned pointers or 0 slots.
void launch_build_chain(void* chain, const std::uint32_t* next, std::uint32_t slots,
                        stream_handle stream);

/// One thread walks the chain from state->cursor: `warm_steps` loads, then `timed_steps` loads
/// between two reads of clock64; writes the new cursor, the timed cycles, and adds to launches
/// and steps. `state` is device memory. Loads are ld.global.ca or .cg as `load` says; every
/// load's address is the value the previous one returned. Throws std::invalid_argument for a
/// null state or timed_steps = 0.
void launch_pointer_chase(chase_state* state, chase_load load, std::uint32_t warm_steps,
                          std::uint32_t timed_steps, stream_handle stream);

/// Asks the driver for the largest L1 (the smallest shared-memory carve-out) for the chase
/// kernels, which use no shared memory: the carve-out is a preference the driver may round.
/// Call once, outside timing, on the current device.
void prefer_l1_for_pointer_chase();

} // namespace gpuspec::kernels
