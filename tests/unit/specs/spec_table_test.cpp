// The spec table loader: the shipped specs/gpus.json, every kind of bad table (each rejected at
// its field, never a crash), the device matcher, and random mutations of a valid table.

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gpuspec/reports/model/spec_table.hpp"

namespace gr = gpuspec::reports;
namespace fs = std::filesystem;

namespace {

const fs::path fixtures = fs::path(GPUSPEC_FIXTURES_DIR) / "specs";

std::string read_all(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

gr::spec_table shipped() {
  auto loaded = gr::load_spec_table(GPUSPEC_SPECS_FILE);
  if (!loaded) {
    throw std::runtime_error(loaded.error().to_string());
  }
  return std::move(loaded).value();
}

} // namespace

TEST(ShippedSpecTable, LoadsWithEveryModelTheIssueNames) {
  const auto loaded = gr::load_spec_table(GPUSPEC_SPECS_FILE);
  ASSERT_TRUE(loaded) << loaded.error().to_string();
  const auto& table = loaded.value();
  for (const char* id : {"t4",
                         "v100-sxm2-16gb",
                         "v100-sxm2-32gb",
                         "v100-pcie-16gb",
                         "a10",
                         "a30",
                         "a40",
                         "a100-sxm4-40gb",
                         "a100-sxm4-80gb",
                         "a100-pcie-40gb",
                         "a100-pcie-80gb",
                         "l4",
                         "l40s",
                         "rtx-a6000",
                         "rtx-6000-ada",
                         "h100-sxm5-80gb",
                         "h100-pcie-80gb",
                         "h100-nvl-94gb",
                         "h200-sxm-141gb",
                         "h200-nvl-141gb",
                         "b200-sxm-180gb",
                         "gb200-nvl72",
                         "b300-sxm6",
                         "gb300-nvl72",
                         "rtx-pro-6000-bw-server",
                         "h20",
                         "h800-sxm5-80gb",
                         "a800-sxm4-80gb",
                         "l20",
                         "l40",
                         "geforce-rtx-4090",
                         "geforce-rtx-5090"}) {
    EXPECT_NE(table.find(id), nullptr) << id;
  }
}

TEST(ShippedSpecTable, EveryRowNamesItsSourcesAndIsMatchable) {
  for (const auto& row : shipped().rows) {
    // A row states the figures an NVIDIA document gives, each group with its document; a row
    // that states none (identity only: H20, B300, ...) says why in its notes.
    EXPECT_EQ(row.sources.contains("peaks"), !row.peaks.empty()) << row.id;
    EXPECT_EQ(row.sources.contains("memory"), row.memory_bandwidth_gbs > 0) << row.id;
    EXPECT_TRUE(row.sources.contains("ids")) << row.id;
    for (const auto& [group, doc] : row.sources) {
      EXPECT_NE(doc.find("https://"), std::string::npos) << row.id << " " << group;
    }
    EXPECT_FALSE(row.pci_device_ids.empty()) << row.id;
    EXPECT_FALSE(row.match_names.empty()) << row.id;
    if (row.peaks.empty()) {
      EXPECT_NE(row.notes.find("no NVIDIA"), std::string::npos) << row.id;
    } else {
      EXPECT_TRUE(row.peaks.contains("fp32")) << row.id;
    }
  }
}

TEST(ShippedSpecTable, RtxSixThousandAdaIsNotTheSeedArticlesRow) {
  // The seed article's "RTX 6000" row says 82.6 TFLOPS FP32 and GDDR6X (RTX 4090 figures).
  const auto table = shipped();
  const auto* row = table.find("rtx-6000-ada");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->memory_type, "GDDR6");
  EXPECT_DOUBLE_EQ(row->peaks.at("fp32"), 91.1);
  EXPECT_DOUBLE_EQ(row->memory_gib, 48);
}

struct bad_case {
  const char* file;
  const char* field;   ///< expected field path; "" for a document-level error
  const char* message; ///< a fragment of the message
};

class BadSpecTable : public ::testing::TestWithParam<bad_case> {};

