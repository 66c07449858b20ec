// The health judge's MIG rules (reports/health/src/mig_rules.hpp) over the fake NVML's
// partitioned GPUs (tests/fakes): the CUDA probe of each MIG device, run as `gpuspec health`
// runs it (spine::probe_mig_devices starting the stand-in worker's --probe-mig under
// CUDA_VISIBLE_DEVICES=MIG-<uuid>), and the layout a site's rules file declares (read by the
// rules file's own loader). For each, the degraded node that must trip it and the healthy
// partitioned node that must not.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gpuspec/reports/health/health.hpp"
#include "gpuspec/reports/judge/expectations.hpp"
#include "gpuspec/spine/cuda_probe.hpp"
#include "gpuspec/spine/inventory.hpp"
#include "shipped_tables.hpp"

namespace {

using namespace gpuspec::reports;
using gpuspec::testing::shipped_rules;
using gpuspec::testing::shipped_specs;

/// A partitioned node's inventory through the fake NVML, as cmd_health takes it, with a clean
/// kernel log (the MIG rules are what is looked at).
health_input mig_node(const std::string& nvml_config) {
  ::setenv("GPUSPEC_NVML_LIBRARY", GPUSPEC_FAKE_NVML_PATH, 1);
  ::setenv("GPUSPEC_FAKE_NVML_CONFIG", (GPUSPEC_FAKE_NVML_CONFIGS "/" + nvml_config).c_str(), 1);
  auto inv = gpuspec::spine::take_inventory(GPUSPEC_FIXTURES_DIR "/hosts/x86-gpu-node", {});
  gpuspec::spine::match_spec_rows(shipped_specs(), inv.devices);
  health_input in;
  in.inventory.host = inv.host;
  in.inventory.devices = inv.devices;
  in.kernel_log.state = kernel_log_state::read;
  in.kernel_log.source = "test";
  in.pci_bus.read = true; // the fixture host has no PCI tree: nothing to say of the bus
  for (const auto& d : in.inventory.devices)
    in.pci_bus.gpus.push_back(d.pci_bus_id);
  return in;
}

/// The CUDA probe of `in`'s MIG devices with the stand-in worker following `script`.
mig_cuda_probe_reading probe_with(const health_input& in, const std::string& script,
                                  double timeout_s = 1.0) {
  ::setenv("GPUSPEC_STAND_IN_SCRIPT", script.c_str(), 1);
  return gpuspec::spine::probe_mig_devices(in.inventory.devices,
                                           {GPUSPEC_STAND_IN_WORKER, "--probe-mig"}, timeout_s);
}

/// A stand-in script whose "probe" gives `uuid` the behaviour `kind`, written for this test.
std::string probe_script(const std::string& uuid, const std::string& kind) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("gpuspec-health-mig-" + std::to_string(::getpid()) + "-" + kind + ".json");
  nlohmann::json j{{"cases", nlohmann::json::array()}, {"probe", {{uuid, {{"behaviour", kind}}}}}};
  std::ofstream(path) << j.dump();
  return path.string();
}

/// The layouts a site file declares, merged over the shipped rules as `health --rules` does.
std::vector<mig_layout_rule> declared(const nlohmann::ordered_json& mig_layout) {
  const nlohmann::ordered_json site{{"schema", "gpuspec.expect.v3"}, {"mig_layout", mig_layout}};
  auto merged = merge_expectations(shipped_rules(), site, "site.json");
  EXPECT_TRUE(merged) << (merged ? "" : merged.error().to_string());
  return merged ? merged.value().mig_layouts : std::vector<mig_layout_rule>{};
}

health_outcome judged(const health_input& in) {
  return judge_health(in, shipped_specs(), shipped_rules().settings);
}

std::vector<const diagnosis*> with_code(const health_outcome& h, const std::string& code) {
  std::vector<const diagnosis*> out;
  for (const auto& g : h.check.nodes.front().gpus)
    for (const auto& d : g.diagnoses)
      if (d.code == code)
        out.push_back(&d);
  for (const auto& d : h.check.nodes.front().diagnoses)
    if (d.code == code)
      out.push_back(&d);
  return out;
}

