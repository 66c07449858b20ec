#pragma once
/// Where a GPU sits among the host's NUMA nodes, and host memory and threads put there: the
/// transfer benchmarks keep their host buffers on the GPU's own node and run on its CPUs, as
/// nvbandwidth does, so a figure is the link's and not the inter-socket fabric's. Host only
/// (Linux: sysfs, mmap, mbind, sched_setaffinity), no CUDA, no libnuma.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuspec::host {

/// The CPUs of a Linux cpulist ("0-3,8,10-11", as sysfs writes it; a trailing newline is fine),
/// ascending, without duplicates. nullopt for text that is not one (a reversed range, a word,
/// an empty list).
[[nodiscard]] std::optional<std::vector<int>> parse_cpu_list(std::string_view text);

/// What sysfs says about a GPU's place.
struct gpu_numa_locality {
  std::optional<int> node; ///< the GPU's NUMA node; nullopt: none (-1) or not known
  std::vector<int> cpus;   ///< CPUs local to it; empty when not known
  std::string cpus_text;   ///< the cpulist those came from, as read (trimmed)
  std::string cpus_from;   ///< "local_cpulist", "node<N>/cpulist", or "" when none was read
  std::string why_no_node; ///< one sentence when `node` is empty
};

/// Reads /sys/bus/pci/devices/<pci_bus_id>/numa_node (-1: the platform gives none) and
/// local_cpulist under `root` ("/" on a real machine, a fixture tree in tests); where
/// local_cpulist cannot be read, the node's /sys/devices/system/node/node<N>/cpulist.
/// `pci_bus_id` in sysfs form, "0000:3b:00.0" (lower-case hex, 4-digit domain: what
/// normalize_pci_bus_id returns). Never throws: what is missing is left empty and said.
[[nodiscard]] gpu_numa_locality read_gpu_numa_locality(const std::filesystem::path& root,
                                                       std::string_view pci_bus_id);

/// MemAvailable of /proc/meminfo under `root`, in bytes: what the host can give without swapping
/// now. An estimate that starts small in a VM whose memory the hypervisor has not yet handed
/// over (a balloon, pages not yet backed), so no case is skipped on it: context only.
[[nodiscard]] std::optional<std::uint64_t> host_available_bytes(const std::filesystem::path& root);
/// MemTotal of /proc/meminfo under `root`, in bytes: the host's memory, fixed for its uptime.
[[nodiscard]] std::optional<std::uint64_t> host_total_bytes(const std::filesystem::path& root);

/// The host-memory guard of a transfer case, whose host buffers take `buffer_bytes` while up to
/// `workers` workers (every GPU of the node) may hold as much at once: why the case cannot run
/// (all of them together above `share` of MemTotal), or "" when it can, and when MemTotal is
/// not known. A healthy GPU host has at least twice its GPUs' memory (the host-memory check),
/// far above what the transfers take (at most 2 GiB a GPU), so it never skips there.
[[nodiscard]] std::string host_memory_skip_reason(std::uint64_t buffer_bytes, int workers,
                                                  std::optional<std::uint64_t> total_bytes,
                                                  double share);
/// MemFree of NUMA node `node` (/sys/devices/system/node/node<N>/meminfo under `root`), in bytes.
/// Memory bound to a node with MPOL_BIND cannot spill to another: a binding larger than what the
/// node has free ends in the kernel's out-of-memory killer, so the caller checks this first.
[[nodiscard]] std::optional<std::uint64_t> node_free_bytes(const std::filesystem::path& root,
                                                           int node);

/// Binds the calling thread to those of `cpus` it is allowed to run on for its lifetime, then
/// restores the mask it had. Never throws: where it cannot bind, the thread stays as it was and
/// status() says why.
class thread_affinity_scope {
public:
  explicit thread_affinity_scope(const std::vector<int>& cpus);
  ~thread_affinity_scope();
  thread_affinity_scope(const thread_affinity_scope&) = delete;
  thread_affinity_scope& operator=(const thread_affinity_scope&) = delete;
  thread_affinity_scope(thread_affinity_scope&&) = delete;
  thread_affinity_scope& operator=(thread_affinity_scope&&) = delete;

  [[nodiscard]] bool bound() const { return m_bound; }
  /// CPUs the thread is bound to (the requested ones it may use); 0 when not bound.
  [[nodiscard]] int cpu_count() const { return m_cpu_count; }
  /// "bound to 56 CPUs", or "not bound: <why>".
  [[nodiscard]] const std::string& status() const { return m_status; }

private:
  std::vector<unsigned char> m_previous; ///< the mask before, as sched_getaffinity wrote it
  bool m_bound = false;
  int m_cpu_count = 0;
  std::string m_status;
};

/// The NUMA node the kernel says the first, middle and last pages of [p, p + bytes) are on
/// (get_mempolicy with MPOL_F_NODE | MPOL_F_ADDR; the pages must be allocated), when the three
/// agree; nullopt when it cannot say (no NUMA support, a seccomp filter) or they differ.
[[nodiscard]] std::optional<int> node_of_pages(const void* p, std::size_t bytes);

/// Anonymous host memory placed on one NUMA node: mmap, then mbind(MPOL_BIND) to the node, then
/// one write per page so every page is allocated now, on the node, rather than at first use.
/// Move-only; munmap in the destructor. Where mbind fails (no NUMA in the kernel, a seccomp
/// filter, a node without memory) the memory is still mapped and touched, from the calling
/// thread (first touch), and binding() says why it is not bound.
class numa_memory {
public:
  numa_memory() = default;
  /// `bytes` (rounded up to whole pages) placed on `node`; nullopt: not bound, and `why_unbound`
  /// is what binding() then says. Throws std::system_error when mmap itself fails.
  numa_memory(std::size_t bytes, std::optional<int> node, std::string why_unbound = {});
  ~numa_memory();
  numa_memory(numa_memory&& other) noexcept;
  numa_memory& operator=(numa_memory&& other) noexcept;
  numa_memory(const numa_memory&) = delete;
  numa_memory& operator=(const numa_memory&) = delete;

  [[nodiscard]] void* data() const noexcept { return m_data; }
  [[nodiscard]] std::size_t bytes() const noexcept { return m_bytes; } ///< as asked
  /// What is mapped: bytes() rounded up to whole pages.
  [[nodiscard]] std::size_t mapped_bytes() const noexcept { return m_mapped; }
  [[nodiscard]] bool bound() const noexcept { return m_bound; }
  /// "mbind", or "none: <why>" (the parameter numa_binding).
  [[nodiscard]] const std::string& binding() const noexcept { return m_binding; }
  /// node_of_pages over this memory.
  [[nodiscard]] std::optional<int> placed_on() const { return node_of_pages(m_data, m_mapped); }

private:
  void release() noexcept;
  void* m_data = nullptr;
  std::size_t m_bytes = 0;
  std::size_t m_mapped = 0;
  bool m_bound = false;
  std::string m_binding;
};

} // namespace gpuspec::host