TEST_P(BadSpecTable, IsRejectedAtItsField) {
  const auto& c = GetParam();
  const fs::path file = fixtures / c.file;
  const auto loaded = gr::load_spec_table(file);
  ASSERT_FALSE(loaded) << c.file << " loaded";
  EXPECT_EQ(loaded.error().file, file.string());
  EXPECT_EQ(loaded.error().field, c.field) << loaded.error().to_string();
  EXPECT_NE(loaded.error().message.find(c.message), std::string::npos)
      << loaded.error().to_string();
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, BadSpecTable,
    ::testing::Values(bad_case{"duplicate_id.json", "rows[1].id", "duplicate id"},
                      bad_case{"negative_rate.json", "rows[1].peaks.fp16_tc", "negative"},
                      bad_case{"missing_field.json", "rows[0].sm_count", "missing"},
                      bad_case{"wrong_type.json", "rows[0].memory.bandwidth_gbs",
                               "expected a number, got a string"},
                      bad_case{"unknown_peak_key.json", "rows[0].peaks.fp16_sparse",
                               "unknown peak key"},
                      bad_case{"truncated.json", "", "not valid JSON"}));

TEST(SpecTableLoader, ValidMinimalFixtureLoads) {
  const auto loaded = gr::load_spec_table(fixtures / "valid_minimal.json");
  ASSERT_TRUE(loaded) << loaded.error().to_string();
  ASSERT_EQ(loaded.value().rows.size(), 1U);
  const auto& row = loaded.value().rows[0];
  EXPECT_EQ(row.pci_device_ids, std::vector<std::uint32_t>{0x1234});
  EXPECT_EQ(row.cc_major, 8);
  EXPECT_EQ(row.cc_minor, 0);
  EXPECT_EQ(row.memory_clock_mhz, 1215.0);
}

TEST(SpecTableLoader, DocumentLevelProblems) {
  EXPECT_EQ(gr::load_spec_table(fixtures / "no-such-file.json").error().message,
            "cannot open: No such file or directory");
  EXPECT_NE(gr::load_spec_table(fixtures).error().message.find("folder"), std::string::npos);
  EXPECT_NE(gr::parse_spec_table_text("", "x.json").error().message.find("empty"),
            std::string::npos);
  const auto dup = gr::parse_spec_table_text(R"({"schema": "a", "schema": "b", "rows": []})", "x");
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().field, "schema");
  const auto schema = gr::parse_spec_table_text(R"({"schema": "other", "rows": []})", "x");
  ASSERT_FALSE(schema);
  EXPECT_EQ(schema.error().field, "schema");
  const auto top = gr::parse_spec_table_text("[1, 2]", "x");
  ASSERT_FALSE(top);
  EXPECT_EQ(top.error().to_string(), "x: (document): expected an object, got an array");
}

TEST(SpecTableLoader, RejectsDuplicatePciIdsAndBadIdsAndNonFiniteRates) {
  auto j = nlohmann::ordered_json::parse(read_all(fixtures / "valid_minimal.json"));
  auto second = j["rows"][0];
  second["id"] = "other";
  second["match_names"] = {"Other"};
  j["rows"].push_back(second);
  auto r = gr::parse_spec_table(j, "t.json");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "rows[1].pci_device_ids[0]");

  j = nlohmann::ordered_json::parse(read_all(fixtures / "valid_minimal.json"));
  j["rows"][0]["pci_device_ids"][0] = "2330";
  EXPECT_EQ(gr::parse_spec_table(j, "t").error().field, "rows[0].pci_device_ids[0]");

  j = nlohmann::ordered_json::parse(read_all(fixtures / "valid_minimal.json"));
  j["rows"][0]["peaks"]["fp32"] = std::numeric_limits<double>::infinity();
  EXPECT_EQ(gr::parse_spec_table(j, "t").error().field, "rows[0].peaks.fp32");

  j = nlohmann::ordered_json::parse(read_all(fixtures / "valid_minimal.json"));
  j["rows"][0]["compute_capability"] = "8";
  EXPECT_EQ(gr::parse_spec_table(j, "t").error().field, "rows[0].compute_capability");

  j = nlohmann::ordered_json::parse(read_all(fixtures / "valid_minimal.json"));
  j["rows"][0]["memory"].erase("transfers_per_clock");
  EXPECT_EQ(gr::parse_spec_table(j, "t").error().field, "rows[0].memory.transfers_per_clock");

  j = nlohmann::ordered_json::parse(read_all(fixtures / "valid_minimal.json"));
  j["rows"][0]["surprise"] = 1;
  EXPECT_EQ(gr::parse_spec_table(j, "t").error().field, "rows[0].surprise");
}

