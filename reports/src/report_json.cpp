// JSON mapping of the report model (gpuspec.report.v1), strict loading with field paths, and
// atomic file writing. The schema in reports/schema/report.v1.schema.json describes the same
// mapping; tests validate what this file writes against it.
//
// Policy, in one place (report_json.hpp documents it for callers):
//  - every key is always written, in the order of the fields in report.hpp; an absent optional
//    is null; a `reading` is its integer or its status string;
//  - NaN and infinity are never written: to_json throws std::invalid_argument with the field
//    path, as it does for anything else report_from_json would reject, so whatever is written
//    loads again;
//  - loading is strict: every key required, no unknown keys, exact types; the first problem is
//    returned as an input_error naming the file and the field path ("results[3].stats.median").
//    Loading never throws on bad input: nlohmann's exceptions are caught and converted.

#include "gpuspec/reports/report_json.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "json_input.hpp"

namespace gpuspec::reports {
namespace {

using json = nlohmann::ordered_json;
using detail::fail;
using detail::field_failure;
using detail::index_path;
using detail::library_message;
using detail::member_path;
using detail::quote;

// ------------------------------------------------------------------------------------ names

template <class E, std::size_t N> using name_table = std::array<std::pair<E, std::string_view>, N>;

constexpr name_table<result_status, 4> result_status_names{{
    {result_status::ok, "ok"},
    {result_status::failed, "failed"},
    {result_status::skipped, "skipped"},
    {result_status::not_supported, "not_supported"},
}};
constexpr name_table<verification_status, 3> verification_status_names{{
    {verification_status::passed, "passed"},
    {verification_status::failed, "failed"},
    {verification_status::skipped, "skipped"},
}};
constexpr name_table<check_status, 4> check_status_names{{
    {check_status::pass, "pass"},
    {check_status::warn, "warn"},
    {check_status::fail, "fail"},
    {check_status::skipped, "skipped"},
}};

constexpr name_table<failure_kind, 8> failure_kind_names{{
    {failure_kind::none, "none"},
    {failure_kind::benchmark, "benchmark"},
    {failure_kind::verification, "verification"},
    {failure_kind::gpu_start, "gpu_start"},
    {failure_kind::worker_timeout, "worker_timeout"},
    {failure_kind::worker_signal, "worker_signal"},
    {failure_kind::worker_exit, "worker_exit"},
    {failure_kind::worker_protocol, "worker_protocol"},
}};

constexpr std::array<std::string_view, 4> backends{"cuda", "stand-in", "none", ""};

constexpr std::array<std::string_view, 3> cache_states{"cold", "hot", ""};
constexpr std::array<std::string_view, 5> stop_reasons{"cv_target", "stalled", "time_cap",
                                                       "sample_cap", ""};

constexpr std::string_view not_supported_text = "not supported";
constexpr std::string_view unavailable_prefix = "unavailable: ";

template <class E, std::size_t N> std::string_view name_of(const name_table<E, N>& table, E value) {
  for (const auto& [e, name] : table) {
    if (e == value) {
      return name;
    }
  }
  throw std::invalid_argument(
      fmt::format("enum value {} has no name in a report", static_cast<int>(value)));
}

template <class E, std::size_t N>
std::optional<E> value_of(const name_table<E, N>& table, std::string_view name) {
  for (const auto& [e, text] : table) {
    if (text == name) {
      return e;
    }
  }
  return std::nullopt;
}

template <class Range> std::string quoted_list(const Range& names) {
  std::string text;
  for (const auto& name : names) {
    if (!text.empty()) {
      text += ", ";
    }
    text += quote(name);
  }
  return text;
}

template <class E, std::size_t N> std::string quoted_names(const name_table<E, N>& table) {
  std::vector<std::string_view> names;
  for (const auto& entry : table) {
    names.push_back(entry.second);
  }
  return quoted_list(names);
}

template <std::size_t N>
bool is_one_of(std::string_view value, const std::array<std::string_view, N>& allowed) {
  return std::find(allowed.begin(), allowed.end(), value) != allowed.end();
}

/// "not supported", or "unavailable: <why>" with a non-empty single-line why (the schema's
/// pattern ^(not supported|unavailable: [^\r\n]+)$).
bool is_reading_status(std::string_view s) {
  if (s == not_supported_text) {
    return true;
  }
  if (!s.starts_with(unavailable_prefix) || s.size() == unavailable_prefix.size()) {
    return false;
  }
  return s.find_first_of("\r\n") == std::string_view::npos;
}

// ------------------------------------------------------------------------------------ paths

/// The path of the first NaN or infinity inside `j`, if any.
std::optional<std::string> find_non_finite(const json& j, const std::string& path) {
  if (j.is_number_float()) {
    if (!std::isfinite(j.get<double>())) {
      return path;
    }
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (auto found = find_non_finite(it.value(), member_path(path, it.key()))) {
        return found;
      }
    }
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) {
      if (auto found = find_non_finite(j[i], index_path(path, i))) {
        return found;
      }
    }
  }
  return std::nullopt;
}

// ------------------------------------------------------------------------------------ writing

[[noreturn]] void unwritable(const std::string& path, std::string_view why) {
  throw std::invalid_argument(fmt::format("cannot write report: {}: {}", path, why));
}

std::string non_finite_message(double v) {
  return fmt::format("{} is not finite; a report never holds NaN or infinity (use no value)", v);
}

json number(double v, const std::string& path) {
  if (!std::isfinite(v)) {
    unwritable(path, non_finite_message(v));
  }
  return v;
}

json number(const std::optional<double>& v, const std::string& path) {
  return v ? number(*v, path) : json(nullptr);
}

template <class T> json nullable(const std::optional<T>& v) { return v ? json(*v) : json(nullptr); }

