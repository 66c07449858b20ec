// The fake libnccl's ncclCommAbort, apart so that gpuspec_fake_nccl_no_abort can leave it out
// (fake_nccl.cpp).

#include <nccl.h>

extern "C" ncclResult_t ncclCommAbort(ncclComm_t) { return ncclInvalidUsage; }