TEST(SpecTableLoader, HostInterconnectIsNvlinkC2cWithItsSourceOrRejected) {
  auto j = nlohmann::ordered_json::parse(read_all(fixtures / "valid_minimal.json"));
  j["rows"][0]["host_interconnect"] = "nvlink-c2c";
  auto r = gr::parse_spec_table(j, "t.json");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "rows[0].sources");
  EXPECT_NE(r.error().message.find("sources.host_interconnect"), std::string::npos);

  j["rows"][0]["sources"]["host_interconnect"] = "a document, https://example.invalid";
  r = gr::parse_spec_table(j, "t.json");
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r.value().rows[0].host_interconnect, gr::host_interconnect_c2c);

  j["rows"][0]["host_interconnect"] = "pcie";
  r = gr::parse_spec_table(j, "t.json");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "rows[0].host_interconnect");
}

TEST(ShippedSpecTable, TheGraceGpusAreAttachedByNvlinkC2cWithASource) {
  const auto table = shipped();
  for (const char* id : {"gb200-nvl72", "gb300-nvl72"}) {
    const auto* row = table.find(id);
    ASSERT_NE(row, nullptr) << id;
    EXPECT_EQ(row->host_interconnect, gr::host_interconnect_c2c) << id;
    EXPECT_NE(row->sources.at("host_interconnect").find("https://"), std::string::npos) << id;
  }
  EXPECT_EQ(table.find("b200-sxm-180gb")->host_interconnect, "");
}

TEST(MatchDevice, ByPciIdThenByNameThenNone) {
  const auto table = shipped();
  gr::device_info d;
  d.pci_device_id = 0x2330;
  d.name = "something else";
  const auto* by_id = gr::match_device(table, d);
  ASSERT_NE(by_id, nullptr);
  EXPECT_EQ(by_id->id, "h100-sxm5-80gb");

  d.pci_device_id = 0x20B2;
  d.name = "Tesla T4"; // the id wins over the name
  EXPECT_EQ(gr::match_device(table, d)->id, "a100-sxm4-80gb");

  d.pci_device_id.reset();
  d.name = "tesla t4"; // case-insensitive
  ASSERT_NE(gr::match_device(table, d), nullptr);
  EXPECT_EQ(gr::match_device(table, d)->id, "t4");

  d.pci_device_id = 0xFFFF; // unknown id, known name
  d.name = "NVIDIA H200";
  EXPECT_EQ(gr::match_device(table, d)->id, "h200-sxm-141gb");

  d.name = "NVIDIA GeForce RTX 3090";
  EXPECT_EQ(gr::match_device(table, d), nullptr);
  d.name.clear();
  d.pci_device_id.reset();
  EXPECT_EQ(gr::match_device(table, d), nullptr);
}

TEST(SpecTableLoader, DefaultPathHonoursTheEnvironment) {
  ::unsetenv("GPUSPEC_SPECS");
  EXPECT_EQ(gr::default_spec_table_path("/src/specs"), fs::path("/src/specs/gpus.json"));
  ::setenv("GPUSPEC_SPECS", "/elsewhere/mine.json", 1);
  EXPECT_EQ(gr::default_spec_table_path("/src/specs"), fs::path("/elsewhere/mine.json"));
  ::unsetenv("GPUSPEC_SPECS");
}