json numbers(const std::vector<double>& values, const std::string& path) {
  json array = json::array();
  for (std::size_t i = 0; i < values.size(); ++i) {
    array.push_back(number(values[i], index_path(path, i)));
  }
  return array;
}

template <std::size_t N>
void require_one_of(const std::string& value, const std::array<std::string_view, N>& allowed,
                    const std::string& path) {
  if (!is_one_of(value, allowed)) {
    unwritable(path, fmt::format("{} is not one of {}", quote(value), quoted_list(allowed)));
  }
}

json reading_json(const reading& r, const std::string& path) {
  if (r.value) {
    if (!r.status.empty()) {
      unwritable(path, fmt::format("has both a value and the status {}", quote(r.status)));
    }
    return *r.value;
  }
  if (!is_reading_status(r.status)) {
    unwritable(path, fmt::format("no value, and the status {} is not \"not supported\" or "
                                 "\"unavailable: <why>\"",
                                 quote(r.status)));
  }
  return r.status;
}

json counters_json(const counter_set& counters, const std::string& path) {
  json j = json::object();
  for (const auto& [name, value] : counters) {
    j[name] = reading_json(value, member_path(path, name));
  }
  return j;
}

json run_json(const run_info& run) {
  require_one_of(run.backend, backends, "run.backend");
  json j = json::object();
  j["tool_version"] = run.tool_version;
  j["started_utc"] = run.started_utc;
  j["finished_utc"] = run.finished_utc;
  j["suite"] = run.suite;
  j["filter"] = run.filter;
  j["command_line"] = run.command_line;
  j["backend"] = run.backend;
  j["devices"] = run.devices;
  j["concurrency"] = nullable(run.concurrency);
  return j;
}

json check_json(const host_check& check) {
  json j = json::object();
  j["id"] = check.id;
  j["status"] = to_string(check.status);
  j["message"] = check.message;
  j["device"] = nullable(check.device);
  return j;
}

json host_json(const host_info& host) {
  json j = json::object();
  j["hostname"] = host.hostname;
  j["os"] = host.os;
  j["kernel"] = host.kernel;
  j["cpu_model"] = host.cpu_model;
  j["cpu_logical_cores"] = nullable(host.cpu_logical_cores);
  j["cpu_sockets"] = nullable(host.cpu_sockets);
  j["memory_bytes"] = nullable(host.memory_bytes);
  j["numa_nodes"] = nullable(host.numa_nodes);
  j["nouveau_loaded"] = nullable(host.nouveau_loaded);
  j["driver_version"] = host.driver_version;
  j["cuda_driver_version"] = host.cuda_driver_version;
  j["cuda_runtime_version"] = host.cuda_runtime_version;
  j["cublas_version"] = host.cublas_version;
  j["nccl_version"] = host.nccl_version;
  j["gpu_status"] = host.gpu_status;
  json checks = json::array();
  for (const host_check& check : host.checks) {
    checks.push_back(check_json(check));
  }
  j["checks"] = std::move(checks);
  return j;
}

json pcie_json(const pcie_link& link) {
  json j = json::object();
  j["gen_current"] = nullable(link.gen_current);
  j["gen_max"] = nullable(link.gen_max);
  j["width_current"] = nullable(link.width_current);
  j["width_max"] = nullable(link.width_max);
  return j;
}

json device_json(const device_info& d, const std::string& path) {
  const auto at = [&](std::string_view key) { return member_path(path, key); };
  json j = json::object();
  j["index"] = d.index;
  j["cuda_index"] = nullable(d.cuda_index);
  j["name"] = d.name;
  j["uuid"] = d.uuid;
  j["serial"] = d.serial;
  j["vbios"] = d.vbios;
  j["pci_bus_id"] = d.pci_bus_id;
  j["pci_device_id"] = nullable(d.pci_device_id);
  j["pci_subsystem_id"] = nullable(d.pci_subsystem_id);
  j["cc_major"] = nullable(d.cc_major);
  j["cc_minor"] = nullable(d.cc_minor);
  j["sm_count"] = nullable(d.sm_count);
  j["memory_bytes"] = nullable(d.memory_bytes);
  j["l2_bytes"] = nullable(d.l2_bytes);
  j["sm_clock_mhz"] = nullable(d.sm_clock_mhz);
  j["sm_clock_max_mhz"] = nullable(d.sm_clock_max_mhz);
  j["mem_clock_mhz"] = nullable(d.mem_clock_mhz);
  j["mem_clock_max_mhz"] = nullable(d.mem_clock_max_mhz);
  j["memory_bus_width_bits"] = nullable(d.memory_bus_width_bits);
  j["pcie"] = pcie_json(d.pcie);
  j["power_limit_w"] = number(d.power_limit_w, at("power_limit_w"));
  j["power_limit_default_w"] = number(d.power_limit_default_w, at("power_limit_default_w"));
  j["power_limit_max_w"] = number(d.power_limit_max_w, at("power_limit_max_w"));
  j["temperature_c"] = nullable(d.temperature_c);
  j["temperature_slowdown_c"] = nullable(d.temperature_slowdown_c);
  j["ecc_mode"] = d.ecc_mode;
  j["ecc_mode_pending"] = d.ecc_mode_pending;
  j["mig_mode"] = d.mig_mode;
  j["persistence_mode"] = d.persistence_mode;
  j["spec_id"] = d.spec_id;
  j["counters_before"] = counters_json(d.counters_before, at("counters_before"));
  j["counters_after"] = counters_json(d.counters_after, at("counters_after"));
  j["counters_delta"] = counters_json(d.counters_delta, at("counters_delta"));
  j["problems"] = d.problems;
  return j;
}

