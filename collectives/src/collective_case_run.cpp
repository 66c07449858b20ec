// The run of the one collective body (collective_case.hpp), apart from its pure part so that
// the host tests report outcomes without communicators.

#include "gpuspec/collectives/collective_case.hpp"

namespace gpuspec::collectives {

void run_collective_case(node_communicators& comms, case_sink& sink, const collective_case& c,
                         const case_run& run) {
  const collective_outcome o = run_collective(comms, run.request);
  report_case(sink, c, run, o);
}

} // namespace gpuspec::collectives
