// test/test_determinism.cpp — what kps says of floating-point results run to run (kps/reduce.hpp,
// kps/scan/policy.hpp: ScanOptions::deterministic), checked bit for bit: a float sum, a minmax
// and a double transform_reduce repeated many times with the tuned policy and with dynamic teams
// (the teams a host backend's threads take as they free up); a float and a double scan in the
// deterministic form repeated with small tiles of one and several threads, cached and direct
// tiles and 4 and 32 lanes (the GPU's look-back windows), where the default form's prefixes may
// differ in their last bits. Run at 1 to 16 threads in processes of their own
// (test/CMakeLists.txt: kps.determinism.threads.*): threads that outnumber the cores are
// descheduled at random, the schedule a non-deterministic reduction or look-back would show.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kps/reduce.hpp"
#include "kps/scan.hpp"
#include "operator_support.hpp"

namespace kps::test {
namespace determinism_tests {

// Repetitions of each call: 40, or KPS_DETERMINISM_REPEATS (the per-thread-count processes of
// test/CMakeLists.txt take 10: at 8 and 16 threads on two cores each repetition is descheduled at
// random many times, and Kokkos::Threads' idle workers spin, which made one such process 72 s).
inline const int repeats = [] {
  const char* v = std::getenv("KPS_DETERMINISM_REPEATS");
  const int r = v ? std::atoi(v) : 0;
  return r >= 4 ? r : 40;
}();

struct ToDouble {
  KOKKOS_INLINE_FUNCTION double operator()(const float& v) const { return double(v); }
};

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Values of mixed magnitudes: floating-point sums then depend on their order in their last bits.
template <class T>
std::vector<T> spread_values(std::size_t n, std::uint32_t seed) {
  std::vector<T> x = values_of<T>(n, seed);
  for (std::size_t i = 0; i < n; ++i) x[i] = T(x[i] * (i % 7 == 0 ? T(1e4) : i % 3 == 0 ? T(1e-3) : T(1)));
  return x;
}

TEST(Determinism, Reductions) {
  for_each_exec([&](auto exec) {
    using Space = typename decltype(exec)::memory_space;
    for (std::size_t n : {std::size_t(100003), std::size_t(1) << 21}) {
      SCOPED_TRACE("n=" + std::to_string(n));
      const std::vector<float> x = spread_values<float>(n, 61);
      const auto in = to_device<float, Space>(x);
      // Dynamic teams of one thread and of the widest team the backend takes (one thread on a CPU's
      // backends but Kokkos' Threads, whose teams may hold several).
      const int wide = std::min(4, impl::reduce_team_size_limit<decltype(exec), float>(exec));
      const ReducePolicy dynamic[] = {{1, 64, 0, 0, true}, {wide, 256, 0, 0, true}};
      for (const ReducePolicy* p : {static_cast<const ReducePolicy*>(nullptr), &dynamic[0], &dynamic[1]}) {
        SCOPED_TRACE(p ? to_string(*p) : std::string("tuned"));
        const float first = p ? reduce_sum(exec, in, *p) : reduce_sum(exec, in);
        const MinMax<float> mm = minmax(exec, in);
        const double t = transform_reduce(exec, in, 0.0, plus{}, ToDouble{});
        for (int r = 0; r < repeats; ++r) {
          ASSERT_TRUE(same_bits(p ? reduce_sum(exec, in, *p) : reduce_sum(exec, in), first)) << "repeat " << r;
          ASSERT_TRUE(same_bits(minmax(exec, in).min, mm.min));
          ASSERT_TRUE(same_bits(transform_reduce(exec, in, 0.0, plus{}, ToDouble{}), t)) << "repeat " << r;
        }
      }
    }
  });
}

/// Repeats a deterministic scan and compares every output bit for bit with the first's (and, as
/// a check of the values themselves, with a reference within the sums' tolerance).
template <class T>
void check_deterministic_scan(const ScanOptions& given) {
  for_each_exec([&](auto exec) {
    using Exec = decltype(exec);
    using Space = typename Exec::memory_space;
    ScanOptions o = given;
    o.deterministic = true;
    if (o.single_pass.lanes == 0 && o.single_pass.load != TileLoad::cached)
      o.single_pass.team_size *= impl::default_lanes<Exec>();
    if (!impl::single_pass_launchable<Exec, T>(exec, o.single_pass)) return;
    for (std::size_t n : {std::size_t(65537), std::size_t(1) << 20}) {
      SCOPED_TRACE("n=" + std::to_string(n));
      const std::vector<T> x = spread_values<T>(n, 67);
      const auto in = to_device<T, Space>(x);
      Kokkos::View<T*, Space> out("out", n);
      exclusive_scan(exec, in, out, ScanAlgorithm::single_pass, o);
      exec.fence();
      const std::vector<T> first = to_host(out);
      const std::vector<T> want = reference_scan(x, true);
      for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(scan_element_matches(first[i], want[i], i)) << "at " << i;
      for (int r = 0; r < repeats / 4; ++r) {
        Kokkos::deep_copy(out, T(-1));
        exclusive_scan(exec, in, out, ScanAlgorithm::single_pass, o);
        exec.fence();
        const std::vector<T> again = to_host(out);
        ASSERT_EQ(std::memcmp(again.data(), first.data(), n * sizeof(T)), 0) << "repeat " << r << " differs";
      }
      // Inclusive, in place, with an initial value: the same problem.
      std::vector<T> inc = reference_scan(x, false);
      Kokkos::View<T*, Space> io("io", n);
      Kokkos::deep_copy(io, in);
      inclusive_scan(exec, io, io, plus{}, T(2), ScanAlgorithm::single_pass, o);
      exec.fence();
      const std::vector<T> got = to_host(io);
      for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(scan_element_matches(got[i], T(inc[i] + T(2)), i)) << "at " << i;
    }
  });
}

TEST(Determinism, ScanCachedTiles) {
  for (int team : {1, 2}) {
    ScanOptions o;
    o.single_pass = {team, 256, TileLoad::cached};
    check_deterministic_scan<float>(o);
    check_deterministic_scan<double>(o);
  }
}

TEST(Determinism, ScanDirectTilesAndLanes) {
  for (int lanes : {0, 4, 32}) {
    ScanOptions o;
    // 32 floats: 128 bytes per thread, an items count every build compiles for a problem of
    // run-time flags (kps/scan/dispatch.hpp: single_pass_items).
    o.single_pass = {lanes ? lanes : 1, 32, TileLoad::direct};
    o.single_pass.lanes = lanes;
    check_deterministic_scan<float>(o);
  }
}

TEST(Determinism, ScanAutomatic) { check_deterministic_scan<double>(ScanOptions{}); }

}  // namespace determinism_tests
}  // namespace kps::test
