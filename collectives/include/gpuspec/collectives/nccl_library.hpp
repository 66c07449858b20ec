#pragma once
/// NCCL opened at run time (dlopen), so that gpuspec starts, runs every other benchmark and
/// says why its collectives are skipped, on a machine without NCCL. nccl.h is used at compile
/// time only, for the types and the entry points' signatures; nothing links libnccl.
///
/// Includes nccl.h (and through it the CUDA runtime's headers): only for gpuspec_collectives'
/// NCCL sources and their tests. Host code asks nccl_version.hpp instead.

#include <optional>
#include <string>
#include <vector>

#include <nccl.h>

#include "gpuspec/collectives/dynamic_library.hpp"

namespace gpuspec::collectives {

/// The entry points gpuspec uses, with nccl.h's signatures, resolved by their exported names.
/// Every one is required (a library lacking one is not opened; the message names it), except
/// reset_debug_init.
struct nccl_api {
  decltype(&::ncclGetVersion) get_version = nullptr;
  decltype(&::ncclGetErrorString) get_error_string = nullptr;
  decltype(&::ncclGetUniqueId) get_unique_id = nullptr;
  decltype(&::ncclCommInitRankConfig) comm_init_rank_config = nullptr;
  decltype(&::ncclCommGetAsyncError) comm_get_async_error = nullptr;
  decltype(&::ncclCommFinalize) comm_finalize = nullptr;
  decltype(&::ncclCommDestroy) comm_destroy = nullptr;
  decltype(&::ncclCommAbort) comm_abort = nullptr;
  decltype(&::ncclGroupStart) group_start = nullptr;
  decltype(&::ncclGroupEnd) group_end = nullptr;
  decltype(&::ncclAllReduce) all_reduce = nullptr;
  decltype(&::ncclAllGather) all_gather = nullptr;
  decltype(&::ncclReduceScatter) reduce_scatter = nullptr;
  decltype(&::ncclBroadcast) broadcast = nullptr;
  decltype(&::ncclReduce) reduce = nullptr;
  decltype(&::ncclSend) send = nullptr;
  decltype(&::ncclRecv) recv = nullptr;
  /// Optional: ncclResetDebugInit, exported from NCCL 2.24 (src/debug.cc; still in 2.29), which
  /// makes NCCL read NCCL_DEBUG* again at its next log line; deprecated in 2.28 ("not supported as
  /// part of the NCCL API and will be removed in the future") and not declared in nccl.h, hence the
  /// spelled-out type. nullptr where the library lacks it.
  void (*reset_debug_init)() = nullptr;
};

/// Calls `f(slot, "exported name")` for every required entry point of `api`: the one list of
/// them (a new entry point is its member above and its line here).
template <class F> void for_each_required_entry(nccl_api& api, F&& f) {
  f(api.get_version, "ncclGetVersion");
  f(api.get_error_string, "ncclGetErrorString");
  f(api.get_unique_id, "ncclGetUniqueId");
  f(api.comm_init_rank_config, "ncclCommInitRankConfig");
  f(api.comm_get_async_error, "ncclCommGetAsyncError");
  f(api.comm_finalize, "ncclCommFinalize");
  f(api.comm_destroy, "ncclCommDestroy");
  f(api.comm_abort, "ncclCommAbort");
  f(api.group_start, "ncclGroupStart");
  f(api.group_end, "ncclGroupEnd");
  f(api.all_reduce, "ncclAllReduce");
  f(api.all_gather, "ncclAllGather");
  f(api.reduce_scatter, "ncclReduceScatter");
  f(api.broadcast, "ncclBroadcast");
  f(api.reduce, "ncclReduce");
  f(api.send, "ncclSend");
  f(api.recv, "ncclRecv");
}

/// An opened NCCL and its entry points. Move-only (it owns the dlopen handle); the table's
/// pointers live as long as it does.
class nccl_library {
public:
  /// Opens the first of `candidates` (nccl_library_choice.hpp) and resolves nccl_api. On
  /// failure std::nullopt, and `why` one clause: "not found (<dlerror's words>)", or
  /// "<file> does not export ncclCommInitRankConfig (gpuspec needs NCCL 2.14 or later)".
  static std::optional<nccl_library> open(const std::vector<std::string>& candidates,
                                          std::string& why);

  [[nodiscard]] const nccl_api& api() const { return m_api; }
  /// The candidate that opened.
  [[nodiscard]] const std::string& name() const { return m_library.name(); }
  /// ncclGetErrorString's words for `code`, or its number when NCCL gives none.
  [[nodiscard]] std::string error_text(ncclResult_t code) const;

private:
  nccl_library(dynamic_library library, nccl_api api) : m_library(std::move(library)), m_api(api) {}
  dynamic_library m_library;
  nccl_api m_api;
};

/// This process's NCCL, or why there is none.
struct nccl_load {
  std::optional<nccl_library> library;
  std::string problem; ///< "" when `library` is set; else nccl_library::open's `why`
};

/// Opened at the first call, from $GPUSPEC_NCCL_LIBRARY or the default names, and never
/// changed after: a function-local static, immutable once made (CONTRIBUTING.md, style 8). A static
/// rather than an object handed down because a process has exactly one NCCL (its state, bootstrap
/// and NCCL_* variables are process-wide), the choice depends only on the environment at start, and
/// the code that needs it is reached from registry entries (benchmarks, the version for host info,
/// gpuspec-mpi's backend) that take no library argument. Tests of the loader call
/// nccl_library::open themselves.
[[nodiscard]] const nccl_load& process_nccl();

} // namespace gpuspec::collectives
