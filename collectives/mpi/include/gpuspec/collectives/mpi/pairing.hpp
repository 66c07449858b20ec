#pragma once
/// --pairwise: which nodes are measured together, round by round, and which node the pairs'
/// figures point at. Pure.

#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace gpuspec::collectives::mpi {

/// Rounds of node pairs (indices into the job's hosts); no node is in two pairs of one round,
/// so a round's pairs run at once without sharing a node.
using pairing_rounds = std::vector<std::vector<std::pair<int, int>>>;

/// Every pair once, by the circle method: n - 1 rounds for an even n, n for an odd n (each
/// round leaves one node out). Nothing for fewer than 2 nodes.
[[nodiscard]] pairing_rounds all_pairs(int nodes);

/// A bisection: node i with node i + n/2 in one round (an odd n adds a second round pairing
/// the last node with node 0). Every node once, n/2 pairs: for many nodes, where all pairs
/// would take n - 1 rounds.
[[nodiscard]] pairing_rounds bisection(int nodes);

/// all_pairs up to `max_all_pairs_nodes` nodes, bisection above.
[[nodiscard]] pairing_rounds pairing_schedule(int nodes, int max_all_pairs_nodes);

/// One pair's figure, in a unit where higher is better (a bandwidth; a time inverted).
struct pair_figure {
  int a = 0, b = 0;
  double value = 0;
};

/// The node that makes its pairs slow: the node whose pairs' median figure is furthest below
/// the median of the pairs it is not in, when that is more than `threshold` (relative) and it
/// is in at least two pairs (one pair alone cannot tell which of its two nodes is slow, so two
/// nodes never name one). std::nullopt otherwise.
struct slow_node {
  int node = 0;
  double behind = 0; ///< (the others' median - its median) / the others' median
};
[[nodiscard]] std::optional<slow_node> find_slow_node(std::span<const pair_figure> figures,
                                                      int nodes, double threshold);

} // namespace gpuspec::collectives::mpi