// Property: any mutation of a valid table either loads or is rejected with a field path or a
// document-level message; the loader never throws and never crashes.
TEST(SpecTableLoaderProperty, RandomMutationsNeverCrash) {
  const std::string text = read_all(GPUSPEC_SPECS_FILE);
  const auto base = nlohmann::ordered_json::parse(text);
  std::mt19937 rng(20261130);
  const std::vector<nlohmann::ordered_json> replacements = {nullptr,
                                                            -1,
                                                            0,
                                                            1.5,
                                                            "text",
                                                            "",
                                                            true,
                                                            nlohmann::ordered_json::array(),
                                                            nlohmann::ordered_json::object(),
                                                            1e308,
                                                            -0.0,
                                                            4294967296LL,
                                                            "0x2330"};
  int loaded = 0, rejected = 0;
  for (int i = 0; i < 600; ++i) {
    if (i % 3 == 0) {
      // Byte-level: flip, delete or truncate.
      std::string t = text;
      std::uniform_int_distribution<std::size_t> pos(0, t.size() - 1);
      switch (rng() % 3) {
      case 0:
        t[pos(rng)] = static_cast<char>(rng() % 128);
        break;
      case 1:
        t.erase(pos(rng), 1 + rng() % 8);
        break;
      default:
        t.resize(pos(rng));
      }
      const auto r = gr::parse_spec_table_text(t, "m.json");
      if (r) {
        ++loaded;
      } else {
        ++rejected;
        EXPECT_EQ(r.error().file, "m.json");
        EXPECT_FALSE(r.error().field.empty() && r.error().message.empty());
      }
      continue;
    }
    // Structural: replace or remove one value somewhere in a random row.
    auto j = base;
    auto& row = j["rows"][rng() % j["rows"].size()];
    std::vector<nlohmann::ordered_json*> nodes;
    std::function<void(nlohmann::ordered_json&)> collect = [&](nlohmann::ordered_json& n) {
      nodes.push_back(&n);
      if (n.is_structured()) {
        for (auto& child : n) {
          collect(child);
        }
      }
    };
    collect(row);
    auto* target = nodes[rng() % nodes.size()];
    if (rng() % 4 == 0 && target->is_object() && !target->empty()) {
      target->erase(target->begin());
    } else {
      *target = replacements[rng() % replacements.size()];
    }
    const auto r = gr::parse_spec_table(j, "m.json");
    if (r) {
      ++loaded;
    } else {
      ++rejected;
      EXPECT_FALSE(r.error().field.empty()) << r.error().to_string();
      EXPECT_FALSE(r.error().message.empty());
    }
  }
  EXPECT_GT(rejected, 100);
  EXPECT_EQ(loaded + rejected, 600);
}

// Issue 19.3: a model never takes a sibling's row. Each device as NVML and the PCI bus report it
// (names from NVIDIA's open-gpu-kernel-modules README, ids from the PCI ID Repository), by id
// and name, by name alone and by id alone, lands on its own row; the sibling lands on its own
// row or, where the table has none, on no row.
TEST(MatchDevice, AModelNeverTakesASiblingsRow) {
  const auto table = shipped();
  struct device_case {
    const char* nvml_name;
    std::uint32_t pci_id;
    const char* row; ///< nullptr: no row
  };
  const device_case cases[] = {
      {"NVIDIA L40", 0x26B5, "l40"},
      {"NVIDIA L40S", 0x26B9, "l40s"},
      {"NVIDIA H800", 0x2324, "h800-sxm5-80gb"},
      {"NVIDIA H800 PCIe", 0x2322, nullptr},
      {"NVIDIA H100 80GB HBM3", 0x2330, "h100-sxm5-80gb"},
      {"NVIDIA H20", 0x2329, "h20"},
      {"NVIDIA H20-3e", 0x232C, nullptr},
      {"NVIDIA A800-SXM4-80GB", 0x20F3, "a800-sxm4-80gb"},
      {"NVIDIA A800 80GB PCIe", 0x20F5, nullptr},
      {"NVIDIA A100-SXM4-80GB", 0x20B2, "a100-sxm4-80gb"},
      {"NVIDIA RTX PRO 6000 Blackwell Server Edition", 0x2BB5, "rtx-pro-6000-bw-server"},
      {"NVIDIA RTX PRO 6000 Blackwell Workstation Edition", 0x2BB1, nullptr},
      {"NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", 0x2BB4, nullptr},
      {"NVIDIA B200", 0x2901, "b200-sxm-180gb"},
      {"NVIDIA B300 SXM6 AC", 0x3182, "b300-sxm6"},
      {"NVIDIA GB200", 0x2941, "gb200-nvl72"},
      {"NVIDIA GB300", 0x31C2, "gb300-nvl72"},
      {"NVIDIA L20", 0x26BA, "l20"},
      {"NVIDIA GeForce RTX 4090", 0x2684, "geforce-rtx-4090"},
      {"NVIDIA GeForce RTX 4090 D", 0x2685, nullptr},
      {"NVIDIA GeForce RTX 5090", 0x2B85, "geforce-rtx-5090"},
      {"NVIDIA GeForce RTX 5090 D", 0x2B87, nullptr},
  };
  for (const auto& c : cases) {
    for (int how = 0; how < 3; ++how) { // id and name, name alone, id alone
      gr::device_info d;
      if (how != 1)
        d.pci_device_id = c.pci_id;
      if (how != 2)
        d.name = c.nvml_name;
      const auto* row = gr::match_device(table, d);
      const std::string got = row == nullptr ? "(none)" : row->id;
      EXPECT_EQ(got, c.row == nullptr ? "(none)" : c.row) << c.nvml_name << " how=" << how;
    }
  }
  // The ones whose figures differ from the sibling they are mistaken for.
  const auto* l40 = table.find("l40");
  const auto* l40s = table.find("l40s");
  EXPECT_LT(l40->peaks.at("fp16_tc"), 0.51 * l40s->peaks.at("fp16_tc"));
  EXPECT_FALSE(table.find("h800-sxm5-80gb")->nvlink_gbs); // not H100's 900 GB/s
  EXPECT_FALSE(table.find("a800-sxm4-80gb")->nvlink_gbs); // not A100's 600 GB/s
  EXPECT_TRUE(table.find("h20")->peaks.empty());          // not H100's Tensor Cores
}

