#pragma once
/// The kernel log of this boot, read without disturbing anything: /dev/kmsg opened
/// non-blocking and drained to its end (the ring buffer holds the messages since boot, as far
/// back as it reaches), else what `dmesg` prints, else a saved log the caller names. A log that
/// cannot be read says so, with why: it is never taken as a log without Xids.

#include <filesystem>
#include <string>

namespace gpuspec::host {

struct kernel_log_text {
  bool read = false;
  std::string source; ///< "/dev/kmsg", "dmesg", or the file's path
  std::string why;    ///< when not read: each place tried and what it answered
  std::string text;
  /// Read from /dev/kmsg or dmesg: this boot's ring buffer, one boot by definition (a saved
  /// file may span several).
  bool one_boot = false;
};

/// The log from `file` when it is not empty (GPUSPEC_KERNEL_LOG: tests, and sites that pass a
/// saved log); else /dev/kmsg, else `dmesg`.
[[nodiscard]] kernel_log_text read_kernel_log(const std::filesystem::path& file = {});

/// The version of the loaded NVIDIA kernel module from /proc/driver/nvidia/version text
/// ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 ..."; the open
/// module writes "... Open Kernel Module for x86_64  580.65.06 ..."); "" when absent.
[[nodiscard]] std::string parse_nvidia_module_version(std::string_view proc_version);

/// parse_nvidia_module_version of <root>/proc/driver/nvidia/version; "" when unreadable.
[[nodiscard]] std::string read_nvidia_module_version(const std::filesystem::path& root = "/");

} // namespace gpuspec::host
