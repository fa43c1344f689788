// test/sanitize/test_sanitize.cpp — one call of every kps kernel on kps' execution space, small
// enough that compute-sanitizer's tools (memcheck, racecheck, synccheck, initcheck) finish in
// minutes, each result checked: every scan algorithm and the single pass's load layouts, delays
// and prefetch; the reductions and the dot product, returned and into a device View, a league
// of one team included; the cos loop (both maths where the backend has both) and the
// fixed-time spin of the occupancy study.
// int32 and double. Sizes: several tiles of each scan (the single pass's default GPU tile is
// 8192 elements for 4-byte types, 4096 for 8-byte ones), not multiples of any tile.
// test/sanitize/sanitize.sh runs this binary under each tool (ctest -L sanitize).
#include <cmath>
#include <string>
#include <vector>

#include "kernels/cos_loop.hpp"
#include "kps/reduce.hpp"
#include "kps/scan.hpp"
#include "kernels/spin.hpp"
#include "../test_support.hpp"
#if defined(KOKKOS_ENABLE_CUDA)
#include "support/native.hpp"
#endif

namespace kps::test {
// Named (not anonymous): nvcc cannot launch kernels on lambdas of anonymous namespaces.
namespace sanitize_tests {

using namespace kps::bench;  // the study kernels (bench/kernels/)

using Exec = ExecutionSpace;
using Space = Exec::memory_space;
constexpr std::size_t n = 100003;
/// Threads per team of the explicit launches: a GPU's usual sizes; 1 on a host backend, whose
/// teams are at most its threads.
constexpr int team(int gpu_threads) { return impl::is_host_space_v<Exec> ? 1 : gpu_threads; }

template <class T>
void expect_near_all(const std::vector<T>& got, const std::vector<T>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_TRUE(scan_element_matches(got[i], want[i], i)) << "at " << i;
}

template <class T>
class Sanitize : public ::testing::Test {};
using Types = ::testing::Types<std::int32_t, double>;
TYPED_TEST_SUITE(Sanitize, Types);

TYPED_TEST(Sanitize, Scans) {
  using T = TypeParam;
  const auto x = random_values<T>(n, 11);
  const auto want = reference_scan(x, true);
  const auto in = to_device<T, Space>(x);
  Kokkos::View<T*, Space> out("out", n);
  const Exec exec;
  for (ScanAlgorithm alg : {ScanAlgorithm::automatic, ScanAlgorithm::kokkos, ScanAlgorithm::hillis_steele,
                            ScanAlgorithm::blelloch, ScanAlgorithm::single_pass}) {
    SCOPED_TRACE(to_string(alg));
    exclusive_scan(exec, in, out, alg);
    exec.fence();
    expect_near_all(to_host(out), want);
  }
  // The single pass's other code paths: direct and staged loads, explicit look-back delays
  // and an L2 prefetch of later tiles (which the defaults apply only from 500 tiles on).
  const int lanes = impl::default_lanes<Exec>();
  for (TileLoad load : {TileLoad::direct, TileLoad::staged})
    for (bool delays : {false, true}) {
      SCOPED_TRACE(std::string(load == TileLoad::staged ? "staged" : "direct") + (delays ? " with delays" : ""));
      ScanOptions o;
      o.single_pass = {team(4) * lanes, 16, load};
      if (delays) {
        o.single_pass.look_back_delay_ns = 200;
        o.single_pass.poll_delay_ns = 100;
        o.single_pass.prefetch_tiles = 4;
      }
      exclusive_scan(exec, in, out, ScanAlgorithm::single_pass, o);
      exec.fence();
      expect_near_all(to_host(out), want);
    }
}

// The defaults' look-back delays and L2 prefetch apply from 500 tiles on (the single pass's
// default GPU tiles: 8192 elements of 4-byte types, 4096 of 8-byte ones): a scan that long.
TYPED_TEST(Sanitize, SinglePassManyTiles) {
  using T = TypeParam;
  const std::size_t big = 520 * 8192 + 5;
  const auto x = random_values<T>(big, 14);
  const auto in = to_device<T, Space>(x);
  Kokkos::View<T*, Space> out("out", big);
  exclusive_scan(Exec(), in, out, ScanAlgorithm::single_pass);
  Exec().fence();
  expect_near_all(to_host(out), reference_scan(x, true));
}

TYPED_TEST(Sanitize, ReduceAndDot) {
  using T = TypeParam;
  const auto hx = random_values<T>(n, 12);
  const auto hy = random_values<T>(n, 13);
  const long double sum = reference_sum(hx), dot_ref = reference_sum(hx, &hy);
  const auto x = to_device<T, Space>(hx);
  const auto y = to_device<T, Space>(hy);
  const Exec exec;
  EXPECT_TRUE(sum_matches(reduce_sum(exec, x), sum, n));
  EXPECT_TRUE(sum_matches(dot(exec, x, y), dot_ref, n));
  EXPECT_TRUE(sum_matches(reduce_sum(exec, x, ReducePolicy{team(128), 4, 7, 1}), sum, n));
  // A league of one team, which ends the reduction inside the team (into the pinned View).
  EXPECT_TRUE(sum_matches(reduce_sum(exec, x, ReducePolicy{team(512), 8, 1, 0}), sum, n));
  Kokkos::View<T, Space> r("r");
  reduce_sum(exec, x, r);
  dot(exec, x, y, r);  // the second overwrites the first: both ran
  exec.fence();
  T got{};
  Kokkos::deep_copy(got, r);
  EXPECT_TRUE(sum_matches(got, dot_ref, n));
  dot(exec, x, y, r, ReducePolicy{team(1024), 4, 1, 0});  // the league of one into a device View
  exec.fence();
  Kokkos::deep_copy(got, r);
  EXPECT_TRUE(sum_matches(got, dot_ref, n));
}

TEST(Sanitize, CosLoop) {
  const Exec exec;
  constexpr long long iterations = 64;
  for (CosMath math : {CosMath::accurate, CosMath::fast}) {
    if (math == CosMath::fast && !has_fast_cos<Exec>) continue;
    SCOPED_TRACE(to_string(math));
    const CosLoopConfig cfg{4, team(64), iterations, 2, math};
    Kokkos::View<int*, Space> out("out", cos_loop_threads(cfg));
    cos_loop(exec, cfg, out);
    exec.fence();
    const int want = cos_chain_reference(exec, iterations, 2, math);
    for (int s : to_host(out)) ASSERT_EQ(s, want);
  }
}

TEST(Sanitize, Spin) {
  const Exec exec;
  SpinConfig cfg;
  cfg.league = 8;
  cfg.team_size = team(64);
  cfg.ticks = 1000;
  cfg.scratch_bytes = 1024;
  Kokkos::View<long long*, Space> out("out", cfg.league);
  spin_teams(exec, cfg, out);
  exec.fence();
  for (long long t : to_host(out)) ASSERT_GE(t, cfg.ticks);
}

#if defined(KOKKOS_ENABLE_CUDA)
// The native CUDA twins of the latency and occupancy studies (bench/cuda/native_kernels.hpp).
TEST(Sanitize, NativeTwins) {
  if (Native<Exec>::has_kernels) {
    const Exec exec;
    const CosLoopConfig cfg{4, 64, 64, 2, CosMath::fast};
    Kokkos::View<int*, Space> sums("sums", cos_loop_threads(cfg));
    Native<Exec>::cos_loop(exec, cfg, sums.data());
    Kokkos::View<long long*, Space> spun("spun", 8);
    Native<Exec>::spin(exec, 0, 8, 64, 1000, 1024, spun.data());
    exec.fence();
    const int want = cos_chain_reference(exec, cfg.iterations, cfg.chains, cfg.math);
    for (int s : to_host(sums)) ASSERT_EQ(s, want);
    for (long long t : to_host(spun)) ASSERT_GE(t, 1000);
  } else {
    GTEST_SKIP() << "kps runs on " << Exec::name() << ", not on the GPU";
  }
}
#endif

}  // namespace sanitize_tests
}  // namespace kps::test
