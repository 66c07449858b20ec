// Atomic file writing (report_json.hpp's write_file_atomically): a temporary file in the same
// folder, flushed and fsync'ed, renamed over the target, then the folder fsync'ed. Only a
// regular file or a new path is renamed over: a device, a FIFO or a link (/dev/null,
// /dev/stdout, a pipe) is written through, so that `-o /dev/null` as root leaves /dev/null a
// device.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>

#include <fmt/format.h>

#include "gpuspec/reports/model/report_json.hpp"

namespace gpuspec::reports::inline model {
namespace {

[[noreturn]] void throw_file_error(int error, const std::string& what) {
  throw std::system_error(error, std::generic_category(), what);
}

/// Every byte of `text` to `fd`; false with errno set when a write fails.
bool write_all(int fd, std::string_view text) {
  const char* data = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t wrote = ::write(fd, data, left);
    if (wrote < 0 && errno == EINTR) {
      continue;
    }
    if (wrote <= 0) {
      if (wrote == 0) {
        errno = EIO;
      }
      return false;
    }
    data += wrote;
    left -= static_cast<std::size_t>(wrote);
  }
  return true;
}

/// `text` written into what `file` names as it is (a device, a FIFO, a link), without a
/// temporary file and without replacing it.
void write_through(const std::filesystem::path& file, std::string_view text, bool regular) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC | (regular ? O_TRUNC : 0));
  if (fd < 0) {
    throw_file_error(errno, fmt::format("cannot write {}", file.string()));
  }
  if (!write_all(fd, text)) {
    const int error = errno;
    ::close(fd);
    throw_file_error(error, fmt::format("cannot write {}: writing", file.string()));
  }
  if (regular && ::fsync(fd) != 0) { // a pipe or a terminal cannot be fsync'ed
    const int error = errno;
    ::close(fd);
    throw_file_error(error, fmt::format("cannot write {}: flushing", file.string()));
  }
  if (::close(fd) != 0) {
    throw_file_error(errno, fmt::format("cannot write {}: closing", file.string()));
  }
}

} // namespace

void write_file_atomically(const std::filesystem::path& file, std::string_view text) {
  const std::string target = file.string();
  const std::string name = file.filename().string();
  if (name.empty() || name == "." || name == "..") {
    throw_file_error(EISDIR, fmt::format("cannot write {}: not a file name", target));
  }
  // What is there decides: a regular file or nothing is replaced by a rename; anything else that
  // exists (a character device, a FIFO, a socket, a link such as /dev/stdout) is written
  // through, never replaced; a folder is refused.
  struct stat here {};
  if (::lstat(file.c_str(), &here) == 0 && !S_ISREG(here.st_mode)) {
    struct stat there {};
    const bool followed = ::stat(file.c_str(), &there) == 0;
    if (S_ISDIR(here.st_mode) || (followed && S_ISDIR(there.st_mode))) {
      throw_file_error(EISDIR, fmt::format("cannot write {}: it is a folder", target));
    }
    write_through(file, text, followed && S_ISREG(there.st_mode));
    return;
  }
  const std::filesystem::path folder = file.has_parent_path() ? file.parent_path() : ".";

  // Exclusive creation: no two writers (threads or processes) share a temporary file.
  std::filesystem::path temporary;
  int fd = -1;
  for (unsigned attempt = 0; fd < 0; ++attempt) {
    temporary = folder / fmt::format(".{}.tmp.{}.{}", name, ::getpid(), attempt);
    fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && (errno != EEXIST || attempt >= 1000)) {
      throw_file_error(errno, fmt::format("cannot write {}: creating the temporary file {}", target,
                                          temporary.string()));
    }
  }
  const auto give_up = [&](const char* step) {
    const int error = errno;
    if (fd >= 0) {
      ::close(fd);
    }
    ::unlink(temporary.c_str());
    throw_file_error(error, fmt::format("cannot write {}: {} the temporary file {}", target, step,
                                        temporary.string()));
  };

  if (!write_all(fd, text)) {
    give_up("writing");
  }
  if (::fsync(fd) != 0) {
    give_up("flushing");
  }
  const int closed = ::close(fd);
  fd = -1;
  if (closed != 0) {
    give_up("closing");
  }
  if (::rename(temporary.c_str(), file.c_str()) != 0) {
    give_up("renaming");
  }
  // Make the rename itself durable. Best effort: the file is already in place.
  const int folder_fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (folder_fd >= 0) {
    (void)::fsync(folder_fd);
    ::close(folder_fd);
  }
}

} // namespace gpuspec::reports::model