json count(std::int64_t n, const std::string& path) {
  if (n < 0) {
    unwritable(path, fmt::format("a count cannot be negative, got {}", n));
  }
  return n;
}

json stats_json(const sample_stats& s, const std::string& path) {
  const auto at = [&](std::string_view key) { return member_path(path, key); };
  json j = json::object();
  j["n"] = count(s.n, at("n"));
  j["median"] = number(s.median, at("median"));
  j["mean"] = number(s.mean, at("mean"));
  j["min"] = number(s.min, at("min"));
  j["max"] = number(s.max, at("max"));
  j["stddev"] = number(s.stddev, at("stddev"));
  j["cv"] = number(s.cv, at("cv"));
  j["q1"] = number(s.q1, at("q1"));
  j["q3"] = number(s.q3, at("q3"));
  return j;
}

json ceiling_json(const ceiling& c, const std::string& path) {
  json j = json::object();
  j["datasheet"] = number(c.datasheet, member_path(path, "datasheet"));
  j["datasheet_source"] = c.datasheet_source;
  j["clock_adjusted"] = number(c.clock_adjusted, member_path(path, "clock_adjusted"));
  j["clock_adjusted_source"] = c.clock_adjusted_source;
  return j;
}

json verification_json(const verification& v, const std::string& path) {
  json j = json::object();
  j["status"] = to_string(v.status);
  j["max_rel_error"] = number(v.max_rel_error, member_path(path, "max_rel_error"));
  j["tolerance"] = number(v.tolerance, member_path(path, "tolerance"));
  j["detail"] = v.detail;
  return j;
}

json telemetry_json(const telemetry_summary& t, const std::string& path) {
  const auto at = [&](std::string_view key) { return member_path(path, key); };
  json j = json::object();
  j["samples"] = count(t.samples, at("samples"));
  j["period_ms"] = number(t.period_ms, at("period_ms"));
  j["sm_clock_mhz_min"] = number(t.sm_clock_mhz_min, at("sm_clock_mhz_min"));
  j["sm_clock_mhz_median"] = number(t.sm_clock_mhz_median, at("sm_clock_mhz_median"));
  j["sm_clock_mhz_max"] = number(t.sm_clock_mhz_max, at("sm_clock_mhz_max"));
  j["mem_clock_mhz_min"] = number(t.mem_clock_mhz_min, at("mem_clock_mhz_min"));
  j["mem_clock_mhz_median"] = number(t.mem_clock_mhz_median, at("mem_clock_mhz_median"));
  j["temperature_c_max"] = number(t.temperature_c_max, at("temperature_c_max"));
  j["power_w_mean"] = number(t.power_w_mean, at("power_w_mean"));
  j["power_w_max"] = number(t.power_w_max, at("power_w_max"));
  j["low_clock_fraction"] = number(t.low_clock_fraction, at("low_clock_fraction"));
  j["throttle_reasons"] = t.throttle_reasons;
  j["throttled"] = t.throttled;
  j["status"] = t.status;
  j["window_start_s"] = number(t.window_start_s, at("window_start_s"));
  j["window_end_s"] = number(t.window_end_s, at("window_end_s"));
  j["pcie_gen_min"] = nullable(t.pcie_gen_min);
  j["pcie_width_min"] = nullable(t.pcie_width_min);
  return j;
}

json result_json(const result& r, const std::string& path) {
  const auto at = [&](std::string_view key) { return member_path(path, key); };
  if (!r.parameters.is_object()) {
    unwritable(at("parameters"),
               fmt::format("must be a JSON object, not {}", r.parameters.type_name()));
  }
  if (auto bad = find_non_finite(r.parameters, at("parameters"))) {
    unwritable(*bad, "NaN or infinity; a report never holds either");
  }
  require_one_of(r.cache_state, cache_states, at("cache_state"));
  require_one_of(r.stop_reason, stop_reasons, at("stop_reason"));
  if (r.status != result_status::ok && r.reason.empty()) {
    unwritable(at("reason"),
               fmt::format("a result whose status is {} must say why", quote(to_string(r.status))));
  }
  if ((r.status == result_status::failed) != (r.failure != failure_kind::none)) {
    unwritable(at("failure"), fmt::format("{} for a result whose status is {}: a failed result "
                                          "says what failed, and only a failed one",
                                          quote(to_string(r.failure)), quote(to_string(r.status))));
  }
  if (r.gpus_busy && *r.gpus_busy < 1) {
    unwritable(at("gpus_busy"),
               fmt::format("at least 1 (the result's own GPU), got {}", *r.gpus_busy));
  }
  json j = json::object();
  j["bench_id"] = r.bench_id;
  j["devices"] = r.devices;
  j["parameters"] = r.parameters;
  j["metric"] = r.metric;
  j["unit"] = r.unit;
  j["higher_is_better"] = r.higher_is_better;
  j["cache_state"] = r.cache_state;
  j["bytes_per_iteration"] = number(r.bytes_per_iteration, at("bytes_per_iteration"));
  j["flops_per_iteration"] = number(r.flops_per_iteration, at("flops_per_iteration"));
  j["samples"] = numbers(r.samples, at("samples"));
  j["sample_seconds"] = numbers(r.sample_seconds, at("sample_seconds"));
  j["stats"] = stats_json(r.stats, at("stats"));
  j["host_seconds_median"] = number(r.host_seconds_median, at("host_seconds_median"));
  j["stop_reason"] = r.stop_reason;
  j["ceiling"] = ceiling_json(r.ceiling_value, at("ceiling"));
  j["efficiency"] = number(r.efficiency, at("efficiency"));
  j["verification"] = verification_json(r.check, at("verification"));
  j["telemetry"] = telemetry_json(r.telemetry, at("telemetry"));
  j["status"] = to_string(r.status);
  j["reason"] = r.reason;
  j["failure"] = to_string(r.failure);
  j["gpus_busy"] = nullable(r.gpus_busy);
  return j;
}

