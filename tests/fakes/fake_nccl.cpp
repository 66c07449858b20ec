// A fake libnccl: NCCL's exported entry points with nccl.h's signatures, so that gpuspec's
// run-time loader (collectives/nccl_library.hpp) and the NCCL side of the collectives
// (collective_driver.hpp) are tested on a machine without NCCL or GPU. ncclGetVersion answers
// a made-up version (SYNTHETIC, 2.99.1: no NCCL has that number), ncclGetErrorString says it
// is the fake. By default every other call fails with ncclInvalidUsage; a test that sets
// gpuspecFakeNcclState()->works (fake_nccl_control.hpp) gets communicators that move no data
// and behave as NCCL's do towards the caller:
//  - blocking communicators (config->blocking 1, or unset) return ncclSuccess; non-blocking ones
//    return ncclInProgress from ncclCommInitRankConfig and from every ncclGroupEnd, and
//    ncclCommGetAsyncError says ncclInProgress once, then ncclSuccess (NCCL 2.23 on finishes a
//    non-blocking group end on a thread of its own);
//  - the debug log as NCCL's src/debug.cc keeps it: NCCL_DEBUG, NCCL_DEBUG_SUBSYS and
//    NCCL_DEBUG_FILE read at the first line (fopen "w"), and again at the first line after
//    ncclResetDebugInit; rank 0 writes "<Coll>: <bytes> Bytes -> Algo RING proto SIMPLE
//    channel{Lo..Hi}={0..1}" per collective with TUNING on, and each rank a channel line
//    "via P2P/CUMEM" at init with INIT on;
//  - every call is counted. ncclCommAbort is in fake_nccl_abort.cpp, so that a second fake
//    built without it is a library lacking one entry point (README.md here).

#include <nccl.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>

#include <unistd.h>

#include "fake_nccl_control.hpp"

namespace {

constexpr int synthetic_version = 29901; // 2.99.1, made up

gpuspec_fake_nccl_state state;

struct fake_comm {
  int rank = 0;
  int nranks = 1;
  bool blocking = true;
  bool in_progress = false; ///< a non-blocking call not yet reported done
};

// --- the debug log ---------------------------------------------------------------------------

std::mutex log_mutex;
bool log_read = false; ///< the variables were read (false at start and after a reset)
FILE* log_file = nullptr;
bool log_info = false;
bool log_tuning = false;
bool log_init = false;

bool listed(std::string_view list, std::string_view name) {
  const bool inverted = !list.empty() && list.front() == '^';
  if (inverted)
    list.remove_prefix(1);
  bool found = false;
  while (!list.empty()) {
    const auto comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    if (item == name || item == "ALL")
      found = true;
    if (comma == std::string_view::npos)
      break;
    list.remove_prefix(comma + 1);
  }
  return inverted ? !found : found;
}

/// NCCL's ncclDebugInit, on the fake's scale: the level, the subsystems and the file.
void read_log_variables() {
  if (log_file != nullptr && log_file != stdout)
    std::fclose(log_file);
  log_file = nullptr;
  const char* level = std::getenv("NCCL_DEBUG");
  log_info =
      level != nullptr && (std::string_view(level) == "INFO" || std::string_view(level) == "TRACE");
  const char* subsys = std::getenv("NCCL_DEBUG_SUBSYS");
  const std::string_view list = subsys != nullptr ? subsys : "INIT,BOOTSTRAP,ENV";
  log_tuning = listed(list, "TUNING");
  log_init = listed(list, "INIT");
  const char* file = std::getenv("NCCL_DEBUG_FILE");
  if (log_info && file != nullptr) {
    log_file = std::fopen(file, "w");
    if (log_file != nullptr)
      setlinebuf(log_file);
  }
  if (log_file == nullptr)
    log_file = stdout;
  log_read = true;
}

/// One INFO line of subsystem TUNING (tuning true) or INIT.
void log_line(bool tuning, const std::string& message) {
  const std::lock_guard<std::mutex> lock(log_mutex);
  if (!log_read)
    read_log_variables();
  if (!log_info || !(tuning ? log_tuning : log_init))
    return;
  std::fprintf(log_file, "fakehost:%d:%d [0] NCCL INFO %s\n", static_cast<int>(getpid()),
               static_cast<int>(getpid()), message.c_str());
  ++state.log_lines;
}

std::size_t type_size(ncclDataType_t t) {
  switch (t) {
  case ncclInt8:
  case ncclUint8:
    return 1;
  case ncclFloat16:
  case ncclBfloat16:
    return 2;
  case ncclInt64:
  case ncclUint64:
  case ncclFloat64:
    return 8;
  default:
    return 4;
  }
}

// --- groups ----------------------------------------------------------------------------------

std::mutex group_mutex;
std::condition_variable aborted_cv;
int group_depth = 0;
bool group_nonblocking = false; ///< a non-blocking communicator was used in the open group

ncclResult_t use(fake_comm* c) {
  if (c == nullptr)
    return ncclInvalidArgument;
  if (!c->blocking) {
    const std::lock_guard<std::mutex> lock(group_mutex);
    if (group_depth > 0)
      group_nonblocking = true;
    c->in_progress = true;
  }
  return ncclSuccess;
}

ncclResult_t collective(const char* name, std::size_t count, ncclDataType_t type, ncclComm_t comm) {
  if (state.works.load() == 0)
    return ncclInvalidUsage;
  ++state.collectives;
  auto* c = reinterpret_cast<fake_comm*>(comm);
  if (const ncclResult_t r = use(c); r != ncclSuccess)
    return r;
  if (c->rank == 0)
    log_line(true, std::string(name) + ": " + std::to_string(count * type_size(type)) +
                       " Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..1}");
  return ncclSuccess;
}

} // namespace

