#include "gpuspec/cli/progress_display.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "gpuspec/cli/format.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/units.hpp"

namespace gpuspec::cli {
namespace {

std::string duration_text(double seconds) {
  if (seconds < 90)
    return fmt::format("{:.0f} s", seconds);
  if (seconds < 5400)
    return fmt::format("{:.0f} min", seconds / 60);
  return fmt::format("{:.1f} h", seconds / 3600);
}

std::string result_text(const reports::result& r) {
  if (r.status == reports::result_status::ok)
    return fmt::format("{} {} (median of {}, cv {:.2f}%, {}){}", format_value(r.stats.median),
                       reports::to_string(r.unit), r.stats.n, 100.0 * r.stats.cv,
                       reports::to_string(r.check.status),
                       r.telemetry.throttled ? ", THROTTLED" : "");
  return fmt::format("{}: {}", reports::to_string(r.status), r.reason);
}

std::string plural(std::size_t n, const char* word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

/// What the workers measure: "2 GPU(s)", "7 MIG instances on 1 GPU", "4 whole GPUs and 8 MIG
/// instances on 4 GPUs" (docs/mig.md).
std::string measured_text(const spine::session_plan& plan) {
  std::size_t whole = 0, instances = 0;
  std::set<int> partitioned;
  for (const auto& u : plan.units) {
    if (!u.mig) {
      ++whole;
      continue;
    }
    ++instances;
    partitioned.insert(u.device);
  }
  if (instances == 0)
    return fmt::format("{} GPU(s)", plan.devices.size());
  const std::string mig =
      fmt::format("{} on {}", plural(instances, "MIG instance"), plural(partitioned.size(), "GPU"));
  return whole == 0 ? mig : fmt::format("{} and {}", plural(whole, "whole GPU"), mig);
}

std::pair<int, std::string> key_of(const spine::worker_job& job) {
  return {job.device, job.mig ? job.mig->uuid : std::string()};
}

} // namespace

progress_display::progress_display(std::FILE* out, bool in_place, std::string report_path)
    : m_out(out), m_in_place(in_place), m_report_path(std::move(report_path)) {
  if (m_in_place) {
    winsize size{};
    if (::ioctl(::fileno(out), TIOCGWINSZ, &size) == 0 && size.ws_col > 20)
      m_width = size.ws_col;
  }
}

void progress_display::on_plan(const spine::session_plan& plan) {
  const std::size_t workers = plan.units.empty() ? plan.devices.size() : plan.units.size();
  const bool all_at_once = plan.concurrency >= static_cast<int>(workers);
  fmt::print(
      m_out,
      "gpuspec run: {} {}, {} case(s) each{} ({} backend); expected about {}, at "
      "most {} if every case ran to its deadline; report {}\n",
      measured_text(plan), all_at_once ? "at once" : fmt::format("{} at a time", plan.concurrency),
      plan.cases_per_gpu,
      plan.node_cases == 0
          ? ""
          : fmt::format(", then {} node-wide case(s) over all of them", plan.node_cases),
      plan.backend, duration_text(plan.expected_s), duration_text(plan.deadline_s), m_report_path);
  std::vector<spine::measured_unit> units = plan.units;
  if (units.empty())
    for (int d : plan.devices)
      units.push_back({d, std::nullopt});
  for (const auto& u : units) {
    const line_key key{u.device, u.mig ? u.mig->uuid : std::string()};
    m_order.push_back(key);
    gpu_line& g = m_gpus[key];
    g.label =
        u.mig ? fmt::format("{}:mig{}", u.device, u.mig->mig_index) : std::to_string(u.device);
    g.total = plan.cases_per_gpu;
    m_label_width = std::max(m_label_width, g.label.size());
  }
  // The node-wide cases are told on the line of the first whole GPU, whose id their worker takes
  // (a MIG device takes part in none).
  const auto whole = std::find_if(units.begin(), units.end(), [](const auto& u) { return !u.mig; });
  if (whole != units.end())
    m_gpus[{whole->device, ""}].total += plan.node_cases;
  redraw(true);
}

progress_display::gpu_line& progress_display::line_for(const line_key& key) {
  const auto [it, fresh] = m_gpus.try_emplace(key);
  if (fresh) {
    it->second.label = std::to_string(key.first);
    m_order.push_back(key);
  }
  return it->second;
}

void progress_display::print_above(const std::string& text) {
  if (m_in_place && m_drawn > 0) {
    fmt::print(m_out, "\x1b[{}F\x1b[J", m_drawn); // up to the first GPU line, clear below
    m_drawn = 0;
  }
  fmt::print(m_out, "{}\n", text);
  redraw(true);
}

void progress_display::on_note(const std::string& text) { print_above("gpuspec run: " + text); }

void progress_display::on_worker_started(const spine::worker_job& job, int /*pid*/) {
  line_for(key_of(job)).state = "starting";
  redraw(false);
}

void progress_display::on_case_started(const spine::worker_job& job, int /*case_index*/,
                                       const spine::planned_case& c) {
  gpu_line& g = line_for(key_of(job));
  g.current = c.label();
  g.runs = 0;
  g.state = "measuring";
  g.case_started = std::chrono::steady_clock::now();
  // Counted on the line, as the terminal's line counts: the node-wide cases come after the
  // first whole GPU's own (their job numbers them from 0).
  if (!m_in_place)
    fmt::print(m_out, "[gpu {}] {}/{} {} ...\n", g.label, g.done + 1, g.total, g.current);
  redraw(false);
}

void progress_display::on_progress(const spine::worker_job& job, int /*case_index*/, int runs) {
  line_for(key_of(job)).runs = runs;
  redraw(false);
}

void progress_display::on_result(const spine::journal_entry& entry) {
  const line_key key{entry.device, entry.result.mig ? entry.result.mig->uuid : std::string()};
  if (entry.node_wide && !m_gpus.contains(key)) {
    // A node-wide case's not-run result on partitioned GPUs: no worker's line counts it.
    if (!m_in_place)
      fmt::print(m_out, "[gpu {}]     {}\n", entry.device, result_text(entry.result));
    return;
  }
  gpu_line& g = line_for(key);
  ++g.done;
  switch (entry.result.status) {
  case reports::result_status::ok:
    ++g.ok;
    break;
  case reports::result_status::failed:
    ++g.failed;
    break;
  default:
    ++g.skipped;
    break;
  }
  g.state = "between cases";
  g.current.clear();
  if (!m_in_place) {
    // The case's wall time, setup included: what sizes the next run's budget.
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - g.case_started).count();
    fmt::print(m_out, "[gpu {}]     {} [wall {:.1f} s]\n", g.label, result_text(entry.result),
               wall);
  }
  redraw(false);
}

void progress_display::on_worker_lost(const spine::worker_job& job, const std::string& what,
                                      const std::string& log_tail) {
  gpu_line& g = line_for(key_of(job));
  g.lost = true;
  g.state = "lost";
  std::string text = fmt::format("gpuspec run: {}", what);
  if (!log_tail.empty()) {
    text += "\n  its stderr ended with:";
    std::size_t begin = 0;
    while (begin < log_tail.size()) {
      const std::size_t end = std::min(log_tail.find('\n', begin), log_tail.size());
      if (end > begin)
        text += "\n    " + log_tail.substr(begin, end - begin);
      begin = end + 1;
    }
  }
  print_above(text);
}

void progress_display::on_worker_finished(const spine::worker_job& job) {
  gpu_line& g = line_for(key_of(job));
  if (!g.lost)
    g.state = "done";
  g.current.clear();
  redraw(true);
}

std::string progress_display::line_of(const gpu_line& g) const {
  std::string counts = fmt::format("{} ok", g.ok);
  if (g.failed > 0)
    counts += fmt::format(", {} failed", g.failed);
  if (g.skipped > 0)
    counts += fmt::format(", {} skipped", g.skipped);
  std::string line;
  if (g.state == "measuring")
    line = fmt::format("gpu {:>{}}  {:>3}/{:<3} {}  {} run(s)  [{}]", g.label, m_label_width,
                       g.done + 1, g.total, g.current, g.runs, counts);
  else
    line = fmt::format("gpu {:>{}}  {:>3}/{:<3} {}  [{}]", g.label, m_label_width, g.done, g.total,
                       g.state == "lost" ? "LOST" : g.state, counts);
  if (line.size() >= m_width)
    line.resize(m_width - 1);
  return line;
}

void progress_display::redraw(bool force) {
  if (!m_in_place || m_order.empty())
    return;
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - m_last_draw < std::chrono::milliseconds(100))
    return;
  m_last_draw = now;
  if (m_drawn > 0)
    fmt::print(m_out, "\x1b[{}F", m_drawn);
  for (const auto& key : m_order)
    fmt::print(m_out, "\x1b[2K{}\n", line_of(m_gpus[key]));
  m_drawn = m_order.size();
  std::fflush(m_out);
}

void progress_display::close() { redraw(true); }

} // namespace gpuspec::cli