// ------------------------------------------------------------------------------------ reading

std::string describe(const json& j) {
  switch (j.type()) {
  case json::value_t::null:
    return "null";
  case json::value_t::object:
    return "an object";
  case json::value_t::array:
    return "an array";
  case json::value_t::string:
    return "a string";
  case json::value_t::boolean:
    return "a boolean";
  case json::value_t::number_integer:
  case json::value_t::number_unsigned:
  case json::value_t::number_float:
    return "a number";
  case json::value_t::binary:
    return "binary data";
  case json::value_t::discarded:
    break;
  }
  return "nothing";
}

std::string read_string(const json& j, const std::string& path) {
  if (!j.is_string()) {
    fail(path, fmt::format("expected a string, got {}", describe(j)));
  }
  return j.get<std::string>();
}

bool read_bool(const json& j, const std::string& path) {
  if (!j.is_boolean()) {
    fail(path, fmt::format("expected true or false, got {}", describe(j)));
  }
  return j.get<bool>();
}

double read_double(const json& j, const std::string& path) {
  if (!j.is_number()) {
    fail(path, fmt::format("expected a number, got {}", describe(j)));
  }
  const double v = j.get<double>();
  if (!std::isfinite(v)) {
    fail(path, fmt::format("expected a finite number, got {}", v));
  }
  return v;
}

/// An integer that fits T. A number with a zero fraction (3.0) counts, as in JSON Schema.
template <class T> T read_integer(const json& j, const std::string& path) {
  const auto out_of_range = [&]() {
    fail(path, fmt::format("expected an integer from {} to {}, got {}",
                           std::numeric_limits<T>::min(), std::numeric_limits<T>::max(),
                           j.dump(-1, ' ', false, json::error_handler_t::replace)));
  };
  if (j.is_number_unsigned()) {
    const auto v = j.get<std::uint64_t>();
    if (!std::in_range<T>(v)) {
      out_of_range();
    }
    return static_cast<T>(v);
  }
  if (j.is_number_integer()) {
    const auto v = j.get<std::int64_t>();
    if (!std::in_range<T>(v)) {
      out_of_range();
    }
    return static_cast<T>(v);
  }
  if (j.is_number_float()) {
    const double d = j.get<double>();
    if (!std::isfinite(d) || std::trunc(d) != d) {
      fail(path, fmt::format("expected an integer, got {}", d));
    }
    // Integral doubles beyond 2^53 are not exact; past 2^63 they do not fit any field.
    if (std::abs(d) >= 9007199254740992.0) {
      out_of_range();
    }
    const auto v = static_cast<std::int64_t>(d);
    if (!std::in_range<T>(v)) {
      out_of_range();
    }
    return static_cast<T>(v);
  }
  fail(path, fmt::format("expected an integer, got {}", describe(j)));
}

template <class F> auto read_nullable(const json& j, const std::string& path, F read) {
  using value_type = decltype(read(j, path));
  if (j.is_null()) {
    return std::optional<value_type>{};
  }
  return std::optional<value_type>{read(j, path)};
}

template <class F> auto read_array(const json& j, const std::string& path, F read) {
  using value_type = decltype(read(j, path));
  if (!j.is_array()) {
    fail(path, fmt::format("expected an array, got {}", describe(j)));
  }
  std::vector<value_type> values;
  values.reserve(j.size());
  for (std::size_t i = 0; i < j.size(); ++i) {
    values.push_back(read(j[i], index_path(path, i)));
  }
  return values;
}

template <class E, std::size_t N>
E read_enum(const json& j, const std::string& path, const name_table<E, N>& table) {
  if (!j.is_string()) {
    fail(path, fmt::format("expected one of {}, got {}", quoted_names(table), describe(j)));
  }
  const auto value = value_of(table, j.get<std::string>());
  if (!value) {
    fail(path, fmt::format("expected one of {}, got {}", quoted_names(table),
                           quote(j.get<std::string>())));
  }
  return *value;
}

template <std::size_t N>
std::string read_one_of(const json& j, const std::string& path,
                        const std::array<std::string_view, N>& allowed) {
  std::string value = read_string(j, path);
  if (!is_one_of(value, allowed)) {
    fail(path, fmt::format("expected one of {}, got {}", quoted_list(allowed), quote(value)));
  }
  return value;
}

reading read_reading(const json& j, const std::string& path) {
  constexpr std::string_view expected =
      R"(expected an integer, "not supported" or "unavailable: <why>")";
  if (j.is_number()) {
    return reading::of(read_integer<std::int64_t>(j, path));
  }
  if (!j.is_string()) {
    fail(path, fmt::format("{}, got {}", expected, describe(j)));
  }
  std::string status = j.get<std::string>();
  if (!is_reading_status(status)) {
    fail(path, fmt::format("{}, got {} (an unsupported counter is never 0, and never free text)",
                           expected, quote(status)));
  }
  return {std::nullopt, std::move(status)};
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) {
    row[j] = j;
  }
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

