// JUnit XML, as Jenkins and GitLab read it: one test case per check and GPU, a unique name,
// `classname` the check's group, failures with measured and expected values, host and driver
// as suite properties. warn is a failure of type "warn" (burn-in wants it seen); inconclusive
// is an error; skipped is skipped.

#include <fmt/format.h>

#include "render_detail.hpp"

namespace gpuspec::reports::inline render::detail {

namespace {

/// XML 1.0 text: the five entities escaped, characters XML cannot carry (C0 controls other
/// than tab, newline, return) replaced by '?'.
std::string xml(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&apos;";
      break;
    default:
      if (u < 0x20 && c != '\t' && c != '\n' && c != '\r')
        out += '?';
      else
        out += c;
    }
  }
  return out;
}

std::string diagnoses_text(const std::vector<diagnosis>& list) {
  std::string out;
  for (const auto& d : list)
    out += fmt::format("{} {}{}: {}\naction: {}\n", to_string(d.severity), d.code,
                       d.device ? fmt::format(" gpu {}", *d.device) : "", d.cause,
                       action_text(d.action, d.step));
  return out;
}

struct counts {
  int tests = 0, failures = 0, errors = 0, skipped = 0;
  void add(verdict_status s) {
    ++tests;
    if (s == verdict_status::warn || s == verdict_status::fail)
      ++failures;
    else if (s == verdict_status::inconclusive)
      ++errors;
    else if (s == verdict_status::skipped)
      ++skipped;
  }
};

std::string testcase(const std::string& name, const std::string& classname, verdict_status s,
                     const std::string& message, const std::string& body) {
  std::string out =
      fmt::format("    <testcase name=\"{}\" classname=\"{}\"", xml(name), xml(classname));
  switch (s) {
  case verdict_status::pass:
    return out + "/>\n";
  case verdict_status::skipped:
    return out + fmt::format(">\n      <skipped message=\"{}\"/>\n    </testcase>\n", xml(message));
  case verdict_status::inconclusive:
    return out + fmt::format(">\n      <error message=\"{}\" type=\"inconclusive\">{}</error>\n"
                             "    </testcase>\n",
                             xml(message), xml(body));
  case verdict_status::warn:
  case verdict_status::fail:
    return out + fmt::format(">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n"
                             "    </testcase>\n",
                             xml(message), to_string(s), xml(body));
  }
  return out + "/>\n";
}

std::string result_message(const result_verdict& r) {
  if (!r.measured)
    return fmt::format("{}: {}", to_string(r.status), r.message);
  std::string expected = "n/a";
  if (r.expected && r.pass_fraction)
    expected = fmt::format(">= {} ({:.0f}% of {})",
                           format_quantity(*r.expected * *r.pass_fraction, r.unit),
                           100 * *r.pass_fraction, format_quantity(r.expected, r.unit));
  else if (r.pass_fraction)
    expected = fmt::format("efficiency >= {:.0f}%", 100 * *r.pass_fraction);
  return fmt::format("{}: measured {} ({} efficiency), expected {}", to_string(r.status),
                     format_quantity(r.measured, r.unit), format_percent(r.efficiency), expected);
}

class junit_renderer final : public renderer {
public:
protected:
  [[nodiscard]] std::string render_check(const check_outcome& outcome) const override {
    std::string suites;
    counts total;
    for (const auto& node : outcome.nodes) {
      counts c;
      std::string cases;
      for (const auto& r : node.results) {
        c.add(r.status);
        cases += testcase(r.name, r.group, r.status, result_message(r),
                          r.message + "\n" + diagnoses_text(r.diagnoses));
      }
      for (const auto& g : node.gpus) {
        verdict_status s = g.selected ? verdict_status::pass : verdict_status::skipped;
        for (const auto& d : g.diagnoses)
          s = worst(s, d.severity);
        std::string msg =
            fmt::format("{}: gpu {} {} serial {}", to_string(s), g.index, g.name, g.serial);
        for (const auto& d : g.diagnoses)
          msg += " " + d.code;
        c.add(s);
        cases += testcase(fmt::format("gpu {} health", g.index), "gpu.health", s, msg,
                          diagnoses_text(g.diagnoses));
      }
      {
        verdict_status s = verdict_status::pass;
        for (const auto& d : node.diagnoses)
          s = worst(s, d.severity);
        std::string msg = std::string(to_string(s));
        for (const auto& d : node.diagnoses)
          msg += " " + d.code;
        c.add(s);
        cases += testcase("host health", "host.health", s, msg, diagnoses_text(node.diagnoses));
      }
      total.tests += c.tests;
      total.failures += c.failures;
      total.errors += c.errors;
      total.skipped += c.skipped;
      suites += fmt::format(
          "  <testsuite name=\"gpuspec check {}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" "
          "skipped=\"{}\">\n    <properties>\n"
          "      <property name=\"host\" value=\"{}\"/>\n"
          "      <property name=\"driver\" value=\"{}\"/>\n"
          "      <property name=\"cuda_driver\" value=\"{}\"/>\n"
          "      <property name=\"report\" value=\"{}\"/>\n"
          "      <property name=\"verdict\" value=\"{}\"/>\n"
          "    </properties>\n{}  </testsuite>\n",
          xml(node.hostname), c.tests, c.failures, c.errors, c.skipped, xml(node.hostname),
          xml(node.driver_version), xml(node.cuda_driver_version), xml(node.source),
          to_string(node.status), cases);
    }
    return fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                       "<testsuites name=\"gpuspec check\" tests=\"{}\" failures=\"{}\" "
                       "errors=\"{}\" skipped=\"{}\">\n{}</testsuites>\n",
                       total.tests, total.failures, total.errors, total.skipped, suites);
  }
};

} // namespace

std::unique_ptr<renderer> make_junit_renderer() { return std::make_unique<junit_renderer>(); }

} // namespace gpuspec::reports::render::detail
