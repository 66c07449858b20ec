// Reading the kernel log passively (kernel_log.hpp). /dev/kmsg gives one record per read() and
// EAGAIN at the end when opened O_NONBLOCK, so it never waits for new messages; EPIPE means
// the ring buffer overwrote the record we were about to read, and reading goes on.

#include "gpuspec/host/kernel_log.hpp"

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "gpuspec/host/host_probe.hpp"

namespace gpuspec::host {

namespace {

/// More than any kernel ring buffer (the largest log_buf_len is 32 MiB): a bound, not a size.
constexpr std::size_t max_log_bytes = std::size_t{64} << 20;

class file_descriptor {
public:
  explicit file_descriptor(int fd) : m_fd(fd) {}
  file_descriptor(const file_descriptor&) = delete;
  file_descriptor& operator=(const file_descriptor&) = delete;
  ~file_descriptor() {
    if (m_fd >= 0)
      ::close(m_fd);
  }
  [[nodiscard]] int get() const { return m_fd; }

private:
  int m_fd;
};

bool read_kmsg(kernel_log_text& out, std::string& why) {
  const file_descriptor fd(::open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) {
    why = fmt::format("/dev/kmsg: {}", std::strerror(errno));
    return false;
  }
  std::array<char, 8192> record{}; // a record is at most 1 KiB of text plus its header
  while (out.text.size() < max_log_bytes) {
    const ssize_t n = ::read(fd.get(), record.data(), record.size());
    if (n > 0) {
      out.text.append(record.data(), static_cast<std::size_t>(n));
      if (out.text.back() != '\n')
        out.text += '\n';
      continue;
    }
    if (n == 0 || errno == EAGAIN)
      break; // the end of what the buffer holds
    if (errno == EPIPE || errno == EINTR)
      continue; // overwritten while we read: the next record follows
    why = fmt::format("/dev/kmsg: {}", std::strerror(errno));
    out.text.clear();
    return false;
  }
  out.read = true;
  out.source = "/dev/kmsg";
  out.one_boot = true;
  return true;
}

struct pipe_closer {
  void operator()(FILE* f) const { (void)::pclose(f); }
};

bool read_dmesg(kernel_log_text& out, std::string& why) {
  // LC_ALL=C: the time stamps and messages as the parser knows them.
  std::unique_ptr<FILE, pipe_closer> pipe(::popen("LC_ALL=C dmesg 2>&1", "r"));
  if (!pipe) {
    why = fmt::format("dmesg: {}", std::strerror(errno));
    return false;
  }
  std::array<char, 8192> buf{};
  std::string text;
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe.get())) > 0 && text.size() < max_log_bytes)
    text.append(buf.data(), n);
  const int status = ::pclose(pipe.release());
  if (status != 0) {
    const auto first_line = text.substr(0, text.find('\n'));
    why = fmt::format("dmesg: exit status {}{}{}", status, first_line.empty() ? "" : ": ",
                      first_line);
    return false;
  }
  out.read = true;
  out.source = "dmesg";
  out.one_boot = true;
  out.text = std::move(text);
  return true;
}

} // namespace

kernel_log_text read_kernel_log(const std::filesystem::path& file) {
  kernel_log_text out;
  if (!file.empty()) {
    out.source = file.string();
    if (auto text = read_system_file(file)) {
      out.read = true;
      out.text = std::move(*text);
    } else {
      out.why = fmt::format("{}: cannot be read", file.string());
    }
    return out;
  }
  std::string kmsg_why, dmesg_why;
  if (read_kmsg(out, kmsg_why) || read_dmesg(out, dmesg_why))
    return out;
  out.why = kmsg_why + "; " + dmesg_why;
  return out;
}

std::string parse_nvidia_module_version(std::string_view proc_version) {
  const auto line_end = proc_version.find('\n');
  std::string_view line = proc_version.substr(0, line_end);
  const auto module = line.find("Kernel Module");
  if (line.substr(0, 13) != "NVRM version:" || module == std::string_view::npos)
    return "";
  // The first token after "Kernel Module" made of digits and dots, with a dot in it.
  line.remove_prefix(module);
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ')
      ++i;
    std::size_t j = i;
    while (j < line.size() && line[j] != ' ')
      ++j;
    const auto token = line.substr(i, j - i);
    if (!token.empty() && token.find('.') != std::string_view::npos &&
        token.find_first_not_of("0123456789.") == std::string_view::npos)
      return std::string(token);
    i = j;
  }
  return "";
}

std::string read_nvidia_module_version(const std::filesystem::path& root) {
  const auto text = read_system_file(root / "proc/driver/nvidia/version");
  return text ? parse_nvidia_module_version(*text) : "";
}

} // namespace gpuspec::host