bool has_note(const health_outcome& h, const std::string& text) {
  for (const auto& n : h.check.notes)
    if (n.find(text) != std::string::npos)
      return true;
  return false;
}

constexpr const char* mig2 = "MIG-5e7e71c0-0000-4000-8000-000000000002";

TEST(HealthMig, MigDevicesCudaCannotOpenFailAndOneThatDoesNotAnswerWarns) {
  auto in = mig_node("a100-mig-7x1g.json");
  in.mig_probe = probe_with(in, GPUSPEC_STAND_IN_SCRIPTS "/mig-probe.json");
  ASSERT_TRUE(in.mig_probe.run) << in.mig_probe.why;
  ASSERT_EQ(in.mig_probe.probes.size(), 7U);
  // Every probe started at once: the hanging one ends the whole probe at its timeout.
  EXPECT_LT(in.mig_probe.seconds, 3.0);
  const auto h = judged(in);
  const auto found = with_code(h, "GPUSPEC-MIG-NOT-IN-CUDA");
  ASSERT_EQ(found.size(), 3U);
  EXPECT_EQ(found[0]->severity, verdict_status::fail);
  EXPECT_EQ(found[0]->evidence.at("mig.uuid"), mig2);
  EXPECT_NE(found[0]->cause.find("GPU 0 MIG 1g.10gb, GI 9 CI 0"), std::string::npos)
      << found[0]->cause;
  EXPECT_NE(found[0]->cause.find("counts no device"), std::string::npos) << found[0]->cause;
  EXPECT_EQ(found[1]->severity, verdict_status::fail);
  EXPECT_NE(found[1]->cause.find("cudaErrorNoDevice"), std::string::npos) << found[1]->cause;
  EXPECT_EQ(found[2]->severity, verdict_status::warn);
  EXPECT_EQ(found[2]->evidence.at("probe.outcome"), "timed out");
  EXPECT_EQ(h.check.status, verdict_status::fail);
  EXPECT_EQ(exit_code_of(h.check.status), 2);
  EXPECT_EQ(h.drain_reason, "gpuspec:GPUSPEC-MIG-NOT-IN-CUDA:gpu0");
}

TEST(HealthMig, HealthyPartitionedNodesPassWithEveryMigDeviceOpened) {
  for (const char* config :
       {"a100-mig-7x1g.json", "h100-mig-3g-2x2g.json", "eight-a100-four-mig.json"}) {
    SCOPED_TRACE(config);
    auto in = mig_node(config);
    in.mig_probe = probe_with(in, GPUSPEC_STAND_IN_SCRIPTS "/two-healthy.json");
    ASSERT_TRUE(in.mig_probe.run) << in.mig_probe.why;
    for (const auto& p : in.mig_probe.probes)
      EXPECT_EQ(p.outcome, mig_probe_outcome::opened) << p.mig_uuid << ": " << p.detail;
    const auto h = judged(in);
    EXPECT_TRUE(with_code(h, "GPUSPEC-MIG-NOT-IN-CUDA").empty());
    EXPECT_EQ(h.check.status, verdict_status::pass);
    EXPECT_EQ(h.drain_reason, "");
  }
}

TEST(HealthMig, AnotherDeviceFailsAndAProbeThatDiesIsInconclusive) {
  auto in = mig_node("a100-mig-7x1g.json");
  in.mig_probe = probe_with(in, probe_script(mig2, "other_device"));
  auto h = judged(in);
  auto found = with_code(h, "GPUSPEC-MIG-NOT-IN-CUDA");
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0]->severity, verdict_status::fail);
  EXPECT_EQ(found[0]->evidence.at("cuda.uuid"), "0badc0de-0000-4000-8000-000000000000");

  in.mig_probe = probe_with(in, probe_script(mig2, "segv"));
  h = judged(in);
  found = with_code(h, "GPUSPEC-MIG-NOT-IN-CUDA");
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0]->severity, verdict_status::inconclusive);
  EXPECT_NE(found[0]->cause.find("SIGSEGV"), std::string::npos) << found[0]->cause;
  EXPECT_EQ(exit_code_of(h.check.status), 3);
}

