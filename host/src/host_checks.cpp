// The host checks the run records (host_checks.hpp): reports/host_rules.cpp holds the rules.

#include "gpuspec/host/host_checks.hpp"

namespace gpuspec::host {

std::vector<reports::host_check>
evaluate_host_checks(const reports::host_info& host,
                     const std::vector<reports::device_info>& devices,
                     const host_check_options& options, const reports::spec_table* specs) {
  return reports::evaluate_host_checks(host, devices, options, specs);
}

} // namespace gpuspec::host
