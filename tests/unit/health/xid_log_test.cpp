// The kernel-log Xid parser (reports/xid_log.hpp): the forms the log is read in, and a
// property test: random lines, truncations and byte flips never crash it, never invent an Xid,
// and never read one that is not exactly what the line says.

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "gpuspec/reports/judge/xid_log.hpp"

namespace {

using gpuspec::reports::log_span;
using gpuspec::reports::parse_kernel_log;
using gpuspec::reports::parse_pci_address;
using gpuspec::reports::parse_sxid_line;
using gpuspec::reports::parse_xid_line;
using gpuspec::reports::parse_xid_log;
using gpuspec::reports::pci_address;

std::string fixture(const std::string& name);

TEST(PciAddress, XidLinesAndNvmlBusIdsAgree) {
  const auto from_xid = parse_pci_address("PCI:0000:3b:00");
  const auto from_nvml = parse_pci_address("00000000:3B:00.0");
  ASSERT_TRUE(from_xid && from_nvml);
  EXPECT_EQ(*from_xid, *from_nvml);
  EXPECT_EQ(*from_xid, (pci_address{0, 0x3b, 0}));
  EXPECT_EQ(*parse_pci_address("0001:c1:1f.7"), (pci_address{1, 0xc1, 0x1f}));
}

TEST(PciAddress, RejectsWhatIsNotOne) {
  for (const char* bad :
       {"", "PCI:", "3b:00", "0000:3b", "0000:3b:00:00", "0000:3bb:00", "000000000:3b:00",
        "0000:3b:20", "0000:3b:00.", "0000:3b:00.08", "zz:3b:00", "0000:-1:00", "0000: 3b:00x"})
    EXPECT_FALSE(parse_pci_address(bad)) << bad;
}

TEST(XidLine, DmesgForm) {
  const auto e = parse_xid_line(
      "[ 5107.644336] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen "
      "off the bus.");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->xid, 79);
  EXPECT_EQ(e->pci_bus_id, "0000:3b:00");
  ASSERT_TRUE(e->address);
  EXPECT_EQ(e->address->bus, 0x3bU);
  EXPECT_EQ(e->text, "pid=1234, name=python3, GPU has fallen off the bus.");
  ASSERT_TRUE(e->seconds_since_boot);
  EXPECT_DOUBLE_EQ(*e->seconds_since_boot, 5107.644336);
  EXPECT_TRUE(e->time_text.empty());
}

TEST(XidLine, KmsgRecordForm) {
  const auto e =
      parse_xid_line("4,1843,5107644336,-;NVRM: Xid (PCI:0000:18:00): 48, pid='<unknown>', "
                     "name=<unknown>, An uncorrectable double bit error (DBE) has been detected");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->xid, 48);
  ASSERT_TRUE(e->seconds_since_boot);
  EXPECT_DOUBLE_EQ(*e->seconds_since_boot, 5107.644336);
}

TEST(XidLine, JournalFormKeepsTheDateAsText) {
  const auto e = parse_xid_line("May 18 19:02:39 node07 kernel: NVRM: Xid (PCI:0000:2b:00): 79, "
                                "GPU has fallen off the bus.");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->xid, 79);
  EXPECT_FALSE(e->seconds_since_boot);
  EXPECT_EQ(e->time_text, "May 18 19:02:39 node07 kernel:");
}

TEST(XidLine, OldFormWithoutThePciPrefix) {
  const auto e = parse_xid_line("NVRM: Xid (0000:01:00): 13, Graphics Exception: ESR 0x405840");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->xid, 13);
  EXPECT_EQ(e->pci_bus_id, "0000:01:00");
  EXPECT_TRUE(e->address);
}

TEST(XidLine, TheCommaAfterTheNumberIsWhatSaysTheNumberIsWhole) {
  // A line cut inside "79" must not read as Xid 7.
  EXPECT_FALSE(parse_xid_line("NVRM: Xid (PCI:0000:3b:00): 7"));
  EXPECT_FALSE(parse_xid_line("NVRM: Xid (PCI:0000:3b:00): 119"));
  const auto e = parse_xid_line("NVRM: Xid (PCI:0000:3b:00): 119,");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->xid, 119);
  EXPECT_EQ(e->text, "");
}

