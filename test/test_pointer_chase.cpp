// The memory-latency probe's chain (bench/kernels/pointer_chase.hpp): one cycle through every
// line, each block's lines together, the blocks and the lines in them out of order; the chain
// followed on the device ends where the order says.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "kernels/pointer_chase.hpp"
#include "support/execution_space.hpp"

using namespace kps::bench;

TEST(PointerChase, OrderVisitsEveryLineOnceBlockByBlock) {
  const std::size_t per_block = chase_block_bytes / chase_line_bytes;
  for (std::size_t lines : {std::size_t(2), std::size_t(1000), 3 * per_block + 17}) {
    const std::vector<std::uint64_t> order = chase_order(lines, 42);
    ASSERT_EQ(order.size(), lines);
    EXPECT_EQ(std::set<std::uint64_t>(order.begin(), order.end()).size(), lines);
    for (std::uint64_t line : order) EXPECT_LT(line, lines);
    // Each run of per_block positions (the last one shorter) lies in one block.
    for (std::size_t i = 0; i < lines; ++i) EXPECT_EQ(order[i] / per_block, order[i - i % per_block] / per_block);
    if (lines >= 1000) {
      // Out of order: few neighbours in the order are neighbours in memory, and the blocks are shuffled.
      std::size_t adjacent = 0;
      for (std::size_t i = 1; i < lines; ++i) adjacent += order[i] == order[i - 1] + 1;
      EXPECT_LT(adjacent, lines / 20);
    }
  }
  const std::vector<std::uint64_t> blocks = chase_order(3 * per_block, 7);
  EXPECT_FALSE(blocks[0] / per_block == 0 && blocks[per_block] / per_block == 1 && blocks[2 * per_block] / per_block == 2);
  EXPECT_EQ(chase_order(5000, 9), chase_order(5000, 9));
  EXPECT_NE(chase_order(5000, 9), chase_order(5000, 10));
}

TEST(PointerChase, ChainEndsWhereTheOrderSays) {
  using Exec = kps::bench::ExecutionSpace;
  const Exec exec;
  const std::size_t lines = 3000;
  const std::vector<std::uint64_t> order = chase_order(lines, 5);
  const Kokkos::View<std::uint64_t*, Exec::memory_space> links("links", lines * chase_line_words);
  write_chase(exec, links, order);
  const Kokkos::View<std::uint64_t, Exec::memory_space> at("at");
  Kokkos::deep_copy(at, order[0] * chase_line_words);
  const PointerChase<Exec> chase{links, at, 1234};
  for (int call = 0; call < 5; ++call)
    Kokkos::parallel_for("chase", Kokkos::RangePolicy<Exec>(exec, 0, 1), chase);
  exec.fence();
  std::uint64_t got = 0;
  Kokkos::deep_copy(got, at);
  EXPECT_EQ(got, order[(5 * 1234) % lines] * chase_line_words);
}

// The chain under load: it ends where the order says, times itself with a clock that advances
// (its ticks and their rate), and the copy beside it writes the source's values; a team that copies
// while the chain runs counts at most what the copy holds per pass times the passes.
TEST(PointerChase, LoadedChainTimesItselfAndTheCopyIsRight) {
  using Exec = kps::bench::ExecutionSpace;
  using Space = Exec::memory_space;
  const Exec exec;
  const std::size_t lines = 3000, copy_n = 1 << 16;
  const std::vector<std::uint64_t> order = chase_order(lines, 11);
  const Kokkos::View<std::uint64_t*, Space> links("links", lines * chase_line_words);
  write_chase(exec, links, order);
  const Kokkos::View<std::uint64_t, Space> at("at");
  Kokkos::deep_copy(at, order[0] * chase_line_words);
  const Kokkos::View<double*, Space> src("src", copy_n), dst("dst", copy_n);
  Kokkos::deep_copy(src, 2.5);
  LoadedChase<Exec> chase{links, at, src, dst, Kokkos::View<int*, Space>("flags", 2),
                          Kokkos::View<unsigned long long, Space>("during"), Kokkos::View<std::uint64_t*, Space>("ticks", 2),
                          4321};
  chase.max_passes = 8;
  const int team = kps::impl::is_host_space_v<Exec> ? 1 : 64;
  const int league = std::max(2, Exec().concurrency() / team);
  Kokkos::parallel_for("loaded", Kokkos::TeamPolicy<Exec>(exec, league, team), chase);
  exec.fence();
  std::uint64_t got = 0;
  Kokkos::deep_copy(got, at);
  EXPECT_EQ(got, order[4321 % lines] * chase_line_words);
  std::uint64_t ticks[2] = {0, 0};
  Kokkos::deep_copy(Kokkos::View<std::uint64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(ticks, 2),
                    chase.ticks);
  EXPECT_GT(ticks[1], ticks[0]);
  EXPECT_GT(clock_tic_rate(exec, 1 << 20), 1e6);  // a clock of more than 1 MHz
  unsigned long long during = 0;
  Kokkos::deep_copy(during, chase.during);
  EXPECT_LE(during, 8ull * copy_n);
  const auto d = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dst);
  for (std::size_t i = 0; i < copy_n; ++i) ASSERT_TRUE(d(i) == 0.0 || d(i) == 2.5) << i;
}
