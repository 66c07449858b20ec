// The node frame: the node's own evidence, its GPUs and their findings from the inventory,
// and the roll-up of the node's verdict (no pass without evidence).
#include "check_frames.hpp"

#include <algorithm>

namespace gpuspec::reports::inline judge::check_detail {

node_verdict node_checker::run() {
  node_verdict node;
  node.hostname = m_report.host.hostname;
  node.driver_version = m_report.host.driver_version;
  node.cuda_driver_version = m_report.host.cuda_driver_version;
  node.complete = m_report.complete;
  node.diagnoses = diagnose_host(m_report, &m_specs);
  node_evidence(node);
  index_devices(node);
  judge_gpus(node);

  auto checksums = compare_burnin_checksums(m_report);
  for (auto& [index, d] : checksums.findings)
    m_cross_gpu[index].push_back(std::move(d));
  m_notes = std::move(checksums.notes);

  std::unordered_map<std::string, int> names;
  node.results.reserve(m_report.results.size());
  for (std::size_t i = 0; i < m_report.results.size(); ++i) {
    auto v = judge(i, node);
    add_event_findings(v, m_report.results[i], node);
    add_telemetry_notes(v, m_report.results[i]);
    name_mig_instance(v, m_report.results[i]);
    auto& count = names[v.name];
    if (++count > 1)
      v.name += fmt::format(" #{}", count);
    node.results.push_back(std::move(v));
  }
  return node;
}

/// Each GPU by index (one listed twice is inconsistent), and the GPUs the run was asked to
/// measure (one not listed is inconsistent).
void node_checker::index_devices(node_verdict& node) {
  for (std::size_t k = 0; k < m_report.devices.size(); ++k) {
    const auto& d = m_report.devices[k];
    const auto [at, fresh] = m_device_of.try_emplace(d.index, &d);
    if (!fresh)
      node.diagnoses.push_back(inconsistent(
          fmt::format("devices[{}].index", k),
          fmt::format("GPU {} is listed twice (devices[{}] and devices[{}]): which is GPU {} "
                      "cannot be told",
                      d.index, at->second - m_report.devices.data(), k, d.index),
          &d));
  }
  for (std::size_t i = 0; i < m_report.run.devices.size(); ++i) {
    const int index = m_report.run.devices[i];
    m_selected.insert(index);
    if (!m_device_of.contains(index))
      node.diagnoses.push_back(inconsistent(
          fmt::format("run.devices[{}]", i),
          fmt::format("GPU {} was selected, but devices[] does not list it", index), nullptr));
  }
  // A report of version 1 does not say which GPUs were asked for: every GPU was.
  if (m_report.run.devices.empty())
    for (const auto& d : m_report.devices)
      m_selected.insert(d.index);
}

/// Each GPU's verdict from its own findings (selected GPUs only) and its spec-table row.
void node_checker::judge_gpus(node_verdict& node) {
  const auto load = pcie_under_load_by_device();
  std::unordered_map<std::string, std::vector<const device_info*>> by_model;
  for (const auto& d : m_report.devices)
    by_model[model_key(d)].push_back(&d);
  for (const auto& d : m_report.devices) {
    const gpu_spec* spec = spec_of(m_specs, d);
    gpu_verdict g = gpu_verdict_of(d, spec);
    m_spec_of[d.index] = spec;
    g.selected = m_selected.contains(d.index);
    if (!g.selected) {
      g.message = "not selected: the run was told to leave this GPU out (--devices)";
    } else {
      const auto it = load.find(d.index);
      const gpu_facts facts{m_report,
                            d,
                            spec,
                            by_model[model_key(d)],
                            it == load.end() ? std::nullopt : std::optional(it->second),
                            m_rules.settings};
      g.diagnoses = diagnose_device(facts);
      // A GPU NVML lost before it could name it has nothing to match a row by: GPU-LOST says
      // what is wrong with it, and a missing row is not news about the table.
      const bool unnamed_and_lost = gpu_is_lost(d) && d.name.empty() && !d.pci_device_id;
      if (spec == nullptr && !unnamed_and_lost)
        g.diagnoses.push_back(make_diagnosis(
            "GPUSPEC-NO-SPEC-ROW", verdict_status::warn,
            fmt::format("no spec-table row matches '{}' (PCI device id {})", d.name,
                        d.pci_device_id ? fmt::format("{:#06x}", *d.pci_device_id) : "unknown"),
            &d, m_report.host));
      for (const auto& diag : g.diagnoses)
        g.status = worst(g.status, diag.severity);
    }
    m_gpu_pos[d.index] = node.gpus.size();
    node.gpus.push_back(std::move(g));
  }
}

/// What makes the whole node inconclusive whatever its results say.
void node_checker::node_evidence(node_verdict& node) const {
  const auto& host = m_report.host;
  if (m_report.run.backend == "stand-in")
    node.diagnoses.push_back(make_diagnosis(
        "GPUSPEC-STAND-IN", verdict_status::inconclusive,
        "run.backend is \"stand-in\": a scripted test worker produced these results, nothing "
        "was measured",
        nullptr, host));
  if (!m_report.complete)
    node.diagnoses.push_back(
        make_diagnosis("GPUSPEC-RUN-INCOMPLETE", verdict_status::inconclusive,
                       "the run is incomplete: " + (m_report.incomplete_reason.empty()
                                                        ? std::string("no reason recorded")
                                                        : m_report.incomplete_reason),
                       nullptr, host));
  if (m_report.results.empty())
    node.diagnoses.push_back(make_diagnosis("GPUSPEC-NO-RESULTS", verdict_status::inconclusive,
                                            "the report has no results", nullptr, host));
}

diagnosis node_checker::inconsistent(const std::string& field, const std::string& why,
                                     const device_info* dev) const {
  auto d = make_diagnosis("GPUSPEC-REPORT-INCONSISTENT", verdict_status::inconclusive,
                          fmt::format("{}: {}", field, why), dev, m_report.host);
  d.evidence["field"] = field;
  return d;
}

/// The lowest PCIe link each GPU's results saw while busy: its host transfers' where any of
/// them carries a reading (the load that moves bytes over the link, and the evidence the
/// rule cites), else any of its one-GPU results'.
std::unordered_map<int, pcie_under_load> node_checker::pcie_under_load_by_device() const {
  std::unordered_map<int, pcie_under_load> out;
  std::unordered_set<int> seen_in_transfer;
  const auto is_host_transfer = [](const result& r) {
    return r.bench_id.starts_with("transfer.") && !r.bench_id.starts_with("transfer.p2p");
  };
  for (const auto& r : m_report.results) {
    const auto& t = r.telemetry;
    if (r.devices.size() == 1 && (t.pcie_gen_min || t.pcie_width_min) && is_host_transfer(r))
      seen_in_transfer.insert(r.devices.front());
  }
  for (const auto& r : m_report.results) {
    const auto& t = r.telemetry;
    if (r.devices.size() != 1 || (!t.pcie_gen_min && !t.pcie_width_min))
      continue;
    if (seen_in_transfer.contains(r.devices.front()) && !is_host_transfer(r))
      continue;
    auto& l = out[r.devices.front()];
    const bool lower_gen = t.pcie_gen_min && (!l.gen || *t.pcie_gen_min < *l.gen);
    const bool lower_width = t.pcie_width_min && (!l.width || *t.pcie_width_min < *l.width);
    if (lower_gen)
      l.gen = t.pcie_gen_min;
    if (lower_width)
      l.width = t.pcie_width_min;
    if (lower_gen || lower_width || l.where.empty())
      l.where = r.bench_id;
  }
  return out;
}

const device_info* node_checker::device(int index) const {
  const auto it = m_device_of.find(index);
  return it == m_device_of.end() ? nullptr : it->second;
}

/// The GPUs a result names must be GPUs of the report that the run was asked to measure:
/// true (and `v` inconclusive) when one is not.
bool node_checker::names_unknown_gpu(std::size_t i, result_verdict& v) const {
  const result& r = m_report.results[i];
  for (std::size_t k = 0; k < r.devices.size(); ++k) {
    const int index = r.devices[k];
    const std::string field = fmt::format("results[{}].devices[{}]", i, k);
    if (device(index) == nullptr) {
      v.status = verdict_status::inconclusive;
      v.message = fmt::format("{}: GPU {} is not in devices[]", field, index);
      v.diagnoses.push_back(
          inconsistent(field, fmt::format("GPU {} is not in devices[]", index), nullptr));
      return true;
    }
    if (!m_selected.contains(index)) {
      v.status = verdict_status::inconclusive;
      v.message = fmt::format("{}: GPU {} was not selected (run.devices)", field, index);
      v.diagnoses.push_back(inconsistent(
          field, fmt::format("GPU {} was not selected (run.devices)", index), device(index)));
      return true;
    }
  }
  return false;
}

/// Worst-wins, with no pass without evidence: a selected GPU none of whose results was judged
/// (none at all, or only skipped ones) is inconclusive.
void roll_up(const report& r, node_verdict& node) {
  std::unordered_map<int, std::size_t> pos;
  for (std::size_t i = 0; i < node.gpus.size(); ++i)
    pos[node.gpus[i].index] = i;
  std::unordered_map<int, bool> evidence;
  verdict_status status = verdict_status::skipped;
  for (const auto& d : node.diagnoses)
    status = worst(status, d.severity);
  for (const auto& v : node.results) {
    status = worst(status, v.status);
    for (int d : v.devices)
      if (const auto it = pos.find(d); it != pos.end()) {
        auto& g = node.gpus[it->second];
        if (!g.selected)
          continue;
        g.status = worst(g.status, v.status);
        if (v.status != verdict_status::skipped)
          evidence[d] = true;
      }
  }
  for (auto& g : node.gpus) {
    if (!g.selected) {
      g.status = verdict_status::skipped;
      continue;
    }
    if (!evidence[g.index]) {
      const device_info* dev = device_of(r, g.index);
      // Refused by the idle precondition: say so, naming who used it, rather than "not
      // measured" alone.
      const bool busy = dev != nullptr && dev->activity && !dev->activity->processes.empty();
      auto d = busy ? make_diagnosis("GPUSPEC-GPU-BUSY", verdict_status::inconclusive,
                                     fmt::format("GPU {} was refused: in use by {}", g.index,
                                                 processes_text(dev->activity->processes)),
                                     dev, r.host)
                    : make_diagnosis("GPUSPEC-GPU-NOT-MEASURED", verdict_status::inconclusive,
                                     fmt::format("GPU {} was to be measured but has no judged "
                                                 "result (no result, or only skipped and "
                                                 "not-supported ones)",
                                                 g.index),
                                     dev, r.host);
      g.diagnoses.push_back(std::move(d));
      g.status = worst(g.status, verdict_status::inconclusive);
      g.message = "no result of this GPU was judged";
    }
    status = worst(status, g.status);
  }
  // Nothing measured is never a pass: results that are all skipped (a report of no GPUs, or
  // whose GPUs are not known, as a foreign log's may be) leave the node without evidence.
  const bool judged = std::any_of(node.results.begin(), node.results.end(), [](const auto& v) {
    return v.status != verdict_status::skipped;
  });
  if (!judged && !node.results.empty() && status == verdict_status::skipped) {
    const auto& first = node.results.front();
    node.diagnoses.push_back(
        make_diagnosis("GPUSPEC-NO-RESULTS", verdict_status::inconclusive,
                       fmt::format("no result was judged: all {} were skipped ({}: {})",
                                   node.results.size(), first.name, first.message),
                       nullptr, r.host));
    status = verdict_status::inconclusive;
  }
  node.status = status;
  for (const auto& d : node.diagnoses)
    if (d.severity == verdict_status::inconclusive && node.message.empty())
      node.message = d.cause;
}

} // namespace gpuspec::reports::judge::check_detail
