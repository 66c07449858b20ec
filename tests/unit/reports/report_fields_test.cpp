// Each struct's fields are listed once (report_fields.hpp); the writer, the reader and the
// JSON Schema are held to that list here, so a field added to one and not the others fails.

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpuspec/reports/model/report_fields.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/units.hpp"
#include "sample_reports.hpp"

namespace gpuspec::reports {
namespace {

using json = nlohmann::ordered_json;

/// The minor version this build writes (v1.2).
constexpr int current_minor = 2;

/// Where each object sits in a written report (its first instance), as a JSON pointer.
struct object_path {
  std::string_view object;
  std::string_view pointer;
};
constexpr object_path paths[] = {
    {"report", ""},
    {"run_info", "/run"},
    {"host_info", "/host"},
    {"host_check", "/host/checks/0"},
    {"topology_info", "/host/topology"},
    {"gpu_topology", "/host/topology/gpus/0"},
    {"nvlink_port", "/host/topology/gpus/0/nvlinks/0"},
    {"gpu_pair", "/host/topology/pairs/0"},
    {"device_info", "/devices/0"},
    {"pcie_link", "/devices/0/pcie"},
    {"result", "/results/0"},
    {"sample_stats", "/results/0/stats"},
    {"ceiling", "/results/0/ceiling"},
    {"verification", "/results/0/verification"},
    {"telemetry_summary", "/results/0/telemetry"},
};
/// The burn-in objects, in testing::burnin_report() (its result 0 has every one of them).
constexpr object_path burnin_paths[] = {
    {"burnin_record", "/results/0/burnin"},
    {"burnin_gemm", "/results/0/burnin/gemm"},
    {"burnin_memtest", "/results/0/burnin/memtest"},
    {"burnin_interval", "/results/0/burnin/intervals/0"},
    {"burnin_mismatch", "/results/0/burnin/gemm/mismatches/0"},
    {"burnin_bad_word", "/results/1/burnin/memtest/bad/0"},
    {"burnin_sample", "/results/0/burnin/event_samples/0"},
    {"gpu_event", "/results/0/events/0"},
    // Not a burn-in object, but testing::burnin_report() holds it too: a GPU that was busy.
    {"gpu_activity", "/devices/0/activity"},
    {"gpu_process", "/devices/0/activity/processes/0"},
    {"c2c_link", "/devices/0/c2c"},
};

/// The multi-node objects, in testing::multi_node_report().
constexpr object_path multi_node_paths[] = {
    {"network_port", "/host/network_ports/0"},
    {"node_inventory", "/nodes/0"},
    {"gpu_fabric", "/devices/0/fabric"},
    // Not a multi-node object, but testing::multi_node_report() holds it: the build's.
    {"build_info", "/run/build"},
    {"built_against", "/run/build/built_against"},
};

/// The MIG objects, in testing::mig_report().
constexpr object_path mig_paths[] = {
    {"mig_instance", "/devices/0/mig_instances/0"},
    {"mig_ref", "/results/0/mig"},
};

/// The object of an imported report (gpuspec import): testing::synthetic_report() with a source.
constexpr object_path imported_paths[] = {
    {"run_source", "/run/source"},
};

report imported_sample() {
  report r = testing::synthetic_report();
  r.run.backend = "imported";
  r.run.source = run_source{
      "nccl-tests", "NCCL 2.21.5", "a.log", std::string(64, 'a'), {"the log has no telemetry"},
      false};
  return r;
}

std::vector<std::string> keys(const json& j) {
  std::vector<std::string> out;
  for (auto it = j.begin(); it != j.end(); ++it)
    out.push_back(it.key());
  return out;
}

/// The listed keys of `object` up to a minor version; the optional ones (written only when they
/// have a value: a result's `burnin`) only with `with_optional`.
std::vector<std::string> listed(std::string_view object, int up_to_minor, int only_minor = -1,
                                bool with_optional = false) {
  std::vector<std::string> out;
  for (const auto& f : report_fields_of(object))
    if (f.since_minor <= up_to_minor && (only_minor < 0 || f.since_minor == only_minor) &&
        (with_optional || !f.optional))
      out.emplace_back(f.key);
  return out;
}

/// The keys version 1.1 added that a v1.1 document must hold (the others may be absent).
std::vector<std::string> required_added(std::string_view object) {
  std::vector<std::string> out;
  for (const auto& f : report_fields_of(object))
    if (f.since_minor == 1 && !f.optional)
      out.emplace_back(f.key);
  return out;
}

bool may_be_absent(std::string_view object, std::string_view key) {
  for (const auto& f : report_fields_of(object))
    if (f.key == key)
      return f.optional;
  return false;
}

json schema() {
  std::ifstream in(GPUSPEC_REPORT_SCHEMA_PATH);
  return json::parse(in);
}

/// The reader refuses the report `good` without any one of the listed keys of the object at `p`,
/// and with a key it does not list, naming that key.
void expect_the_reader_needs_every_key_and_no_other(const json& good, const object_path& p) {
  SCOPED_TRACE(std::string(p.object));
  for (const auto& key : listed(p.object, current_minor)) {
    SCOPED_TRACE(key);
    json j = good;
    j.at(json::json_pointer(std::string(p.pointer))).erase(key);
    const auto loaded = report_from_json(j, "missing.json");
    ASSERT_FALSE(loaded);
    EXPECT_TRUE(loaded.error().field.ends_with(key)) << loaded.error().field;
  }
  json j = good;
  j.at(json::json_pointer(std::string(p.pointer)))["not_a_field"] = 1;
  const auto loaded = report_from_json(j, "extra.json");
  ASSERT_FALSE(loaded) << p.object;
  EXPECT_TRUE(loaded.error().field.ends_with("not_a_field")) << loaded.error().field;
}

/// The object at `p` in the written report `good` holds exactly its listed keys, as the schema's
/// definition of it requires (and nothing else); the reader refuses it without any one of them,
/// and with a key it does not list, naming that key.
void expect_written_read_and_in_the_schema(const json& good, const object_path& p) {
  SCOPED_TRACE(std::string(p.object));
  const json s = schema();
  EXPECT_EQ(keys(good.at(json::json_pointer(std::string(p.pointer)))),
            listed(p.object, current_minor));
  const json& def = s.at("$defs").at(std::string(p.object));
  EXPECT_EQ(keys(def.at("properties")), listed(p.object, current_minor));
  EXPECT_EQ(def.at("required").get<std::vector<std::string>>(), listed(p.object, current_minor));
  EXPECT_FALSE(def.at("additionalProperties").get<bool>());
  expect_the_reader_needs_every_key_and_no_other(good, p);
}

TEST(ReportFields, EveryObjectIsListedWithItsPath) {
  std::set<std::string_view> named;
  for (const auto& o : report_objects())
    named.insert(o.name);
  std::set<std::string_view> with_path;
  for (const auto& p : paths)
    with_path.insert(p.object);
  for (const auto& p : burnin_paths)
    with_path.insert(p.object);
  for (const auto& p : multi_node_paths)
    with_path.insert(p.object);
  for (const auto& p : imported_paths)
    with_path.insert(p.object);
  for (const auto& p : mig_paths)
    with_path.insert(p.object);
  EXPECT_EQ(named, with_path);
}

TEST(ReportFields, TheImportedSourceIsWrittenReadAndInTheSchema) {
  const json good = to_json(imported_sample());
  const auto back = report_from_json(good, "good.json");
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(back.value(), imported_sample());
  for (const auto& p : imported_paths)
    expect_written_read_and_in_the_schema(good, p);
  // Absent is every report gpuspec measured; null is not how a writer says so.
  json null_source = good;
  null_source.at("/run"_json_pointer)["source"] = nullptr;
  EXPECT_FALSE(report_from_json(null_source, "null.json"));
}

TEST(ReportFields, TheMultiNodeObjectsAreWrittenReadAndInTheSchema) {
  const json good = to_json(testing::multi_node_report());
  const auto back = report_from_json(good, "good.json");
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(back.value(), testing::multi_node_report());
  EXPECT_EQ(keys(good), listed("report", 1, -1, true));
  EXPECT_EQ(keys(good.at("/host"_json_pointer)), listed("host_info", 1, -1, true));
  for (const auto& p : multi_node_paths)
    expect_written_read_and_in_the_schema(good, p);
  // Absent is a one-node report, or a host whose ports were not read; empty nodes is not how a
  // writer says so, and null is neither.
  json one = good;
  one.erase("nodes");
  one.at("/host"_json_pointer).erase("network_ports");
  const auto one_node = report_from_json(one, "one.json");
  ASSERT_TRUE(one_node) << one_node.error().to_string();
  EXPECT_TRUE(one_node.value().nodes.empty());
  EXPECT_FALSE(one_node.value().host.network_ports);
  json empty = good;
  empty["nodes"] = json::array();
  EXPECT_FALSE(report_from_json(empty, "empty.json"));
  json null_ports = good;
  null_ports.at("/host"_json_pointer)["network_ports"] = nullptr;
  EXPECT_FALSE(report_from_json(null_ports, "null.json"));
}

TEST(ReportFields, TheMigObjectsAreWrittenReadAndInTheSchema) {
  const json good = to_json(testing::mig_report());
  const auto back = report_from_json(good, "good.json");
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(back.value(), testing::mig_report());
  EXPECT_EQ(good.at("schema"), "gpuspec.report.v1.2");
  // A whole-GPU report is still written as v1.1, which v1.1's readers read.
  EXPECT_EQ(to_json(testing::synthetic_report()).at("schema"), "gpuspec.report.v1.1");
  for (const auto& p : mig_paths)
    expect_written_read_and_in_the_schema(good, p);
  // A whole GPU's report leaves every MIG key out; an empty list and null are not how a writer
  // says so.
  const json whole = to_json(testing::synthetic_report());
  EXPECT_FALSE(whole.at("/devices/0"_json_pointer).contains("mig_instances"));
  EXPECT_FALSE(whole.at("/results/0"_json_pointer).contains("mig"));
  json empty = good;
  empty.at("/devices/0"_json_pointer)["mig_instances"] = json::array();
  EXPECT_FALSE(report_from_json(empty, "empty.json"));
  json null_ref = good;
  null_ref.at("/results/0"_json_pointer)["mig"] = nullptr;
  EXPECT_FALSE(report_from_json(null_ref, "null.json"));
}

TEST(ReportFields, AVersionOnePointOneDocumentHoldsNoneOfTheKeysVersionOnePointTwoAdded) {
  json j = to_json(testing::mig_report());
  j["schema"] = "gpuspec.report.v1.1";
  for (const char* pointer :
       {"/devices/0/mig_mode_pending", "/devices/0/mig_memory_slices", "/devices/0/mig_instances",
        "/results/0/mig", "/results/0/ceiling/mig_fraction"}) {
    SCOPED_TRACE(pointer);
    const auto loaded = report_from_json(j, "v1.1.json");
    ASSERT_FALSE(loaded);
    json::json_pointer p(pointer);
    EXPECT_TRUE(loaded.error().field.ends_with(p.back())) << loaded.error().field;
    j.at(p.parent_pointer()).erase(p.back());
  }
  const auto without = report_from_json(j, "v1.1.json");
  ASSERT_TRUE(without) << without.error().to_string();
  EXPECT_TRUE(without.value().devices.at(0).mig_instances.empty());
}

/// The listed keys of `object` the writer writes into `written`: every key, and an optional one
/// (report_fields.hpp) only where it has a value.
std::vector<std::string> listed_as_written(std::string_view object, const json& written) {
  std::vector<std::string> out;
  for (const auto& f : report_fields_of(object))
    if (!f.optional || written.contains(std::string(f.key)))
      out.emplace_back(f.key);
  return out;
}

TEST(ReportFields, TheWriterWritesTheListInItsOrder) {
  const json j = to_json(testing::synthetic_report());
  for (const auto& p : paths) {
    SCOPED_TRACE(std::string(p.object));
    const json& written = j.at(json::json_pointer(std::string(p.pointer)));
    EXPECT_EQ(keys(written), listed_as_written(p.object, written));
  }
}

TEST(ReportFields, TheWriterWritesTheBurnInObjectsInTheirOrder) {
  const json j = to_json(testing::burnin_report());
  EXPECT_EQ(keys(j.at("/results/0"_json_pointer)), listed("result", 1, -1, true));
  for (const auto& p : burnin_paths) {
    SCOPED_TRACE(std::string(p.object));
    const json& written = j.at(json::json_pointer(std::string(p.pointer)));
    EXPECT_EQ(keys(written), listed_as_written(p.object, written));
  }
}

TEST(ReportFields, TheReaderNeedsEveryBurnInKeyAndNoOther) {
  const json good = to_json(testing::burnin_report());
  ASSERT_TRUE(report_from_json(good, "good.json"));
  for (const auto& p : burnin_paths)
    expect_the_reader_needs_every_key_and_no_other(good, p);
  // A result without it is a result that is not a burn-in's.
  json j = good;
  j.at("/results/0"_json_pointer).erase("burnin");
  const auto loaded = report_from_json(j, "no-burnin.json");
  ASSERT_TRUE(loaded) << loaded.error().to_string();
  EXPECT_FALSE(loaded.value().results[0].burnin);
}

TEST(ReportFields, TheSchemaListsTheBurnInObjects) {
  const json s = schema();
  EXPECT_EQ(keys(s.at("$defs").at("result").at("properties")),
            listed("result", current_minor, -1, true));
  for (const auto& p : burnin_paths) {
    SCOPED_TRACE(std::string(p.object));
    const json& def = s.at("$defs").at(std::string(p.object));
    EXPECT_EQ(keys(def.at("properties")), listed(p.object, current_minor, -1, true));
    EXPECT_EQ(def.at("required").get<std::vector<std::string>>(), listed(p.object, 1));
    EXPECT_FALSE(def.at("additionalProperties").get<bool>());
  }
}

TEST(ReportFields, TheReaderNeedsEveryListedKeyAndNoOther) {
  const json good = to_json(testing::synthetic_report());
  ASSERT_TRUE(report_from_json(good, "good.json"));
  for (const auto& p : paths) {
    for (const auto& key : listed(p.object, current_minor)) {
      SCOPED_TRACE(std::string(p.object) + "." + key);
      json j = good;
      j.at(json::json_pointer(std::string(p.pointer))).erase(key);
      const auto loaded = report_from_json(j, "missing.json");
      if (may_be_absent(p.object, key)) {
        // Absent is allowed; null is not (absent is how a writer says "not probed").
        EXPECT_TRUE(loaded) << loaded.error().to_string();
        json n = good;
        n.at(json::json_pointer(std::string(p.pointer)))[key] = nullptr;
        const auto with_null = report_from_json(n, "null.json");
        ASSERT_FALSE(with_null);
        EXPECT_TRUE(with_null.error().field.ends_with(key)) << with_null.error().field;
        continue;
      }
      ASSERT_FALSE(loaded);
      EXPECT_NE(loaded.error().message.find("missing"), std::string::npos)
          << loaded.error().to_string();
      EXPECT_TRUE(loaded.error().field.ends_with(key)) << loaded.error().field;
    }
    json j = good;
    j.at(json::json_pointer(std::string(p.pointer)))["not_a_field"] = 1;
    const auto loaded = report_from_json(j, "extra.json");
    ASSERT_FALSE(loaded) << p.object;
    EXPECT_TRUE(loaded.error().field.ends_with("not_a_field")) << loaded.error().field;
  }
}

TEST(ReportFields, AVersionOneDocumentHoldsNoneOfTheKeysVersionOnePointOneAdded) {
  // The version 1 fixture has every object; each key v1.1 added, put into it, is rejected.
  json v1 = json::parse(std::ifstream(std::filesystem::path(GPUSPEC_FIXTURES_DIR) / "reports" /
                                      "v1" / "synthetic-two-gpus.json"));
  ASSERT_TRUE(report_from_json(v1, "v1.json"));
  for (const auto& p : paths) {
    if (!v1.contains(json::json_pointer(std::string(p.pointer))))
      continue; // an object version 1 did not have (host.topology's)
    for (const auto& key : listed(p.object, 1, 1, true)) {
      SCOPED_TRACE(std::string(p.object) + "." + key);
      json j = v1;
      j.at(json::json_pointer(std::string(p.pointer)))[key] = nullptr;
      const auto loaded = report_from_json(j, "v1.json");
      ASSERT_FALSE(loaded);
      EXPECT_TRUE(loaded.error().field.ends_with(key)) << loaded.error().field;
    }
  }
}

TEST(ReportFields, TheSchemaListsThePropertiesAndTheirVersions) {
  const json s = schema();
  for (const auto& p : paths) {
    SCOPED_TRACE(std::string(p.object));
    const json& def = p.object == "report" ? s : s.at("$defs").at(std::string(p.object));
    EXPECT_EQ(keys(def.at("properties")), listed(p.object, current_minor, -1, true));
    std::vector<std::string> required = def.at("required");
    EXPECT_EQ(required, listed(p.object, 0)) << "the keys of version 1 are required always";
    EXPECT_FALSE(def.at("additionalProperties").get<bool>());
  }
}

/// The keys a subtree of the schema marks "required" (inside a "then") or forbids (inside a
/// "not"), for the version 1.1 branch of the top-level allOf.
void collect_required(const json& j, std::set<std::string>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() == "required" && it.value().is_array())
        for (const auto& k : it.value())
          out.insert(k.get<std::string>());
      else
        collect_required(it.value(), out);
    }
  } else if (j.is_array()) {
    for (const auto& x : j)
      collect_required(x, out);
  }
}