void gpuspec_fake_nccl_aborted() {
  {
    const std::lock_guard<std::mutex> lock(group_mutex);
    ++state.aborts;
  }
  aborted_cv.notify_all();
}

extern "C" {

gpuspec_fake_nccl_state* gpuspecFakeNcclState() { return &state; }

ncclResult_t ncclGetVersion(int* version) {
  if (version == nullptr)
    return ncclInvalidArgument;
  *version = synthetic_version;
  return ncclSuccess;
}

const char* ncclGetErrorString(ncclResult_t) { return "fake NCCL (tests/fakes): nothing is real"; }

void ncclResetDebugInit() {
  ++state.debug_resets;
  const std::lock_guard<std::mutex> lock(log_mutex);
  log_read = false; // NCCL 2.28: read again at the next line
}

ncclResult_t ncclGetUniqueId(ncclUniqueId* id) {
  if (state.works.load() == 0)
    return ncclInvalidUsage;
  std::memset(id, 0, sizeof *id);
  return ncclSuccess;
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId, int rank,
                                    ncclConfig_t* config) {
  if (state.works.load() == 0)
    return ncclInvalidUsage;
  auto* c = new fake_comm;
  c->rank = rank;
  c->nranks = nranks;
  c->blocking = config == nullptr || config->blocking != 0;
  ++(c->blocking ? state.blocking_inits : state.nonblocking_inits);
  *comm = reinterpret_cast<ncclComm_t>(c);
  if (nranks > 1)
    log_line(false, "Channel 00/0 : " + std::to_string(rank) + "[" + std::to_string(rank) +
                        "] -> " + std::to_string((rank + 1) % nranks) + "[" +
                        std::to_string((rank + 1) % nranks) + "] via P2P/CUMEM");
  (void)use(c);
  if (!c->blocking) {
    ++state.in_progress_returns;
    return ncclInProgress;
  }
  return ncclSuccess;
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t* result) {
  if (state.works.load() == 0)
    return ncclInvalidUsage;
  ++state.async_error_polls;
  auto* c = reinterpret_cast<fake_comm*>(comm);
  if (c == nullptr || result == nullptr)
    return ncclInvalidArgument;
  const std::lock_guard<std::mutex> lock(group_mutex);
  *result = c->in_progress ? ncclInProgress : ncclSuccess;
  c->in_progress = false;
  return ncclSuccess;
}

ncclResult_t ncclCommFinalize(ncclComm_t comm) {
  if (state.works.load() == 0)
    return ncclInvalidUsage;
  ++state.finalizes;
  return use(reinterpret_cast<fake_comm*>(comm));
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  if (state.works.load() == 0)
    return ncclInvalidUsage;
  ++state.destroys;
  delete reinterpret_cast<fake_comm*>(comm);
  return ncclSuccess;
}

ncclResult_t ncclGroupStart() {
  if (state.works.load() == 0)
    return ncclInvalidUsage;
  ++state.group_starts;
  const std::lock_guard<std::mutex> lock(group_mutex);
  if (group_depth++ == 0)
    group_nonblocking = false;
  return ncclSuccess;
}

ncclResult_t ncclGroupEnd() {
  if (state.works.load() == 0)
    return ncclInvalidUsage;
  ++state.group_ends;
  std::unique_lock<std::mutex> lock(group_mutex);
  if (group_depth == 0)
    return ncclInvalidUsage;
  --group_depth;
  if (state.hang_next_group_end.exchange(0) != 0) {
    const long before = state.aborts.load();
    aborted_cv.wait_for(lock, std::chrono::seconds(30),
                        [&] { return state.aborts.load() != before; });
    return ncclSystemError;
  }
  if (group_depth == 0 && group_nonblocking) {
    ++state.in_progress_returns;
    return ncclInProgress;
  }
  return ncclSuccess;
}

ncclResult_t ncclAllReduce(const void*, void*, size_t count, ncclDataType_t type, ncclRedOp_t,
                           ncclComm_t comm, cudaStream_t) {
  return collective("AllReduce", count, type, comm);
}
ncclResult_t ncclAllGather(const void*, void*, size_t count, ncclDataType_t type, ncclComm_t comm,
                           cudaStream_t) {
  return collective("AllGather", count, type, comm);
}
ncclResult_t ncclReduceScatter(const void*, void*, size_t count, ncclDataType_t type, ncclRedOp_t,
                               ncclComm_t comm, cudaStream_t) {
  return collective("ReduceScatter", count, type, comm);
}
ncclResult_t ncclBroadcast(const void*, void*, size_t count, ncclDataType_t type, int,
                           ncclComm_t comm, cudaStream_t) {
  return collective("Broadcast", count, type, comm);
}
ncclResult_t ncclReduce(const void*, void*, size_t count, ncclDataType_t type, ncclRedOp_t, int,
                        ncclComm_t comm, cudaStream_t) {
  return collective("Reduce", count, type, comm);
}
ncclResult_t ncclSend(const void*, size_t, ncclDataType_t, int, ncclComm_t comm, cudaStream_t) {
  if (state.works.load() == 0)
    return ncclInvalidUsage;
  ++state.point_to_point;
  return use(reinterpret_cast<fake_comm*>(comm));
}
ncclResult_t ncclRecv(void*, size_t, ncclDataType_t, int, ncclComm_t comm, cudaStream_t) {
  if (state.works.load() == 0)
    return ncclInvalidUsage;
  ++state.point_to_point;
  return use(reinterpret_cast<fake_comm*>(comm));
}

} // extern "C"
