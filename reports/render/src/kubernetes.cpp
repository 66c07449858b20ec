#include "gpuspec/reports/render/kubernetes.hpp"

#include <cctype>

#include <fmt/format.h>

#include "gpuspec/reports/health/health.hpp"
#include "render_detail.hpp"

namespace gpuspec::reports::inline render {

namespace {

/// The label's word for a status: no verdict (inconclusive, nothing selected) is "unknown".
std::string_view status_word(verdict_status s) {
  switch (s) {
  case verdict_status::pass:
    return "pass";
  case verdict_status::warn:
    return "warn";
  case verdict_status::fail:
    return "fail";
  case verdict_status::skipped:
  case verdict_status::inconclusive:
    return "unknown";
  }
  return "unknown";
}

/// "GPUSPEC-XID-HARDWARE" of "gpuspec:GPUSPEC-XID-HARDWARE:gpu3"; "" when there is none.
std::string reason_code_of(const std::string& drain_reason) {
  const auto first = drain_reason.find(':');
  if (first == std::string::npos)
    return "";
  const auto second = drain_reason.find(':', first + 1);
  return drain_reason.substr(first + 1,
                             second == std::string::npos ? std::string::npos : second - first - 1);
}

/// Every GPU that is not a pass (or left out), with its reason codes, and the host's codes.
nlohmann::ordered_json findings_of(const health_outcome& h) {
  auto gpus = nlohmann::ordered_json::array();
  auto host = nlohmann::ordered_json::array();
  for (const auto& node : h.check.nodes) {
    for (const auto& g : node.gpus) {
      if (g.status == verdict_status::pass || g.status == verdict_status::skipped)
        continue;
      nlohmann::ordered_json gpu{{"index", g.index}, {"status", status_word(g.status)}};
      if (!g.serial.empty())
        gpu["serial"] = g.serial;
      auto codes = nlohmann::ordered_json::array();
      for (const auto& d : g.diagnoses)
        codes.push_back(d.code);
      gpu["codes"] = std::move(codes);
      gpus.push_back(std::move(gpu));
    }
    for (const auto& d : node.diagnoses)
      host.push_back(d.code);
  }
  return {{"gpus", std::move(gpus)}, {"host", std::move(host)}};
}

nlohmann::ordered_json summary_of(const health_outcome& h, std::string_view checked_utc) {
  nlohmann::ordered_json s{{"schema", "gpuspec.kube-summary.v1"},
                           {"status", status_word(h.check.status)},
                           {"exit_code", exit_code_of(h.check.status)}};
  if (!h.drain_reason.empty())
    s["drain_reason"] = h.drain_reason;
  if (!checked_utc.empty())
    s["checked_utc"] = checked_utc;
  s["kernel_log"] = to_string(h.kernel_log);
  auto findings = findings_of(h);
  s["gpus"] = std::move(findings["gpus"]);
  s["host"] = std::move(findings["host"]);
  return s;
}

std::string taint_of(verdict_status status, const std::string& code) {
  if (status == verdict_status::fail)
    return is_kube_label_value(code) && !code.empty()
               ? fmt::format("{}={}:NoSchedule", kube_taint_key, code)
               : fmt::format("{}:NoSchedule", kube_taint_key);
  if (status == verdict_status::pass)
    return fmt::format("{}:NoSchedule-", kube_taint_key);
  return "";
}

/// `--format kube`: two lines, for deploy/kubernetes' script: the merge patch (compact JSON),
/// then the taint argument ("-" to leave the taint as it is).
class kube_renderer final : public renderer {
protected:
  [[nodiscard]] std::string render_health(const health_document& h) const override {
    const auto p = kube_publication_of(h.outcome, h.checked_utc);
    return p.merge_patch.dump() + "\n" + (p.taint_argument.empty() ? "-" : p.taint_argument) + "\n";
  }
};

} // namespace

std::unique_ptr<renderer> detail::make_kube_renderer() { return std::make_unique<kube_renderer>(); }

bool is_kube_label_value(std::string_view value) {
  if (value.empty())
    return true;
  if (value.size() > 63)
    return false;
  const auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  if (!alnum(value.front()) || !alnum(value.back()))
    return false;
  for (char c : value)
    if (!alnum(c) && c != '-' && c != '_' && c != '.')
      return false;
  return true;
}

kube_publication kube_publication_of(const health_outcome& h, std::string_view checked_utc) {
  const verdict_status status = h.check.status;
  const std::string code = reason_code_of(h.drain_reason);
  nlohmann::ordered_json labels;
  labels[std::string(kube_health_label)] = status_word(status);
  // A code that is not a valid label value (none is, today) is left to the annotation.
  const bool judged = status == verdict_status::warn || status == verdict_status::fail;
  labels[std::string(kube_reason_label)] = judged && !code.empty() && is_kube_label_value(code)
                                               ? nlohmann::ordered_json(code)
                                               : nlohmann::ordered_json(nullptr);
  nlohmann::ordered_json annotations;
  annotations[std::string(kube_summary_annotation)] = summary_of(h, checked_utc).dump();
  kube_publication p;
  p.merge_patch = {{"metadata", {{"labels", std::move(labels)}, {"annotations", annotations}}}};
  p.taint_argument = taint_of(status, code);
  return p;
}

} // namespace gpuspec::reports::render
