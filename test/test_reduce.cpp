// test/test_reduce.cpp — kps::reduce_sum and kps::dot on every element type, with the tuned
// policy (lookup table or fallback rule) and families of explicit ones (team sizes, items per
// thread, league: the seed's relation, fixed, capped as a table row caps it; vector widths), on
// sizes 0..3, around team x items, primes and 10^6+3, against host references (exact for
// integers, compensated long double otherwise), returned on the host and written to rank-0
// Views (the asynchronous form); bad policies, unallocated results and mismatched lengths throw.
// The lookup table loader: valid tables and lookups across range boundaries, missing,
// malformed (each kind, with its line number) and foreign-device tables, and the selection
// rules of KPS_TUNING_TABLE: test/test_tuning.cpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <numeric>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "kps/reduce.hpp"
#include "kps/tuning/table.hpp"
#include "test_support.hpp"

namespace kps::test {
// Named (not anonymous): nvcc cannot launch kernels on lambdas of anonymous namespaces.
namespace reduce_tests {

template <class T>
void expect_value(T got, long double want, std::size_t n) {
  EXPECT_TRUE(sum_matches(got, want, n)) << "got " << got << ", expected " << double(want) << " (" << n << " terms)";
}

std::vector<std::size_t> sizes_for(const ReducePolicy& p, bool large) {
  const std::size_t chunk = std::size_t(p.team_size) * p.items_per_thread;
  std::vector<std::size_t> s{0, 1, 2, 3, chunk - 1, chunk, chunk + 1, 7919};
  if (large) s.insert(s.end(), {104729, 1000003});
  return s;
}

template <class T>
void check_policy(const ReducePolicy& policy, bool use_default = false, bool large = true) {
  for_each_exec([&](auto exec) {
    using Exec = decltype(exec);
    using Space = typename Exec::memory_space;
    ReducePolicy p = policy;
    const int limit = impl::reduce_team_size_limit<Exec, T>(exec);
    if (p.team_size > limit) p.team_size = limit;
    // A policy clamped to the backend's limit may be one checked already (teams of 64 and 2 are
    // both 2 on a 2-thread host): once is enough.
    static std::set<std::string> checked;
    if (!checked.insert(std::string(Exec::name()) + " " + to_string(p) + (use_default ? " default" : "") +
                        (large ? " large" : "")).second)
      return;
    for (std::size_t n : sizes_for(p, large)) {
      SCOPED_TRACE("n=" + std::to_string(n) + " " + to_string(p) + (use_default ? " (default policy)" : ""));
      const auto hx = random_values<T>(n, 7 + static_cast<std::uint32_t>(n));
      const auto hy = random_values<T>(n, 8 + static_cast<std::uint32_t>(n));
      const auto x = to_device<T, Space>(hx);
      const auto y = to_device<T, Space>(hy);
      expect_value(use_default ? reduce_sum(exec, x) : reduce_sum(exec, x, p), reference_sum(hx), n);
      expect_value(use_default ? dot(exec, x, y) : dot(exec, x, y, p), reference_sum(hx, &hy), n);
      // The same into rank-0 Views in exec's memory (asynchronous), poisoned first.
      Kokkos::View<T, Space> r("r"), rd("rd");
      Kokkos::deep_copy(r, T(99));
      Kokkos::deep_copy(rd, T(99));
      use_default ? reduce_sum(exec, x, r) : reduce_sum(exec, x, r, p);
      use_default ? dot(exec, x, y, rd) : dot(exec, x, y, rd, p);
      exec.fence();
      T got = T(0), got_dot = T(0);
      Kokkos::deep_copy(got, r);
      Kokkos::deep_copy(got_dot, rd);
      expect_value(got, reference_sum(hx), n);
      expect_value(got_dot, reference_sum(hx, &hy), n);
      // Subviews k elements in: heads of every length before the loop's 256-byte boundary
      // (a View's data starts 128 bytes past one), with x and y at different offsets for the
      // dot product (y unaligned for vector loads where x is aligned: the width must fall back).
      for (std::size_t k : {std::size_t(1), std::size_t(2), std::size_t(5), 128 / sizeof(T) - 1, 128 / sizeof(T),
                            128 / sizeof(T) + 1, 256 / sizeof(T) + 3}) {
        if (k >= n) continue;
        SCOPED_TRACE("subview from " + std::to_string(k));
        auto xs = Kokkos::subview(x, std::make_pair(k, n));
        auto ys = Kokkos::subview(y, std::make_pair(k - 1, n - 1));
        const std::vector<T> tx(hx.begin() + k, hx.end()), ty(hy.begin() + (k - 1), hy.end() - 1);
        expect_value(use_default ? reduce_sum(exec, xs) : reduce_sum(exec, xs, p), reference_sum(tx), n);
        expect_value(use_default ? dot(exec, xs, ys) : dot(exec, xs, ys, p), reference_sum(tx, &ty), n);
      }
    }
  });
}

template <class T>
class Reduce : public ::testing::Test {};
using Types = ::testing::Types<std::int32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(Reduce, Types);

// The tuned policy (the sizes are those around its own tile where the policy is known).
TYPED_TEST(Reduce, TunedPolicy) { check_policy<TypeParam>({1, 1, 0, 0}, true); }

TYPED_TEST(Reduce, PolicyFamilies) {
  // Every family on small sizes (0..3, team x items +- 1, a prime) ...
  for (int team : {1, 2, 64})
    for (int items : {1, 2, 3, 4, 16})
      for (int league : {0, 1, 5})
        for (int width : {0, 1, 2, 4}) check_policy<TypeParam>({team, items, league, width}, false, false);
  // ... the sweep's families (GPU team sizes, where the backend allows them; large loads) ...
  for (int team : {1, 32, 256})
    for (int items : {2, 8, 64, 2048}) check_policy<TypeParam>({team, items, 0, 0}, false, false);
  // ... and one of each kind on large primes and 10^6+3.
  check_policy<TypeParam>({64, 16, 0, 0});
  check_policy<TypeParam>({2, 3, 5, 1});
  check_policy<TypeParam>({1, 4, 1, 4});
  check_policy<TypeParam>({1, 4096, 2, 0});
  // Teams taken dynamically (host backends; GPUs ignore it): the seed's league, a capped one.
  check_policy<TypeParam>({1, 64, 0, 0, true});
  check_policy<TypeParam>({2, 3, 5, 1, true});
  for (int items : {1, 16, 2048}) check_policy<TypeParam>({1, items, 0, 0, true}, false, false);
  // A league of one team ends the reduction inside the team where the result is a View exec
  // writes (the returned value's pinned View on a GPU, the asynchronous form's View in exec's
  // memory): the largest teams, a tile of N and one looping past it.
  for (int team : {256, 512, 1024}) check_policy<TypeParam>({team, 8, 1, 0}, false, false);
}

// The same reduction into a rank-0 View in ordinary host memory: on a host backend written by
// the team of a league of one, on a GPU (which cannot write it) through Kokkos' parallel_reduce;
// poisoned first, every league of one and of more teams, the sizes around the tile.
TYPED_TEST(Reduce, HostViewResults) {
  using T = TypeParam;
  for_each_exec([&](auto exec) {
    using Space = typename decltype(exec)::memory_space;
    for (int league : {1, 3})
      for (std::size_t n : {std::size_t(1), std::size_t(255), std::size_t(256), std::size_t(257), std::size_t(7919)}) {
        SCOPED_TRACE("n=" + std::to_string(n) + " league=" + std::to_string(league));
        const auto hx = random_values<T>(n, 11 + static_cast<std::uint32_t>(n));
        const auto hy = random_values<T>(n, 12 + static_cast<std::uint32_t>(n));
        const auto x = to_device<T, Space>(hx);
        const auto y = to_device<T, Space>(hy);
        const ReducePolicy p{std::min(32, impl::reduce_team_size_limit<decltype(exec), T>(exec)), 8, league, 0};
        Kokkos::View<T, Kokkos::HostSpace> r("r"), rd("rd");
        r() = T(99);
        rd() = T(99);
        reduce_sum(exec, x, r, p);
        dot(exec, x, y, rd, p);
        exec.fence();
        expect_value(r(), reference_sum(hx), n);
        expect_value(rd(), reference_sum(hx, &hy), n);
      }
  });
}

// Table rows as the tuned reduction turns them into policies: the seed's league (0) and a
// league cap that binds at some sizes and not at others.
TYPED_TEST(Reduce, TableRowPolicies) {
  for (int cap : {0, 1, 3, 1000}) {
    ReduceRow row;
    row.type = type_name<TypeParam>();
    row.team_size = 2;
    row.items_per_thread = 8;
    row.league = cap;
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(15), std::size_t(16), std::size_t(17),
                          std::size_t(7919), std::size_t(1000003)}) {
      const ReducePolicy p = impl::policy_from_row(row, n);
      const std::size_t needed = (n + 15) / 16;
      if (cap == 0)
        EXPECT_EQ(p.league_size, 0);
      else
        EXPECT_EQ(std::size_t(p.league_size), std::max<std::size_t>(1, std::min<std::size_t>(needed, cap)));
    }
    check_policy<TypeParam>(impl::policy_from_row(row, 1000003));
  }
}

