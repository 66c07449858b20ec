// The HTML page's colours meet WCAG 2.1 AA (4.5:1 for normal text; issue 31: `.fail{color:#fff}`
// meant for the badge also coloured `.finding.fail`, white on pale pink). The page's own <style>
// is read back and cascaded, by specificity then order, for the class sets the renderers write:
// a badge and a finding box of each verdict. The browser test runs axe-core on whole pages.

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "render_html_detail.hpp"

namespace gpuspec::reports {
namespace {

struct css_rule {
  std::set<std::string> classes; // a compound selector: element name (or none) and classes
  std::string element;
  std::map<std::string, std::string> decls;
};

std::string trimmed(std::string s) {
  const auto b = s.find_first_not_of(" \n\t");
  const auto e = s.find_last_not_of(" \n\t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

/// The page's rules outside @media (print only changes sizes), one per simple selector; a
/// selector with a descendant part is left out: none of those sets a colour (asserted).
std::vector<css_rule> contrast_rules(const std::string& page) {
  const auto open = page.find("<style>") + 7;
  std::string css = page.substr(open, page.find("</style>") - open);
  css = css.substr(0, css.find("@media"));
  std::vector<css_rule> out;
  std::size_t at = 0;
  while (true) {
    const auto brace = css.find('{', at), end = css.find('}', at);
    if (brace == std::string::npos || end == std::string::npos)
      break;
    std::map<std::string, std::string> decls;
    std::stringstream body(css.substr(brace + 1, end - brace - 1));
    for (std::string d; std::getline(body, d, ';');)
      if (const auto colon = d.find(':'); colon != std::string::npos)
        decls[trimmed(d.substr(0, colon))] = trimmed(d.substr(colon + 1));
    std::stringstream selectors(css.substr(at, brace - at));
    for (std::string sel; std::getline(selectors, sel, ',');) {
      sel = trimmed(sel);
      if (sel.find_first_of(" >") != std::string::npos) {
        EXPECT_FALSE(decls.contains("color") || decls.contains("background")) << sel;
        continue;
      }
      css_rule r{{}, sel.substr(0, sel.find('.')), decls};
      for (auto dot = sel.find('.'); dot != std::string::npos;) {
        const auto next = sel.find('.', dot + 1);
        r.classes.insert(sel.substr(dot + 1, next - dot - 1));
        dot = next;
      }
      out.push_back(r);
    }
    at = end + 1;
  }
  return out;
}

/// The value of `property` on an element (tag and classes), or nothing where no rule sets it.
std::optional<std::string> cascaded(const std::vector<css_rule>& rules, const std::string& tag,
                                    const std::set<std::string>& classes,
                                    const std::string& property) {
  std::optional<std::string> value;
  std::size_t best = 0;
  for (const auto& r : rules) {
    const bool matches = (r.element.empty() || r.element == tag) &&
                         std::ranges::includes(classes, r.classes) && r.decls.contains(property);
    const std::size_t specificity = 1 + r.classes.size() * 10 + (r.element.empty() ? 0 : 1);
    if (matches && specificity >= best) {
      best = specificity;
      value = r.decls.at(property);
    }
  }
  return value;
}

/// WCAG 2.1's relative luminance of #rgb or #rrggbb.
double luminance(std::string hex) {
  if (hex.size() == 4)
    hex = {'#', hex[1], hex[1], hex[2], hex[2], hex[3], hex[3]};
  EXPECT_EQ(hex.size(), 7u) << hex;
  double sum = 0;
  const double weight[3] = {0.2126, 0.7152, 0.0722};
  for (int i = 0; i < 3; ++i) {
    const double c = std::stoi(hex.substr(1 + 2 * i, 2), nullptr, 16) / 255.0;
    sum += weight[i] * (c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4));
  }
  return sum;
}

double contrast(const std::string& a, const std::string& b) {
  const double x = luminance(a), y = luminance(b);
  return (std::max(x, y) + 0.05) / (std::min(x, y) + 0.05);
}

/// Text and background of an element inside <body>: unset colour inherits the body's, unset
/// background shows the page's (white).
std::pair<std::string, std::string> text_on(const std::vector<css_rule>& rules,
                                            const std::set<std::string>& classes) {
  const auto body = cascaded(rules, "body", {}, "color");
  const auto color = cascaded(rules, "span", classes, "color");
  const auto background = cascaded(rules, "span", classes, "background");
  return {color.value_or(body.value_or("#000")), background.value_or("#fff")};
}

TEST(html_contrast, luminance_is_wcag_s) {
  EXPECT_NEAR(contrast("#000", "#fff"), 21.0, 1e-9);
  EXPECT_NEAR(contrast("#fff", "#fdf1ea"), 1.1, 0.05); // the FAIL finding
}

TEST(html_contrast, every_verdict_badge_and_finding_is_at_least_4_5_to_1) {
  const std::string page = html::page("t", "", {});
  const auto rules = contrast_rules(page);
  ASSERT_GT(rules.size(), 10u);
  for (const std::string verdict : {"pass", "warn", "fail", "inconclusive", "skipped"})
    for (const std::string box : {"badge", "finding"}) {
      const auto [fg, bg] = text_on(rules, {box, verdict});
      EXPECT_GE(contrast(fg, bg), 4.5) << box << ' ' << verdict << ": " << fg << " on " << bg;
    }
  // Plain text, table headers and captions.
  for (const auto& [tag, cls] : std::vector<std::pair<std::string, std::string>>{
           {"th", ""}, {"figcaption", ""}, {"span", "finding"}}) {
    const std::set<std::string> classes = cls.empty() ? std::set<std::string>{} : std::set{cls};
    const auto fg = cascaded(rules, tag, classes, "color")
                        .value_or(cascaded(rules, "body", {}, "color").value_or("#000"));
    const auto bg = cascaded(rules, tag, classes, "background").value_or("#fff");
    EXPECT_GE(contrast(fg, bg), 4.5) << tag << ": " << fg << " on " << bg;
  }
}

} // namespace
} // namespace gpuspec::reports