TEST(HealthMig, ADriverOlderThanTheRuntimeIsANoteNotAFinding) {
  auto in = mig_node("a100-mig-7x1g.json");
  in.mig_probe = probe_with(in, probe_script(mig2, "insufficient_driver"));
  const auto h = judged(in);
  EXPECT_TRUE(with_code(h, "GPUSPEC-MIG-NOT-IN-CUDA").empty());
  EXPECT_TRUE(has_note(h, "cudaErrorInsufficientDriver")) << h.check.notes.size();
  EXPECT_EQ(h.check.status, verdict_status::pass);
}

TEST(HealthMig, AProbeNotRunIsSaidOnceWherePartitionedAndNotAtAllOnAWholeNode) {
  auto in = mig_node("a100-mig-7x1g.json");
  in.mig_probe.why = "no CUDA build of gpuspec is installed: the host package alone";
  auto h = judged(in);
  EXPECT_EQ(h.check.status, verdict_status::pass);
  int notes = 0;
  for (const auto& n : h.check.notes)
    notes += n.find("not probed with the CUDA runtime (no CUDA build") != std::string::npos;
  EXPECT_EQ(notes, 1);
  in = mig_node("eight-healthy.json");
  h = judged(in);
  EXPECT_FALSE(has_note(h, "not probed with the CUDA runtime"));
}

TEST(HealthMig, ALayoutAsDeclaredPassesWhateverTheOrderOfItsProfiles) {
  auto in = mig_node("eight-a100-four-mig.json");
  in.mig_layouts = declared(
      nlohmann::ordered_json::array({{{"gpus", {0, 1, 2, 3}}, {"profiles", {"3g.40gb", "3g.40gb"}}},
                                     {{"gpus", {4, 5, 6, 7}}, {"whole", true}}}));
  ASSERT_EQ(in.mig_layouts.size(), 2U);
  auto h = judged(in);
  EXPECT_TRUE(with_code(h, "GPUSPEC-MIG-LAYOUT-DIFFERS").empty());
  EXPECT_EQ(h.check.status, verdict_status::pass);

  in = mig_node("h100-mig-3g-2x2g.json");
  in.mig_layouts = declared(nlohmann::ordered_json::array(
      {{{"gpus", {0}}, {"profiles", {"2g.20gb", "3g.40gb", "2g.20gb"}}}}));
  h = judged(in);
  EXPECT_TRUE(with_code(h, "GPUSPEC-MIG-LAYOUT-DIFFERS").empty());
  EXPECT_EQ(h.check.status, verdict_status::pass);
}

