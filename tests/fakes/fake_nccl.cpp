// A fake libnccl: NCCL's exported entry points with nccl.h's signatures, so that gpuspec's
// run-time loader (collectives/nccl_library.hpp) is tested on a machine without NCCL or GPU.
// It makes no communicator: ncclGetVersion answers a made-up version (SYNTHETIC, 2.99.1: no
// NCCL has that number), ncclGetErrorString says it is the fake, and every other call fails
// with ncclInvalidUsage. ncclCommAbort is in fake_nccl_abort.cpp, so that a second fake built
// without it is a library lacking one entry point (README.md here).

#include <nccl.h>

namespace {
constexpr int synthetic_version = 29901; // 2.99.1, made up
} // namespace

extern "C" {

ncclResult_t ncclGetVersion(int* version) {
  if (version == nullptr)
    return ncclInvalidArgument;
  *version = synthetic_version;
  return ncclSuccess;
}

const char* ncclGetErrorString(ncclResult_t) { return "fake NCCL (tests/fakes): nothing is real"; }

ncclResult_t ncclGetUniqueId(ncclUniqueId*) { return ncclInvalidUsage; }
ncclResult_t ncclCommInitRankConfig(ncclComm_t*, int, ncclUniqueId, int, ncclConfig_t*) {
  return ncclInvalidUsage;
}
ncclResult_t ncclCommGetAsyncError(ncclComm_t, ncclResult_t*) { return ncclInvalidUsage; }
ncclResult_t ncclCommFinalize(ncclComm_t) { return ncclInvalidUsage; }
ncclResult_t ncclCommDestroy(ncclComm_t) { return ncclInvalidUsage; }
ncclResult_t ncclGroupStart() { return ncclInvalidUsage; }
ncclResult_t ncclGroupEnd() { return ncclInvalidUsage; }
ncclResult_t ncclAllReduce(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                           cudaStream_t) {
  return ncclInvalidUsage;
}
ncclResult_t ncclAllGather(const void*, void*, size_t, ncclDataType_t, ncclComm_t, cudaStream_t) {
  return ncclInvalidUsage;
}
ncclResult_t ncclReduceScatter(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                               cudaStream_t) {
  return ncclInvalidUsage;
}
ncclResult_t ncclBroadcast(const void*, void*, size_t, ncclDataType_t, int, ncclComm_t,
                           cudaStream_t) {
  return ncclInvalidUsage;
}
ncclResult_t ncclReduce(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, int, ncclComm_t,
                        cudaStream_t) {
  return ncclInvalidUsage;
}
ncclResult_t ncclSend(const void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) {
  return ncclInvalidUsage;
}
ncclResult_t ncclRecv(void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) {
  return ncclInvalidUsage;
}

} // extern "C"