/// One JSON object with a fixed set of keys. Unknown keys are rejected when the reader is made
/// (so a typo is reported as the typo, not as the missing field it was meant to be); missing
/// keys when they are read, in the order of the struct.
class object_reader {
public:
  object_reader(const json& j, std::string path, std::initializer_list<std::string_view> keys)
      : object_reader(j, std::move(path), std::vector<std::string_view>(keys)) {}
  object_reader(const json& j, std::string path, std::vector<std::string_view> keys)
      : m_json(j), m_path(std::move(path)), m_keys(std::move(keys)) {
    if (!j.is_object()) {
      fail(m_path, fmt::format("expected an object, got {}", describe(j)));
    }
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (std::find(m_keys.begin(), m_keys.end(), it.key()) == m_keys.end()) {
        fail(path_of(it.key()), unknown_key_message(it.key()));
      }
    }
  }

  [[nodiscard]] std::string path_of(std::string_view key) const { return member_path(m_path, key); }

  [[nodiscard]] const json& at(std::string_view key) const {
    if (std::find(m_keys.begin(), m_keys.end(), key) == m_keys.end()) {
      throw std::logic_error(fmt::format("object_reader: {} not declared", path_of(key)));
    }
    const auto it = m_json.find(std::string(key));
    if (it == m_json.end()) {
      fail(path_of(key), "missing; every field of a report is written (null when not known)");
    }
    return *it;
  }

  [[nodiscard]] std::string string(std::string_view key) const {
    return read_string(at(key), path_of(key));
  }
  [[nodiscard]] bool boolean(std::string_view key) const {
    return read_bool(at(key), path_of(key));
  }
  [[nodiscard]] double number(std::string_view key) const {
    return read_double(at(key), path_of(key));
  }
  [[nodiscard]] std::optional<double> nullable_number(std::string_view key) const {
    return read_nullable(at(key), path_of(key), read_double);
  }
  template <class T> [[nodiscard]] T integer(std::string_view key) const {
    return read_integer<T>(at(key), path_of(key));
  }
  template <class T> [[nodiscard]] std::optional<T> nullable_integer(std::string_view key) const {
    return read_nullable(at(key), path_of(key), read_integer<T>);
  }
  [[nodiscard]] std::optional<bool> nullable_boolean(std::string_view key) const {
    return read_nullable(at(key), path_of(key), read_bool);
  }
  /// A count: an integer, 0 or more.
  [[nodiscard]] std::int64_t count(std::string_view key) const {
    const auto v = integer<std::int64_t>(key);
    if (v < 0) {
      fail(path_of(key), fmt::format("expected a count (0 or more), got {}", v));
    }
    return v;
  }
  [[nodiscard]] std::vector<std::string> strings(std::string_view key) const {
    return read_array(at(key), path_of(key), read_string);
  }
  [[nodiscard]] std::vector<double> numbers(std::string_view key) const {
    return read_array(at(key), path_of(key), read_double);
  }

private:
  [[nodiscard]] std::string unknown_key_message(const std::string& key) const {
    std::string_view closest;
    std::size_t best = std::numeric_limits<std::size_t>::max();
    for (const std::string_view known : m_keys) {
      const std::size_t d = edit_distance(key, known);
      if (d < best) {
        best = d;
        closest = known;
      }
    }
    if (best <= std::max<std::size_t>(2, closest.size() / 4)) {
      return fmt::format("unknown field (did you mean {}?)", quote(closest));
    }
    return fmt::format("unknown field; the fields here are {}", quoted_list(m_keys));
  }

  const json& m_json;
  std::string m_path;
  std::vector<std::string_view> m_keys;
};

counter_set read_counters(const json& j, const std::string& path) {
  if (!j.is_object()) {
    fail(path, fmt::format("expected an object of counters, got {}", describe(j)));
  }
  counter_set counters;
  for (auto it = j.begin(); it != j.end(); ++it) {
    counters.emplace(it.key(), read_reading(it.value(), member_path(path, it.key())));
  }
  return counters;
}

/// The keys of an object in a document of minor version `minor`: `base`, then those that
/// version 1.1 added.
std::vector<std::string_view> keys_of(int minor, std::initializer_list<std::string_view> base,
                                      std::initializer_list<std::string_view> added_in_1_1) {
  std::vector<std::string_view> keys(base);
  if (minor >= 1) {
    keys.insert(keys.end(), added_in_1_1);
  }
  return keys;
}

run_info read_run(const json& j, const std::string& path, int minor) {
  const object_reader o(
      j, path,
      keys_of(minor,
              {"tool_version", "started_utc", "finished_utc", "suite", "filter", "command_line"},
              {"backend", "devices", "concurrency"}));
  run_info run;
  run.tool_version = o.string("tool_version");
  run.started_utc = o.string("started_utc");
  run.finished_utc = o.string("finished_utc");
  run.suite = o.string("suite");
  run.filter = o.string("filter");
  run.command_line = o.strings("command_line");
  if (minor >= 1) {
    run.backend = read_one_of(o.at("backend"), o.path_of("backend"), backends);
    run.devices = read_array(o.at("devices"), o.path_of("devices"), read_integer<int>);
    run.concurrency = o.nullable_integer<int>("concurrency");
    if (run.concurrency && *run.concurrency < 1) {
      fail(o.path_of("concurrency"), fmt::format("expected 1 or more, got {}", *run.concurrency));
    }
  }
  return run;
}

host_check read_check(const json& j, const std::string& path) {
  const object_reader o(j, path, {"id", "status", "message", "device"});
  host_check check;
  check.id = o.string("id");
  check.status = read_enum(o.at("status"), o.path_of("status"), check_status_names);
  check.message = o.string("message");
  check.device = o.nullable_integer<int>("device");
  return check;
}

