#pragma once
/// A shared library opened at run time (dlopen), so that gpuspec starts, and says why, on a
/// machine without it. One owning, move-only handle; dlclose in its destructor. Knows nothing
/// of what the library is: nccl_library.hpp resolves NCCL's entry points through it. CUDA-free
/// and NCCL-free, so that its tests run in the host-only build.

#include <optional>
#include <string>
#include <vector>

namespace gpuspec::collectives {

class dynamic_library {
public:
  /// Opens the first of `candidates` (file names searched the dlopen way, or paths) that
  /// dlopen accepts, RTLD_NOW | RTLD_LOCAL. None: std::nullopt, and `why` holds dlerror's
  /// words for each candidate tried, "; "-separated.
  static std::optional<dynamic_library> open_first(const std::vector<std::string>& candidates,
                                                   std::string& why);

  dynamic_library(dynamic_library&& other) noexcept;
  dynamic_library& operator=(dynamic_library&& other) noexcept;
  dynamic_library(const dynamic_library&) = delete;
  dynamic_library& operator=(const dynamic_library&) = delete;
  ~dynamic_library();

  /// The exported symbol `name`, or nullptr when the library does not export it.
  [[nodiscard]] void* symbol(const char* name) const;
  /// The candidate that opened (as given: a file name or a path).
  [[nodiscard]] const std::string& name() const { return m_name; }

private:
  dynamic_library(void* handle, std::string name) : m_handle(handle), m_name(std::move(name)) {}
  void* m_handle = nullptr;
  std::string m_name;
};

} // namespace gpuspec::collectives
