// The fake libnccl's ncclCommAbort, apart so that gpuspec_fake_nccl_no_abort can leave it out
// (fake_nccl.cpp). It counts the abort and wakes a ncclGroupEnd told to hang; the fake
// communicator is left allocated (a test's watchdog may abort while another thread still holds
// it).

#include <nccl.h>

#include "fake_nccl_control.hpp"

extern "C" ncclResult_t ncclCommAbort(ncclComm_t) {
  if (gpuspecFakeNcclState()->works.load() == 0)
    return ncclInvalidUsage;
  gpuspec_fake_nccl_aborted();
  return ncclSuccess;
}