host_info read_host(const json& j, const std::string& path) {
  const object_reader o(j, path,
                        {"hostname", "os", "kernel", "cpu_model", "cpu_logical_cores",
                         "cpu_sockets", "memory_bytes", "numa_nodes", "nouveau_loaded",
                         "driver_version", "cuda_driver_version", "cuda_runtime_version",
                         "cublas_version", "nccl_version", "gpu_status", "checks"});
  host_info host;
  host.hostname = o.string("hostname");
  host.os = o.string("os");
  host.kernel = o.string("kernel");
  host.cpu_model = o.string("cpu_model");
  host.cpu_logical_cores = o.nullable_integer<int>("cpu_logical_cores");
  host.cpu_sockets = o.nullable_integer<int>("cpu_sockets");
  host.memory_bytes = o.nullable_integer<std::int64_t>("memory_bytes");
  host.numa_nodes = o.nullable_integer<int>("numa_nodes");
  host.nouveau_loaded = o.nullable_boolean("nouveau_loaded");
  host.driver_version = o.string("driver_version");
  host.cuda_driver_version = o.string("cuda_driver_version");
  host.cuda_runtime_version = o.string("cuda_runtime_version");
  host.cublas_version = o.string("cublas_version");
  host.nccl_version = o.string("nccl_version");
  host.gpu_status = o.string("gpu_status");
  host.checks = read_array(o.at("checks"), o.path_of("checks"), read_check);
  return host;
}

pcie_link read_pcie(const json& j, const std::string& path) {
  const object_reader o(j, path, {"gen_current", "gen_max", "width_current", "width_max"});
  pcie_link link;
  link.gen_current = o.nullable_integer<int>("gen_current");
  link.gen_max = o.nullable_integer<int>("gen_max");
  link.width_current = o.nullable_integer<int>("width_current");
  link.width_max = o.nullable_integer<int>("width_max");
  return link;
}

device_info read_device(const json& j, const std::string& path, int minor) {
  const object_reader o(j, path,
                        keys_of(minor,
                                {"index",
                                 "cuda_index",
                                 "name",
                                 "uuid",
                                 "serial",
                                 "vbios",
                                 "pci_bus_id",
                                 "pci_device_id",
                                 "pci_subsystem_id",
                                 "cc_major",
                                 "cc_minor",
                                 "sm_count",
                                 "memory_bytes",
                                 "l2_bytes",
                                 "sm_clock_mhz",
                                 "sm_clock_max_mhz",
                                 "mem_clock_mhz",
                                 "mem_clock_max_mhz",
                                 "memory_bus_width_bits",
                                 "pcie",
                                 "power_limit_w",
                                 "power_limit_default_w",
                                 "power_limit_max_w",
                                 "temperature_c",
                                 "ecc_mode",
                                 "ecc_mode_pending",
                                 "mig_mode",
                                 "persistence_mode",
                                 "spec_id",
                                 "counters_before",
                                 "counters_after",
                                 "counters_delta",
                                 "problems"},
                                {"temperature_slowdown_c"}));
  device_info d;
  d.index = o.integer<int>("index");
  d.cuda_index = o.nullable_integer<int>("cuda_index");
  d.name = o.string("name");
  d.uuid = o.string("uuid");
  d.serial = o.string("serial");
  d.vbios = o.string("vbios");
  d.pci_bus_id = o.string("pci_bus_id");
  d.pci_device_id = o.nullable_integer<std::uint32_t>("pci_device_id");
  d.pci_subsystem_id = o.nullable_integer<std::uint32_t>("pci_subsystem_id");
  d.cc_major = o.nullable_integer<int>("cc_major");
  d.cc_minor = o.nullable_integer<int>("cc_minor");
  d.sm_count = o.nullable_integer<int>("sm_count");
  d.memory_bytes = o.nullable_integer<std::int64_t>("memory_bytes");
  d.l2_bytes = o.nullable_integer<std::int64_t>("l2_bytes");
  d.sm_clock_mhz = o.nullable_integer<int>("sm_clock_mhz");
  d.sm_clock_max_mhz = o.nullable_integer<int>("sm_clock_max_mhz");
  d.mem_clock_mhz = o.nullable_integer<int>("mem_clock_mhz");
  d.mem_clock_max_mhz = o.nullable_integer<int>("mem_clock_max_mhz");
  d.memory_bus_width_bits = o.nullable_integer<int>("memory_bus_width_bits");
  d.pcie = read_pcie(o.at("pcie"), o.path_of("pcie"));
  d.power_limit_w = o.nullable_number("power_limit_w");
  d.power_limit_default_w = o.nullable_number("power_limit_default_w");
  d.power_limit_max_w = o.nullable_number("power_limit_max_w");
  d.temperature_c = o.nullable_integer<int>("temperature_c");
  if (minor >= 1)
    d.temperature_slowdown_c = o.nullable_integer<int>("temperature_slowdown_c");
  d.ecc_mode = o.string("ecc_mode");
  d.ecc_mode_pending = o.string("ecc_mode_pending");
  d.mig_mode = o.string("mig_mode");
  d.persistence_mode = o.string("persistence_mode");
  d.spec_id = o.string("spec_id");
  d.counters_before = read_counters(o.at("counters_before"), o.path_of("counters_before"));
  d.counters_after = read_counters(o.at("counters_after"), o.path_of("counters_after"));
  d.counters_delta = read_counters(o.at("counters_delta"), o.path_of("counters_delta"));
  d.problems = o.strings("problems");
  return d;
}

sample_stats read_stats(const json& j, const std::string& path) {
  const object_reader o(j, path, {"n", "median", "mean", "min", "max", "stddev", "cv", "q1", "q3"});
  sample_stats s;
  s.n = o.count("n");
  s.median = o.number("median");
  s.mean = o.number("mean");
  s.min = o.number("min");
  s.max = o.number("max");
  s.stddev = o.number("stddev");
  s.cv = o.number("cv");
  s.q1 = o.number("q1");
  s.q3 = o.number("q3");
  return s;
}

ceiling read_ceiling(const json& j, const std::string& path) {
  const object_reader o(
      j, path, {"datasheet", "datasheet_source", "clock_adjusted", "clock_adjusted_source"});
  ceiling c;
  c.datasheet = o.nullable_number("datasheet");
  c.datasheet_source = o.string("datasheet_source");
  c.clock_adjusted = o.nullable_number("clock_adjusted");
  c.clock_adjusted_source = o.string("clock_adjusted_source");
  return c;
}