// The vector loop starts at the first 256-byte boundary: the head is the elements before it,
// none where the data is aligned to it or not aligned to its own element size, at most n.
TEST(ReduceIndex, HeadEndsAtTheLoopAlignment) {
  const auto at = [](std::uintptr_t address) { return reinterpret_cast<const double*>(address); };
  EXPECT_EQ(impl::head_elements(at(4096), 100), 0u);
  EXPECT_EQ(impl::head_elements(at(4096 + 128), 100), 16u);  // a View's data: 128 bytes in
  EXPECT_EQ(impl::head_elements(at(4096 + 248), 100), 1u);
  EXPECT_EQ(impl::head_elements(at(4096 + 8), 100), 31u);
  EXPECT_EQ(impl::head_elements(at(4096 + 128), 5), 5u);     // fewer elements than the head
  EXPECT_EQ(impl::head_elements(at(4096 + 4), 100), 0u);     // not aligned to its element
  EXPECT_EQ(impl::head_elements(reinterpret_cast<const std::int32_t*>(4096 + 4), 100), 63u);
}

// Both shares of the data (the GPUs' grid-stride add_share, the host backends' contiguous
// add_share_contiguous) give every element to exactly one thread of the league, whatever the
// head, the vector width, the team, the league (more threads than vectors included) and n.
// (Called on the host only; host-device like the loads it stands for, which the shares call.)
struct CountingLoad {
  int* visits;
  std::size_t offset = 0;
  KOKKOS_INLINE_FUNCTION int operator()(std::size_t i) const { return ++visits[offset + i], 1; }
  template <int V, class Index>
  KOKKOS_INLINE_FUNCTION impl::Vec<int, V> vector(Index v) const {
    impl::Vec<int, V> one{};
    for (int k = 0; k < V; ++k) ++visits[offset + std::size_t(v) * V + k], one.e[k] = 1;
    return one;
  }
  KOKKOS_INLINE_FUNCTION CountingLoad advanced(std::size_t k) const { return {visits, offset + k}; }
};

