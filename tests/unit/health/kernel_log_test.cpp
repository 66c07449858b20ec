// The kernel-log reader and the kernel module's version (host/kernel_log.hpp).

#include <gtest/gtest.h>

#include "gpuspec/host/kernel_log.hpp"

namespace {

using gpuspec::host::parse_nvidia_module_version;
using gpuspec::host::read_kernel_log;

TEST(KernelLog, ASavedLogIsReadFromTheFileNamed) {
  const auto log = read_kernel_log(GPUSPEC_FIXTURES_DIR "/kernel-log/xid79-gpu3.log");
  EXPECT_TRUE(log.read);
  EXPECT_EQ(log.source, GPUSPEC_FIXTURES_DIR "/kernel-log/xid79-gpu3.log");
  EXPECT_NE(log.text.find("GPU has fallen off the bus"), std::string::npos);
}

TEST(KernelLog, AMissingSavedLogIsNotReadAndSaysWhy) {
  const auto log = read_kernel_log("/nonexistent/kernel.log");
  EXPECT_FALSE(log.read);
  EXPECT_NE(log.why.find("/nonexistent/kernel.log"), std::string::npos) << log.why;
  EXPECT_TRUE(log.text.empty());
}

TEST(KernelLog, ThisBootsLogIsEitherReadOrNotReadWithEveryPlaceTried) {
  // On the build machine /dev/kmsg may or may not be readable: either way the answer is stated.
  const auto log = read_kernel_log();
  if (log.read) {
    EXPECT_TRUE(log.source == "/dev/kmsg" || log.source == "dmesg") << log.source;
  } else {
    EXPECT_NE(log.why.find("/dev/kmsg"), std::string::npos) << log.why;
    EXPECT_NE(log.why.find("dmesg"), std::string::npos) << log.why;
  }
}

TEST(ModuleVersion, ProprietaryAndOpenModules) {
  EXPECT_EQ(
      parse_nvidia_module_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  "
                                  "580.65.06  Sun Jul 27 06:54:38 UTC 2025\nGCC version: x\n"),
      "580.65.06");
  EXPECT_EQ(parse_nvidia_module_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
                                        "575.57.08  Release Build  (dvs-builder@U16)  Sat May 24"),
            "575.57.08");
  EXPECT_EQ(
      parse_nvidia_module_version("NVRM version: NVIDIA UNIX aarch64 Kernel Module  550.90.07"),
      "550.90.07");
}

TEST(ModuleVersion, AnythingElseIsUnknown) {
  for (const char* text : {"", "GCC version: 12", "NVRM version: NVIDIA UNIX x86_64 Kernel Module",
                           "NVRM version: Kernel Module abc", "NVIDIA Kernel Module 580.65.06"})
    EXPECT_EQ(parse_nvidia_module_version(text), "") << text;
}

} // namespace
