// NCCL resolved by name through dlsym. nccl.h gives the types only; the pointers are cast to
// the declared signatures (decltype of nccl.h's declarations), so a mismatch is a compile error
// here, not a crash at a call.

#include "gpuspec/collectives/nccl_library.hpp"

#include <bit>
#include <cstdlib>
#include <utility>

#include "gpuspec/collectives/nccl_library_choice.hpp"

namespace gpuspec::collectives {
namespace {

/// One entry point: its exported name and where its pointer goes.
template <class Fn> bool resolve(const dynamic_library& lib, Fn& out, const char* name) {
  static_assert(sizeof(Fn) == sizeof(void*));
  out = std::bit_cast<Fn>(lib.symbol(name));
  return out != nullptr;
}

} // namespace

std::optional<nccl_library> nccl_library::open(const std::vector<std::string>& candidates,
                                               std::string& why) {
  std::string dl_why;
  auto lib = dynamic_library::open_first(candidates, dl_why);
  if (!lib) {
    why = "not found (" + dl_why + ")";
    return std::nullopt;
  }
  nccl_api api;
  const char* missing = nullptr;
  const auto need = [&](auto& slot, const char* name) {
    if (!resolve(*lib, slot, name) && missing == nullptr)
      missing = name;
  };
  for_each_required_entry(api, need);
  if (missing != nullptr) {
    // ncclCommInitRankConfig and ncclCommFinalize are NCCL 2.14's; the rest are older.
    why = lib->name() + " does not export " + missing +
          " (gpuspec needs NCCL 2.14 or later, or the file is not NCCL)";
    return std::nullopt;
  }
  (void)resolve(*lib, api.reset_debug_init, "ncclResetDebugInit"); // optional
  why.clear();
  return nccl_library(std::move(*lib), api);
}

std::string nccl_library::error_text(ncclResult_t code) const {
  const char* text = m_api.get_error_string(code);
  return text != nullptr ? std::string(text) : "NCCL error " + std::to_string(code);
}

const nccl_load& process_nccl() {
  static const nccl_load loaded = [] {
    const char* chosen = std::getenv(nccl_library_variable);
    nccl_load l;
    l.library = nccl_library::open(nccl_library_candidates(chosen != nullptr
                                                               ? std::optional<std::string>(chosen)
                                                               : std::nullopt,
                                                           GPUSPEC_NCCL_BUILD_LIBRARY),
                                   l.problem);
    return l;
  }();
  return loaded;
}

} // namespace gpuspec::collectives
