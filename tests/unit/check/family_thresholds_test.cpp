// Issue 30, "Chips with no override": each model family is held to a line under its own public
// healthy figure, not to one set from another family. The Ampere and Ada PCIe parts run SGEMM
// power-bound far below their datasheet figure (DCGM's per-SKU notes), and an A100 reads
// 69.4-70% of its NVLink bound on peer copies, under the H100's 0.70 line.
//
// Each node is the stock L40S node of stock_fixtures.hpp with the model's identity (NVML name,
// PCI device id, compute capability, SM count, memory) and its SM clock: the clock at which the
// datasheet's FP32 figure is SM count x 256 FLOP per clock (the GA10x and AD10x rate), the row's
// boost clock where the row has one. Every measured figure is synthetic (no GPU ran): a fraction
// of the reference, set at DCGM's figure for the model, or at a fraction of it stated where set.

#include <cstdio>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gpuspec/reports/judge/check.hpp"
#include "gpuspec/reports/judge/expectations.hpp"
#include "shipped_tables.hpp"
#include "stock_fixtures.hpp"

namespace gpuspec::reports {
namespace {

using gpuspec::testing::shipped_rules;
using gpuspec::testing::shipped_specs;
using testing::stock_report;
using testing::stock_system;

/// One PCIe model and DCGM's SGEMM figure for it (NVIDIA/DCGM nvvs/diag-skus.yaml.in).
struct pcie_model {
  const char* spec_id;
  const char* gpu_name; ///< NVML's, the row's match name
  std::uint32_t pci_device_id;
  int cc_minor, sm_count, sm_clock_max_mhz;
  std::int64_t memory_mib;
  int mem_clock_max_mhz, bus_width_bits;
  double power_limit_w;
  double sgemm_fraction; ///< DCGM's SGEMM figure over the datasheet's FP32 figure
  const char* source;
};

void PrintTo(const pcie_model& m, std::ostream* os) { *os << m.spec_id; }

// Memory clocks: the datasheet bandwidth over the bus width, per the two transfers per clock
// NVML's GDDR6 memory clock counts (A40 and RTX A6000: their rows' clock_mhz). Memory sizes:
// the datasheet's gigabytes in MiB, less than NVML reports for the reserved part (the rule that
// reads it compares with the row's size).
const pcie_model pcie_models[] = {
    {"a10", "NVIDIA A10", 0x2236, 6, 72, 1695, 23028, 6251, 384, 150, 8100.0 / 31200,
     "DCGM A10 (22361482): SGEMM ~8100 GFLOP/s of 31.2 TFLOP/s"},
    {"a40", "NVIDIA A40", 0x2235, 6, 84, 1740, 46068, 7250, 384, 300, 19000.0 / 37400,
     "DCGM A40 (2235): SGEMM ~19000 GFLOP/s of 37.4 TFLOP/s"},
    {"rtx-a6000", "NVIDIA RTX A6000", 0x2230, 6, 84, 1800, 49140, 8000, 384, 300, 15300.0 / 38700,
     "DCGM A6000 PCIe (2230): SGEMM ~15300 GFLOP/s of 38.7 TFLOP/s"},
    {"l4", "NVIDIA L4", 0x27B8, 9, 58, 2040, 23034, 6251, 192, 72, 11600.0 / 30300,
     "DCGM L4 (27b8): SM stress ~11600 GFLOP/s of 30.3 TFLOP/s"},
};

const stock_system& stock_node(const std::string& name) {
  for (const auto& s : testing::stock_systems())
    if (s.name == name)
      return s;
  throw std::runtime_error("no node " + name);
}

stock_system node_of(const pcie_model& m) {
  stock_system s = stock_node("8x-l40s");
  s.name = fmt::format("4x-{}", m.spec_id);
  s.spec_id = m.spec_id;
  s.gpu_name = m.gpu_name;
  s.pci_device_id = m.pci_device_id;
  s.gpus = 4;
  s.cc_minor = m.cc_minor;
  s.sm_count = m.sm_count;
  s.sm_clock_max_mhz = m.sm_clock_max_mhz;
  s.memory_mib = m.memory_mib;
  s.mem_clock_max_mhz = m.mem_clock_max_mhz;
  s.bus_width_bits = m.bus_width_bits;
  s.power_limit_w = m.power_limit_w;
  s.figures.gemm_fp32 = {m.sgemm_fraction, m.source};
  return s;
}

check_outcome judge_family(const report& r) { return check(r, shipped_specs(), shipped_rules()); }

/// True when a verdict's axes ("shape=4096x4096x4096 layout=NN") name a large shape.
bool large_shape(const std::string& axes) {
  const auto at = axes.find("shape=");
  std::int64_t m = 0, n = 0, k = 0;
  return at != std::string::npos &&
         std::sscanf(axes.c_str() + at + 6, "%ldx%ldx%ld", &m, &n, &k) == 3 &&
         gemm_shape_class(m, n, k) == "large";
}

/// The verdicts of every large SGEMM of GPU `device` (small and skinny shapes are not judged
/// against the datasheet line).
std::vector<const result_verdict*> sgemm_verdicts(const check_outcome& o, int device) {
  std::vector<const result_verdict*> out;
  for (const auto& v : o.nodes.at(0).results)
    if (v.bench_id == "gemm.cublas.fp32" && v.devices == std::vector<int>{device} &&
        large_shape(v.axes))
      out.push_back(&v);
  return out;
}

class PcieFamily : public ::testing::TestWithParam<pcie_model> {};

TEST_P(PcieFamily, SgemmAtDcgmsHealthyFigurePassesOnItsOwnLine) {
  const auto s = node_of(GetParam());
  for (const char* suite : {"quick", "standard"}) {
    const auto o = judge_family(stock_report(s, suite));
    const auto verdicts = sgemm_verdicts(o, 0);
    ASSERT_FALSE(verdicts.empty()) << suite;
    for (const auto* v : verdicts)
      EXPECT_EQ(v->status, verdict_status::pass) << suite << " " << v->name << ": " << v->message;
  }
}

TEST_P(PcieFamily, SgemmAtHalfItsHealthyFigureFails) {
  const auto s = node_of(GetParam());
  report r = stock_report(s, "standard");
  testing::set_fraction(r, "gemm.cublas.fp32", {}, 0, s.figures.gemm_fp32.fraction / 2);
  const auto o = judge_family(r);
  const auto verdicts = sgemm_verdicts(o, 0);
  ASSERT_FALSE(verdicts.empty());
  for (const auto* v : verdicts)
    EXPECT_EQ(v->status, verdict_status::fail) << v->name << ": " << v->message;
  EXPECT_EQ(o.status, verdict_status::fail);
}

TEST_P(PcieFamily, TheLineSitsUnderTheHealthyFigureWithAMarginAndSaysWhere) {
  const auto& m = GetParam();
  rule_subject subject;
  subject.bench_id = "gemm.cublas.fp32";
  subject.shape_class = "large";
  subject.arch = m.cc_minor == 9 ? "ada" : "ampere";
  subject.spec_id = m.spec_id;
  const auto choice = shipped_rules().choose(subject);
  ASSERT_TRUE(choice);
  ASSERT_NE(choice->applied, nullptr) << m.spec_id << " has no override of its own";
  EXPECT_EQ(choice->applied->spec, std::vector<std::string>{m.spec_id});
  // Below the healthy figure by at least 5% of it, and the warn line below the pass line.
  EXPECT_LE(choice->pass, 0.95 * m.sgemm_fraction);
  EXPECT_LT(choice->warn, choice->pass);
  EXPECT_NE(choice->why.find("diag-skus.yaml.in"), std::string::npos) << choice->why;
  EXPECT_NE(choice->why.find("below"), std::string::npos) << choice->why;
}

INSTANTIATE_TEST_SUITE_P(Issue30, PcieFamily, ::testing::ValuesIn(pcie_models),
                         [](const auto& param_info) {
                           std::string name = param_info.param.spec_id;
                           for (char& c : name)
                             if (c == '-')
                               c = '_';
                           return name;
                         });

// ---- the A100 PCIe's DGEMM ----------------------------------------------------------------------

/// The stock A100 SXM4 40 GB node as its PCIe form: no NVLink, 250 W (the row's TDP), the
/// PCI device id of DCGM's note, DGEMM at DCGM's figure, 7950 of 19500 GFLOP/s.
stock_system a100_pcie_node() {
  stock_system s = stock_node("8x-a100-sxm4-40gb");
  s.name = "4x-a100-pcie-40gb";
  s.spec_id = "a100-pcie-40gb";
  s.gpu_name = "NVIDIA A100-PCIE-40GB";
  s.pci_device_id = 0x20F1;
  s.gpus = 4;
  s.power_limit_w = 250;
  s.nvlink_links = 0;
  s.nvml_nvlink = 0;
  s.nccl_transports = {"P2P"};
  s.figures.gemm_fp64 = {7950.0 / 19500, "DCGM A100 PCIe (20f1): DGEMM 7950 GFLOP/s"};
  return s;
}

std::vector<const result_verdict*> dgemm_verdicts(const check_outcome& o, int device) {
  std::vector<const result_verdict*> out;
  for (const auto& v : o.nodes.at(0).results)
    if (v.bench_id == "gemm.cublas.fp64" && v.devices == std::vector<int>{device} &&
        large_shape(v.axes))
      out.push_back(&v);
  return out;
}

TEST(AmperePcie, A100PcieDgemmAtDcgmsFigurePassesAndAtHalfItFails) {
  const stock_system s = a100_pcie_node();
  {
    const auto o = judge_family(stock_report(s, "standard"));
    const auto verdicts = dgemm_verdicts(o, 0);
    ASSERT_FALSE(verdicts.empty());
    for (const auto* v : verdicts)
      EXPECT_EQ(v->status, verdict_status::pass) << v->name << ": " << v->message;
  }
  report r = stock_report(s, "standard");
  testing::set_fraction(r, "gemm.cublas.fp64", {}, 0, s.figures.gemm_fp64.fraction / 2);
  const auto o = judge_family(r);
  const auto verdicts = dgemm_verdicts(o, 0);
  ASSERT_FALSE(verdicts.empty());
  for (const auto* v : verdicts)
    EXPECT_EQ(v->status, verdict_status::fail) << v->name << ": " << v->message;
}

// ---- the A100's NVLink peer copies ------------------------------------------------------------

/// The verdicts of the large peer copies through the copy engines of GPU `device`.
std::vector<const result_verdict*> p2p_verdicts(const check_outcome& o, int device) {
  std::vector<const result_verdict*> out;
  for (const auto& v : o.nodes.at(0).results)
    if (v.bench_id == "transfer.p2p" && !v.devices.empty() && v.devices.front() == device &&
        v.axes.find("engine=ce") != std::string::npos && v.status != verdict_status::skipped)
      out.push_back(&v);
  return out;
}

TEST(AmpereNvlink, PeerCopiesAtTheA100sPublicFigureBothWaysPass) {
  // The stock A100 node's peer copies are at 0.694 of the bound one way and both ways.
  const stock_system& s = stock_node("8x-a100-sxm4-80gb");
  ASSERT_NEAR(s.figures.p2p_one_way.fraction, 0.694, 1e-9);
  const auto o = judge_family(stock_report(s, "standard"));
  const auto verdicts = p2p_verdicts(o, 0);
  ASSERT_FALSE(verdicts.empty());
  for (const auto* v : verdicts)
    EXPECT_EQ(v->status, verdict_status::pass) << v->name << ": " << v->message;
}

TEST(AmpereNvlink, PeerCopiesAtHalfTheA100sFigureFail) {
  const stock_system& s = stock_node("8x-a100-sxm4-80gb");
  report r = stock_report(s, "standard");
  testing::set_fraction(r, "transfer.p2p", {{"engine", "ce"}}, 0, 0.694 / 2);
  const auto o = judge_family(r);
  const auto verdicts = p2p_verdicts(o, 0);
  ASSERT_FALSE(verdicts.empty());
  for (const auto* v : verdicts)
    EXPECT_EQ(v->status, verdict_status::fail) << v->name << ": " << v->message;
}

TEST(AmpereNvlink, TheH100KeepsItsOwnLine) {
  // The same 0.694 on an H100 (its public figure 0.82-0.84) is below its line: not a pass.
  const stock_system& s = stock_node("8x-h100-sxm");
  report r = stock_report(s, "standard");
  testing::set_fraction(r, "transfer.p2p", {{"engine", "ce"}}, 0, 0.694);
  const auto o = judge_family(r);
  const auto verdicts = p2p_verdicts(o, 0);
  ASSERT_FALSE(verdicts.empty());
  for (const auto* v : verdicts)
    EXPECT_EQ(v->status, verdict_status::warn) << v->name << ": " << v->message;
}

} // namespace
} // namespace gpuspec::reports