TEST(MatchDevice, ASiblingsRowIdCarriedByTheReportNeverWinsOverTheIdentity) {
  const auto table = shipped();
  struct carried_case {
    const char* nvml_name;
    std::uint32_t pci_id;
    const char* carried; ///< the row id a looser or older table wrote
    const char* row;     ///< the row spec_of must give
  };
  const carried_case cases[] = {
      {"NVIDIA H20", 0x2329, "h100-sxm5-80gb", "h20"},
      {"NVIDIA H800", 0x2324, "h100-sxm5-80gb", "h800-sxm5-80gb"},
      {"NVIDIA L40", 0x26B5, "l40s", "l40"},
      {"NVIDIA A800-SXM4-80GB", 0x20F3, "a100-sxm4-80gb", "a800-sxm4-80gb"},
      // The carried id stands where it fits the identity, or where no row knows the GPU.
      {"NVIDIA L40S", 0x26B9, "l40s", "l40s"},
      {"Synthetic GPU", 0, "h200-sxm-141gb", "h200-sxm-141gb"},
  };
  for (const auto& c : cases) {
    gr::device_info d;
    d.name = c.nvml_name;
    if (c.pci_id != 0)
      d.pci_device_id = c.pci_id;
    d.spec_id = c.carried;
    const auto* row = gr::spec_of(table, d);
    ASSERT_NE(row, nullptr) << c.nvml_name;
    EXPECT_EQ(row->id, c.row) << c.nvml_name << " carried as " << c.carried;
  }
  // And an H800 so taken has no NVLink figure: never H100's 900 GB/s.
  gr::device_info h800;
  h800.name = "NVIDIA H800";
  h800.pci_device_id = 0x2324;
  h800.spec_id = "h100-sxm5-80gb";
  EXPECT_FALSE(gr::spec_of(table, h800)->nvlink_gbs);
}

TEST(ShippedSpecTable, TheH20IsKeptOffTheHopperRates) {
  const auto table = shipped();
  EXPECT_FALSE(table.find("h20")->arch_rates_apply);
  EXPECT_TRUE(table.find("h100-sxm5-80gb")->arch_rates_apply);
  auto bad = nlohmann::ordered_json::parse(R"({"schema": "gpuspec.specs.v1", "rows": [
    {"id": "x", "name": "X", "match_names": ["X"], "pci_device_ids": ["0x0001"],
     "architecture": "hopper", "compute_capability": "9.0", "sm_count": 78,
     "arch_rates_apply": "no", "sources": {"ids": "https://pci-ids.ucw.cz"}}]})");
  const auto loaded = gr::parse_spec_table(bad, "bad.json");
  ASSERT_FALSE(loaded);
  EXPECT_NE(loaded.error().to_string().find("rows[0].arch_rates_apply"), std::string::npos)
      << loaded.error().to_string();
  bad["rows"][0]["arch_rates_apply"] = false;
  ASSERT_TRUE(gr::parse_spec_table(bad, "ok.json"));
}