TEST(HealthMig, ALayoutOtherThanDeclaredFailsNamingWhatDiffers) {
  // A fleet's file: every A100 80 GB as 7 x 1g.10gb, GPUs 6 and 7 whole.
  auto in = mig_node("eight-a100-four-mig.json");
  in.mig_layouts = declared(nlohmann::ordered_json::array(
      {{{"spec", "a100-sxm4-80gb"}, {"profiles", std::vector<std::string>(7, "1g.10gb")}},
       {{"gpus", {6, 7}}, {"whole", true}}}));
  const auto h = judged(in);
  const auto found = with_code(h, "GPUSPEC-MIG-LAYOUT-DIFFERS");
  ASSERT_EQ(found.size(), 6U); // GPUs 0-3 partitioned otherwise, 4 and 5 whole; 6 and 7 as declared
  EXPECT_EQ(found[0]->device, 0);
  EXPECT_EQ(found[0]->severity, verdict_status::fail);
  EXPECT_EQ(found[0]->evidence.at("mig_layout.declared"), "MIG on, 7 x 1g.10gb");
  EXPECT_EQ(found[0]->evidence.at("mig_layout.found"), "MIG on, 2 x 3g.40gb");
  EXPECT_EQ(found[0]->evidence.at("mig_layout.missing"), "7 x 1g.10gb");
  EXPECT_EQ(found[0]->evidence.at("mig_layout.not_declared"), "2 x 3g.40gb");
  EXPECT_EQ(found[0]->evidence.at("mig_layout.entry"), "mig_layout[0]");
  EXPECT_EQ(found[4]->device, 4);
  EXPECT_NE(found[4]->cause.find("MIG is disabled where the site declares it on"),
            std::string::npos)
      << found[4]->cause;
  EXPECT_FALSE(found[4]->action.empty());
  EXPECT_EQ(h.check.status, verdict_status::fail);
  EXPECT_EQ(h.drain_reason, "gpuspec:GPUSPEC-MIG-LAYOUT-DIFFERS:gpu0");

  // A partitioned GPU declared whole, and one MIG device missing of a layout.
  auto one = mig_node("a100-mig-7x1g.json");
  one.mig_layouts = declared(nlohmann::ordered_json::array({{{"gpus", {0}}, {"whole", true}}}));
  auto outcome = judged(one);
  auto d = with_code(outcome, "GPUSPEC-MIG-LAYOUT-DIFFERS");
  ASSERT_EQ(d.size(), 1U);
  EXPECT_NE(d[0]->cause.find("MIG is on where the site declares the GPU whole"), std::string::npos)
      << d[0]->cause;
  one.mig_layouts = declared(nlohmann::ordered_json::array(
      {{{"gpus", {0}}, {"profiles", std::vector<std::string>(8, "1g.10gb")}}}));
  outcome = judged(one);
  d = with_code(outcome, "GPUSPEC-MIG-LAYOUT-DIFFERS");
  ASSERT_EQ(d.size(), 1U);
  EXPECT_EQ(d[0]->evidence.at("mig_layout.missing"), "1g.10gb");
  EXPECT_EQ(d[0]->evidence.count("mig_layout.not_declared"), 0U);
}

TEST(HealthMig, ADeclaredGpuNvmlDoesNotListIsANote) {
  auto in = mig_node("a100-mig-7x1g.json");
  in.mig_layouts = declared(nlohmann::ordered_json::array(
      {{{"gpus", {0}}, {"profiles", std::vector<std::string>(7, "1g.10gb")}},
       {{"gpus", {5}}, {"whole", true}}}));
  const auto h = judged(in);
  EXPECT_EQ(h.check.status, verdict_status::pass);
  EXPECT_TRUE(has_note(h, "mig_layout[1] declares GPU 5, which NVML does not list"));
}

/// The error a site file with this "mig_layout" gives, as text.
std::string layout_error(const nlohmann::ordered_json& mig_layout,
                         const std::string& schema = "gpuspec.expect.v3") {
  const nlohmann::ordered_json site{{"schema", schema}, {"mig_layout", mig_layout}};
  auto merged = merge_expectations(shipped_rules(), site, "site.json");
  return merged ? "" : merged.error().to_string();
}

