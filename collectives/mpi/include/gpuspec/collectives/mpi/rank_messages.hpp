#pragma once
/// The ranks' messages beyond a hello, an assignment and a case (rank_identity.hpp,
/// mpi_case.hpp), as rank 0 and the other ranks read them off the wire (docs/multi-node.md).
/// Pure: no MPI here. Read as every JSON document gpuspec reads is (reports' json_reader.hpp):
/// strict, every key, no unknown or repeated ones; an error names the message and the field.

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuspec/collectives/mpi/mpi_case.hpp"
#include "gpuspec/collectives/mpi/rank_identity.hpp"
#include "gpuspec/reports/model/outcome.hpp"

namespace gpuspec::collectives::mpi {

/// A rank's hello as its text; errors name `source` ("rank 3's hello").
[[nodiscard]] reports::outcome<rank_hello> hello_from_text(std::string_view text,
                                                           std::string_view source);

/// Rank 0's answer to the hellos, {"type": "welcome", "error", "ranks"}: the error every rank
/// stops on, or (error "") every rank's assignment.
struct welcome_message {
  std::string error;
  std::vector<rank_assignment> ranks;
};
[[nodiscard]] reports::outcome<welcome_message> welcome_from_text(std::string_view text);

/// What rank 0 sends a rank after its welcome: {"type": "case", "case": ...} or
/// {"type": "stop"}.
struct control_message {
  bool stop = false;
  mpi_case measure; ///< when not stop
};
[[nodiscard]] reports::outcome<control_message> control_from_text(std::string_view text);

/// A rank's reply to a case, {"index", "result"}: the result as the rank wrote it (null from a
/// rank not in the case's group: an acknowledgement), for result_from_json to read where it is
/// one. Errors name `source` ("rank 3").
struct reply_message {
  int index = -1;
  nlohmann::ordered_json result;
};
[[nodiscard]] reports::outcome<reply_message> reply_from_text(std::string_view text,
                                                              std::string_view source);

} // namespace gpuspec::collectives::mpi
