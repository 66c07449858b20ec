#include "gpuspec/cli/progress_display.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

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
  const bool all_at_once = plan.concurrency >= static_cast<int>(plan.devices.size());
  fmt::print(
      m_out,
      "gpuspec run: {} GPU(s) {}, {} case(s) each{} ({} backend); expected about {}, at "
      "most {} if every case ran to its deadline; report {}\n",
      plan.devices.size(), all_at_once ? "at once" : fmt::format("{} at a time", plan.concurrency),
      plan.cases_per_gpu,
      plan.node_cases == 0
          ? ""
          : fmt::format(", then {} node-wide case(s) over all of them", plan.node_cases),
      plan.backend, duration_text(plan.expected_s), duration_text(plan.deadline_s), m_report_path);
  for (int d : plan.devices) {
    m_order.push_back(d);
    m_gpus[d].total = plan.cases_per_gpu;
  }
  // The node-wide cases are told on the line of the first GPU, whose id their worker takes.
  if (!plan.devices.empty())
    m_gpus[plan.devices.front()].total += plan.node_cases;
  redraw(true);
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

void progress_display::on_worker_started(int device, int /*pid*/) {
  m_gpus[device].state = "starting";
  redraw(false);
}

void progress_display::on_case_started(int device, int case_index, const spine::planned_case& c) {
  gpu_line& g = m_gpus[device];
  g.current = c.label();
  g.runs = 0;
  g.state = "measuring";
  g.case_started = std::chrono::steady_clock::now();
  if (!m_in_place)
    fmt::print(m_out, "[gpu {}] {}/{} {} ...\n", device, case_index + 1, g.total, g.current);
  redraw(false);
}

void progress_display::on_progress(int device, int /*case_index*/, int runs) {
  m_gpus[device].runs = runs;
  redraw(false);
}

void progress_display::on_result(const spine::journal_entry& entry) {
  gpu_line& g = m_gpus[entry.device];
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
    fmt::print(m_out, "[gpu {}]     {} [wall {:.1f} s]\n", entry.device, result_text(entry.result),
               wall);
  }
  redraw(false);
}

void progress_display::on_worker_lost(int device, const std::string& what,
                                      const std::string& log_tail) {
  gpu_line& g = m_gpus[device];
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

void progress_display::on_worker_finished(int device) {
  gpu_line& g = m_gpus[device];
  if (!g.lost)
    g.state = "done";
  g.current.clear();
  redraw(true);
}

std::string progress_display::line_of(int device, const gpu_line& g) const {
  std::string counts = fmt::format("{} ok", g.ok);
  if (g.failed > 0)
    counts += fmt::format(", {} failed", g.failed);
  if (g.skipped > 0)
    counts += fmt::format(", {} skipped", g.skipped);
  std::string line;
  if (g.state == "measuring")
    line = fmt::format("gpu {:>2}  {:>3}/{:<3} {}  {} run(s)  [{}]", device, g.done + 1, g.total,
                       g.current, g.runs, counts);
  else
    line = fmt::format("gpu {:>2}  {:>3}/{:<3} {}  [{}]", device, g.done, g.total,
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
  for (int d : m_order)
    fmt::print(m_out, "\x1b[2K{}\n", line_of(d, m_gpus[d]));
  m_drawn = m_order.size();
  std::fflush(m_out);
}

void progress_display::close() { redraw(true); }

} // namespace gpuspec::cli
