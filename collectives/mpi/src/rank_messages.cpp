// The ranks' messages (rank_messages.hpp), read with reports' one object reader.

#include "gpuspec/collectives/mpi/rank_messages.hpp"

#include <array>

#include "gpuspec/reports/model/json_reader.hpp"

namespace gpuspec::collectives::mpi {
namespace {

using reports::detail::element;
using reports::detail::object_reader;
using reports::detail::path_ref;
using reports::detail::presence;
using reports::detail::read_nested;
using reports::detail::read_one_of;
using reports::detail::to_json_value;

constexpr std::array<std::string_view, 3> welcome_keys{"type", "error", "ranks"};
constexpr std::array<std::string_view, 1> welcome_type{"welcome"};
constexpr std::array<std::string_view, 2> control_keys{"type", "case"};
constexpr std::array<std::string_view, 2> control_types{"case", "stop"};
constexpr std::array<std::string_view, 2> reply_keys{"index", "result"};

} // namespace

reports::outcome<rank_hello> hello_from_text(std::string_view text, std::string_view source) {
  return reports::detail::read_json_text(text, source, "hello", [](element root) {
    return read_nested(hello_from_json(to_json_value(root, "")), "");
  });
}

reports::outcome<welcome_message> welcome_from_text(std::string_view text) {
  return reports::detail::read_json_text(text, "rank 0's welcome", "welcome", [](element root) {
    const object_reader o(root, "", welcome_keys, presence::optional_keys);
    (void)read_one_of(o.at("type"), o.field("type"), welcome_type);
    welcome_message w;
    w.error = o.string("error");
    if (w.error.empty())
      w.ranks = reports::detail::read_array(
          o.at("ranks"), o.field("ranks"), [](element a, const path_ref& at) {
            const std::string path = at.str();
            return read_nested(assignment_from_json(to_json_value(a, path)), path);
          });
    return w;
  });
}

reports::outcome<control_message> control_from_text(std::string_view text) {
  return reports::detail::read_json_text(text, "rank 0's message", "message", [](element root) {
    const object_reader o(root, "", control_keys, presence::optional_keys);
    control_message m;
    m.stop = read_one_of(o.at("type"), o.field("type"), control_types) == "stop";
    if (!m.stop)
      m.measure = read_nested(case_from_json(to_json_value(o.at("case"), o.field("case"))), "case");
    return m;
  });
}

reports::outcome<reply_message> reply_from_text(std::string_view text, std::string_view source) {
  return reports::detail::read_json_text(text, source, "reply", [](element root) {
    const object_reader o(root, "", reply_keys, presence::optional_keys);
    reply_message r;
    r.index = o.integer<int>("index");
    r.result = to_json_value(o.at("result"), o.field("result"));
    return r;
  });
}

} // namespace gpuspec::collectives::mpi
