#pragma once
/// MPI_COMM_WORLD for the launcher, owned (RAII: MPI_Init here, MPI_Finalize in the destructor)
/// and reduced to what the launcher needs: point-to-point text messages, each wait bounded by
/// a deadline and by the stop flag, so that no rank ever blocks on a peer that is gone. Errors
/// are returned by MPI (MPI_ERRORS_RETURN), never fatal: a peer that died is a result.

#include <atomic>
#include <chrono>
#include <list>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gpuspec::collectives::mpi {

using clock = std::chrono::steady_clock;

/// An MPI call failed: what() names the call and MPI's own words.
class mpi_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// A message that arrived.
struct received {
  int source = 0;
  std::string text;
};

class mpi_world {
public:
  /// MPI_Init; throws mpi_error when MPI cannot start.
  mpi_world(int& argc, char**& argv);
  /// MPI_Finalize, unless abandon() was called.
  ~mpi_world();
  mpi_world(const mpi_world&) = delete;
  mpi_world& operator=(const mpi_world&) = delete;

  [[nodiscard]] int rank() const { return m_rank; }
  [[nodiscard]] int size() const { return m_size; }

  /// Sends `text` to `dest`, waiting for the send to complete until `deadline` or `stop`. An
  /// empty optional when it completed, else why not. The text is kept until MPI is done with it.
  [[nodiscard]] std::optional<std::string> send(int dest, int tag, std::string_view text,
                                                clock::time_point deadline,
                                                const std::atomic<bool>& stop);

  /// A message from `source` (-1: any rank) under `tag`, if one has arrived; never waits.
  /// Throws mpi_error when MPI fails.
  [[nodiscard]] std::optional<received> try_receive(int source, int tag);

  /// Waits for a message until `deadline` or `stop` (then std::nullopt), polling every
  /// millisecond or so. Throws mpi_error when MPI fails.
  [[nodiscard]] std::optional<received> receive(int source, int tag, clock::time_point deadline,
                                                const std::atomic<bool>& stop);

  /// MPI_Abort: the launcher ends every rank (one stuck in a call that never returns too), and
  /// mpirun exits with `code`.
  [[noreturn]] void abort(int code);

  /// MPI_Finalize will not be called: a peer is gone or stuck, and finalizing could wait for it.
  void abandon() { m_abandoned = true; }

private:
  int m_rank = 0;
  int m_size = 1;
  bool m_abandoned = false;
  /// Sends still in flight, with their buffers (MPI reads them until the send completes).
  struct pending_send;
  std::unique_ptr<std::list<pending_send>> m_pending;
};

} // namespace gpuspec::collectives::mpi
