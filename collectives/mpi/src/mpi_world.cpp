#include "gpuspec/collectives/mpi/mpi_world.hpp"

#include <mpi.h>

#include <cstdlib>
#include <thread>

#include <fmt/format.h>

namespace gpuspec::collectives::mpi {

namespace {

/// The one error-check path for MPI's return codes.
void check(int code, const char* call) {
  if (code == MPI_SUCCESS)
    return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    length = 0;
  throw mpi_error(fmt::format("{} failed: {}", call,
                              length > 0 ? std::string(text, static_cast<std::size_t>(length))
                                         : fmt::format("MPI error {}", code)));
}

/// Between polls: short enough for a deadline's precision, long enough to leave the CPU to the
/// ranks that share it (mpirun --oversubscribe).
constexpr auto poll_interval = std::chrono::milliseconds(1);

} // namespace

struct mpi_world::pending_send {
  std::string buffer;
  MPI_Request request = MPI_REQUEST_NULL;
};

mpi_world::mpi_world(int& argc, char**& argv)
    : m_pending(std::make_unique<std::list<pending_send>>()) {
  check(MPI_Init(&argc, &argv), "MPI_Init");
  // Errors come back as codes: a peer that died must not take this rank with it.
  check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  check(MPI_Comm_rank(MPI_COMM_WORLD, &m_rank), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &m_size), "MPI_Comm_size");
}

mpi_world::~mpi_world() {
  if (m_abandoned)
    return;
  // Every send the peers were waiting for has completed or been given up on; what is left in
  // flight is freed (MPI completes or drops it at finalize).
  for (auto& p : *m_pending)
    if (p.request != MPI_REQUEST_NULL)
      (void)MPI_Request_free(&p.request);
  (void)MPI_Finalize();
}

std::optional<std::string> mpi_world::send(int dest, int tag, std::string_view text,
                                           clock::time_point deadline,
                                           const std::atomic<bool>& stop) {
  // Completed sends release their buffers first.
  m_pending->remove_if([](const pending_send& p) { return p.request == MPI_REQUEST_NULL; });
  auto& p = m_pending->emplace_back();
  p.buffer.assign(text);
  int code = MPI_Isend(p.buffer.data(), static_cast<int>(p.buffer.size()), MPI_CHAR, dest, tag,
                       MPI_COMM_WORLD, &p.request);
  if (code != MPI_SUCCESS) {
    try {
      check(code, "MPI_Isend");
    } catch (const mpi_error& e) {
      return std::string(e.what());
    }
  }
  while (true) {
    int done = 0;
    code = MPI_Test(&p.request, &done, MPI_STATUS_IGNORE);
    if (code != MPI_SUCCESS) {
      try {
        check(code, "MPI_Test");
      } catch (const mpi_error& e) {
        return std::string(e.what());
      }
    }
    if (done != 0)
      return std::nullopt;
    if (stop.load())
      return std::string("stopped by a signal");
    if (clock::now() >= deadline)
      return std::string("the send did not complete by its deadline");
    std::this_thread::sleep_for(poll_interval);
  }
}

std::optional<received> mpi_world::try_receive(int source, int tag) {
  int arrived = 0;
  MPI_Status status;
  check(MPI_Iprobe(source < 0 ? MPI_ANY_SOURCE : source, tag, MPI_COMM_WORLD, &arrived, &status),
        "MPI_Iprobe");
  if (arrived == 0)
    return std::nullopt;
  int count = 0;
  check(MPI_Get_count(&status, MPI_CHAR, &count), "MPI_Get_count");
  received out;
  out.source = status.MPI_SOURCE;
  out.text.resize(static_cast<std::size_t>(count));
  // The message is here (probed): this receive does not wait on the network.
  check(MPI_Recv(out.text.data(), count, MPI_CHAR, status.MPI_SOURCE, tag, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE),
        "MPI_Recv");
  return out;
}

std::optional<received> mpi_world::receive(int source, int tag, clock::time_point deadline,
                                           const std::atomic<bool>& stop) {
  while (true) {
    if (auto m = try_receive(source, tag))
      return m;
    if (stop.load() || clock::now() >= deadline)
      return std::nullopt;
    std::this_thread::sleep_for(poll_interval);
  }
}

void mpi_world::abort(int code) {
  (void)MPI_Abort(MPI_COMM_WORLD, code);
  // MPI_Abort does not return; should an implementation return, end the process anyway.
  std::_Exit(code);
}

} // namespace gpuspec::collectives::mpi
