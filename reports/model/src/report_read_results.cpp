// Reading a report's results (report_reader.cpp reads the rest): statistics, ceilings,
// verification, telemetry, events and burn-in records, strict, with field paths.

#include "report_read_parts.hpp"

namespace gpuspec::reports::inline model::report_read {

sample_stats read_stats(element e, const path_ref& path) {
  const auto o = reader(e, path, "sample_stats", 0);
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

ceiling read_ceiling(element e, const path_ref& path, int minor) {
  const auto o = reader(e, path, "ceiling", minor);
  ceiling c;
  c.datasheet = o.nullable_number("datasheet");
  c.datasheet_source = o.string("datasheet_source");
  c.clock_adjusted = o.nullable_number("clock_adjusted");
  c.clock_adjusted_source = o.string("clock_adjusted_source");
  if (minor >= 1) {
    c.reference = read_enum(o.at("reference"), o.field("reference"), detail::reference_kind_names);
    c.spec_figure = o.string("spec_figure");
    if (!c.spec_figure.empty() && !is_spec_figure(c.spec_figure)) {
      fail(o.path_of("spec_figure"),
           fmt::format("expected \"memory_bandwidth_gbs\", \"pcie_gbs\", \"nvlink_gbs\", "
                       "\"peaks.<key>\" or \"\", got {}",
                       quote(c.spec_figure)));
    }
    c.roofline_bytes = o.nullable_number("roofline_bytes");
  }
  if (minor >= 2) {
    if (const auto fraction = o.find("mig_fraction")) {
      c.mig_fraction = read_double(*fraction, o.field("mig_fraction"));
      if (!(*c.mig_fraction > 0 && *c.mig_fraction <= 1))
        fail(o.path_of("mig_fraction"),
             fmt::format("expected a share of the GPU, over 0 and at most 1, got {}",
                         *c.mig_fraction));
    }
  }
  return c;
}

verification read_verification(element e, const path_ref& path) {
  const auto o = reader(e, path, "verification", 0);
  verification v;
  v.status = read_enum(o.at("status"), o.field("status"), detail::verification_status_names);
  v.max_rel_error = o.nullable_number("max_rel_error");
  v.tolerance = o.nullable_number("tolerance");
  v.detail = o.string("detail");
  return v;
}

telemetry_summary read_telemetry(element e, const path_ref& path, int minor) {
  const auto o = reader(e, path, "telemetry_summary", minor);
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

metric_unit read_unit(element e, const path_ref& path) {
  const std::string symbol = read_string(e, path);
  const auto unit = metric_unit_from_string(symbol);
  if (!unit) {
    fail(path.str(), fmt::format("expected one of {}, got {}", unit_symbols_text(), quote(symbol)));
  }
  return *unit;
}

/// Version 1.1's axes: a part of `parameters`, each with the value it has there; the rest of
/// `parameters` is the observations.
void split_parameters(result& r, const nlohmann::ordered_json& parameters,
                      const nlohmann::ordered_json& axes, const std::string& path) {
  for (auto it = axes.begin(); it != axes.end(); ++it) {
    const auto in = parameters.find(it.key());
    if (in == parameters.end()) {
      fail(member_path(member_path(path, "axes"), it.key()),
           "an axis that is not in parameters (every axis is written there too)");
    }
    if (*in != it.value()) {
      fail(member_path(member_path(path, "axes"), it.key()),
           fmt::format("{}, but parameters.{} is {}", it.value().dump(), it.key(), in->dump()));
    }
  }
  r.axes = axes;
  r.observations = nlohmann::ordered_json::object();
  for (auto it = parameters.begin(); it != parameters.end(); ++it) {
    if (!axes.contains(it.key())) {
      r.observations[it.key()] = it.value();
    }
  }
}

nlohmann::ordered_json read_object_value(element e, const path_ref& path) {
  if (!e.is_object()) {
    fail(path.str(), fmt::format("expected an object, got {}", describe(e)));
  }
  return detail::to_json_value(e, path);
}

// --- an event during a result (gpu_event.hpp): every key of v1.1 ----------------------------

gpu_event read_gpu_event(element e, const path_ref& path) {
  const auto o = reader(e, path, "gpu_event", 1);
  gpu_event g;
  g.time_s = o.number("time_s");
  g.device = o.integer<int>("device");
  if (g.device < 0)
    fail(o.path_of("device"), fmt::format("expected an NVML index (0 or more), got {}", g.device));
  g.type =
      *gpu_event_type_from(read_one_of(o.at("type"), o.field("type"), detail::gpu_event_types));
  g.xid = o.nullable_integer<int>("xid");
  if ((g.type == gpu_event_type::xid) != g.xid.has_value()) {
    fail(o.path_of("xid"), "an xid event says its Xid, and only an xid event has one");
  }
  g.source = read_one_of(o.at("source"), o.field("source"), detail::gpu_event_sources);
  g.detail = o.string("detail");
  return g;
}

// --- the burn-in record (burnin_record.hpp): every key of v1.1 -------------------------------

std::string read_word(element e, const path_ref& path, bool may_be_empty = false) {
  std::string s = read_string(e, path);
  if (!(may_be_empty && s.empty()) && !detail::is_hex_word(s)) {
    fail(path.str(), fmt::format("expected \"0x\" and 16 lower-case hex digits, got {}", quote(s)));
  }
  return s;
}

burnin_interval read_burnin_interval(element e, const path_ref& path) {
  const auto o = reader(e, path, "burnin_interval", 1);
  burnin_interval b;
  b.start_s = o.number("start_s");
  b.end_s = o.number("end_s");
  b.gemm_iterations = o.count("gemm_iterations");
  b.throughput = o.nullable_number("throughput");
  b.telemetry_samples = o.count("telemetry_samples");
  b.sm_clock_mhz_median = o.nullable_number("sm_clock_mhz_median");
  b.mem_clock_mhz_median = o.nullable_number("mem_clock_mhz_median");
  b.temperature_c_max = o.nullable_number("temperature_c_max");
  b.power_w_mean = o.nullable_number("power_w_mean");
  b.power_w_max = o.nullable_number("power_w_max");
  b.throttle_reasons = o.strings("throttle_reasons");
  b.checksum_mismatches = o.count("checksum_mismatches");
  b.memtest_words = o.count("memtest_words");
  b.memtest_bad_words = o.count("memtest_bad_words");
  return b;
}

burnin_mismatch read_burnin_mismatch(element e, const path_ref& path) {
  const auto o = reader(e, path, "burnin_mismatch", 1);
  burnin_mismatch m;
  m.iteration = o.count("iteration");
  m.time_s = o.number("time_s");
  m.expected = read_word(o.at("expected"), o.field("expected"));
  m.actual = read_word(o.at("actual"), o.field("actual"));
  return m;
}

burnin_bad_word read_burnin_bad_word(element e, const path_ref& path) {
  const auto o = reader(e, path, "burnin_bad_word", 1);
  burnin_bad_word w;
  w.address = o.string("address");
  w.pattern = o.string("pattern");
  w.expected = read_word(o.at("expected"), o.field("expected"));
  w.actual = read_word(o.at("actual"), o.field("actual"));
  if (const auto reread = o.find("reread"))
    w.reread = read_word(*reread, o.field("reread"));
  if (const auto stuck = o.find("stuck"))
    w.stuck = read_bool(*stuck, o.field("stuck"));
  return w;
}

burnin_sample read_burnin_sample(element e, const path_ref& path) {
  const auto o = reader(e, path, "burnin_sample", 1);
  burnin_sample s;
  s.time_s = o.number("time_s");
  s.sm_clock_mhz = o.nullable_number("sm_clock_mhz");
  s.mem_clock_mhz = o.nullable_number("mem_clock_mhz");
  s.temperature_c = o.nullable_number("temperature_c");
  s.power_w = o.nullable_number("power_w");
  s.throttle_reasons = o.strings("throttle_reasons");
  return s;
}

burnin_gemm read_burnin_gemm(element e, const path_ref& path) {
  const auto o = reader(e, path, "burnin_gemm", 1);
  burnin_gemm g;
  g.dtype = o.string("dtype");
  g.m = o.count("m");
  g.n = o.count("n");
  g.k = o.count("k");
  g.seed = o.integer<std::int64_t>("seed");
  g.algorithm = o.string("algorithm");
  g.reduction = o.string("reduction");
  g.deterministic = o.boolean("deterministic");
  g.determinism_note = o.string("determinism_note");
  g.iterations = o.count("iterations");
  g.reference_checksum = read_word(o.at("reference_checksum"), o.field("reference_checksum"), true);
  g.checksum_mismatches = o.count("checksum_mismatches");
  g.mismatches = read_array(o.at("mismatches"), o.field("mismatches"), read_burnin_mismatch);
  if (static_cast<std::int64_t>(g.mismatches.size()) > g.checksum_mismatches) {
    fail(o.path_of("mismatches"),
         fmt::format("lists {} mismatches, more than checksum_mismatches ({})", g.mismatches.size(),
                     g.checksum_mismatches));
  }
  return g;
}

burnin_memtest read_burnin_memtest(element e, const path_ref& path) {
  const auto o = reader(e, path, "burnin_memtest", 1);
  burnin_memtest m;
  m.bytes = o.count("bytes");
  m.passes = o.count("passes");
  m.patterns = o.strings("patterns");
  m.words_checked = o.count("words_checked");
  m.bad_words = o.count("bad_words");
  m.bad = read_array(o.at("bad"), o.field("bad"), read_burnin_bad_word);
  if (static_cast<std::int64_t>(m.bad.size()) > m.bad_words) {
    fail(o.path_of("bad"),
         fmt::format("lists {} bad words, more than bad_words ({})", m.bad.size(), m.bad_words));
  }
  return m;
}

burnin_record read_burnin(element e, const path_ref& path) {
  const auto o = reader(e, path, "burnin_record", 1);
  burnin_record b;
  b.duration_s = o.nullable_number("duration_s");
  b.elapsed_s = o.number("elapsed_s");
  b.busy_s = o.number("busy_s");
  b.interval_s = o.number("interval_s");
  if (!(b.interval_s > 0)) {
    fail(o.path_of("interval_s"), fmt::format("expected more than 0, got {}", b.interval_s));
  }
  b.idle_power_w = o.nullable_number("idle_power_w");
  if (const element g = o.at("gemm"); !g.is_null()) {
    b.gemm = read_burnin_gemm(g, o.field("gemm"));
  }
  if (const element m = o.at("memtest"); !m.is_null()) {
    b.memtest = read_burnin_memtest(m, o.field("memtest"));
  }
  b.intervals = read_array(o.at("intervals"), o.field("intervals"), read_burnin_interval);
  if (b.intervals.size() > burnin_max_intervals) {
    fail(o.path_of("intervals"), fmt::format("{} intervals, more than the cap of {}",
                                             b.intervals.size(), burnin_max_intervals));
  }
  b.event_samples = read_array(o.at("event_samples"), o.field("event_samples"), read_burnin_sample);
  return b;
}

result read_result(element e, const path_ref& path, int minor) {
  const auto o = reader(e, path, "result", minor);
  result r;
  r.bench_id = o.string("bench_id");
  r.devices = read_array(o.at("devices"), o.field("devices"), read_integer<int>);
  const auto parameters = read_object_value(o.at("parameters"), o.field("parameters"));
  r.metric = o.string("metric");
  r.unit = read_unit(o.at("unit"), o.field("unit"));
  r.higher_is_better = o.boolean("higher_is_better");
  r.cache_state = read_one_of(o.at("cache_state"), o.field("cache_state"), detail::cache_states);
  r.bytes_per_iteration = o.nullable_number("bytes_per_iteration");
  r.flops_per_iteration = o.nullable_number("flops_per_iteration");
  r.samples = o.numbers("samples");
  r.sample_seconds = o.numbers("sample_seconds");
  r.stats = read_stats(o.at("stats"), o.field("stats"));
  r.host_seconds_median = o.nullable_number("host_seconds_median");
  r.stop_reason = read_one_of(o.at("stop_reason"), o.field("stop_reason"), detail::stop_reasons);
  r.ceiling_value = read_ceiling(o.at("ceiling"), o.field("ceiling"), minor);
  r.efficiency = o.nullable_number("efficiency");
  r.check = read_verification(o.at("verification"), o.field("verification"));
  r.telemetry = read_telemetry(o.at("telemetry"), o.field("telemetry"), minor);
  r.status = read_enum(o.at("status"), o.field("status"), detail::result_status_names);
  r.reason = o.string("reason");
  if (r.status != result_status::ok && r.reason.empty()) {
    fail(o.path_of("reason"),
         fmt::format("a result whose status is {} must say why", quote(to_string(r.status))));
  }
  if (minor >= 1) {
    split_parameters(r, parameters, read_object_value(o.at("axes"), o.field("axes")), o.path());
    r.failure = read_enum(o.at("failure"), o.field("failure"), detail::failure_kind_names);
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
    // The one optional key of a report: only burn-in and memory-test results carry it.
    if (const auto burnin = o.find("burnin")) {
      r.burnin = read_burnin(*burnin, o.field("burnin"));
    }
    if (const auto adjusted = o.find("efficiency_clock_adjusted")) {
      r.efficiency_clock_adjusted = read_double(*adjusted, o.field("efficiency_clock_adjusted"));
    }
    if (const auto events = o.find("events")) {
      r.events = read_array(*events, o.field("events"), read_gpu_event);
      if (r.events.empty())
        fail(o.field("events").str(), "an empty list is written as no key at all");
    }
    if (minor >= 2) {
      if (const auto mig = o.find("mig"))
        r.mig = read_mig_ref(*mig, o.field("mig"));
    }
  } else {
    detail::derive_version_1(r, parameters);
    if (r.status == result_status::failed) {
      // Version 1 said what failed only in words; its harness set the verification's status.
      r.failure = r.check.status == verification_status::failed ? failure_kind::verification
                                                                : failure_kind::benchmark;
    }
  }
  return r;
}

} // namespace gpuspec::reports::model::report_read
