#pragma once
/// One helper for writing a whole buffer to a file descriptor, retrying short writes and EINTR.

#include <string_view>

namespace gpuspec::spine {

/// Writes all of `text` to `fd`. False on an error (errno says which; EIO for a write of 0).
[[nodiscard]] bool write_all(int fd, std::string_view text);

} // namespace gpuspec::spine