TEST(XidLine, OtherLinesAndTruncatedOnesGiveNothing) {
  for (const char* line :
       {"", "NVRM: GPU at PCI:0000:2b:00: GPU-0b11d014", "NVRM: Xid (PCI:0000:3b:00",
        "NVRM: Xid (PCI:0000:3b:00)",
        "NVRM: Xid (PCI:0000:3b:00):", "NVRM: Xid (PCI:0000:3b:00): ,",
        "NVRM: Xid (PCI:0000:3b:00): x79", "NVRM: Xid (PCI:0000:3b:00): 79x, text",
        "NVRM: Xid (PCI:0000:3b:00): 1234567, text", "NVRM: Xid (PCI:0000:3b:00): 0, text",
        "NVRM: Xid (): 79, text", "nvidia-modeset: Xid 79", "NVRM: Xid (43, pid: 5678): text"})
    EXPECT_FALSE(parse_xid_line(line)) << line;
}

TEST(XidLine, AnUnparsablePciIdIsKeptAsWrittenAndMapsToNoGpu) {
  const auto e = parse_xid_line("NVRM: Xid (PCI:garbage): 79, GPU has fallen off the bus.");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->pci_bus_id, "garbage");
  EXPECT_FALSE(e->address);
}

TEST(XidLog, FindsEveryXidLineInOrder) {
  const std::string log =
      "[    1.000000] Linux version 6.1.0\r\n"
      "[   12.5] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  580.65.06\n"
      "[  100.25] NVRM: Xid (PCI:0000:18:00): 13, pid=7, Graphics Exception\n"
      "[  200.5] NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.\r\n"
      "[  200.6] NVRM: Xid (PCI:0000:3b:0";
  const auto events = parse_xid_log(log);
  ASSERT_EQ(events.size(), 2U);
  EXPECT_EQ(events[0].xid, 13);
  EXPECT_EQ(events[1].xid, 79);
  EXPECT_EQ(events[1].text, "GPU has fallen off the bus.");
}

TEST(XidLine, MigAttributedLinesNameTheInstance) {
  // NVIDIA's own example of a contained error attributed to a MIG GPU instance (the error
  // containment code of NVIDIA/open-gpu-kernel-modules), and a compute instance after it.
  const auto gi = parse_xid_line("NVRM: Xid (PCI:0000:01:00 GPU-I:05): 94, pid=7194, Contained: "
                                 "CE User Channel (0x9). RST: No, D-RST: No");
  ASSERT_TRUE(gi);
  EXPECT_EQ(gi->xid, 94);
  EXPECT_EQ(gi->pci_bus_id, "0000:01:00");
  EXPECT_EQ(*gi->address, (pci_address{0, 0x01, 0}));
  EXPECT_EQ(gi->gpu_instance, 5);
  EXPECT_FALSE(gi->compute_instance);
  EXPECT_EQ(gi->text, "pid=7194, Contained: CE User Channel (0x9). RST: No, D-RST: No");
  const auto ci = parse_xid_line(
      "[ 4415.001870] NVRM: Xid (PCI:0000:3b:00 GPU-I:01 GPU-CI:02): 13, pid=9, name=a, Graphics");
  ASSERT_TRUE(ci);
  EXPECT_EQ(ci->gpu_instance, 1);
  EXPECT_EQ(ci->compute_instance, 2);
  EXPECT_DOUBLE_EQ(*ci->seconds_since_boot, 4415.001870);
  // Without MIG: no instance.
  EXPECT_FALSE(parse_xid_line("NVRM: Xid (PCI:0000:01:00): 94, x")->gpu_instance);
  // Words that are not an instance, or an instance without a number: not an Xid line.
  for (const char* bad :
       {"NVRM: Xid (PCI:0000:01:00 GPU-I:): 94, x", "NVRM: Xid (PCI:0000:01:00 GPU-I:x5): 94, x",
        "NVRM: Xid (PCI:0000:01:00 GPU-I:05 GPU-I:06): 94, x",
        "NVRM: Xid (PCI:0000:01:00 pid: 5): 94, x",
        "NVRM: Xid (PCI:0000:01:00 GPU-I:123456): 94, x"})
    EXPECT_FALSE(parse_xid_line(bad)) << bad;
}

