// The kernel-log Xid parser (reports/xid_log.hpp): the forms the log is read in, and a
// property test: random lines, truncations and byte flips never crash it, never invent an Xid,
// and never read one that is not exactly what the line says.

#include <random>
#include <string>

#include <gtest/gtest.h>

#include "gpuspec/reports/xid_log.hpp"

namespace {

using gpuspec::reports::parse_pci_address;
using gpuspec::reports::parse_xid_line;
using gpuspec::reports::parse_xid_log;
using gpuspec::reports::pci_address;

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

TEST(XidLogProperty, AHugeLogWithNoNewlinesIsOneLine) {
  std::string log(1 << 20, 'x');
  log += "NVRM: Xid (PCI:0000:3b:00): 79, tail";
  const auto events = parse_xid_log(log);
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].time_text.size(), 64U); // the garbage before it, capped
}

} // namespace
