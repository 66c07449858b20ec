// The terminal table and the Markdown summary of a check outcome.

#include <algorithm>

#include <fmt/format.h>

#include "gpuspec/reports/text_format.hpp"
#include "render_detail.hpp"

namespace gpuspec::reports::detail {

namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

const char* ansi(verdict_status s) {
  switch (s) {
  case verdict_status::pass:
    return "\033[32m";
  case verdict_status::warn:
    return "\033[33m";
  case verdict_status::fail:
    return "\033[31m";
  case verdict_status::inconclusive:
    return "\033[35m";
  case verdict_status::skipped:
    return "\033[2m";
  }
  return "";
}

std::string gpus_text(const std::vector<int>& devices) {
  std::string out;
  for (int d : devices) {
    out += out.empty() ? "" : ",";
    out += std::to_string(d);
  }
  return out;
}

/// Columns padded to their widest cell; the status column (`status_col`) coloured after
/// padding so the escapes do not upset the alignment.
struct table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<verdict_status> statuses;
  std::size_t status_col = 0;

  [[nodiscard]] std::string render(bool colour) const {
    std::vector<std::size_t> width(header.size(), 0);
    auto measure = [&](const std::vector<std::string>& row) {
      for (std::size_t i = 0; i < row.size(); ++i)
        width[i] = std::max(width[i], row[i].size());
    };
    measure(header);
    for (const auto& r : rows)
      measure(r);
    auto line = [&](const std::vector<std::string>& row, const verdict_status* st) {
      std::string out;
      for (std::size_t i = 0; i < row.size(); ++i) {
        std::string cell = row[i];
        if (i + 1 < row.size())
          cell.resize(width[i], ' ');
        if (colour && st != nullptr && i == status_col)
          cell = ansi(*st) + cell + "\033[0m";
        out += cell + (i + 1 < row.size() ? "  " : "");
      }
      while (!out.empty() && out.back() == ' ')
        out.pop_back();
      return out + "\n";
    };
    std::string out = line(header, nullptr);
    std::size_t total = 0;
    for (auto w : width)
      total += w + 2;
    out += std::string(total > 2 ? total - 2 : 0, '-') + "\n";
    for (std::size_t i = 0; i < rows.size(); ++i)
      out += line(rows[i], &statuses[i]);
    return out;
  }
};

class table_renderer final : public renderer {
public:
  explicit table_renderer(render_options options) : m_options(options) {}

  [[nodiscard]] std::string render(const check_outcome& outcome) const override {
    std::string out;
    auto status_text = [&](verdict_status s) {
      const std::string t = upper(to_string(s));
      return m_options.colour ? ansi(s) + t + "\033[0m" : t;
    };
    for (const auto& node : outcome.nodes) {
      out += fmt::format("Node {}{}: {}\n", node.hostname.empty() ? "?" : node.hostname,
                         node.source.empty() ? "" : " (" + node.source + ")",
                         status_text(node.status));
      if (!node.message.empty())
        out += "  " + node.message + "\n";
      table t{{"check", "gpu", "measured", "expected", "efficiency", "frame", "verdict", "note"},
              {},
              {},
              6};
      for (const auto& r : node.results) {
        std::string note = r.message;
        if (!r.diagnoses.empty()) {
          note.clear();
          for (const auto& d : r.diagnoses) {
            note += note.empty() ? "" : ", ";
            note += d.code;
          }
        }
        t.rows.push_back({r.bench_id + (r.parameters.empty() ? "" : " " + r.parameters),
                          gpus_text(r.devices), format_quantity(r.measured, r.unit),
                          format_quantity(r.expected, r.unit), format_percent(r.efficiency),
                          r.frame, std::string(to_string(r.status)), note});
        t.statuses.push_back(r.status);
      }
      if (!t.rows.empty())
        out += t.render(m_options.colour);
      table g{{"gpu", "name", "serial", "bus id", "spec", "verdict"}, {}, {}, 5};
      for (const auto& gpu : node.gpus) {
        g.rows.push_back({std::to_string(gpu.index), gpu.name, gpu.serial, gpu.pci_bus_id,
                          gpu.spec_id.empty() ? "(none)" : gpu.spec_id,
                          std::string(to_string(gpu.status))});
        g.statuses.push_back(gpu.status);
      }
      if (!g.rows.empty()) {
        out += '\n';
        out += g.render(m_options.colour);
      }
      const auto diags = unique_diagnoses(node);
      if (!diags.empty()) {
        out += "\nDiagnosis\n";
        for (const auto* d : diags)
          out += fmt::format("  {} {}{}: {}\n      action: {} (remediation: {})\n",
                             status_text(d->severity), d->code,
                             d->device ? fmt::format(" gpu {}", *d->device) : "", d->cause,
                             d->action, to_string(d->step));
      }
      out += "\n";
    }
    for (const auto& n : outcome.notes)
      out += "note: " + n + "\n";
    out += fmt::format("Verdict: {} (exit code {})\n", status_text(outcome.status),
                       exit_code_of(outcome.status));
    return out;
  }

private:
  render_options m_options;
};