TEST(XidLine, APrintkCallerTagDoesNotHideTheTime) {
  // CONFIG_PRINTK_CALLER: the console's "[time][ T1946]", dmesg's "[time] [ T1946]".
  for (const char* line :
       {"[ 5107.644339][ T1946] NVRM: Xid (PCI:0000:5d:00): 79, GPU has fallen off the bus.",
        "[ 5107.644339] [ T1946] NVRM: Xid (PCI:0000:5d:00): 79, GPU has fallen off the bus.",
        "[ T1946] [ 5107.644339] NVRM: Xid (PCI:0000:5d:00): 79, GPU has fallen off the bus.",
        "[ 5107.644339][   C12] NVRM: Xid (PCI:0000:5d:00): 79, GPU has fallen off the bus."}) {
    const auto e = parse_xid_line(line);
    ASSERT_TRUE(e) << line;
    ASSERT_TRUE(e->seconds_since_boot) << line;
    EXPECT_DOUBLE_EQ(*e->seconds_since_boot, 5107.644339) << line;
    EXPECT_TRUE(e->time_text.empty()) << line;
  }
  // dmesg -T's date is no monotonic time: kept as text.
  const auto t = parse_xid_line("[Tue Jul 28 03:14:02 2026] NVRM: Xid (PCI:0000:1b:00): 79, x");
  ASSERT_TRUE(t);
  EXPECT_FALSE(t->seconds_since_boot);
  EXPECT_EQ(t->time_text, "[Tue Jul 28 03:14:02 2026]");
}

TEST(XidLine, AMarkerInsideAnotherMessageIsNoDriverMessage) {
  // An unprivileged program faulting in a file it named like a driver message: the kernel writes
  // that name inside its segfault line. Only the message's start is the driver's.
  const std::string segv = "a.out[48213]: segfault at 0 ip 00007f3a1c2d5126 sp 00007ffc9a1e6e10 "
                           "error 6 in ";
  const std::string tail = "[7f3a1c2d5000+1000] likely on CPU 3 (core 3, socket 0)";
  for (const std::string prefix :
       {"[ 5107.644339] ", "6,1843,5107644339,-;", "Dec 01 08:03:04 gpu-node-01 kernel: ",
        "2026-12-01T08:03:04.123456+00:00 gpu-node-01 kernel: [ 5107.644339] ", ""}) {
    for (const std::string name : {"NVRM: Xid (PCI:0000:5d:00): 79, pid=1, GPU has fallen off the "
                                   "bus.",
                                   "kernel: NVRM: Xid (PCI:0000:5d:00): 79, x"}) {
      EXPECT_FALSE(parse_xid_line(prefix + segv + name + tail)) << prefix << name;
      EXPECT_TRUE(parse_xid_line(prefix + name.substr(name.find("NVRM")))) << prefix << name;
    }
    EXPECT_FALSE(parse_sxid_line(prefix + segv +
                                 "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): "
                                 "23001, Fatal, x" +
                                 tail))
        << prefix;
    EXPECT_TRUE(parse_sxid_line(prefix + "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 23001, "
                                         "Fatal, x"))
        << prefix;
  }
  // Nor a word that is not a switch's name before "SXid", nor a syslog prefix that is not one.
  EXPECT_FALSE(parse_sxid_line("[ 1.0] a.out[1]: SXid (PCI:0000:05:00.0): 23001, Fatal, x"));
  EXPECT_FALSE(parse_sxid_line("[ 1.0] foo bar: SXid (PCI:0000:05:00.0): 23001, Fatal, x"));
  EXPECT_FALSE(parse_xid_line("[ 1.0] traps: x kernel: NVRM: Xid (PCI:0000:5d:00): 79, x"));
  const auto log = parse_kernel_log(fixture("forged-xid79-in-segfault.log"));
  EXPECT_TRUE(log.xids.empty());
  EXPECT_TRUE(log.sxids.empty());
  EXPECT_TRUE(log.gpu_messages.empty());
}