TEST(MigLayoutRules, BadDeclarationsAreRefusedNamingTheFileAndTheField) {
  using j = nlohmann::ordered_json;
  const auto expect_error = [](const std::string& got, const std::string& field,
                               const std::string& words) {
    EXPECT_NE(got.find("site.json"), std::string::npos) << got;
    EXPECT_NE(got.find(field), std::string::npos) << got;
    EXPECT_NE(got.find(words), std::string::npos) << got;
  };
  expect_error(layout_error(j::object()), "mig_layout", "expected an array");
  expect_error(layout_error(j::array({{{"profiles", {"1g.10gb"}}}})), "mig_layout[0]",
               "names the GPUs");
  expect_error(layout_error(j::array({{{"gpus", {0}}}})), "mig_layout[0]", "\"whole\": true");
  expect_error(
      layout_error(j::array({{{"gpus", {0}}, {"whole", true}, {"profiles", {"1g.10gb"}}}})),
      "mig_layout[0]", "not both");
  expect_error(layout_error(j::array({{{"gpus", {0}}, {"profiles", {"1g.10gb", "1g10gb"}}}})),
               "mig_layout[0].profiles[1]", "'1g10gb' is not a MIG profile name");
  expect_error(layout_error(j::array({{{"gpus", {0}}, {"profiles", {"1g.10gb+me"}}}})),
               "mig_layout[0].profiles[0]", "+me");
  expect_error(layout_error(j::array({{{"gpus", {0}}, {"whole", false}}})), "mig_layout[0].whole",
               "declares nothing");
  expect_error(layout_error(j::array({{{"gpus", {-1}}, {"whole", true}}})), "mig_layout[0].gpus",
               "0 or more");
  expect_error(layout_error(j::array(
                   {{{"gpus", {0, 1}}, {"whole", true}}, {{"gpus", {1}}, {"whole", true}}})),
               "mig_layout[1].gpus", "GPU 1 is declared again");
  expect_error(layout_error(j::array({{{"spec", "a100-sxm4-80gb"}, {"whole", true}},
                                      {{"spec", {"a100-sxm4-80gb"}}, {"whole", true}}})),
               "mig_layout[1].spec", "declared again");
  expect_error(layout_error(j::array({{{"gpus", {0}}, {"whole", true}, {"profile", "1g.10gb"}}})),
               "mig_layout[0]", "profile");
  expect_error(layout_error(j::array({{{"gpus", {0}}, {"whole", true}}}), "gpuspec.expect.v2"),
               "mig_layout", "is a key of \"gpuspec.expect.v3\"");
  EXPECT_EQ(layout_error(j::array({{{"spec", {"a100-sxm4-80gb", "h100-sxm5-80gb"}},
                                    {"profiles", {"1c.3g.40gb", "3g.40gb"}},
                                    {"why", "inference pool"}}})),
            "");
}

TEST(MigLayoutRules, MangledSiteFilesNeverThrowAndNameTheFile) {
  // Every truncation of a valid file, and 3,000 with bytes flipped, inserted or removed (a
  // seeded generator): each loads or is an error naming the file, never an exception.
  const std::string valid =
      R"({"schema": "gpuspec.expect.v3", "mig_layout": [)"
      R"({"spec": ["a100-sxm4-80gb"], "profiles": ["1g.10gb", "1c.3g.40gb"], "why": "x"},)"
      R"({"gpus": [4, 5], "whole": true}]})";
  const auto path = std::filesystem::temp_directory_path() /
                    ("gpuspec-mig-layout-" + std::to_string(::getpid()) + ".json");
  const auto load = [&](const std::string& text) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    try {
      auto r = load_expectations(path, expectations{});
      if (!r) {
        EXPECT_NE(r.error().to_string().find(path.string()), std::string::npos)
            << r.error().to_string();
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << "threw on " << text << ": " << e.what();
    }
  };
  for (std::size_t n = 0; n <= valid.size(); ++n)
    load(valid.substr(0, n));
  std::uint64_t state = 0x5eed;
  const auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::size_t>(state >> 33);
  };
  constexpr std::string_view alphabet = "{}[]\",:0123456789-.aegbcw truefalsn";
  for (int i = 0; i < 3000; ++i) {
    std::string text = valid;
    for (int edits = 1 + static_cast<int>(next() % 3); edits > 0; --edits) {
      const std::size_t at = next() % text.size();
      const char c = alphabet[next() % alphabet.size()];
      switch (next() % 3) {
      case 0:
        text[at] = c;
        break;
      case 1:
        text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c);
        break;
      default:
        text.erase(at, 1);
      }
    }
    load(text);
  }
  std::filesystem::remove(path);
}

TEST(MigLayoutRules, TheShippedRulesDeclareNoLayout) {
  EXPECT_TRUE(shipped_rules().mig_layouts.empty());
}

} // namespace
