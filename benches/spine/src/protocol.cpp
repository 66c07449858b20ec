// The coordinator-worker wire (protocol.hpp): the plan, the assignment and the messages as
// JSON, read strictly so that a worker babbling is told apart from a worker speaking.

#include "gpuspec/spine/protocol.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "gpuspec/reports/report_json.hpp"

namespace gpuspec::spine {
namespace {

using json = nlohmann::ordered_json;

/// The first problem found in a document, thrown inside the readers below and turned into an
/// input_error at their boundary.
struct bad_field {
  std::string field;
  std::string message;
};

[[noreturn]] void reject(std::string field, std::string message) {
  throw bad_field{std::move(field), std::move(message)};
}

std::string join_path(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : parent + "." + std::string(key);
}

/// An object whose keys are exactly `keys`: unknown and missing keys are errors.
class strict_object {
public:
  strict_object(const json& j, std::string path, std::initializer_list<std::string_view> keys)
      : m_json(j), m_path(std::move(path)), m_keys(keys) {
    if (!j.is_object())
      reject(m_path, fmt::format("expected an object, got {}", j.type_name()));
    for (auto it = j.begin(); it != j.end(); ++it)
      if (std::find(m_keys.begin(), m_keys.end(), it.key()) == m_keys.end())
        reject(join_path(m_path, it.key()), "unknown field");
  }

  [[nodiscard]] std::string path(std::string_view key) const { return join_path(m_path, key); }
  /// An optional key (the burn-in's): present or not; strict about its type when present.
  [[nodiscard]] bool has(std::string_view key) const {
    return m_json.find(std::string(key)) != m_json.end();
  }