TEST(SxidLine, FatalAndNonFatalNvswitchLines) {
  const auto fatal = parse_sxid_line("Dec 01 04:18:55 gpu-node-01 kernel: nvidia-nvswitch2: SXid "
                                     "(PCI:0000:07:00.0): 23001, Fatal, Link 12 Always Fatal");
  ASSERT_TRUE(fatal);
  EXPECT_EQ(fatal->nvswitch, "nvidia-nvswitch2");
  EXPECT_EQ(fatal->pci_bus_id, "0000:07:00.0");
  EXPECT_EQ(*fatal->address, (pci_address{0, 0x07, 0}));
  EXPECT_EQ(fatal->sxid, 23001);
  EXPECT_TRUE(fatal->fatal);
  EXPECT_EQ(fatal->text, "Fatal, Link 12 Always Fatal");
  EXPECT_EQ(fatal->time_text, "Dec 01 04:18:55 gpu-node-01 kernel:");
  const auto nonfatal = parse_sxid_line("[123.456789] nvidia-nvswitch0: SXid (PCI:0000:c3:00.0): "
                                        "20009, Non-fatal, Link 28 RX Short Error Rate");
  ASSERT_TRUE(nonfatal);
  EXPECT_FALSE(nonfatal->fatal);
  EXPECT_DOUBLE_EQ(*nonfatal->seconds_since_boot, 123.456789);
  // The driver writes five digits.
  EXPECT_EQ(parse_sxid_line("nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 01004, Fatal, x")->sxid,
            1004);
  // An Xid line is no SXid line, and a garbled SXid gives nothing.
  EXPECT_FALSE(parse_sxid_line("NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus."));
  EXPECT_FALSE(parse_sxid_line("nvidia-nvswitch3: SXid (PCI:0000:c1:00.0): garbled, Fatal"));
  EXPECT_FALSE(parse_xid_line("nvidia-nvswitch2: SXid (PCI:0000:07:00.0): 23001, Fatal, x"));
}

TEST(SxidLine, TheParenthesisHoldsTheSwitchsBusIdAlone) {
  // One parser reads Xid and SXid lines: an SXid takes no instance words after its id (an Xid
  // does), and reads its id with or without "PCI:", as an Xid does.
  const auto bare = parse_sxid_line("nvidia-nvswitch4: SXid (0000:c5:00.0): 12028, Fatal, x");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->pci_bus_id, "0000:c5:00.0");
  EXPECT_EQ(*bare->address, (pci_address{0, 0xc5, 0}));
  for (const char* bad : {"nvidia-nvswitch4: SXid (PCI:0000:c5:00.0 GPU-I:01): 12028, Fatal, x",
                          "nvidia-nvswitch4: SXid (PCI:0000:c5:00.0 x): 12028, Fatal, x",
                          "nvidia-nvswitch4: SXid (): 12028, Fatal, x",
                          "nvidia-nvswitch4: SXid (PCI:0000:c5:00.0): 12028 Fatal, x"})
    EXPECT_FALSE(parse_sxid_line(bad)) << bad;
  EXPECT_TRUE(parse_xid_line("NVRM: Xid (PCI:0000:c5:00 GPU-I:01): 94, x"));
}

