// `db compare` (queries.hpp): each GPU's latest result in two windows, as two reports that
// diff's own rules judge (one concept, one place: the noise-aware diff is diff.hpp's).

#include <map>
#include <set>

#include <fmt/format.h>

#include "gpuspec/fleet/queries.hpp"
#include "gpuspec/fleet/record.hpp"
#include "gpuspec/reports/model/identity.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/units.hpp"

namespace gpuspec::fleet {

namespace {

using namespace gpuspec::reports;

/// One result row as read for comparison.
struct side_row {
  std::string gpu_key, model, vbios, at_utc;
  result res;
  stack_info stack;
};

const std::string& stack_value(const side_row& r, const std::string& key) {
  static const std::string none;
  if (key == "driver")
    return r.stack.driver;
  if (key == "cuda")
    return r.stack.cuda_driver;
  if (key == "cuda_runtime")
    return r.stack.cuda_runtime;
  if (key == "cublas")
    return r.stack.cublas;
  if (key == "nccl")
    return r.stack.nccl;
  if (key == "vbios")
    return r.vbios;
  if (key == "gpuspec")
    return r.stack.gpuspec_version;
  return none;
}

bool in_window(const side_row& r, const window& w) {
  if (w.before && !(r.at_utc < *w.before))
    return false;
  if (w.from && !(r.at_utc >= *w.from))
    return false;
  return !w.stack || w.stack->holds(stack_value(r, w.stack->key));
}

side_row row_of(const statement& s) {
  side_row r;
  r.gpu_key = s.text(0);
  r.model = s.text(1);
  r.res.bench_id = s.text(2);
  r.res.axes = nlohmann::ordered_json::parse(s.text(3)); // written by record.cpp's dump()
  r.res.metric = s.text(4);
  r.res.unit = metric_unit_from_string(s.text(5)).value_or(metric_unit::none);
  r.res.higher_is_better = s.integer(6) != 0;
  r.res.status = result_status_from_string(s.text(7)).value_or(result_status::failed);
  r.res.reason = s.text(8);
  r.res.stats.median = s.optional_real(9).value_or(0.0);
  r.res.samples = s.doubles(10);
  r.res.stats.n = static_cast<std::int64_t>(r.res.samples.size());
  r.vbios = s.text(11);
  r.stack = {s.text(12), s.text(13), s.text(14), s.text(15), s.text(16), s.text(17)};
  r.at_utc = s.text(18);
  return r;
}

using latest_map = std::map<std::pair<std::string, std::string>, side_row>;

/// The two reports diff compares: one GPU per key seen on both sides, its pairs' results. A
/// MIG device's results (their stored case key ends in its mig_key) are a GPU of their own,
/// "<gpu key> MIG 1g.10gb, GI 7 CI 0", so that diff pairs each with its own instance only.
std::pair<report, report> as_reports(const latest_map& before, const latest_map& after) {
  std::pair<report, report> out;
  std::map<std::string, int> index;
  for (const auto& [key, b] : before) {
    const auto a = after.find(key);
    if (a == after.end())
      continue;
    const std::string plain = case_key(b.res);
    const std::string mig = key.second.size() > plain.size() && key.second.starts_with(plain)
                                ? key.second.substr(plain.size() + 1) // after the '\x1d'
                                : std::string();
    const std::string unit = mig.empty() ? key.first : key.first + " " + mig;
    auto [it, added] = index.emplace(unit, static_cast<int>(index.size()));
    if (added) {
      for (auto* rep : {&out.first, &out.second}) {
        device_info d;
        d.index = it->second;
        d.serial = unit;
        d.name = (rep == &out.first ? b : a->second).model;
        d.vbios = (rep == &out.first ? b : a->second).vbios;
        rep->devices.push_back(std::move(d));
      }
    }
    out.first.results.push_back(b.res);
    out.first.results.back().devices = {it->second};
    out.second.results.push_back(a->second.res);
    out.second.results.back().devices = {it->second};
  }
  return out;
}

} // namespace

diff_output compare_windows(const connection& db, const compare_request& request) {
  // With a model, `model = ?1` alone: the GPUs' index by model finds its rows (an OR with
  // "no model" would read every row).
  auto s = db.prepare(fmt::format(
      "SELECT gpu_key, model, bench_id, axes, metric, unit, higher_is_better, status, reason, "
      "value, samples, vbios, driver, cuda_driver, cuda_runtime, cublas, nccl, gpuspec_version, "
      "at_utc, case_key FROM results WHERE {} AND "
      "(?2 = '' OR substr(bench_id, 1, length(?2)) = ?2) ORDER BY at_utc, run_id",
      request.model.empty() ? "?1 = ''" : "model = ?1"));
  s.bind(1, request.model).bind(2, request.bench);
  latest_map before, after;
  while (s.step("read the results")) {
    side_row r = row_of(s);
    const std::pair<std::string, std::string> key{r.gpu_key, s.text(19)};
    if (in_window(r, request.before))
      before.insert_or_assign(key, r); // ordered by time: the last one is the latest
    if (in_window(r, request.after))
      after.insert_or_assign(key, std::move(r));
  }
  const auto [old_report, new_report] = as_reports(before, after);
  diff_output d = diff_reports(old_report, new_report, request.options);
  d.old_label = request.before.label;
  d.new_label = request.after.label;
  return d;
}

} // namespace gpuspec::fleet