template <int V>
void expect_each_element_once(bool contiguous) {
  for (std::size_t n : {0, 1, 3, 17, 64, 1000, 4099})
    for (std::size_t head : {0, 1, 15})
      for (std::size_t team : {1, 3, 32})
        for (std::size_t league : {1, 2, 7, 300}) {
          if (head > n) continue;
          SCOPED_TRACE("V=" + std::to_string(V) + " n=" + std::to_string(n) + " head=" + std::to_string(head) +
                       " team=" + std::to_string(team) + " league=" + std::to_string(league) +
                       (contiguous ? " contiguous" : " grid-stride"));
          std::vector<int> visits(n, 0);
          int total = 0;
          for (std::size_t rank = 0; rank < league; ++rank)
            for (std::size_t t = 0; t < team; ++t) {
              int acc = 0;
              const CountingLoad load{visits.data()};
              if (contiguous)
                impl::add_share_contiguous<V>(load, n, head, team, league, rank, t, acc);
              else
                impl::add_share<V, std::uint32_t>(load, n, head, team, league, rank, t, acc);
              total += acc;
            }
          EXPECT_EQ(total, int(n));
          for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(visits[i], 1) << "element " << i;
        }
}

TEST(ReduceIndex, EachElementOnceInEitherShare) {
  for (bool contiguous : {false, true}) {
    expect_each_element_once<1>(contiguous);
    expect_each_element_once<2>(contiguous);
    expect_each_element_once<4>(contiguous);
  }
}

// The host loop's two forms (add_lanes: the compiler's vector type under GCC and Clang;
// add_lanes_scalar: element by element, what nvcc's host pass compiles) add exactly the
// vectors [i, end) of every range, partial groups of four included: integers exactly, floating
// point (values that sum exactly) too, for each vector width.
template <class T, int V>
void expect_lanes_sum_their_range() {
  alignas(64) T x[4 * 64 + 8];  // the loads' alignment (Vec<T, V>), as a View's data has it
  for (std::size_t e = 0; e < sizeof x / sizeof(T); ++e) x[e] = T(e % 7) + T(1);
  const impl::SumLoad<T> load{x};
  for (std::size_t i : {0, 1, 3})
    for (std::size_t end = i; end <= 64 + 2; ++end) {
      T want = T(0);
      for (std::size_t e = i * V; e < end * V; ++e) want += x[e];
      T got = T(5), scalar = T(5);  // both add to what acc holds
      impl::add_lanes<V>(load, i, end, got);
      impl::add_lanes_scalar<V>(load, i, end, scalar);
      EXPECT_EQ(got, T(5) + want) << "V=" << V << " [" << i << ", " << end << ")";
      EXPECT_EQ(scalar, T(5) + want) << "V=" << V << " [" << i << ", " << end << ")";
    }
}