class markdown_renderer final : public renderer {
public:
  [[nodiscard]] std::string render(const check_outcome& outcome) const override {
    std::string out = fmt::format("# gpuspec check: {}\n\n", upper(to_string(outcome.status)));
    for (const auto& node : outcome.nodes) {
      out +=
          fmt::format("## {}: {}\n\n", markdown_cell(node.hostname), upper(to_string(node.status)));
      if (!node.source.empty())
        out += fmt::format("Report `{}`, driver {}.\n\n", node.source,
                           markdown_cell(node.driver_version));
      if (!node.message.empty())
        out += markdown_cell(node.message) + "\n\n";
      if (!node.results.empty()) {
        out += "| check | gpu | measured | expected | efficiency | frame | verdict | note |\n"
               "| --- | ---: | ---: | ---: | ---: | --- | --- | --- |\n";
        for (const auto& r : node.results) {
          std::string note = r.message;
          for (const auto& d : r.diagnoses)
            note += " `" + d.code + "`";
          out += fmt::format(
              "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
              markdown_cell(r.bench_id + (r.parameters.empty() ? "" : " " + r.parameters)),
              gpus_text(r.devices), markdown_cell(format_quantity(r.measured, r.unit)),
              markdown_cell(format_quantity(r.expected, r.unit)), format_percent(r.efficiency),
              r.frame, to_string(r.status), markdown_cell(note));
        }
        out += "\n";
      }
      if (!node.gpus.empty()) {
        out += "| gpu | name | serial | bus id | spec | verdict |\n"
               "| ---: | --- | --- | --- | --- | --- |\n";
        for (const auto& g : node.gpus)
          out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", g.index, markdown_cell(g.name),
                             markdown_cell(g.serial), markdown_cell(g.pci_bus_id),
                             markdown_cell(g.spec_id), to_string(g.status));
        out += "\n";
      }
      const auto diags = unique_diagnoses(node);
      if (!diags.empty()) {
        out += "### Diagnosis\n\n";
        for (const auto* d : diags)
          out += fmt::format("- **{}** `{}`{}: {}. Action: {} (remediation: {}).\n",
                             to_string(d->severity), d->code,
                             d->device ? fmt::format(" (gpu {})", *d->device) : "",
                             markdown_cell(d->cause), markdown_cell(d->action), to_string(d->step));
        out += "\n";
      }
    }
    for (const auto& n : outcome.notes)
      out += "> " + markdown_cell(n) + "\n";
    return out;
  }
};

} // namespace

std::unique_ptr<renderer> make_table_renderer(const render_options& options) {
  return std::make_unique<table_renderer>(options);
}
std::unique_ptr<renderer> make_markdown_renderer() { return std::make_unique<markdown_renderer>(); }

} // namespace gpuspec::reports::detail
