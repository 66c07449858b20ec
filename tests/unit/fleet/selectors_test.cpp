// The query commands' parsers (selectors.hpp): examples, then properties over random input
// (seeded: a failure names its seed and input).

#include <gtest/gtest.h>

#include <random>

#include "gpuspec/fleet/selectors.hpp"

namespace {

using namespace gpuspec::fleet;

TEST(fleet_selectors, DatesInTheFormsReportsAndPeopleWriteThem) {
  std::string why;
  EXPECT_EQ(parse_utc_date("2026-11-30", why), "2026-11-30T00:00:00Z");
  EXPECT_EQ(parse_utc_date("2026-11-30T02:31", why), "2026-11-30T02:31:00Z");
  EXPECT_EQ(parse_utc_date("2026-11-30T02:31:04Z", why), "2026-11-30T02:31:04Z");
  EXPECT_EQ(parse_utc_date("2026-11-30 02:31:04", why), "2026-11-30T02:31:04Z");
  EXPECT_EQ(parse_utc_date("2024-02-29", why), "2024-02-29T00:00:00Z");
  for (const char* bad : {"", "2026", "2026-13-01", "2026-02-29", "2100-02-29", "2026-11-31",
                          "2026-11-30T24:00", "2026-11-30T23:60", "2026-11-30T02:31:04+01:00",
                          "2026-11-30x", "1969-12-31", "26-11-30", "2026-1-30", "2026-11-30T"}) {
    EXPECT_FALSE(parse_utc_date(bad, why)) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
  EXPECT_EQ(utc_seconds("1970-01-02T00:00:01Z"), 86401);
  EXPECT_EQ(utc_text(utc_seconds("2026-12-01T05:35:00Z")), "2026-12-01T05:35:00Z");
}

TEST(fleet_selectors, VersionsCompareByTheirParts) {
  EXPECT_LT(compare_versions("550.54.15", "550.127.05"), 0);
  EXPECT_LT(compare_versions("550.127.05", "560"), 0);
  EXPECT_EQ(compare_versions("12.04", "12.4"), 0);
  EXPECT_LT(compare_versions("2.21", "2.21.5"), 0);
  EXPECT_LT(compare_versions("2.21.5", "2.21.5a"), 0);
  EXPECT_GT(compare_versions("13.0", "12.9"), 0);
}

TEST(fleet_selectors, StackRanges) {
  std::string why;
  const auto from = parse_stack_range("driver=550..", why);
  ASSERT_TRUE(from);
  EXPECT_TRUE(from->holds("550.54.15"));
  EXPECT_TRUE(from->holds("570.86.10"));
  EXPECT_FALSE(from->holds("535.183.01"));
  EXPECT_FALSE(from->holds("")); // not recorded: never in a range
  const auto between = parse_stack_range("cuda=12.4..12.8", why);
  ASSERT_TRUE(between);
  EXPECT_TRUE(between->holds("12.4"));
  EXPECT_TRUE(between->holds("12.6"));
  EXPECT_FALSE(between->holds("12.8"));
  const auto below = parse_stack_range("nccl=..2.21", why);
  ASSERT_TRUE(below);
  EXPECT_TRUE(below->holds("2.20.5"));
  EXPECT_FALSE(below->holds("2.21.5"));
  const auto exact = parse_stack_range("driver=550", why);
  ASSERT_TRUE(exact);
  EXPECT_TRUE(exact->holds("550.54.15"));
  EXPECT_FALSE(exact->holds("5501.1"));
  EXPECT_FALSE(exact->holds("560.35.03"));
  for (const char* bad : {"driver", "driver=", "driver=..", "kernel=6.1..", "driver=560..550",
                          "driver=550..550", "driver=5 50", "driver=550...", "=550", "driver=.5"}) {
    EXPECT_FALSE(parse_stack_range(bad, why)) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
}

TEST(fleet_selectors, WindowsAreADateOrAStackRange) {
  std::string why;
  const auto before = parse_window("2026-11-10", true, why);
  ASSERT_TRUE(before);
  EXPECT_EQ(before->before, "2026-11-10T00:00:00Z");
  EXPECT_FALSE(before->from);
  const auto after = parse_window("2026-11-10", false, why);
  ASSERT_TRUE(after);
  EXPECT_EQ(after->from, "2026-11-10T00:00:00Z");
  const auto stack = parse_window("driver=550..", true, why);
  ASSERT_TRUE(stack);
  EXPECT_TRUE(stack->stack);
  EXPECT_FALSE(parse_window("last tuesday", true, why));
}

std::string random_text(std::mt19937& rng, const std::string& alphabet, std::size_t max_len) {
  std::uniform_int_distribution<std::size_t> len(0, max_len), pick(0, alphabet.size() - 1);
  std::string s(len(rng), ' ');
  for (auto& c : s)
    c = alphabet[pick(rng)];
  return s;
}

TEST(fleet_selectors, PropertyRandomTextNeverCrashesAndWhatParsesIsCanonical) {
  std::mt19937 rng(20261202);
  const std::string date_chars = "0123456789-:TZ +x";
  const std::string stack_chars = "0123456789.=drivecunlbsagp_-x ";
  for (int i = 0; i < 20000; ++i) {
    std::string why;
    const auto text = random_text(rng, date_chars, 24);
    if (const auto d = parse_utc_date(text, why)) {
      // Canonical, idempotent, and a round trip through seconds.
      EXPECT_EQ(parse_utc_date(*d, why), d) << text;
      EXPECT_EQ(utc_text(utc_seconds(*d)), *d) << text;
    }
    const auto stack = random_text(rng, stack_chars, 20);
    if (const auto r = parse_stack_range(stack, why)) {
      EXPECT_FALSE(r->key.empty()) << stack;
      if (!r->exact && !r->low.empty()) {
        EXPECT_TRUE(r->holds(r->low)) << stack; // LO is inside, HI is not
      }
      if (!r->high.empty()) {
        EXPECT_FALSE(r->holds(r->high)) << stack;
      }
    }
  }
}

TEST(fleet_selectors, PropertyDatesInOrderAreSecondsInOrder) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<long long> secs(0, 4102444800LL); // 1970 .. 2100
  for (int i = 0; i < 5000; ++i) {
    const long long a = secs(rng), b = secs(rng);
    const auto ta = utc_text(a), tb = utc_text(b);
    EXPECT_EQ(utc_seconds(ta), a);
    EXPECT_EQ(a < b, ta < tb) << ta << " " << tb; // text order is time order
  }
}

TEST(fleet_selectors, PropertyVersionOrderIsATotalOrder) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> parts(1, 4), num(0, 600);
  std::vector<std::string> v;
  for (int i = 0; i < 300; ++i) {
    std::string s;
    for (int p = parts(rng); p > 0; --p) {
      if (!s.empty())
        s += '.';
      s += std::to_string(num(rng));
    }
    v.push_back(s);
  }
  for (std::size_t i = 0; i < v.size(); ++i)
    for (std::size_t j = 0; j < v.size(); j += 7) {
      EXPECT_EQ(compare_versions(v[i], v[j]), -compare_versions(v[j], v[i]));
      const auto k = (i + j) % v.size();
      if (compare_versions(v[i], v[j]) < 0 && compare_versions(v[j], v[k]) < 0) {
        EXPECT_LT(compare_versions(v[i], v[k]), 0);
      }
    }
}

} // namespace