TEST(ReduceIndex, BothHostLoopFormsSumTheirRange) {
  expect_lanes_sum_their_range<std::int32_t, 1>();
  expect_lanes_sum_their_range<std::int32_t, 4>();
  expect_lanes_sum_their_range<std::int64_t, 2>();
  expect_lanes_sum_their_range<float, 4>();
  expect_lanes_sum_their_range<double, 1>();
  expect_lanes_sum_their_range<double, 2>();
  expect_lanes_sum_their_range<double, 4>();
}

// The loop counts in 32 bits only where every index it forms fits: the vectors (n / V) plus
// its look-ahead of four grid strides (league x team).
TEST(ReduceIndex, NarrowOnlyWhereEveryIndexFits) {
  const std::size_t two32 = std::size_t(1) << 32;
  EXPECT_TRUE(impl::narrow_index(std::size_t(1) << 30, ReducePolicy{1024, 4, 264, 4}));
  EXPECT_TRUE(impl::narrow_index(std::size_t(1) << 30, ReducePolicy{1024, 4, 264, 1}));
  EXPECT_FALSE(impl::narrow_index(two32 * 4, ReducePolicy{1024, 4, 264, 4}));
  // the boundary: n / V + 4 x team x league == 2^32 is too many, one vector less fits
  const std::size_t ahead = 4 * std::size_t(256) * 1000;
  EXPECT_FALSE(impl::narrow_index((two32 - ahead) * 2, ReducePolicy{256, 2, 1000, 2}));
  EXPECT_TRUE(impl::narrow_index((two32 - ahead - 1) * 2, ReducePolicy{256, 2, 1000, 2}));
  // a league this large needs 64-bit indices for any n
  EXPECT_FALSE(impl::narrow_index(16, ReducePolicy{1024, 4, 1 << 20, 1}));
}

// A league of 2^31 - 1 teams is a valid policy: it runs (capped at impl::max_league_size teams,
// each thread looping) and returns the sum, on every backend (Kokkos 3.4's OpenMP team policy
// never returned from one).
TEST(ReduceApi, HugeLeaguesReturn) {
  for_each_exec([&](auto exec) {
    using Space = typename decltype(exec)::memory_space;
    const auto hx = random_values<int>(10007, 5);
    const auto x = to_device<int, Space>(hx);
    const ReducePolicy p{1, 8, std::numeric_limits<int>::max()};
    EXPECT_EQ(reduce_sum(exec, x, p), std::accumulate(hx.begin(), hx.end(), 0));
  });
}

TEST(ReduceApi, BadPoliciesThrow) {
  using Exec = ExecutionSpace;
  Kokkos::View<double*, DeviceType> x("x", 100), y("y", 101);
  EXPECT_THROW(reduce_sum(Exec(), x, ReducePolicy{0, 4, 1, 0}), std::invalid_argument);
  EXPECT_THROW(reduce_sum(Exec(), x, ReducePolicy{1, 0, 1, 0}), std::invalid_argument);
  EXPECT_THROW(reduce_sum(Exec(), x, ReducePolicy{1, 4, -1, 0}), std::invalid_argument);
  EXPECT_THROW(reduce_sum(Exec(), x, ReducePolicy{1, 4, 1, 3}), std::invalid_argument);
  EXPECT_THROW(reduce_sum(Exec(), x, ReducePolicy{1 << 20, 4, 1, 0}), std::invalid_argument);
  EXPECT_THROW(dot(Exec(), x, y), std::invalid_argument);
  Kokkos::View<double, DeviceType> unallocated;
  EXPECT_THROW(reduce_sum(Exec(), x, unallocated), std::invalid_argument);
  EXPECT_THROW(dot(Exec(), x, x, unallocated), std::invalid_argument);
  Kokkos::View<double, DeviceType> r("r");
  EXPECT_THROW(reduce_sum(Exec(), x, r, ReducePolicy{0, 4, 1, 0}), std::invalid_argument);
  EXPECT_THROW(dot(Exec(), x, y, r), std::invalid_argument);
}