verification read_verification(const json& j, const std::string& path) {
  const object_reader o(j, path, {"status", "max_rel_error", "tolerance", "detail"});
  verification v;
  v.status = read_enum(o.at("status"), o.path_of("status"), verification_status_names);
  v.max_rel_error = o.nullable_number("max_rel_error");
  v.tolerance = o.nullable_number("tolerance");
  v.detail = o.string("detail");
  return v;
}

telemetry_summary read_telemetry(const json& j, const std::string& path, int minor) {
  const object_reader o(
      j, path,
      keys_of(minor,
              {"samples", "period_ms", "sm_clock_mhz_min", "sm_clock_mhz_median",
               "sm_clock_mhz_max", "mem_clock_mhz_min", "mem_clock_mhz_median", "temperature_c_max",
               "power_w_mean", "power_w_max", "low_clock_fraction", "throttle_reasons", "throttled",
               "status"},
              {"window_start_s", "window_end_s", "pcie_gen_min", "pcie_width_min"}));
  telemetry_summary t;
  t.samples = o.count("samples");
  t.period_ms = o.number("period_ms");
  t.sm_clock_mhz_min = o.nullable_number("sm_clock_mhz_min");
  t.sm_clock_mhz_median = o.nullable_number("sm_clock_mhz_median");
  t.sm_clock_mhz_max = o.nullable_number("sm_clock_mhz_max");
  t.mem_clock_mhz_min = o.nullable_number("mem_clock_mhz_min");
  t.mem_clock_mhz_median = o.nullable_number("mem_clock_mhz_median");
  t.temperature_c_max = o.nullable_number("temperature_c_max");
  t.power_w_mean = o.nullable_number("power_w_mean");
  t.power_w_max = o.nullable_number("power_w_max");
  t.low_clock_fraction = o.nullable_number("low_clock_fraction");
  t.throttle_reasons = o.strings("throttle_reasons");
  t.throttled = o.boolean("throttled");
  t.status = o.string("status");
  if (minor >= 1) {
    t.window_start_s = o.nullable_number("window_start_s");
    t.window_end_s = o.nullable_number("window_end_s");
    t.pcie_gen_min = o.nullable_integer<int>("pcie_gen_min");
    t.pcie_width_min = o.nullable_integer<int>("pcie_width_min");
  }
  return t;
}

result read_result(const json& j, const std::string& path, int minor) {
  const object_reader o(j, path,
                        keys_of(minor,
                                {"bench_id",
                                 "devices",
                                 "parameters",
                                 "metric",
                                 "unit",
                                 "higher_is_better",
                                 "cache_state",
                                 "bytes_per_iteration",
                                 "flops_per_iteration",
                                 "samples",
                                 "sample_seconds",
                                 "stats",
                                 "host_seconds_median",
                                 "stop_reason",
                                 "ceiling",
                                 "efficiency",
                                 "verification",
                                 "telemetry",
                                 "status",
                                 "reason"},
                                {"failure", "gpus_busy"}));
  result r;
  r.bench_id = o.string("bench_id");
  r.devices = read_array(o.at("devices"), o.path_of("devices"), read_integer<int>);
  const json& parameters = o.at("parameters");
  if (!parameters.is_object()) {
    fail(o.path_of("parameters"), fmt::format("expected an object, got {}", describe(parameters)));
  }
  if (auto bad = find_non_finite(parameters, o.path_of("parameters"))) {
    fail(*bad, "expected a finite number, got NaN or infinity");
  }
  r.parameters = parameters;
  r.metric = o.string("metric");
  r.unit = o.string("unit");
  r.higher_is_better = o.boolean("higher_is_better");
  r.cache_state = read_one_of(o.at("cache_state"), o.path_of("cache_state"), cache_states);
  r.bytes_per_iteration = o.nullable_number("bytes_per_iteration");
  r.flops_per_iteration = o.nullable_number("flops_per_iteration");
  r.samples = o.numbers("samples");
  r.sample_seconds = o.numbers("sample_seconds");
  r.stats = read_stats(o.at("stats"), o.path_of("stats"));
  r.host_seconds_median = o.nullable_number("host_seconds_median");
  r.stop_reason = read_one_of(o.at("stop_reason"), o.path_of("stop_reason"), stop_reasons);
  r.ceiling_value = read_ceiling(o.at("ceiling"), o.path_of("ceiling"));
  r.efficiency = o.nullable_number("efficiency");
  r.check = read_verification(o.at("verification"), o.path_of("verification"));
  r.telemetry = read_telemetry(o.at("telemetry"), o.path_of("telemetry"), minor);
  r.status = read_enum(o.at("status"), o.path_of("status"), result_status_names);
  r.reason = o.string("reason");
  if (r.status != result_status::ok && r.reason.empty()) {
    fail(o.path_of("reason"),
         fmt::format("a result whose status is {} must say why", quote(to_string(r.status))));
  }
  if (minor >= 1) {
    r.failure = read_enum(o.at("failure"), o.path_of("failure"), failure_kind_names);
    if ((r.status == result_status::failed) != (r.failure != failure_kind::none)) {
      fail(o.path_of("failure"),
           fmt::format("{} does not go with status {}: a failed result says what failed "
                       "(not \"none\"), and only a failed one",
                       quote(to_string(r.failure)), quote(to_string(r.status))));
    }
    r.gpus_busy = o.nullable_integer<int>("gpus_busy");
    if (r.gpus_busy && *r.gpus_busy < 1) {
      fail(o.path_of("gpus_busy"),
           fmt::format("expected 1 or more (the result's own GPU), got {}", *r.gpus_busy));
    }
  } else if (r.status == result_status::failed) {
    // Version 1 said what failed only in words; its harness set the verification's status.
    r.failure = r.check.status == verification_status::failed ? failure_kind::verification
                                                              : failure_kind::benchmark;
  }
  return r;
}

