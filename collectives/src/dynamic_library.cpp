#include "gpuspec/collectives/dynamic_library.hpp"

#include <dlfcn.h>

#include <utility>

namespace gpuspec::collectives {

std::optional<dynamic_library>
dynamic_library::open_first(const std::vector<std::string>& candidates, std::string& why) {
  why.clear();
  for (const auto& candidate : candidates) {
    dlerror(); // clear a stale message
    if (void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL); handle != nullptr) {
      why.clear();
      return dynamic_library(handle, candidate);
    }
    const char* text = dlerror();
    if (!why.empty())
      why += "; ";
    why += text != nullptr ? text : candidate + ": unknown dlopen error";
  }
  if (candidates.empty())
    why = "no library name to open";
  return std::nullopt;
}

dynamic_library::dynamic_library(dynamic_library&& other) noexcept
    : m_handle(std::exchange(other.m_handle, nullptr)), m_name(std::move(other.m_name)) {}

dynamic_library& dynamic_library::operator=(dynamic_library&& other) noexcept {
  if (this != &other) {
    if (m_handle != nullptr)
      dlclose(m_handle);
    m_handle = std::exchange(other.m_handle, nullptr);
    m_name = std::move(other.m_name);
  }
  return *this;
}

dynamic_library::~dynamic_library() {
  if (m_handle != nullptr)
    dlclose(m_handle);
}

void* dynamic_library::symbol(const char* name) const {
  return m_handle != nullptr ? dlsym(m_handle, name) : nullptr;
}

} // namespace gpuspec::collectives
