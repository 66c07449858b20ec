// --pairwise's schedule (every pair once, no node twice in a round; a bisection for many
// nodes) and the rule that names the slow node from the pairs' figures.

#include <set>
#include <utility>

#include <gtest/gtest.h>

#include "gpuspec/collectives/mpi/pairing.hpp"

namespace m = gpuspec::collectives::mpi;

namespace {

void expect_every_pair_once(int nodes) {
  const auto rounds = m::all_pairs(nodes);
  std::set<std::pair<int, int>> seen;
  for (const auto& round : rounds) {
    std::set<int> busy;
    for (const auto& [a, b] : round) {
      EXPECT_LT(a, b);
      EXPECT_TRUE(busy.insert(a).second) << "node " << a << " twice in a round";
      EXPECT_TRUE(busy.insert(b).second) << "node " << b << " twice in a round";
      EXPECT_TRUE(seen.insert({a, b}).second) << a << "+" << b << " twice";
    }
  }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(nodes * (nodes - 1) / 2)) << nodes << " nodes";
  EXPECT_EQ(rounds.size(), static_cast<std::size_t>(nodes % 2 == 0 ? nodes - 1 : nodes));
}

} // namespace

TEST(MpiPairing, AllPairsMeetsEveryPairOnceInTheFewestRounds) {
  for (int n = 2; n <= 9; ++n)
    expect_every_pair_once(n);
  EXPECT_TRUE(m::all_pairs(1).empty());
  EXPECT_TRUE(m::all_pairs(0).empty());
}

TEST(MpiPairing, BisectionPairsEachHalfWithTheOther) {
  const auto even = m::bisection(6);
  ASSERT_EQ(even.size(), 1U);
  EXPECT_EQ(even[0], (std::vector<std::pair<int, int>>{{0, 3}, {1, 4}, {2, 5}}));
  const auto odd = m::bisection(5);
  ASSERT_EQ(odd.size(), 2U);
  EXPECT_EQ(odd[1], (std::vector<std::pair<int, int>>{{0, 4}}));
  EXPECT_TRUE(m::bisection(1).empty());
  EXPECT_EQ(m::pairing_schedule(4, 16).size(), 3U);
  EXPECT_EQ(m::pairing_schedule(40, 16).size(), 1U);
}

TEST(MpiPairing, TheNodeThatDragsItsPairsIsNamed) {
  // Four nodes, node 2 slow: every pair with it at 60, the others at 100.
  std::vector<m::pair_figure> figures;
  for (const auto& round : m::all_pairs(4))
    for (const auto& [a, b] : round)
      figures.push_back({a, b, (a == 2 || b == 2) ? 60.0 : 100.0});
  const auto slow = m::find_slow_node(figures, 4, 0.05);
  ASSERT_TRUE(slow);
  EXPECT_EQ(slow->node, 2);
  EXPECT_NEAR(slow->behind, 0.4, 1e-12);
  // Three nodes, as few as can tell: node 0 slow.
  const std::vector<m::pair_figure> three = {{0, 1, 50}, {0, 2, 52}, {1, 2, 100}};
  ASSERT_TRUE(m::find_slow_node(three, 3, 0.05));
  EXPECT_EQ(m::find_slow_node(three, 3, 0.05)->node, 0);
}

TEST(MpiPairing, EvenPairsNameNoNodeAndOnePairCannotTell) {
  std::vector<m::pair_figure> figures;
  for (const auto& round : m::all_pairs(4))
    for (const auto& [a, b] : round)
      figures.push_back({a, b, 100.0 + a - b}); // within 5%
  EXPECT_FALSE(m::find_slow_node(figures, 4, 0.05));
  const std::vector<m::pair_figure> one = {{0, 1, 10}};
  EXPECT_FALSE(m::find_slow_node(one, 2, 0.05));
}