TEST(ReportFields, TheSchemaRequiresTheAddedKeysInVersionOnePointOneAndForbidsThemInOne) {
  const json s = schema();
  const json& branch = s.at("allOf").at(0);
  ASSERT_EQ(branch.at("if").at("properties").at("schema").at("enum"),
            json::array({"gpuspec.report.v1.1", "gpuspec.report.v1.2"}));
  // Where each object with added keys sits in the branch.
  const std::pair<std::string_view, json::json_pointer> places[] = {
      {"run_info", json::json_pointer("/properties/run")},
      {"device_info", json::json_pointer("/properties/devices/items")},
      {"host_info", json::json_pointer("/properties/host")},
  };
  for (const auto& [object, where] : places) {
    SCOPED_TRACE(std::string(object));
    const json& then_object = branch.at("then").at(where);
    const std::vector<std::string> required =
        then_object.contains("required") ? then_object.at("required") : json::array();
    EXPECT_EQ(required, required_added(object));
    std::set<std::string> forbidden;
    collect_required(branch.at("else").at(where), forbidden);
    const auto added = listed(object, 1, 1, true);
    EXPECT_EQ(forbidden, std::set<std::string>(added.begin(), added.end()));
  }
  // A result's own added keys, and those of the objects inside it.
  const json& then_result = branch.at("then").at("properties").at("results").at("items");
  EXPECT_EQ(then_result.at("required").get<std::vector<std::string>>(), listed("result", 1, 1));
  for (const auto& [object, key] :
       {std::pair<std::string_view, std::string>{"telemetry_summary", "telemetry"},
        {"ceiling", "ceiling"}}) {
    SCOPED_TRACE(std::string(object));
    EXPECT_EQ(then_result.at("properties").at(key).at("required").get<std::vector<std::string>>(),
              listed(object, 1, 1));
  }
  std::set<std::string> forbidden;
  collect_required(branch.at("else").at("properties").at("results"), forbidden);
  std::set<std::string> added;
  for (const std::string_view object : {"result", "telemetry_summary", "ceiling"})
    for (const auto& k : listed(object, 1, 1, true))
      added.insert(k);
  EXPECT_EQ(forbidden, added);
  // The report's own: `nodes`, optional, forbidden in version 1.
  EXPECT_EQ(listed("report", 1, 1, true), std::vector<std::string>{"nodes"});
  std::set<std::string> top;
  collect_required(branch.at("else").at("not"), top);
  EXPECT_EQ(top, std::set<std::string>{"nodes"});
  // No other object gained a key in version 1.1.
  for (const std::string_view object : {"host_check", "pcie_link", "sample_stats", "verification",
                                        "topology_info", "gpu_topology", "nvlink_port", "gpu_pair"})
    EXPECT_TRUE(listed(object, 1, 1).empty()) << object;
}

TEST(ReportFields, TheSchemaKnowsEveryUnitAndNoOther) {
  const json s = schema();
  std::vector<std::string> symbols;
  for (int u = 0; u <= static_cast<int>(metric_unit::nanoseconds); ++u)
    symbols.emplace_back(to_string(static_cast<metric_unit>(u)));
  EXPECT_EQ(s.at("$defs").at("result").at("properties").at("unit").at("enum"), json(symbols));
}

} // namespace
} // namespace gpuspec::reports
