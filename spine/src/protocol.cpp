// The coordinator-worker wire (protocol.hpp): the plan, the assignment and the messages as
// JSON, read strictly so that a worker babbling is told apart from a worker speaking.

#include "gpuspec/spine/protocol.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <limits>
#include <span>
#include <utility>

#include <fmt/format.h>

#include "gpuspec/reports/model/json_reader.hpp"
#include "gpuspec/reports/model/report_json.hpp"

namespace gpuspec::spine {
namespace {

using json = nlohmann::ordered_json;

// Every document and message is read with reports' one object reader (json_reader.hpp): every
// key declared, unknown and repeated keys rejected, an error naming the field path.
using reports::detail::element;
using reports::detail::fail;
using reports::detail::object_reader;
using reports::detail::path_ref;
using reports::detail::presence;
using reports::detail::read_nested;
using reports::detail::to_json_value;

/// An integer of `key` from `lo` up to int's largest.
int bounded_int(const object_reader& o, std::string_view key, int lo = 0) {
  const int value = o.integer<int>(key);
  if (value < lo)
    fail(o.path_of(key), fmt::format("expected an integer from {} to {}, got {}", lo,
                                     std::numeric_limits<int>::max(), value));
  return value;
}

/// A number of seconds above 0.
double positive_seconds(const object_reader& o, std::string_view key) {
  const double value = o.number(key);
  if (!(value > 0))
    fail(o.path_of(key), "expected a positive number of seconds");
  return value;
}

json case_json(const planned_case& c) {
  json axes = json::object();
  for (const auto& [name, value] : c.axes)
    axes[name] = value;
  json j{{"bench_id", c.bench_id},
         {"axes", axes},
         {"setup_allowance_s", c.setup_allowance_s},
         {"node_wide", c.node_wide}};
  if (c.runs_for_duration) // optional: written only for the burn-in's cases
    j["runs_for_duration"] = true;
  return j;
}

constexpr std::array<std::string_view, 5> case_keys{"bench_id", "axes", "setup_allowance_s",
                                                    "node_wide", "runs_for_duration"};

planned_case read_case(element e, const path_ref& path) {
  const object_reader o(e, path.str(), case_keys, presence::optional_keys);
  planned_case c;
  c.bench_id = o.string("bench_id");
  reports::detail::for_each_member(o.at("axes"), o.field("axes"), "an object of axis values",
                                   [&](std::string_view name, element value, const path_ref& at) {
                                     c.axes.emplace_back(std::string(name),
                                                         reports::detail::read_string(value, at));
                                   });
  c.setup_allowance_s = positive_seconds(o, "setup_allowance_s");
  c.node_wide = o.boolean("node_wide");
  if (o.find("runs_for_duration")) // optional: written only for the burn-in's cases
    c.runs_for_duration = o.boolean("runs_for_duration");
  return c;
}

std::vector<planned_case> read_cases(const object_reader& o) {
  return reports::detail::read_array(o.at("cases"), o.field("cases"), read_case);
}

json cases_json(const std::vector<planned_case>& cases) {
  json out = json::array();
  for (const auto& c : cases)
    out.push_back(case_json(c));
  return out;
}

json stopping_json(const reports::stopping_rule& s) {
  return json{{"min_samples", s.min_samples},
              {"max_samples", s.max_samples},
              {"min_seconds", s.min_seconds},
              {"max_seconds", s.max_seconds},
              {"cv_target", s.cv_target},
              {"stall_window", s.stall_window},
              {"stall_tolerance", s.stall_tolerance}};
}

constexpr std::array<std::string_view, 7> stopping_keys{
    "min_samples", "max_samples",  "min_seconds",    "max_seconds",
    "cv_target",   "stall_window", "stall_tolerance"};

reports::stopping_rule read_stopping(element e, const std::string& path) {
  const object_reader o(e, path, stopping_keys, presence::optional_keys);
  reports::stopping_rule s;
  s.min_samples = bounded_int(o, "min_samples");
  s.max_samples = bounded_int(o, "max_samples");
  s.min_seconds = o.number("min_seconds");
  s.max_seconds = o.number("max_seconds");
  s.cv_target = o.number("cv_target");
  s.stall_window = o.integer<int>("stall_window");
  s.stall_tolerance = o.number("stall_tolerance");
  return s;
}

json options_json(const host::measurement_options& m) {
  json j{{"suite", m.suite},
         {"stopping", stopping_json(m.stopping)},
         {"telemetry_period_ms", m.telemetry_period.count()},
         {"stream_array_bytes", m.stream_array_bytes}};
  if (m.duration_s) // optional: only a burn-in has one
    j["duration_s"] = *m.duration_s;
  return j;
}

constexpr std::array<std::string_view, 5> options_keys{"suite", "stopping", "telemetry_period_ms",
                                                       "stream_array_bytes", "duration_s"};

host::measurement_options read_options(element e, const std::string& path) {
  const object_reader o(e, path, options_keys, presence::optional_keys);
  host::measurement_options m;
  m.suite = o.string("suite");
  m.stopping = read_stopping(o.at("stopping"), o.path_of("stopping"));
  m.telemetry_period = std::chrono::milliseconds(bounded_int(o, "telemetry_period_ms", 1));
  m.stream_array_bytes = o.integer<std::int64_t>("stream_array_bytes");
  if (m.stream_array_bytes < 1)
    fail(o.path_of("stream_array_bytes"),
         fmt::format("expected an integer from 1 to {}, got {}",
                     std::numeric_limits<std::int64_t>::max(), m.stream_array_bytes));
  if (o.find("duration_s")) // optional: only a burn-in has one
    m.duration_s = positive_seconds(o, "duration_s");
  return m;
}

void require_protocol(const object_reader& o) {
  if (o.string("protocol") != protocol_version)
    fail(o.path_of("protocol"), fmt::format("expected \"{}\"", protocol_version));
}

constexpr std::array<std::string_view, 5> kind_names{"hello", "start", "progress", "result",
                                                     "done"};

constexpr std::array<std::string_view, 5> plan_keys{"protocol", "backend", "unavailable",
                                                    "startup_allowance_s", "cases"};

worker_plan read_plan(element root) {
  const object_reader o(root, "", plan_keys, presence::optional_keys);
  require_protocol(o);
  worker_plan plan;
  plan.backend = o.string("backend");
  plan.unavailable = o.string("unavailable");
  plan.startup_allowance_s = positive_seconds(o, "startup_allowance_s");
  plan.cases = read_cases(o);
  return plan;
}

constexpr std::array<std::string_view, 9> assignment_keys{
    "protocol",        "device",       "cases",      "options", "spec_rows",
    "clock_origin_ns", "nvml_library", "first_case", "mig_uuid"};

worker_assignment read_assignment(element root, std::string_view source) {
  const object_reader o(root, "", assignment_keys, presence::optional_keys);
  require_protocol(o);
  worker_assignment a;
  // The GPUs travel as a report's devices, read by the report's own reader.
  const std::string device = o.path_of("device");
  auto carrier =
      read_nested(reports::report_from_json(to_json_value(o.at("device"), device), source), device);
  if (carrier.devices.empty())
    fail(device + ".devices", "expected at least one device");
  a.devices = std::move(carrier.devices);
  a.device = a.devices.front();
  a.cases = read_cases(o);
  a.options = read_options(o.at("options"), o.path_of("options"));
  a.spec_rows = to_json_value(o.at("spec_rows"), o.field("spec_rows"));
  a.clock_origin_ns = o.integer<std::int64_t>("clock_origin_ns");
  a.nvml_library = o.string("nvml_library");
  if (o.find("first_case")) { // optional: only a fresh worker after a lost one starts later
    a.first_case = o.integer<int>("first_case");
    if (a.first_case < 0 || a.first_case > static_cast<int>(a.cases.size()))
      fail(o.path_of("first_case"),
           fmt::format("expected an integer from 0 to {}, got {}", a.cases.size(), a.first_case));
  }
  if (o.find("mig_uuid")) { // optional: only a MIG device's worker has one
    a.mig_uuid = o.string("mig_uuid");
    if (!reports::find_mig_instance(a.device.mig_instances, a.mig_uuid))
      fail(o.path_of("mig_uuid"), fmt::format("{} is not a MIG device of GPU {}",
                                              reports::detail::quote(a.mig_uuid), a.device.index));
  }
  return a;
}

/// The kind a message says it is ("msg"), before its other keys are known.
message_kind read_kind(element root) {
  element msg;
  if (!root.is_object() || root.at_key("msg").get(msg) != simdjson::SUCCESS || !msg.is_string())
    fail("msg", "expected an object with a \"msg\" string");
  const std::string_view name = msg.get_string().value_unsafe();
  const auto* found = std::find(kind_names.begin(), kind_names.end(), name);
  if (found == kind_names.end())
    fail("msg", fmt::format("{} is not a message", reports::detail::quote(name)));
  return static_cast<message_kind>(found - kind_names.begin());
}

constexpr std::array<std::string_view, 5> hello_keys{"msg", "protocol", "backend", "pid", "device"};
constexpr std::array<std::string_view, 2> start_keys{"msg", "case"};
constexpr std::array<std::string_view, 4> progress_keys{"msg", "case", "runs", "longest_run_s"};
constexpr std::array<std::string_view, 3> result_keys{"msg", "case", "result"};
constexpr std::array<std::string_view, 1> done_keys{"msg"};

std::span<const std::string_view> keys_of(message_kind kind) {
  switch (kind) {
  case message_kind::hello:
    return hello_keys;
  case message_kind::start:
    return start_keys;
  case message_kind::progress:
    return progress_keys;
  case message_kind::result:
    return result_keys;
  case message_kind::done:
    break;
  }
  return done_keys;
}

worker_message read_message(element root, std::string_view source) {
  worker_message m;
  m.kind = read_kind(root);
  const object_reader o(root, "", keys_of(m.kind), presence::optional_keys);
  switch (m.kind) {
  case message_kind::hello:
    require_protocol(o);
    m.backend = o.string("backend");
    m.pid = bounded_int(o, "pid");
    m.device = bounded_int(o, "device");
    break;
  case message_kind::start:
    m.case_index = bounded_int(o, "case");
    break;
  case message_kind::progress:
    m.case_index = bounded_int(o, "case");
    m.runs = bounded_int(o, "runs");
    m.longest_run_s = o.number("longest_run_s");
    if (m.longest_run_s < 0)
      fail(o.path_of("longest_run_s"), "expected 0 or more seconds");
    break;
  case message_kind::result: {
    m.case_index = bounded_int(o, "case");
    const std::string result = o.path_of("result");
    m.result = read_nested(
        reports::result_from_json(to_json_value(o.at("result"), result), source, ""), result);
    break;
  }
  case message_kind::done:
    break;
  }
  return m;
}

} // namespace

std::string planned_case::axes_text() const {
  std::string out;
  for (const auto& [name, value] : axes)
    out += (out.empty() ? "" : " ") + name + '=' + value;
  return out;
}

std::string planned_case::label() const {
  const std::string a = axes_text();
  return a.empty() ? bench_id : bench_id + " " + a;
}

double planned_case::deadline_s(const host::measurement_options& options) const {
  return case_deadline_s(setup_allowance_s, options.stopping.max_seconds,
                         runs_for_duration ? options.duration_s.value_or(0) : 0.0);
}

std::string plan_to_text(const worker_plan& plan) {
  const json j{{"protocol", protocol_version},
               {"backend", plan.backend},
               {"unavailable", plan.unavailable},
               {"startup_allowance_s", plan.startup_allowance_s},
               {"cases", cases_json(plan.cases)}};
  return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

reports::outcome<worker_plan> plan_from_text(std::string_view text, std::string_view source) {
  return reports::detail::read_json_text(text, source, "plan", read_plan);
}

std::string assignment_to_text(const worker_assignment& a) {
  // The GPUs travel as a report's devices: the report's own writer and reader, not a copy.
  reports::report carrier;
  carrier.devices = a.devices.empty() ? std::vector<reports::device_info>{a.device} : a.devices;
  json j{{"protocol", protocol_version},  {"device", reports::to_json(carrier)},
         {"cases", cases_json(a.cases)},  {"options", options_json(a.options)},
         {"spec_rows", a.spec_rows},      {"clock_origin_ns", a.clock_origin_ns},
         {"nvml_library", a.nvml_library}};
  if (a.first_case != 0)
    j["first_case"] = a.first_case;
  if (!a.mig_uuid.empty())
    j["mig_uuid"] = a.mig_uuid;
  return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

reports::outcome<worker_assignment> assignment_from_text(std::string_view text,
                                                         std::string_view source) {
  return reports::detail::read_json_text(
      text, source, "assignment", [&](element root) { return read_assignment(root, source); });
}

std::string message_line(const worker_message& m) {
  json j{{"msg", kind_names[static_cast<std::size_t>(m.kind)]}};
  switch (m.kind) {
  case message_kind::hello:
    j["protocol"] = protocol_version;
    j["backend"] = m.backend;
    j["pid"] = m.pid;
    j["device"] = m.device;
    break;
  case message_kind::start:
    j["case"] = m.case_index;
    break;
  case message_kind::progress:
    j["case"] = m.case_index;
    j["runs"] = m.runs;
    j["longest_run_s"] = m.longest_run_s;
    break;
  case message_kind::result:
    j["case"] = m.case_index;
    j["result"] = m.result ? reports::result_to_json(*m.result) : json(nullptr);
    break;
  case message_kind::done:
    break;
  }
  return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

reports::outcome<worker_message> message_from_line(std::string_view line, std::string_view source) {
  return reports::detail::read_json_text(line, source, "worker message",
                                         [&](element root) { return read_message(root, source); });
}

} // namespace gpuspec::spine