std::string fixture(const std::string& name) {
  std::ifstream in(std::filesystem::path(GPUSPEC_FIXTURES_DIR) / "kernel-log" / name,
                   std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(KernelLog, AJournalThatSpansBootsKeepsTheEarlierBootsAsHistory) {
  const auto log = parse_kernel_log(fixture("journal-two-boots-xid79-earlier.log"));
  EXPECT_EQ(log.undecodable, "");
  EXPECT_EQ(log.boots, 2U);
  EXPECT_TRUE(log.xids.empty());
  ASSERT_EQ(log.earlier_xids.size(), 2U);
  EXPECT_EQ(log.earlier_xids[0].xid, 79);
  EXPECT_EQ(log.earlier_xids[1].xid, 154);
  EXPECT_TRUE(log.gpu_messages.empty()); // the earlier boot's "fallen off the bus" is history too
}

/// The kernel's banner as init/version.c writes it.
const std::string banner = "Linux version 5.15.0-105-generic (buildd@lcy02-amd64-007) (gcc "
                           "(Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0) #115-Ubuntu SMP";

TEST(KernelLog, ASecondBannerStartsANewBoot) {
  const auto log = parse_kernel_log(fixture("dmesg-two-banners-xid79-earlier.log"));
  EXPECT_EQ(log.boots, 2U);
  ASSERT_EQ(log.xids.size(), 1U);
  EXPECT_EQ(log.xids[0].xid, 13);
  ASSERT_EQ(log.earlier_xids.size(), 1U);
  EXPECT_EQ(log.earlier_xids[0].xid, 79);
  // One boot: its banner first, a journal header, a separator then a banner are one boot each.
  EXPECT_EQ(parse_kernel_log(fixture("xid79-gpu3.log")).boots, 1U);
  EXPECT_EQ(parse_kernel_log("-- Logs begin at Mon 2026-11-30 22:10:05 UTC, end at Tue "
                             "2026-12-01 08:03:04 UTC. --\n-- Boot 4f1c --\n"
                             "Dec 01 08:02:41 h kernel: " +
                             banner +
                             "\n"
                             "Dec 01 08:03:04 h kernel: NVRM: Xid (PCI:0000:18:00): 13, x\n")
                .boots,
            1U);
  // Older journalctl's "-- Reboot --".
  const auto reboot =
      parse_kernel_log("Nov 30 22:10:05 h kernel: NVRM: Xid (PCI:0000:18:00): 79, x\n"
                       "-- Reboot --\nDec 01 08:02:41 h kernel: " +
                       banner + "\n");
  EXPECT_EQ(reboot.boots, 2U);
  EXPECT_TRUE(reboot.xids.empty());
  // "Linux version" inside another message is no banner.
  EXPECT_EQ(parse_kernel_log("[ 1.0] " + banner +
                             "\n[ 2.0] NVRM: Xid (PCI:0000:18:00): 13, "
                             "x\n[ 3.0] foo: built for " +
                             banner + "\n")
                .boots,
            1U);
}

TEST(KernelLog, AProcessNamedLinuxVersionStartsNoBoot) {
  // A process an unprivileged user named "Linux version " crashes: the kernel writes its name,
  // then "[pid]: segfault at ...". Read as a banner, it made the Xid 48 before it history.
  const auto log = parse_kernel_log(fixture("forged-banner-after-xid48-gpu3.log"));
  EXPECT_EQ(log.boots, 1U);
  ASSERT_EQ(log.xids.size(), 1U);
  EXPECT_EQ(log.xids[0].xid, 48);
  EXPECT_TRUE(log.earlier_xids.empty());
  // Nor does any line that is not the banner's whole shape: a release, then "(user@host)".
  for (const char* forged : {
           "[ 9.0] Linux version [4242]: segfault at 0 ip 0 sp 0 error 4",
           "[ 9.0] Linux version 6[4242]: segfault at 0 ip 0 sp 0 error 4",
           "[ 9.0] Linux version 6 (4242): drop_caches: 3",
           "6,900,9000000,-;Linux version [4242]: segfault at 0 ip 0 sp 0 error 4",
           "Dec 01 08:03:04 h kernel: Linux version [4242]: segfault at 0",
       }) {
    const auto one =
        parse_kernel_log(std::string("[ 5.0] NVRM: Xid (PCI:0000:5d:00): 48, x\n") + forged + "\n");
    EXPECT_EQ(one.boots, 1U) << forged;
    EXPECT_EQ(one.xids.size(), 1U) << forged;
  }
}

TEST(KernelLog, KmsgAndDmesgHoldOneBootWhateverALineSays) {
  // A second banner in a saved file starts a boot; in /dev/kmsg or dmesg (this boot's ring
  // buffer) nothing does.
  const auto text = fixture("dmesg-two-banners-xid79-earlier.log");
  EXPECT_EQ(parse_kernel_log(text, log_span::saved).boots, 2U);
  const auto live = parse_kernel_log(text, log_span::one_boot);
  EXPECT_EQ(live.boots, 1U);
  EXPECT_EQ(live.xids.size(), 2U);
  EXPECT_TRUE(live.earlier_xids.empty());
}

TEST(KernelLog, TheDriversMessagesForAGpuItCouldNotBringUp) {
  const auto log = parse_kernel_log(fixture("rminitadapter-9a.log"));
  EXPECT_TRUE(log.xids.empty());
  ASSERT_EQ(log.gpu_messages.size(), 2U);
  EXPECT_EQ(log.gpu_messages[0].pci_bus_id, "0000:9a:00.0");
  EXPECT_EQ(*log.gpu_messages[0].address, (pci_address{0, 0x9a, 0}));
  EXPECT_NE(log.gpu_messages[0].text.find("fallen off the bus and is not responding"),
            std::string::npos)
      << log.gpu_messages[0].text;
  EXPECT_DOUBLE_EQ(*log.gpu_messages[0].seconds_since_boot, 18.308145);
  EXPECT_NE(log.gpu_messages[1].text.find("RmInitAdapter failed! (0x24:0x65:1185)"),
            std::string::npos);
  // kmsg escapes the newlines: the same message on one line.
  const auto one = parse_kernel_log("3,1042,8462102,-;NVRM: The NVIDIA GPU 0000:02:00.0\\x0aNVRM: "
                                    "(PCI ID: 10de:2bb5) installed in this system has\\x0aNVRM: "
                                    "fallen off the bus and is not responding to commands.\n");
  ASSERT_EQ(one.gpu_messages.size(), 1U);
  EXPECT_EQ(one.gpu_messages[0].pci_bus_id, "0000:02:00.0");
  // Other "NVRM: GPU" lines are not such messages.
  EXPECT_TRUE(parse_kernel_log(fixture("clean-boot.log")).gpu_messages.empty());
}

TEST(KernelLog, ATextThatIsNotALogIsSaidToBeSoNeverReadAsEmpty) {
  const auto utf16 = parse_kernel_log(fixture("utf16-xid79-gpu3.log"));
  EXPECT_NE(utf16.undecodable.find("UTF-16"), std::string::npos) << utf16.undecodable;
  EXPECT_TRUE(utf16.xids.empty());
  // UTF-16 without its byte-order mark: half the bytes are NUL.
  std::string le;
  for (char c : fixture("xid79-gpu3.log")) {
    le += c;
    le += '\0';
  }
  EXPECT_NE(parse_kernel_log(le).undecodable.find("NUL"), std::string::npos);
  const auto garbage = parse_kernel_log(fixture("garbage-bytes.log"));
  EXPECT_NE(garbage.undecodable.find("not text"), std::string::npos) << garbage.undecodable;
  // UTF-8 text, a stray NUL and an empty log are logs.
  EXPECT_EQ(parse_kernel_log("[ 1.0] usb 1-1: Product: Überkabel\n[ 2.0] a\0b\n").undecodable, "");
  EXPECT_EQ(parse_kernel_log("").undecodable, "");
  EXPECT_EQ(parse_kernel_log(fixture("xid79-gpu3.log")).xids.size(), 3U);
}

// ---- properties -----------------------------------------------------------------------------

/// The Xid a well-formed line states, or 0: what the parser must agree with.
int xid_stated(const std::string& line) {
  const auto m = line.find("NVRM: Xid (");
  if (m == std::string::npos)
    return 0;
  const auto close = line.find(')', m);
  if (close == std::string::npos || line.compare(close, 3, "): ") != 0)
    return 0;
  // (the parser also needs the comma; this only says which number a line states)
  std::size_t i = close + 3;
  int v = 0;
  std::size_t digits = 0;
  while (i < line.size() && line[i] >= '0' && line[i] <= '9' && digits < 6) {
    v = v * 10 + (line[i] - '0');
    ++i;
    ++digits;
  }
  return digits == 0 || digits > 5 ? 0 : v;
}

TEST(XidLogProperty, TruncationsOfAWellFormedLineNeverMisparse) {
  const std::string line =
      "4,1843,5107644336,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has "
      "fallen off the bus.";
  for (std::size_t n = 0; n <= line.size(); ++n) {
    const std::string cut = line.substr(0, n);
    const auto e = parse_xid_line(cut);
    const std::size_t comma = line.find("79,") + 2;
    if (n <= comma) {
      EXPECT_FALSE(e) << cut; // cut before the comma that ends the number: nothing
    } else {
      ASSERT_TRUE(e) << cut;
      EXPECT_EQ(e->xid, 79) << cut;
      EXPECT_EQ(e->pci_bus_id, "0000:3b:00");
      std::string tail = cut.substr(comma + 1);
      while (!tail.empty() && tail.front() == ' ')
        tail.erase(0, 1);
      while (!tail.empty() && tail.back() == ' ')
        tail.pop_back();
      EXPECT_EQ(e->text, tail) << cut;
    }
  }
}

TEST(XidLogProperty, RandomBytesAndFlipsNeverCrashAndNeverInventAnXid) {
  std::mt19937 rng(20261201); // fixed seed: a failure reproduces
  const std::string base = "[ 5107.644336] NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off.";
  const std::string alphabet = "NVRM: Xid(PCI)0123456789abcdef,;[]. \t\r\x01\xff";
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  for (int round = 0; round < 20000; ++round) {
    std::string line;
    if (round % 2 == 0) {
      // Random text over an alphabet rich in the parser's own characters.
      const std::size_t len = rng() % 120;
      for (std::size_t i = 0; i < len; ++i)
        line += alphabet[pick(rng)];
    } else {
      // The well-formed line with a few bytes changed, inserted or removed.
      line = base;
      const int edits = 1 + static_cast<int>(rng() % 3);
      for (int k = 0; k < edits && !line.empty(); ++k) {
        const std::size_t at = rng() % line.size();
        switch (rng() % 3) {
        case 0:
          line[at] = alphabet[pick(rng)];
          break;
        case 1:
          line.insert(at, 1, alphabet[pick(rng)]);
          break;
        default:
          line.erase(at, 1);
        }
      }
    }
    const auto e = parse_xid_line(line);
    if (!e)
      continue;
    // Whatever it read is in the line: the marker, and the number after the id.
    EXPECT_NE(line.find("NVRM: Xid ("), std::string::npos) << line;
    EXPECT_GT(e->xid, 0) << line;
    EXPECT_LT(e->xid, 100000) << line;
    EXPECT_NE(line.find(std::to_string(e->xid)), std::string::npos) << line;
    if (const int stated = xid_stated(line); stated != 0) {
      EXPECT_EQ(e->xid, stated) << line;
    }
  }
}

TEST(XidLogProperty, TruncationsOfAMigLineNeverMisparse) {
  const std::string line = "[ 4420.552910] NVRM: Xid (PCI:0000:18:00 GPU-I:05): 95, pid=7062, "
                           "Uncontained: LTC TAG (0x2,0x1). RST: Yes, D-RST: No";
  const std::size_t comma = line.find("95,") + 2;
  for (std::size_t n = 0; n <= line.size(); ++n) {
    const auto e = parse_xid_line(line.substr(0, n));
    if (n <= comma) {
      EXPECT_FALSE(e) << line.substr(0, n);
    } else {
      ASSERT_TRUE(e) << line.substr(0, n);
      EXPECT_EQ(e->xid, 95);
      EXPECT_EQ(e->gpu_instance, 5);
    }
  }
}

TEST(XidLogProperty, MangledLogsNeverCrashTheWholeLogParser) {
  std::mt19937 rng(20261202); // fixed seed: a failure reproduces
  std::vector<std::string> logs;
  for (const char* name :
       {"xid79-gpu3.log", "journal-two-boots-xid79-earlier.log", "rminitadapter-9a.log",
        "mig-xid-gpu0.log", "sxid-fatal-nvswitch.log", "caller-tag-xid79-gpu3.log"})
    logs.push_back(fixture(name));
  for (int round = 0; round < 3000; ++round) {
    std::string log = logs[rng() % logs.size()];
    switch (round % 4) {
    case 0: // truncated anywhere
      log.resize(rng() % (log.size() + 1));
      break;
    case 1: // bytes flipped, lines dropped in the middle
      for (int k = 0; k < 8 && !log.empty(); ++k)
        log[rng() % log.size()] = static_cast<char>(rng() % 256);
      break;
    case 2: { // random bytes
      log.assign(rng() % 2048, '\0');
      for (auto& c : log)
        c = static_cast<char>(rng() % 256);
      break;
    }
    default: { // as UTF-16, cut anywhere
      std::string wide = "\xff\xfe";
      for (char c : log) {
        wide += c;
        wide += '\0';
      }
      log = wide.substr(0, rng() % (wide.size() + 1));
    }
    }
    const auto parsed = parse_kernel_log(log);
    EXPECT_GE(parsed.boots, 1U);
    if (!parsed.undecodable.empty()) {
      EXPECT_TRUE(parsed.xids.empty() && parsed.earlier_xids.empty() && parsed.sxids.empty());
      continue;
    }
    for (const auto& x : parsed.xids) {
      EXPECT_GT(x.xid, 0);
      EXPECT_LT(x.xid, 100000);
      for (char c : x.text)
        EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7f);
    }
    for (const auto& m : parsed.gpu_messages)
      EXPECT_TRUE(m.address);
  }
}

TEST(XidLogProperty, AHugeLogWithNoNewlinesIsOneLine) {
  // One line: the marker after a megabyte of garbage is not at a message's start.
  std::string log(1 << 20, 'x');
  log += "NVRM: Xid (PCI:0000:3b:00): 79, tail";
  EXPECT_TRUE(parse_xid_log(log).empty());
  const auto events = parse_xid_log("[ 1.0] NVRM: Xid (PCI:0000:3b:00): 79, " + log);
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].text.size(), log.size());
}

} // namespace
