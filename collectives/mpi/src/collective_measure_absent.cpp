// The build without CUDA or without NCCL: no collective can run, and every case says why
// (docs/multi-node.md). CMake picks this file or the NCCL one, never both.
#include "gpuspec/collectives/mpi/rank_measure.hpp"

namespace gpuspec::collectives::mpi {

measure_backend collective_rank_backend() {
  return unavailable_backend("not built with CUDA and NCCL: gpuspec-mpi measures no collective "
                             "(configure with GPUSPEC_CUDA=ON and NCCL installed)");
}

} // namespace gpuspec::collectives::mpi
