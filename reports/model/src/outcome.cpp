#include "gpuspec/reports/model/outcome.hpp"

namespace gpuspec::reports::inline model {

std::string input_error::to_string() const {
  std::string text;
  for (const std::string* part : {&file, &field, &message}) {
    if (part->empty()) {
      continue;
    }
    if (!text.empty()) {
      text += ": ";
    }
    text += *part;
  }
  return text;
}

} // namespace gpuspec::reports::model
