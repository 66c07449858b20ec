// Writing a report's results (report_writer.cpp writes the rest): statistics, ceilings,
// verification, telemetry, events and burn-in records, every key in report_fields.cpp's order.

#include "report_write_parts.hpp"

namespace gpuspec::reports::inline model::report_write {

json count(std::int64_t n, const field_path& path) {
  if (n < 0) {
    unwritable(path, fmt::format("a count cannot be negative, got {}", n));
  }
  return n;
}

json stats_json(const sample_stats& s, const field_path& path) {
  const auto at = [&](std::string_view key) { return field_path(path, key); };
  object_writer j(9);
  j["n"] = count(s.n, at("n"));
  j["median"] = number(s.median, at("median"));
  j["mean"] = number(s.mean, at("mean"));
  j["min"] = number(s.min, at("min"));
  j["max"] = number(s.max, at("max"));
  j["stddev"] = number(s.stddev, at("stddev"));
  j["cv"] = number(s.cv, at("cv"));
  j["q1"] = number(s.q1, at("q1"));
  j["q3"] = number(s.q3, at("q3"));
  return j.take();
}

json ceiling_json(const ceiling& c, const field_path& path) {
  if (!c.spec_figure.empty() && !is_spec_figure(c.spec_figure)) {
    unwritable(field_path(path, "spec_figure"),
               fmt::format("{} is not a spec-table figure", quote(c.spec_figure)));
  }
  object_writer j(8);
  j["datasheet"] = number(c.datasheet, field_path(path, "datasheet"));
  j["datasheet_source"] = c.datasheet_source;
  j["clock_adjusted"] = number(c.clock_adjusted, field_path(path, "clock_adjusted"));
  j["clock_adjusted_source"] = c.clock_adjusted_source;
  j["reference"] = to_string(c.reference);
  j["spec_figure"] = c.spec_figure;
  j["roofline_bytes"] = number(c.roofline_bytes, field_path(path, "roofline_bytes"));
  if (c.mig_fraction)
    j["mig_fraction"] = number(*c.mig_fraction, field_path(path, "mig_fraction"));
  return j.take();
}

json verification_json(const verification& v, const field_path& path) {
  object_writer j(4);
  j["status"] = to_string(v.status);
  j["max_rel_error"] = number(v.max_rel_error, field_path(path, "max_rel_error"));
  j["tolerance"] = number(v.tolerance, field_path(path, "tolerance"));
  j["detail"] = v.detail;
  return j.take();
}

json telemetry_json(const telemetry_summary& t, const field_path& path) {
  const auto at = [&](std::string_view key) { return field_path(path, key); };
  object_writer j(18);
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
  return j.take();
}

// --- an event during a result (gpu_event.hpp) ----------------------------------------------

json gpu_event_json(const gpu_event& g, const field_path& path) {
  if ((g.type == gpu_event_type::xid) != g.xid.has_value()) {
    unwritable(field_path(path, "xid"), "an xid event says its Xid, and only an xid event has one");
  }
  object_writer j(6);
  j["time_s"] = number(g.time_s, field_path(path, "time_s"));
  j["device"] = g.device;
  j["type"] = to_string(g.type);
  j["xid"] = nullable(g.xid);
  j["source"] = g.source;
  j["detail"] = g.detail;
  return j.take();
}

// --- the burn-in record (burnin_record.hpp) -------------------------------------------------

json count_json(std::int64_t v, const field_path& path) {
  if (v < 0) {
    unwritable(path, fmt::format("a count is 0 or more, got {}", v));
  }
  return v;
}

json strings_json(const std::vector<std::string>& values) {
  json array = json::array();
  for (const auto& v : values) {
    array.push_back(v);
  }
  return array;
}

/// A 64-bit word or checksum: "0x" and 16 lower-case hex digits ("" where the field allows none).
json word_json(const std::string& v, const field_path& path, bool may_be_empty = false) {
  if (!(may_be_empty && v.empty()) && !detail::is_hex_word(v)) {
    unwritable(path, fmt::format("{} is not \"0x\" and 16 hex digits", quote(v)));
  }
  return v;
}

json burnin_interval_json(const burnin_interval& b, const field_path& path) {
  const auto at = [&](std::string_view key) { return field_path(path, key); };
  object_writer j(14);
  j["start_s"] = number(b.start_s, at("start_s"));
  j["end_s"] = number(b.end_s, at("end_s"));
  j["gemm_iterations"] = count_json(b.gemm_iterations, at("gemm_iterations"));
  j["throughput"] = number(b.throughput, at("throughput"));
  j["telemetry_samples"] = count_json(b.telemetry_samples, at("telemetry_samples"));
  j["sm_clock_mhz_median"] = number(b.sm_clock_mhz_median, at("sm_clock_mhz_median"));
  j["mem_clock_mhz_median"] = number(b.mem_clock_mhz_median, at("mem_clock_mhz_median"));
  j["temperature_c_max"] = number(b.temperature_c_max, at("temperature_c_max"));
  j["power_w_mean"] = number(b.power_w_mean, at("power_w_mean"));
  j["power_w_max"] = number(b.power_w_max, at("power_w_max"));
  j["throttle_reasons"] = strings_json(b.throttle_reasons);
  j["checksum_mismatches"] = count_json(b.checksum_mismatches, at("checksum_mismatches"));
  j["memtest_words"] = count_json(b.memtest_words, at("memtest_words"));
  j["memtest_bad_words"] = count_json(b.memtest_bad_words, at("memtest_bad_words"));
  return j.take();
}

json burnin_gemm_json(const burnin_gemm& g, const field_path& path) {
  const auto at = [&](std::string_view key) { return field_path(path, key); };
  object_writer j(13);
  j["dtype"] = g.dtype;
  j["m"] = count_json(g.m, at("m"));
  j["n"] = count_json(g.n, at("n"));
  j["k"] = count_json(g.k, at("k"));
  j["seed"] = g.seed;
  j["algorithm"] = g.algorithm;
  j["reduction"] = g.reduction;
  j["deterministic"] = g.deterministic;
  j["determinism_note"] = g.determinism_note;
  j["iterations"] = count_json(g.iterations, at("iterations"));
  j["reference_checksum"] = word_json(g.reference_checksum, at("reference_checksum"), true);
  j["checksum_mismatches"] = count_json(g.checksum_mismatches, at("checksum_mismatches"));
  const auto items_at = at("mismatches");
  json mismatches = json::array();
  for (std::size_t i = 0; i < g.mismatches.size(); ++i) {
    const auto& m = g.mismatches[i];
    const field_path where(items_at, i);
    object_writer x(4);
    x["iteration"] = count_json(m.iteration, field_path(where, "iteration"));
    x["time_s"] = number(m.time_s, field_path(where, "time_s"));
    x["expected"] = word_json(m.expected, field_path(where, "expected"));
    x["actual"] = word_json(m.actual, field_path(where, "actual"));
    mismatches.push_back(x.take());
  }
  j["mismatches"] = std::move(mismatches);
  return j.take();
}

json burnin_memtest_json(const burnin_memtest& m, const field_path& path) {
  const auto at = [&](std::string_view key) { return field_path(path, key); };
  object_writer j(6);
  j["bytes"] = count_json(m.bytes, at("bytes"));
  j["passes"] = count_json(m.passes, at("passes"));
  j["patterns"] = strings_json(m.patterns);
  j["words_checked"] = count_json(m.words_checked, at("words_checked"));
  j["bad_words"] = count_json(m.bad_words, at("bad_words"));
  const auto items_at = at("bad");
  json bad = json::array();
  for (std::size_t i = 0; i < m.bad.size(); ++i) {
    const auto& w = m.bad[i];
    const field_path where(items_at, i);
    object_writer x(6);
    x["address"] = w.address;
    x["pattern"] = w.pattern;
    x["expected"] = word_json(w.expected, field_path(where, "expected"));
    x["actual"] = word_json(w.actual, field_path(where, "actual"));
    if (!w.reread.empty())
      x["reread"] = word_json(w.reread, field_path(where, "reread"));
    if (w.stuck)
      x["stuck"] = *w.stuck;
    bad.push_back(x.take());
  }
  j["bad"] = std::move(bad);
  return j.take();
}

json burnin_json(const burnin_record& b, const field_path& path) {
  const auto at = [&](std::string_view key) { return field_path(path, key); };
  if (b.intervals.size() > burnin_max_intervals) {
    unwritable(at("intervals"), fmt::format("{} intervals, more than the cap of {}",
                                            b.intervals.size(), burnin_max_intervals));
  }
  if (!(b.interval_s > 0)) {
    unwritable(at("interval_s"), "must be more than 0");
  }
  object_writer j(9);
  j["duration_s"] = number(b.duration_s, at("duration_s"));
  j["elapsed_s"] = number(b.elapsed_s, at("elapsed_s"));
  j["busy_s"] = number(b.busy_s, at("busy_s"));
  j["interval_s"] = number(b.interval_s, at("interval_s"));
  j["idle_power_w"] = number(b.idle_power_w, at("idle_power_w"));
  j["gemm"] = b.gemm ? burnin_gemm_json(*b.gemm, at("gemm")) : json(nullptr);
  j["memtest"] = b.memtest ? burnin_memtest_json(*b.memtest, at("memtest")) : json(nullptr);
  const auto intervals_at = at("intervals");
  json intervals = json::array();
  for (std::size_t i = 0; i < b.intervals.size(); ++i) {
    intervals.push_back(burnin_interval_json(b.intervals[i], field_path(intervals_at, i)));
  }
  j["intervals"] = std::move(intervals);
  const auto items_at = at("event_samples");
  json samples = json::array();
  for (std::size_t i = 0; i < b.event_samples.size(); ++i) {
    const auto& s = b.event_samples[i];
    const field_path where(items_at, i);
    object_writer x(6);
    x["time_s"] = number(s.time_s, field_path(where, "time_s"));
    x["sm_clock_mhz"] = number(s.sm_clock_mhz, field_path(where, "sm_clock_mhz"));
    x["mem_clock_mhz"] = number(s.mem_clock_mhz, field_path(where, "mem_clock_mhz"));
    x["temperature_c"] = number(s.temperature_c, field_path(where, "temperature_c"));
    x["power_w"] = number(s.power_w, field_path(where, "power_w"));
    x["throttle_reasons"] = strings_json(s.throttle_reasons);
    samples.push_back(x.take());
  }
  j["event_samples"] = std::move(samples);
  return j.take();
}

json result_json(const result& r, const field_path& path) {
  const auto at = [&](std::string_view key) { return field_path(path, key); };
  for (const auto* part : {&r.axes, &r.observations}) {
    const auto where = at(part == &r.axes ? "axes" : "observations");
    if (!part->is_object()) {
      unwritable(where, fmt::format("must be a JSON object, not {}", part->type_name()));
    }
    require_finite(*part, where);
  }
  const auto observations_at = at("observations");
  for (auto it = r.observations.begin(); it != r.observations.end(); ++it) {
    if (r.axes.contains(it.key())) {
      unwritable(field_path(observations_at, it.key()),
                 "is an axis too: a key is what was asked or what was found, not both");
    }
  }
  require_one_of(r.cache_state, detail::cache_states, at("cache_state"));
  require_one_of(r.stop_reason, detail::stop_reasons, at("stop_reason"));
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
  object_writer j(27);
  j["bench_id"] = r.bench_id;
  j["devices"] = r.devices;
  j["parameters"] = parameters_of(r);
  j["axes"] = r.axes;
  j["metric"] = r.metric;
  j["unit"] = to_string(r.unit);
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
  if (r.efficiency_clock_adjusted)
    j["efficiency_clock_adjusted"] =
        number(r.efficiency_clock_adjusted, at("efficiency_clock_adjusted"));
  j["verification"] = verification_json(r.check, at("verification"));
  j["telemetry"] = telemetry_json(r.telemetry, at("telemetry"));
  j["status"] = to_string(r.status);
  j["reason"] = r.reason;
  j["failure"] = to_string(r.failure);
  j["gpus_busy"] = nullable(r.gpus_busy);
  if (r.burnin) {
    j["burnin"] = burnin_json(*r.burnin, at("burnin"));
  }
  if (!r.events.empty()) {
    const auto events_at = at("events");
    json events = json::array();
    for (std::size_t i = 0; i < r.events.size(); ++i)
      events.push_back(gpu_event_json(r.events[i], field_path(events_at, i)));
    j["events"] = std::move(events);
  }
  if (r.mig)
    j["mig"] = mig_ref_json(*r.mig);
  return j.take();
}

} // namespace gpuspec::reports::model::report_write
