// The benchmarks' interleaved rounds (bench/support/rounds.hpp): their count and their order, a Williams design.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <utility>
#include <vector>

#include "support/rounds.hpp"

using kps::bench::design_rounds;
using kps::bench::round_order;

TEST(Rounds, WilliamsDesignBalancesPlacesAndPredecessors) {
  for (std::size_t n = 1; n <= 9; ++n) {
    const std::size_t rounds = design_rounds(n);
    const std::size_t each = n % 2 ? 2 : 1;  // times each place and each ordered pair occur
    std::map<std::pair<std::size_t, std::size_t>, int> place, follows;
    for (std::size_t r = 0; r < rounds; ++r) {
      std::set<std::size_t> seen;
      for (std::size_t j = 0; j < n; ++j) {
        const std::size_t k = round_order(j, r, n);
        ASSERT_LT(k, n);
        seen.insert(k);
        ++place[{j, k}];
        if (j > 0) ++follows[{round_order(j - 1, r, n), k}];
      }
      EXPECT_EQ(seen.size(), n) << "round " << r << " of " << n << " calls is not a permutation";
    }
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t k = 0; k < n; ++k) {
        EXPECT_EQ(place[std::make_pair(j, k)], int(each)) << n << " calls: call " << k << " at " << j;
      }
    }
    for (std::size_t a = 0; a < n; ++a) {
      for (std::size_t b = 0; b < n; ++b) {
        if (a == b) continue;
        EXPECT_EQ(follows[std::make_pair(a, b)], int(each)) << n << " calls: " << b << " after " << a;
      }
    }
  }
}

TEST(Rounds, RepeatsAfterOneDesign) {
  EXPECT_EQ(design_rounds(4), 4u);
  EXPECT_EQ(design_rounds(3), 6u);
  const std::vector<std::size_t> four{0, 1, 3, 2};  // row 0 for four calls
  for (std::size_t j = 0; j < 4; ++j) {
    EXPECT_EQ(round_order(j, 0, 4), four[j]);
    EXPECT_EQ(round_order(j, 4, 4), four[j]);
    EXPECT_EQ(round_order(j, 1, 4), (four[j] + 1) % 4);
  }
  EXPECT_EQ(round_order(0, 3, 3), 2u);  // odd: round 3 runs round 0 (0, 1, 2) backwards
  EXPECT_EQ(round_order(2, 3, 3), 0u);
}

TEST(Rounds, CountGrowsForShortCallsInWholeDesigns) {
  using kps::bench::Rounds;
  using kps::bench::rounds_for;
  const Rounds study{15, 101, double(1 << 28), true};
  EXPECT_EQ(rounds_for(study, double(1ull << 32), 4), 16);  // long calls: the minimum, whole designs of 4
  EXPECT_EQ(rounds_for(study, double(1ull << 30), 5), 20);  // designs of an odd count are 10 rounds
  EXPECT_EQ(rounds_for(study, double(1 << 26), 4), 60);     // 4x shorter than short_bytes: 4x the rounds
  EXPECT_EQ(rounds_for(study, 4096.0, 4), 104);             // capped at max, then whole designs
  EXPECT_EQ(rounds_for(study, 0.0, 6), 18);                 // unknown bytes: the minimum
  for (std::size_t calls = 1; calls <= 9; ++calls)
    for (double bytes : {1e3, 1e6, 1e8, 1e10})
      EXPECT_EQ(rounds_for(study, bytes, calls) % int(kps::bench::design_rounds(calls)), 0);
  const Rounds fixed{5, 5, 0, false};
  EXPECT_EQ(rounds_for(fixed, 1.0, 2), 6);
}

TEST(Rounds, LongCallsRunOneLatinSquare) {
  using kps::bench::Rounds;
  using kps::bench::rounds_for;
  const Rounds study{15, 101, double(1 << 28), false, double(1ull << 37)};
  EXPECT_EQ(rounds_for(study, double(1ull << 37), 7), 7);  // 7 calls: one square, not 2 x 14
  EXPECT_EQ(rounds_for(study, double(1ull << 38), 6), 6);
  EXPECT_EQ(rounds_for(study, double(1ull << 38), 2), 6);  // at least long_min, in whole squares
  EXPECT_EQ(rounds_for(study, double(1ull << 38), 1), 5);
  EXPECT_EQ(rounds_for(study, double(1ull << 36), 7), 28);  // shorter: the whole designs
  // Every call in every place once over the square's rounds.
  for (std::size_t calls = 2; calls <= 9; ++calls) {
    const int rounds = rounds_for(study, double(1ull << 38), calls);
    for (std::size_t j = 0; j < calls; ++j) {
      std::map<std::size_t, int> at;
      for (int r = 0; r < rounds; ++r) ++at[kps::bench::round_order(j, std::size_t(r), calls)];
      EXPECT_EQ(at.size(), calls) << calls << " calls, place " << j;
    }
  }
}
