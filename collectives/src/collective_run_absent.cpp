// Built when CMake did not find NCCL: the collectives are registered and each case says why it
// cannot run.

#include "gpuspec/collectives/collective_run.hpp"

namespace gpuspec::collectives {

struct node_communicators::impl {};

bool built_with_nccl() { return false; }

unique_id make_unique_id() { throw nccl_unavailable("gpuspec was built without NCCL"); }

std::shared_ptr<node_communicators> node_communicators::create(const std::vector<int>&, double) {
  throw nccl_unavailable("gpuspec was built without NCCL");
}

std::shared_ptr<node_communicators> node_communicators::join(int, const unique_id&, int, int,
                                                             double) {
  throw nccl_unavailable("gpuspec was built without NCCL");
}

node_communicators::node_communicators(std::unique_ptr<impl> state) : m_impl(std::move(state)) {}
node_communicators::~node_communicators() = default;
int node_communicators::nranks() const { return 0; }
int node_communicators::group_size() const { return 0; }
bool node_communicators::aborted() const { return true; }
void node_communicators::abort() {}

collective_outcome run_collective(node_communicators&, const collective_request&) {
  throw nccl_unavailable("gpuspec was built without NCCL");
}

bool nccl_resets_debug() { return false; }
void reset_nccl_debug() {}

} // namespace gpuspec::collectives
