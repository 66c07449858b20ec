#include "gpuspec/spine/write_all.hpp"

#include <unistd.h>

#include <cerrno>

namespace gpuspec::spine {

bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = EIO;
      return false;
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

} // namespace gpuspec::spine
