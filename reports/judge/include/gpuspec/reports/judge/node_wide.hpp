#pragma once
/// One cause on every GPU of a node (issue 31): the same reason code on each of a node's GPUs
/// points past the GPUs, to something the node or the site set (a power cap, locked clocks, a BIOS
/// setting, the cooling, a wrong spec row). Its action is the node's, not "swap slots" or
/// "compare with siblings" eight times (docs/check.md, "One cause on every GPU").

#include <span>
#include <string_view>

namespace gpuspec::reports::inline judge {

/// The action for `code` when every GPU of a node has it; "" where the code's own action is
/// already the node's (the renderers then print that one). Each code here is in reason_codes().
[[nodiscard]] std::string_view node_wide_action(std::string_view code);

/// The codes node_wide_action knows, in the order docs/check.md lists them.
[[nodiscard]] std::span<const std::string_view> node_wide_codes();

} // namespace gpuspec::reports::judge