// A value returned to the host comes through a pooled pinned View on device backends
// (kps/impl/host_result.hpp): each call gets its own value, calls back to back never read
// the previous call's, two borrowed Views are never the same, and host threads calling at
// once on their own instances each get their own sums.
TEST(ReduceApi, HostResultsAreEachCallsOwn) {
#if defined(KOKKOS_HAS_SHARED_HOST_PINNED_SPACE)
#if defined(KOKKOS_ENABLE_CUDA)
  static_assert(impl::uses_pinned_result_v<Kokkos::Cuda>, "CUDA writes a host result into pinned memory");
#endif
  {
    const impl::PinnedResult<double> a;
    const impl::PinnedResult<double> b;
    EXPECT_NE(a.view().data(), b.view().data());
  }
#endif
  for_each_exec([&](auto exec) {
    using Exec = decltype(exec);
    using Space = typename Exec::memory_space;
    std::vector<Kokkos::View<std::int64_t*, Space>> xs;
    std::vector<std::int64_t> want;
    for (int k = 0; k < 8; ++k) {
      auto h = random_values<std::int64_t>(100003 + 1000 * k, 40 + k);
      h[0] += std::int64_t(k) << 40;  // sums far apart: a value of another call cannot pass
      xs.push_back(to_device<std::int64_t, Space>(h));
      want.push_back(std::accumulate(h.begin(), h.end(), std::int64_t(0)));
    }
    for (int round = 0; round < 3; ++round)
      for (int k = 0; k < 8; ++k) EXPECT_EQ(reduce_sum(exec, xs[k]), want[k]) << "input " << k;
    // Host threads at once, each on an instance of its own (partition: Kokkos 4 and later gives
    // a device backend's instances their own streams and scratch).
    if constexpr (impl::uses_pinned_result_v<Exec>) {
      const auto instances = impl::partition(exec, 4);
      std::vector<std::string> errors(instances.size());
      std::vector<std::thread> threads;
      for (std::size_t t = 0; t < instances.size(); ++t)
        threads.emplace_back([&, t] {
          try {
            for (int i = 0; i < 50; ++i) {
              const std::size_t k = (t + i) % xs.size();
              const std::int64_t got = reduce_sum(instances[t], xs[k]);
              if (got != want[k] && errors[t].empty())
                errors[t] = "input " + std::to_string(k) + ": " + std::to_string(got) + " != " + std::to_string(want[k]);
            }
          } catch (const std::exception& e) {
            errors[t] = e.what();
          }
        });
      for (auto& th : threads) th.join();
      for (const auto& e : errors) EXPECT_EQ(e, "");
    }
  });
}

// The fallback rule as documented (kps::fallback_reduce_policy), on every execution space.
TEST(ReduceApi, FallbackRule) {
  for_each_exec([&](auto exec) {
    using Exec = decltype(exec);
    const bool host = impl::is_host_space_v<Exec>;
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(4096), std::size_t(1) << 30}) {
      const ReducePolicy p = fallback_reduce_policy(exec, n);
      EXPECT_EQ(p.team_size, host ? 1 : 256);
      EXPECT_EQ(p.items_per_thread, host ? 8 : 16);
      const std::size_t tile = std::size_t(p.team_size) * p.items_per_thread;
      const std::size_t needed = std::max<std::size_t>(1, (n + tile - 1) / tile);  // no idle teams
      const std::size_t wave = std::max<std::size_t>(1, exec.concurrency() / p.team_size);
      EXPECT_EQ(std::size_t(p.league_size), std::min(needed, wave)) << "n=" << n;
    }
  });
}

// A table row the backend rejects (team size past its limit) is an error naming the row.
TEST(ReduceApi, InvalidTableRowNamesItsLine) {
  using Exec = ExecutionSpace;
  Kokkos::View<double*, DeviceType> x("x", 100);
  TuningTable t;
  t.source = "bad.table";
  ReduceRow row;
  row.type = "double";
  row.team_size = 1 << 20;
  row.items_per_thread = 4;
  row.line = 7;
  t.reduce_rows.push_back(row);
  const impl::TunedPolicy tuned{impl::policy_from_row(row, 100), &t.reduce_rows[0], &t};
  try {
    impl::with_tuned(tuned, [&](const ReducePolicy& p) { return reduce_sum(Exec(), x, p); });
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.table:7:"), std::string::npos) << e.what();
  }
}

}  // namespace reduce_tests
}  // namespace kps::test
