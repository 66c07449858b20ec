#include "gpuspec/reports/judge/verdict.hpp"

#include "gpuspec/reports/model/spec_table.hpp"

namespace gpuspec::reports::inline judge {

gpu_verdict gpu_verdict_of(const device_info& d, const gpu_spec* spec) {
  gpu_verdict g;
  g.index = d.index;
  g.name = d.name;
  g.uuid = d.uuid;
  g.serial = d.serial;
  g.pci_bus_id = d.pci_bus_id;
  g.spec_id = spec ? spec->id : d.spec_id;
  return g;
}

std::string_view to_string(verdict_status s) {
  switch (s) {
  case verdict_status::skipped:
    return "skipped";
  case verdict_status::pass:
    return "pass";
  case verdict_status::inconclusive:
    return "inconclusive";
  case verdict_status::warn:
    return "warn";
  case verdict_status::fail:
    return "fail";
  }
  return "fail";
}

std::string_view to_string(remediation r) {
  switch (r) {
  case remediation::none:
    return "none";
  case remediation::rerun:
    return "rerun";
  case remediation::reset_gpu:
    return "reset_gpu";
  case remediation::reboot:
    return "reboot";
  case remediation::reseat_or_service:
    return "reseat_or_service";
  case remediation::rma:
    return "rma";
  }
  return "rma";
}

int exit_code_of(verdict_status s) {
  switch (s) {
  case verdict_status::skipped:
  case verdict_status::pass:
    return 0;
  case verdict_status::warn:
    return 1;
  case verdict_status::fail:
    return 2;
  case verdict_status::inconclusive:
    return 3;
  }
  return 3;
}

} // namespace gpuspec::reports::judge