  [[nodiscard]] const json& at(std::string_view key) const {
    const auto it = m_json.find(std::string(key));
    if (it == m_json.end())
      reject(path(key), "missing");
    return *it;
  }
  [[nodiscard]] std::string string(std::string_view key) const {
    const json& v = at(key);
    if (!v.is_string())
      reject(path(key), fmt::format("expected a string, got {}", v.type_name()));
    return v.get<std::string>();
  }
  [[nodiscard]] bool boolean(std::string_view key) const {
    const json& v = at(key);
    if (!v.is_boolean())
      reject(path(key), fmt::format("expected true or false, got {}", v.type_name()));
    return v.get<bool>();
  }
  [[nodiscard]] double number(std::string_view key) const {
    const json& v = at(key);
    if (!v.is_number() || !std::isfinite(v.get<double>()))
      reject(path(key), fmt::format("expected a finite number, got {}", v.type_name()));
    return v.get<double>();
  }
  [[nodiscard]] std::int64_t integer(std::string_view key, std::int64_t lo, std::int64_t hi) const {
    const json& v = at(key);
    if (!v.is_number_integer())
      reject(path(key), fmt::format("expected an integer, got {}", v.type_name()));
    const auto value = v.get<std::int64_t>();
    if (value < lo || value > hi)
      reject(path(key), fmt::format("expected an integer from {} to {}, got {}", lo, hi, value));
    return value;
  }
  [[nodiscard]] int small_integer(std::string_view key, int lo = 0) const {
    return static_cast<int>(integer(key, lo, std::numeric_limits<int>::max()));
  }
  [[nodiscard]] const json& array(std::string_view key) const {
    const json& v = at(key);
    if (!v.is_array())
      reject(path(key), fmt::format("expected an array, got {}", v.type_name()));
    return v;
  }

private:
  const json& m_json;
  std::string m_path;
  std::vector<std::string_view> m_keys;
};

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

planned_case read_case(const json& j, const std::string& path) {
  const strict_object o(
      j, path, {"bench_id", "axes", "setup_allowance_s", "node_wide", "runs_for_duration"});
  planned_case c;
  c.bench_id = o.string("bench_id");
  const json& axes = o.at("axes");
  if (!axes.is_object())
    reject(o.path("axes"), "expected an object of axis values");
  for (auto it = axes.begin(); it != axes.end(); ++it) {
    if (!it.value().is_string())
      reject(join_path(o.path("axes"), it.key()), "expected a string");
    c.axes.emplace_back(it.key(), it.value().get<std::string>());
  }
  c.setup_allowance_s = o.number("setup_allowance_s");
  if (!(c.setup_allowance_s > 0))
    reject(o.path("setup_allowance_s"), "expected a positive number of seconds");
  c.node_wide = o.boolean("node_wide");
  if (o.has("runs_for_duration")) {
    const json& v = o.at("runs_for_duration");
    if (!v.is_boolean())
      reject(o.path("runs_for_duration"), fmt::format("expected a boolean, got {}", v.type_name()));
    c.runs_for_duration = v.get<bool>();
  }
  return c;
}

std::vector<planned_case> read_cases(const json& array, const std::string& path) {
  std::vector<planned_case> cases;
  for (std::size_t i = 0; i < array.size(); ++i)
    cases.push_back(read_case(array[i], fmt::format("{}[{}]", path, i)));
  return cases;
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

reports::stopping_rule read_stopping(const json& j, const std::string& path) {
  const strict_object o(j, path,
                        {"min_samples", "max_samples", "min_seconds", "max_seconds", "cv_target",
                         "stall_window", "stall_tolerance"});
  reports::stopping_rule s;
  s.min_samples = o.small_integer("min_samples");
  s.max_samples = o.small_integer("max_samples");
  s.min_seconds = o.number("min_seconds");
  s.max_seconds = o.number("max_seconds");
  s.cv_target = o.number("cv_target");
  s.stall_window = o.small_integer("stall_window", std::numeric_limits<int>::min());
  s.stall_tolerance = o.number("stall_tolerance");
  return s;
}

json options_json(const benches::measurement_options& m) {
  json j{{"suite", m.suite},
         {"stopping", stopping_json(m.stopping)},
         {"telemetry_period_ms", m.telemetry_period.count()},
         {"stream_array_bytes", m.stream_array_bytes}};
  if (m.duration_s) // optional: only a burn-in has one
    j["duration_s"] = *m.duration_s;
  return j;
}

benches::measurement_options read_options(const json& j, const std::string& path) {
  const strict_object o(
      j, path, {"suite", "stopping", "telemetry_period_ms", "stream_array_bytes", "duration_s"});
  benches::measurement_options m;
  m.suite = o.string("suite");
  m.stopping = read_stopping(o.at("stopping"), o.path("stopping"));
  m.telemetry_period = std::chrono::milliseconds(o.small_integer("telemetry_period_ms", 1));
  m.stream_array_bytes =
      o.integer("stream_array_bytes", 1, std::numeric_limits<std::int64_t>::max());
  if (o.has("duration_s")) {
    m.duration_s = o.number("duration_s");
    if (!(*m.duration_s > 0))
      reject(o.path("duration_s"), "expected a positive number of seconds");
  }
  return m;
}

/// The document `text` parsed; the caller's guard names the source.
json parse_document(std::string_view text) {
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    reject("", fmt::format("not JSON ({})", e.what()));
  }
}

template <class F>
auto guarded(std::string_view source, F read) -> reports::outcome<decltype(read())> {
  try {
    return read();
  } catch (const bad_field& b) {
    return reports::input_error{std::string(source), b.field, b.message};
  } catch (const json::exception& e) {
    return reports::input_error{std::string(source), "", e.what()};
  }
}

void require_protocol(const strict_object& o) {
  if (o.string("protocol") != protocol_version)
    reject("protocol", fmt::format("expected \"{}\"", protocol_version));
}

constexpr std::string_view kind_names[] = {"hello", "start", "progress", "result", "done"};

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

double planned_case::deadline_s(const benches::measurement_options& options) const {
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
  return guarded(source, [&] {
    const json j = parse_document(text);
    const strict_object o(j, "",
                          {"protocol", "backend", "unavailable", "startup_allowance_s", "cases"});
    require_protocol(o);
    worker_plan plan;
    plan.backend = o.string("backend");
    plan.unavailable = o.string("unavailable");
    plan.startup_allowance_s = o.number("startup_allowance_s");
    if (!(plan.startup_allowance_s > 0))
      reject("startup_allowance_s", "expected a positive number of seconds");
    plan.cases = read_cases(o.array("cases"), "cases");
    return plan;
  });
}

std::string assignment_to_text(const worker_assignment& a) {
  // The GPUs travel as a report's devices: the report's own writer and reader, not a copy.
  reports::report carrier;
  carrier.devices = a.devices.empty() ? std::vector<reports::device_info>{a.device} : a.devices;
  json j{{"protocol", protocol_version},  {"device", reports::to_json(carrier)},
         {"cases", cases_json(a.cases)},  {"options", options_json(a.options)},
         {"spec_rows", a.spec_rows},      {"clock_origin_ns", a.clock_origin_ns},
         {"nvml_library", a.nvml_library}};
  return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

reports::outcome<worker_assignment> assignment_from_text(std::string_view text,
                                                         std::string_view source) {
  return guarded(source, [&] {
    const json j = parse_document(text);
    const strict_object o(
        j, "",
        {"protocol", "device", "cases", "options", "spec_rows", "clock_origin_ns", "nvml_library"});
    require_protocol(o);
    worker_assignment a;
    auto carrier = reports::report_from_json(o.at("device"), source);
    if (!carrier)
      reject(join_path("device", carrier.error().field), carrier.error().message);
    if (carrier.value().devices.empty())
      reject("device.devices", "expected at least one device");
    a.devices = carrier.value().devices;
    a.device = a.devices.front();
    a.cases = read_cases(o.array("cases"), "cases");
    a.options = read_options(o.at("options"), "options");
    a.spec_rows = o.at("spec_rows");
    a.clock_origin_ns = o.integer("clock_origin_ns", std::numeric_limits<std::int64_t>::min(),
                                  std::numeric_limits<std::int64_t>::max());
    a.nvml_library = o.string("nvml_library");
    return a;
  });
}

std::string message_line(const worker_message& m) {
  json j{{"msg", kind_names[static_cast<int>(m.kind)]}};
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
  return guarded(source, [&] {
    const json j = parse_document(line);
    if (!j.is_object() || !j.contains("msg") || !j["msg"].is_string())
      reject("msg", "expected an object with a \"msg\" string");
    const std::string name = j["msg"].get<std::string>();
    const auto* found = std::find(std::begin(kind_names), std::end(kind_names), name);
    if (found == std::end(kind_names))
      reject("msg", fmt::format("\"{}\" is not a message", name));
    worker_message m;
    m.kind = static_cast<message_kind>(found - std::begin(kind_names));
    switch (m.kind) {
    case message_kind::hello: {
      const strict_object o(j, "", {"msg", "protocol", "backend", "pid", "device"});
      require_protocol(o);
      m.backend = o.string("backend");
      m.pid = o.small_integer("pid");
      m.device = o.small_integer("device");
      break;
    }
    case message_kind::start: {
      const strict_object o(j, "", {"msg", "case"});
      m.case_index = o.small_integer("case");
      break;
    }
    case message_kind::progress: {
      const strict_object o(j, "", {"msg", "case", "runs", "longest_run_s"});
      m.case_index = o.small_integer("case");
      m.runs = o.small_integer("runs");
      m.longest_run_s = o.number("longest_run_s");
      if (m.longest_run_s < 0)
        reject("longest_run_s", "expected 0 or more seconds");
      break;
    }
    case message_kind::result: {
      const strict_object o(j, "", {"msg", "case", "result"});
      m.case_index = o.small_integer("case");
      auto r = reports::result_from_json(o.at("result"), source, "result");
      if (!r)
        reject(r.error().field, r.error().message);
      m.result = std::move(r).value();
      break;
    }
    case message_kind::done: {
      const strict_object o(j, "", {"msg"});
      (void)o;
      break;
    }
    }
    return m;
  });
}

} // namespace gpuspec::spine