report read_report(const json& j) {
  if (!j.is_object()) {
    fail("", fmt::format("expected a gpuspec report (a JSON object), got {}", describe(j)));
  }
  // The version first: a report of another version is named as such, not as a list of
  // unknown fields.
  const auto version = j.find("schema");
  if (version == j.end()) {
    fail("schema", fmt::format("missing; expected {}", quoted_list(readable_report_versions)));
  }
  const int minor = version->is_string() ? report_minor_version(version->get<std::string>()) : -1;
  if (minor < 0) {
    fail("schema", fmt::format("expected {}, got {}", quoted_list(readable_report_versions),
                               version->is_string() ? quote(version->get<std::string>())
                                                    : describe(*version)));
  }
  const object_reader o(
      j, "", {"schema", "run", "host", "devices", "results", "complete", "incomplete_reason"});
  report r;
  r.schema = o.string("schema");
  r.run = read_run(o.at("run"), o.path_of("run"), minor);
  r.host = read_host(o.at("host"), o.path_of("host"));
  r.devices = read_array(
      o.at("devices"), o.path_of("devices"),
      [minor](const json& item, const std::string& at) { return read_device(item, at, minor); });
  r.results = read_array(
      o.at("results"), o.path_of("results"),
      [minor](const json& item, const std::string& at) { return read_result(item, at, minor); });
  r.complete = o.boolean("complete");
  r.incomplete_reason = o.string("incomplete_reason");
  return r;
}

[[noreturn]] void throw_file_error(int error, const std::string& what) {
  throw std::system_error(error, std::generic_category(), what);
}

} // namespace

// ------------------------------------------------------------------------------------ public

std::string_view to_string(result_status s) { return name_of(result_status_names, s); }
std::string_view to_string(verification_status s) { return name_of(verification_status_names, s); }
std::string_view to_string(check_status s) { return name_of(check_status_names, s); }
std::string_view to_string(failure_kind f) { return name_of(failure_kind_names, f); }

int report_minor_version(std::string_view schema) {
  for (std::size_t i = 0; i < readable_report_versions.size(); ++i) {
    if (schema == readable_report_versions[i]) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

nlohmann::ordered_json result_to_json(const result& r) { return result_json(r, "result"); }

outcome<result> result_from_json(const nlohmann::ordered_json& j, std::string_view file,
                                 std::string_view field) {
  try {
    return read_result(j, std::string(field), report_minor_version(report_schema_version));
  } catch (const field_failure& failure) {
    return input_error{std::string(file), failure.field, failure.message};
  } catch (const nlohmann::json::exception& e) {
    return input_error{std::string(file), std::string(field), library_message(e)};
  }
}

std::optional<result_status> result_status_from_string(std::string_view s) {
  return value_of(result_status_names, s);
}
std::optional<verification_status> verification_status_from_string(std::string_view s) {
  return value_of(verification_status_names, s);
}
std::optional<check_status> check_status_from_string(std::string_view s) {
  return value_of(check_status_names, s);
}

nlohmann::ordered_json to_json(const report& r) {
  if (report_minor_version(r.schema) < 0) {
    unwritable("schema", fmt::format("{} is not one of {}", quote(r.schema),
                                     quoted_list(readable_report_versions)));
  }
  json j = json::object();
  // A report read from an older version is written as the current one: its added fields
  // hold their defaults, which is what the older version meant.
  j["schema"] = report_schema_version;
  j["run"] = run_json(r.run);
  j["host"] = host_json(r.host);
  json devices = json::array();
  for (std::size_t i = 0; i < r.devices.size(); ++i) {
    devices.push_back(device_json(r.devices[i], index_path("devices", i)));
  }
  j["devices"] = std::move(devices);
  json results = json::array();
  for (std::size_t i = 0; i < r.results.size(); ++i) {
    results.push_back(result_json(r.results[i], index_path("results", i)));
  }
  j["results"] = std::move(results);
  j["complete"] = r.complete;
  j["incomplete_reason"] = r.incomplete_reason;
  return j;
}

std::string to_json_text(const report& r) {
  return to_json(r).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

outcome<report> report_from_json(const nlohmann::ordered_json& j, std::string_view file) {
  try {
    return read_report(j);
  } catch (const field_failure& failure) {
    return input_error{std::string(file), failure.field, failure.message};
  } catch (const nlohmann::json::exception& e) {
    // Not expected (types are checked before every get), but bad input must never throw.
    return input_error{std::string(file), "", library_message(e)};
  }
}

outcome<report> parse_report(std::string_view text, std::string_view file) {
  auto document = detail::parse_json_document(text, file, "report");
  if (!document) {
    return document.error();
  }
  return report_from_json(document.value(), file);
}

outcome<report> load_report(const std::filesystem::path& file) {
  auto text = detail::read_input_file(file, "report");
  if (!text) {
    return text.error();
  }
  return parse_report(text.value(), file.string());
}

void write_file_atomically(const std::filesystem::path& file, std::string_view text) {
  const std::string target = file.string();
  const std::string name = file.filename().string();
  if (name.empty() || name == "." || name == "..") {
    throw_file_error(EISDIR, fmt::format("cannot write {}: not a file name", target));
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
      give_up("writing");
    }
    data += wrote;
    left -= static_cast<std::size_t>(wrote);
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

void save_report(const std::filesystem::path& file, const report& r) {
  write_file_atomically(file, to_json_text(r));
}

} // namespace gpuspec::reports
