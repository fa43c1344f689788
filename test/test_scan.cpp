// test/test_scan.cpp — every scan algorithm, inclusive and exclusive, in place and out of
// place, every element type, on sizes around tile and warp boundaries, against a host
// reference (exact for integers, relative tolerance for floating point); plus the analytic
// active-warp counts of the seed and the API's errors.
#include <cmath>
#include <numeric>
#include <thread>
#include <set>
#include <string>
#include <vector>

#include "kps/reduce.hpp"
#include "kps/scan.hpp"
#include "test_support.hpp"

namespace kps::test {
// Named (not anonymous): nvcc cannot launch kernels on lambdas of anonymous namespaces.
namespace scan_tests {

/// Sizes around tile and warp boundaries, primes, and one large enough for many tiles of every
/// default policy (1000003).
const std::vector<std::size_t> sizes{0, 1, 2, 31, 32, 33, 1000, 1023, 1024, 1025, 65537, 1000003};
/// The same without the large one, for the checks of many explicit policies: 65537 elements are
/// already thousands of their tiles (and five levels of the tile scans' recursion at 4-element
/// tiles), the large size only multiplies their time.
const std::vector<std::size_t> policy_sizes(sizes.begin(), sizes.end() - 1);

template <class T>
void expect_matches(const std::vector<T>& got, const std::vector<T>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_TRUE(scan_element_matches(got[i], want[i], i)) << "at index " << i << ": got " << got[i] << ", expected " << want[i];
}

/// Checks `alg` on every execution space. `team_in_warps`: the single-pass team size counts
/// Kokkos threads, each of the backend's vector lanes (32 on CUDA, 1 on host backends), so one
/// policy means the same teams on every backend.
template <class T>
void check_algorithm(ScanAlgorithm alg, const ScanOptions& given = {}, bool team_in_warps = false,
                     const std::vector<std::size_t>& ns = sizes) {
  for_each_exec([&](auto exec) {
    using Exec = decltype(exec);
    using Space = typename Exec::memory_space;
    ScanOptions options = given;
    if (team_in_warps) options.single_pass.team_size *= impl::default_lanes<Exec>();
    if (options.single_pass.team_size > impl::team_size_limit(exec)) {
      Kokkos::View<T*, Space> a("a", 100);
      EXPECT_THROW(exclusive_scan(exec, a, a, alg, options), std::invalid_argument);
      return;
    }
    for (std::size_t n : ns) {
      const auto x = random_values<T>(n, 42 + static_cast<std::uint32_t>(n));
      for (bool exclusive : {true, false})
        for (bool in_place : {false, true}) {
          SCOPED_TRACE("n=" + std::to_string(n) + (exclusive ? " exclusive" : " inclusive") +
                       (in_place ? " in place" : " out of place"));
          auto in = to_device<T, Space>(x);
          Kokkos::View<T*, Space> out("kps::test::out", n);
          Kokkos::deep_copy(out, T(-3));  // poison: every element must be written
          auto& dst = in_place ? in : out;
          if (exclusive)
            exclusive_scan(exec, in, dst, alg, options);
          else
            inclusive_scan(exec, in, dst, alg, options);
          exec.fence();
          expect_matches(to_host(dst), reference_scan(x, exclusive));
          if (::testing::Test::HasFatalFailure()) return;
        }
      // Repeated calls on one instance reuse the workspace (epochs must tell calls apart); once
      // per algorithm, with its default sizes.
      if (&ns != &sizes) continue;
      auto in = to_device<T, Space>(x);
      Kokkos::View<T*, Space> out("kps::test::out", n);
      for (int rep = 0; rep < 3; ++rep) exclusive_scan(exec, in, out, alg, options);
      exec.fence();
      expect_matches(to_host(out), reference_scan(x, true));
    }
  });
}

template <class T>
class Scan : public ::testing::Test {};
using Types = ::testing::Types<std::int32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(Scan, Types);

TYPED_TEST(Scan, Automatic) { check_algorithm<TypeParam>(ScanAlgorithm::automatic); }
TYPED_TEST(Scan, Kokkos) { check_algorithm<TypeParam>(ScanAlgorithm::kokkos); }
TYPED_TEST(Scan, HillisSteele) { check_algorithm<TypeParam>(ScanAlgorithm::hillis_steele); }
TYPED_TEST(Scan, Blelloch) { check_algorithm<TypeParam>(ScanAlgorithm::blelloch); }
TYPED_TEST(Scan, SinglePass) { check_algorithm<TypeParam>(ScanAlgorithm::single_pass); }

TYPED_TEST(Scan, SinglePassPolicies) {
  // Team sizes past a backend's limit must throw (checked inside check_algorithm).
  for (TileLoad load : {TileLoad::direct, TileLoad::staged})
    for (int items : {8, 16, 24, 32, 48, 64, 256})
      for (int team : {1, 2, 4}) {
        // Staged: 256 items are refused (checked in BadPoliciesThrow); one team size suffices
        // for the transposition (team 1 stages too), and for the item counts between the
        // powers of two, which keeps the test's time in bounds.
        if (load == TileLoad::staged && (items == 256 || team != 2)) continue;
        if ((items == 24 || items == 48 || items == 64) && team != 2) continue;
        SCOPED_TRACE("items=" + std::to_string(items) + " team=" + std::to_string(team) +
                     (load == TileLoad::staged ? " staged" : " direct"));
        ScanOptions o;
        o.single_pass = {team, items, load};
        check_algorithm<TypeParam>(ScanAlgorithm::single_pass, o, true, policy_sizes);
      }
  // Explicit look-back delays (slept on GPUs, no-ops on host backends) change no result.
  ScanOptions o;
  o.single_pass.look_back_delay_ns = 500;
  o.single_pass.poll_delay_ns = 100;
  check_algorithm<TypeParam>(ScanAlgorithm::single_pass, o, false, policy_sizes);
  // Nor does a prefetch of later tiles (a hint on GPUs, nothing on host backends).
  o.single_pass.prefetch_tiles = 3;
  check_algorithm<TypeParam>(ScanAlgorithm::single_pass, o, false, policy_sizes);
}

// The GPU's multi-lane single pass on every backend: a team of Kokkos threads of 4, 8 and 32
// vector lanes each, one or two threads (host backends run a thread's lanes one after another), the look-back
// reading windows of `lanes` predecessors and reducing them across lanes, staged and direct
// tiles, the explicit delays and prefetch. A bug in the look-back's window logic, the lane scans
// or the staged layout fails here on a CPU. Backends whose vector length is smaller skip the wider.
TYPED_TEST(Scan, SinglePassLanes) {
  for (int lanes : {4, 8, 32})
    for (TileLoad load : {TileLoad::direct, TileLoad::staged})
      for (int warps : {1, 2}) {
        SCOPED_TRACE("lanes=" + std::to_string(lanes) + " warps=" + std::to_string(warps) +
                     (load == TileLoad::staged ? " staged" : " direct"));
        ScanOptions o;
        o.single_pass = {warps * lanes, 8, load};
        o.single_pass.lanes = lanes;
        if (lanes == 8) {
          o.single_pass.look_back_delay_ns = 100;
          o.single_pass.poll_delay_ns = 50;
          o.single_pass.prefetch_tiles = 2;
        }
        for_each_exec([&](auto exec) {
          using Exec = decltype(exec);
          using Space = typename Exec::memory_space;
          if (!impl::single_pass_launchable<Exec, TypeParam>(exec, o.single_pass)) {
            // Only where the team is past the backend's threads (Serial has one Kokkos thread per
            // team) or its vector length below the lanes (a GPU narrower than 32).
            EXPECT_FALSE(impl::is_host_space_v<Exec> && warps == 1) << "host backends run every lane count up to 32";
            return;
          }
          for (std::size_t n : policy_sizes) {
            SCOPED_TRACE("n=" + std::to_string(n));
            const auto x = random_values<TypeParam>(n, 900 + static_cast<std::uint32_t>(n));
            auto in = to_device<TypeParam, Space>(x);
            Kokkos::View<TypeParam*, Space> out("kps::test::out", n);
            Kokkos::deep_copy(out, TypeParam(-3));
            exclusive_scan(exec, in, out, ScanAlgorithm::single_pass, o);
            exec.fence();
            expect_matches(to_host(out), reference_scan(x, true));
            // Every tile walks back to tile 0 through windows of aggregates (no inclusive prefix
            // but tile 0's): every window size, partial windows at tile 0, waits on stragglers.
            impl::Workspace<Exec> ws;
            Kokkos::deep_copy(out, TypeParam(-3));
            impl::single_pass_scan(exec, in.data(), out.data(), n, false, o.single_pass, ws, impl::AggregatesOnlyProbe{});
            exec.fence();
            expect_matches(to_host(out), reference_scan(x, false));
            if (::testing::Test::HasFatalFailure()) return;
          }
        });
      }
}

// One thread's scan of a cached range (impl::cached_scan, the second pass of a cached tile), on
// the host backend, where a vector form may run (kps/host/backend.hpp, BackendRangeScan: float on
// x86): lengths around its eight-element steps, outputs 0-3 elements off a 16-byte boundary (the
// streaming stores' aligned path and the one-element path), exclusive and inclusive, ordinary and
// streaming stores, in place and not, after an offset; the returned total too.
TYPED_TEST(Scan, CachedRange) {
  using T = TypeParam;
  using Exec = Kokkos::DefaultHostExecutionSpace;
  const T offset = T(5);
  for (std::size_t n : {0, 1, 3, 4, 7, 8, 9, 15, 16, 17, 100, 1000, 4099})
    for (std::size_t shift : {0, 1, 2, 3})
      for (bool exclusive : {true, false})
        for (bool streaming : {false, true})
          for (bool in_place : {false, true}) {
            SCOPED_TRACE("n=" + std::to_string(n) + " shift=" + std::to_string(shift) + " exclusive=" +
                         std::to_string(exclusive) + " streaming=" + std::to_string(streaming) +
                         " in_place=" + std::to_string(in_place));
            const auto x = random_values<T>(n, 700 + static_cast<std::uint32_t>(n + shift));
            const std::vector<T> inclusive = reference_scan(x, false);
            const T total = inclusive.empty() ? T(0) : inclusive.back();
            std::vector<T> want = exclusive ? reference_scan(x, true) : inclusive;
            for (auto& w : want) w = T(w + offset);
            // Around the range: values it must neither read nor write (an overrun changes the sums
            // or the guards).
            constexpr std::size_t cap = 4099 + 3 + 4;
            alignas(64) static T in_buf[cap], out_buf[cap];
            const auto noise = random_values<T>(cap, 9);
            std::copy(noise.begin(), noise.end(), in_buf);
            std::fill(out_buf, out_buf + cap, T(-7));
            std::copy(x.begin(), x.end(), in_buf + shift);
            T* const out = in_place ? in_buf + shift : out_buf + shift;
            T got_total{};
            const T* const in = in_buf + shift;
            if (exclusive && streaming) got_total = impl::cached_scan<Exec, true, true>(in, out, n, offset);
            if (exclusive && !streaming) got_total = impl::cached_scan<Exec, true, false>(in, out, n, offset);
            if (!exclusive && streaming) got_total = impl::cached_scan<Exec, false, true>(in, out, n, offset);
            if (!exclusive && !streaming) got_total = impl::cached_scan<Exec, false, false>(in, out, n, offset);
            expect_matches(std::vector<T>(out, out + n), want);
            if (::testing::Test::HasFatalFailure()) return;
            ASSERT_TRUE(scan_element_matches(got_total, T(total + offset), n)) << "total " << got_total;
            const T* const buf = in_place ? in_buf : out_buf;
            for (std::size_t j = 0; j < cap; ++j) {
              if (j >= shift && j < shift + n) continue;
              ASSERT_EQ(buf[j], in_place ? noise[j] : T(-7)) << "written outside the range at " << j;
            }
          }
}

// The single pass on cached tiles (TileLoad::cached): items per thread that are a multiple of a
// 64-byte line and that are not (each thread's run then starts mid-line: the streaming stores'
// unaligned head and tail), one and two Kokkos threads per team (GPUs: warps), ordinary and
// streaming stores, at sizes around one and two tiles and at the suite's sizes; then lanes > 1
// (the GPU's look-back windows, run lane by lane on a host) through the probe that makes every
// tile walk back to tile 0, and repeated calls (the tile claims are never reset: each call's ids
// count from the last's). Every thread count from 1 to 16 runs these in their own processes
// (test/CMakeLists.txt: kps.scan.cached_threads.*).
TYPED_TEST(Scan, CachedTiles) {
  using T = TypeParam;
  for (int items : {64, 100, 4096})
    for (int team : {1, 2})
      for (TileStore store : {TileStore::cached, TileStore::streaming}) {
        if (items == 100 && team == 2) continue;
        SCOPED_TRACE("items=" + std::to_string(items) + " team=" + std::to_string(team) + " store=" + to_string(store));
        ScanOptions o;
        o.single_pass = {team, items, TileLoad::cached};
        o.single_pass.store = store;
        // Around one tile and two of a one-thread team, and the suite's sizes.
        std::vector<std::size_t> ns = policy_sizes;
        for (std::size_t edge : {std::size_t(items) - 1, std::size_t(items), std::size_t(items) + 1, 2 * std::size_t(items) + 1})
          ns.push_back(edge);
        check_algorithm<T>(ScanAlgorithm::single_pass, o, true, ns);
      }
  for_each_exec([&](auto exec) {
    using Exec = decltype(exec);
    using Space = typename Exec::memory_space;
    for (int lanes : {1, 4, 32}) {
      SinglePassPolicy p{lanes, 64, TileLoad::cached};
      p.lanes = lanes;
      p.store = TileStore::streaming;
      if (!impl::single_pass_launchable<Exec, T>(exec, p)) {
        EXPECT_FALSE(impl::is_host_space_v<Exec>) << "host backends run every lane count up to 32";
        continue;
      }
      for (std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t(65537)}) {
        SCOPED_TRACE("lanes=" + std::to_string(lanes) + " n=" + std::to_string(n));
        const auto x = random_values<T>(n, 300 + static_cast<std::uint32_t>(n));
        auto in = to_device<T, Space>(x);
        Kokkos::View<T*, Space> out("kps::test::out", n);
        impl::Workspace<Exec> ws;
        for (int rep = 0; rep < 3; ++rep) {
          Kokkos::deep_copy(out, T(-3));
          impl::single_pass_scan(exec, in.data(), out.data(), n, rep != 1, p, ws, impl::AggregatesOnlyProbe{});
          exec.fence();
          expect_matches(to_host(out), reference_scan(x, rep != 1));
          if (::testing::Test::HasFatalFailure()) return;
        }
        // A tile claim per tile and one per team for each call, never reset.
        const std::size_t tile = impl::single_pass_tile_elements<Exec, T>(exec, p, n);
        EXPECT_EQ(tile, std::size_t(lanes) * 64);
        EXPECT_GT(ws.claims, 0u);
      }
    }
  });
}

/// The staged tile's layout puts every vector of the tile in its own slot inside the tile's
/// scratch, and, where a thread's run is a power of two vectors, a thread's run (blocked) and
/// eight consecutive threads' vectors (coalesced) in eight different bank groups of 16 bytes.
template <class T, int Items>
void check_staged_layout() {
  using Tile = impl::StagedTile<T, Items>;
  constexpr int run = Tile::vectors_per_thread;
  for (int ts : {1, 2, 3, 8, 128, 256}) {
    SCOPED_TRACE("items=" + std::to_string(Items) + " team=" + std::to_string(ts));
    const std::size_t vectors = std::size_t(ts) * run;
    std::set<std::size_t> slots;
    for (std::size_t v = 0; v < vectors; ++v) {
      const std::size_t s = Tile::slot(v);
      EXPECT_LT(s, Tile::bytes(ts) / 16);
      slots.insert(s);
    }
    EXPECT_EQ(slots.size(), vectors);
    if (ts % 8 != 0 || (run & (run - 1)) != 0) continue;
    for (int j = 0; j < run; ++j)
      for (int t0 = 0; t0 < ts; t0 += 8) {
        std::set<std::size_t> blocked, coalesced;
        for (int t = t0; t < t0 + 8; ++t) {
          blocked.insert(Tile::slot(std::size_t(t) * run + j) % 8);
          coalesced.insert(Tile::slot(std::size_t(j) * ts + t) % 8);
        }
        EXPECT_EQ(blocked.size(), 8u);
        EXPECT_EQ(coalesced.size(), 8u);
      }
  }
}

TYPED_TEST(Scan, StagedLayout) {
  check_staged_layout<TypeParam, 8>();
  check_staged_layout<TypeParam, 16>();
  check_staged_layout<TypeParam, 24>();
  check_staged_layout<TypeParam, 32>();
  check_staged_layout<TypeParam, 64>();
  // Without padding where a thread's run is a multiple of eight vectors.
  EXPECT_EQ((impl::StagedTile<TypeParam, 64>::bytes(128)), 128u * 64 * sizeof(TypeParam));
}

// Tiles far below the default: 4 elements (up to 1025 elements: six levels of the recursion of
// tile totals; a team per 4 elements costs a host backend minutes at 65537) and 64.
TYPED_TEST(Scan, SmallTiles) {
  const std::vector<std::size_t> up_to_1025(policy_sizes.begin(), policy_sizes.end() - 1);
  for (int tile : {4, 64}) {
    ScanOptions o;
    o.tile.tile = tile;
    check_algorithm<TypeParam>(ScanAlgorithm::blelloch, o, false, tile == 4 ? up_to_1025 : policy_sizes);
    check_algorithm<TypeParam>(ScanAlgorithm::hillis_steele, o, false, tile == 4 ? up_to_1025 : policy_sizes);
  }
}

// Many scans dispatched at once on the instances of kps::impl::partition (a stream each on a
// GPU with Kokkos 4, copies of the instance on the host), each with its own input and output,
// checked once all are fenced: the instances' workspaces keep concurrent scans apart.
TYPED_TEST(Scan, ConcurrentInstances) {
  using T = TypeParam;
  constexpr int streams = 4, scans = 12;
  for_each_exec([&](auto exec) {
    using Exec = decltype(exec);
    using Space = typename Exec::memory_space;
    const std::vector<Exec> instances = impl::partition(exec, streams);
    ASSERT_EQ(instances.size(), std::size_t(streams));
#if KOKKOS_VERSION >= 40000
    if constexpr (!impl::is_host_space_v<Exec>) {
      std::set<std::uint64_t> keys;
      for (const Exec& e : instances) keys.insert(impl::instance_key(e));
      EXPECT_EQ(keys.size(), instances.size()) << "partitioned instances would share a workspace";
    }
#endif
    for (ScanAlgorithm alg : {ScanAlgorithm::automatic, ScanAlgorithm::kokkos, ScanAlgorithm::hillis_steele,
                              ScanAlgorithm::blelloch, ScanAlgorithm::single_pass}) {
      SCOPED_TRACE(to_string(alg));
      std::vector<std::vector<T>> x;
      std::vector<Kokkos::View<T*, Space>> out;
      std::vector<Kokkos::View<T*, Space>> in;
      for (int k = 0; k < scans; ++k) {
        const std::size_t n = k == 0 ? 1000003 : 1000 + 4099 * std::size_t(k);  // several tiles each
        x.push_back(random_values<T>(n, 7 + static_cast<std::uint32_t>(k)));
        in.push_back(to_device<T, Space>(x.back()));
        out.push_back(Kokkos::View<T*, Space>("kps::test::out", n));
        Kokkos::deep_copy(out.back(), T(-3));
      }
      for (int k = 0; k < scans; ++k) exclusive_scan(instances[k % streams], in[k], out[k], alg);
      for (const Exec& e : instances) e.fence();
      for (int k = 0; k < scans; ++k) {
        SCOPED_TRACE("scan " + std::to_string(k) + " on instance " + std::to_string(k % streams));
        expect_matches(to_host(out[k]), reference_scan(x[k], true));
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  });
}

TEST(ScanApi, PartitionNeedsAnInstance) {
  EXPECT_THROW(impl::partition(ExecutionSpace(), 0), std::invalid_argument);
  EXPECT_EQ(impl::partition(ExecutionSpace(), 3).size(), 3u);
}

TEST(ScanApi, MismatchedLengthsThrow) {
  Kokkos::View<int*, DeviceType> a("a", 10), b("b", 11);
  EXPECT_THROW(exclusive_scan(ExecutionSpace(), a, b), std::invalid_argument);
  EXPECT_THROW(inclusive_scan(ExecutionSpace(), a, b, ScanAlgorithm::blelloch), std::invalid_argument);
}

TEST(ScanApi, BadPoliciesThrow) {
  Kokkos::View<int*, DeviceType> a("a", 100);
  ScanOptions o;
  o.single_pass = {64, 7};
  EXPECT_THROW(exclusive_scan(ExecutionSpace(), a, a, ScanAlgorithm::single_pass, o),
               std::invalid_argument);
  o.single_pass = {1, 256, TileLoad::staged};
  EXPECT_THROW(exclusive_scan(ExecutionSpace(), a, a, ScanAlgorithm::single_pass, o),
               std::invalid_argument);
  // Cached tiles take 64 to 2^24 items per thread.
  for (int items : {32, (1 << 24) + 1}) {
    o.single_pass = {1, items, TileLoad::cached};
    EXPECT_THROW(exclusive_scan(ExecutionSpace(), a, a, ScanAlgorithm::single_pass, o), std::invalid_argument);
  }
  // One knob out of range, the others at their defaults.
  auto refused = [&](int SinglePassPolicy::*knob, int value) {
    o.single_pass = {};
    o.single_pass.*knob = value;
    EXPECT_THROW(exclusive_scan(ExecutionSpace(), a, a, ScanAlgorithm::single_pass, o),
                 std::invalid_argument);
  };
  for (int delay : {-2, 1000001}) {
    refused(&SinglePassPolicy::look_back_delay_ns, delay);
    EXPECT_FALSE((impl::single_pass_launchable<ExecutionSpace, int>(ExecutionSpace(), o.single_pass)));
    refused(&SinglePassPolicy::poll_delay_ns, delay);
  }
  for (int ahead : {-2, 65537}) refused(&SinglePassPolicy::prefetch_tiles, ahead);
  o = {};
  for (int tile : {1000, 1, -4}) {
    o.tile.tile = tile;
    EXPECT_THROW(exclusive_scan(ExecutionSpace(), a, a, ScanAlgorithm::blelloch, o),
                 std::invalid_argument);
  }
}

TEST(ScanApi, LaunchablePolicies) {
  // What the sweep registers: launchable policies run, the others are refused by the scan.
  const ExecutionSpace exec;
  const int max = impl::team_size_limit(exec);
  const int lanes = impl::default_lanes<ExecutionSpace>();  // a team is whole Kokkos threads of `lanes`
  EXPECT_TRUE((impl::single_pass_launchable<ExecutionSpace, int>(exec, {lanes, 16, TileLoad::direct})));
  EXPECT_TRUE((impl::single_pass_launchable<ExecutionSpace, double>(exec, {0, 0, TileLoad::automatic})));
  EXPECT_FALSE((impl::single_pass_launchable<ExecutionSpace, int>(exec, {lanes, 7, TileLoad::direct})));
  EXPECT_FALSE((impl::single_pass_launchable<ExecutionSpace, int>(exec, {lanes, 256, TileLoad::staged})));
  EXPECT_FALSE((impl::single_pass_launchable<ExecutionSpace, int>(exec, {lanes * (max + 1), 16, TileLoad::direct})));
  if (lanes > 1) {  // part of a Kokkos thread's lanes
    EXPECT_FALSE((impl::single_pass_launchable<ExecutionSpace, int>(exec, {lanes + 1, 16, TileLoad::direct})));
  }
}

TEST(ScanApi, NamesRoundTrip) {
  for (auto a : {ScanAlgorithm::automatic, ScanAlgorithm::kokkos, ScanAlgorithm::hillis_steele,
                 ScanAlgorithm::blelloch, ScanAlgorithm::single_pass})
    EXPECT_EQ(scan_algorithm_from_string(to_string(a)), a);
  EXPECT_FALSE(scan_algorithm_from_string("fastest").has_value());
}

// The seed's figures: n = 1024, warps of 32.
TEST(ActiveWarps, SeedCounts) {
  EXPECT_EQ(team_scan_active_warp_iterations(TeamScanAlgorithm::hillis_steele, 1024, 32), 289);
  EXPECT_EQ(team_scan_active_warp_iterations(TeamScanAlgorithm::blelloch, 1024, 32), 71);
  const long hs[] = {32, 32, 32, 32, 32, 31, 30, 28, 24, 16};
  for (int k = 0; k < 10; ++k) EXPECT_EQ(team_scan_active_warps(TeamScanAlgorithm::hillis_steele, 1024, 32, k), hs[k]);
  const long bl[] = {16, 8, 4, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 4, 8, 16};
  ASSERT_EQ(team_scan_steps(TeamScanAlgorithm::blelloch, 1024), 19);
  for (int k = 0; k < 19; ++k) EXPECT_EQ(team_scan_active_warps(TeamScanAlgorithm::blelloch, 1024, 32, k), bl[k]);
}

TEST(ActiveWarps, OtherWidthsAndSizes) {
  // One lane per warp: active warp-iterations are the active lanes, i.e. the work.
  // Hillis-Steele: sum over k of (n - 2^k); Blelloch: (n - 1) + (n - 1 - log2 n).
  EXPECT_EQ(team_scan_active_warp_iterations(TeamScanAlgorithm::hillis_steele, 256, 1), 8 * 256 - 255);
  EXPECT_EQ(team_scan_active_warp_iterations(TeamScanAlgorithm::blelloch, 256, 1), 255 + 255 - 8);
  // Warps of 64 lanes (e.g. AMD wavefronts) and n = 2048.
  EXPECT_EQ(team_scan_active_warp_iterations(TeamScanAlgorithm::blelloch, 2048, 64), 16 + 8 + 4 + 2 + 1 * 7 + 1 * 6 + 2 + 4 + 8 + 16);
}

TEST(ActiveWarps, DeviceCountMatchesAnalytic) {
  // Counted while scanning, by the first active lane of each warp (one lane per thread).
  using Exec = Kokkos::DefaultHostExecutionSpace;
  for (auto alg : {TeamScanAlgorithm::hillis_steele, TeamScanAlgorithm::blelloch})
    for (int n : {64, 1024}) {
      const int steps = team_scan_steps(alg, n);
      Kokkos::View<int*, Exec::memory_space> counts("counts", steps);
      Kokkos::View<int*, Exec::memory_space> data("data", n);
      Kokkos::deep_copy(data, 1);
      impl::TileScanKernel<Exec, int, WarpCount> k{data.data(), data.data(), nullptr, std::size_t(n), n, alg, false,
                                                   WarpCount{counts.data(), 32}};
      Kokkos::TeamPolicy<Exec> policy(Exec(), 1, 1);
      policy.set_scratch_size(0, Kokkos::PerTeam(sizeof(int) * team_scan_scratch_elements(alg, n)));
      Kokkos::parallel_for(policy, k);
      Exec().fence();
      long total = 0;
      for (int s = 0; s < steps; ++s) {
        EXPECT_EQ(counts(s), team_scan_active_warps(alg, n, 32, s)) << to_string(alg) << " step " << s;
        total += counts(s);
      }
      EXPECT_EQ(total, team_scan_active_warp_iterations(alg, n, 32));
      for (int i = 0; i < n; ++i) ASSERT_EQ(data(i), i + 1);
    }
}

// The look-back probe (the scan study's instrument): every tile records how far back its
// walk went (0 for tile 0, else between 1 and its own index) and non-negative durations, and
// the probed scan is still right.
TEST(ScanApi, LookBackProbe) {
  const ExecutionSpace exec;
  constexpr std::size_t n = 100003;
  std::vector<int> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = int(i % 7) - 3;
  auto in = to_device<int, ExecutionSpace::memory_space>(x);
  Kokkos::View<int*, ExecutionSpace::memory_space> out("out", n);
  const int lanes = impl::default_lanes<ExecutionSpace>();
  const SinglePassPolicy policy{lanes, 8, TileLoad::direct};  // one Kokkos thread of `lanes`
  const std::size_t tile = impl::single_pass_tile_elements<ExecutionSpace, int>(exec, policy, n);
  ASSERT_EQ(tile, 8u * lanes);
  const std::size_t tiles = (n + tile - 1) / tile;
  constexpr int w = impl::single_pass_probe_words;
  Kokkos::View<std::uint64_t*, ExecutionSpace::memory_space> probe("probe", w * tiles);
  Kokkos::deep_copy(probe, ~std::uint64_t(0));
  impl::Workspace<ExecutionSpace> ws;
  impl::single_pass_scan(exec, in.data(), out.data(), n, true, policy, ws,
                         impl::LookBackProbe<ExecutionSpace>{probe.data()});
  exec.fence();
  expect_matches(to_host(out), reference_scan(x, true));
  auto words = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), probe);
  EXPECT_EQ(words(0), 0u);
  for (std::size_t t = 1; t < tiles; ++t) {
    ASSERT_GE(words(w * t), 1u) << "tile " << t;
    ASSERT_LE(words(w * t), t) << "tile " << t;
    for (int k : {2, 3, 4, 5, 6}) ASSERT_LT(words(w * t + k), std::uint64_t(1) << 62) << "tile " << t << " word " << k;  // durations >= 0
    // A window is one predecessor per lane: one window read per `lanes` predecessors walked.
    const std::uint64_t e = std::uint64_t(lanes);
    ASSERT_EQ(words(w * t + 7), (words(w * t) + e - 1) / e) << "tile " << t;
  }
}


/// What a reader of the tile status sees (kps/scan/tile_status.hpp), run as one device thread:
/// results[0..5] are the kinds read and values[...] the values, in the order of the checks below.
template <class Exec, class T>
struct TileStatusSteps {
  Kokkos::View<std::uint64_t*, typename Exec::memory_space> status, words;
  Kokkos::View<std::uint32_t*, typename Exec::memory_space> kinds;
  Kokkos::View<T*, typename Exec::memory_space> values;
  T aggregate, inclusive;
  KOKKOS_INLINE_FUNCTION void operator()(int) const {
    const impl::TileStatus<Exec, T> call{status.data(), words.data(), 5}, next{status.data(), words.data(), 6};
    T v = T(0);
    kinds(0) = call.read(1, v);  // not written yet
    call.publish(1, impl::tile_aggregate, aggregate);
    kinds(1) = call.read(1, v);
    values(1) = v;
    call.publish(1, impl::tile_inclusive, inclusive);
    kinds(2) = call.read(1, v);
    values(2) = v;
    kinds(3) = next.read(1, v);  // the next call does not take the last call's word
    next.publish(2, impl::tile_aggregate, aggregate);
    kinds(4) = next.read(2, v);
    values(4) = v;
    kinds(5) = 0;
    if constexpr (sizeof(T) == 8) {
      // A read torn between the two publications: the inclusive prefix's high half beside the
      // aggregate's low half reads as not published.
      const std::uint64_t low = words(2 * 2 + 1);
      next.publish(2, impl::tile_inclusive, inclusive);
      words(2 * 2 + 1) = low;
      kinds(5) = next.read(2, v);
    }
  }
};

template <class T>
void check_tile_status(T aggregate, T inclusive) {
  for_each_exec([&](auto exec) {
    using Exec = decltype(exec);
    using Space = typename Exec::memory_space;
    TileStatusSteps<Exec, T> steps{Kokkos::View<std::uint64_t*, Space>("status", 4),
                                   Kokkos::View<std::uint64_t*, Space>("words", 8),
                                   Kokkos::View<std::uint32_t*, Space>("kinds", 6),
                                   Kokkos::View<T*, Space>("values", 6), aggregate, inclusive};
    Kokkos::parallel_for("kps::test::tile_status", Kokkos::RangePolicy<Exec>(exec, 0, 1), steps);
    exec.fence();
    const auto kinds = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), steps.kinds);
    const auto values = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), steps.values);
    EXPECT_EQ(kinds(0), 0u);
    EXPECT_EQ(kinds(1), std::uint32_t(impl::tile_aggregate));
    EXPECT_EQ(values(1), aggregate);
    EXPECT_EQ(kinds(2), std::uint32_t(impl::tile_inclusive));
    EXPECT_EQ(values(2), inclusive);
    EXPECT_EQ(kinds(3), 0u);
    EXPECT_EQ(kinds(4), std::uint32_t(impl::tile_aggregate));
    EXPECT_EQ(values(4), aggregate);
    EXPECT_EQ(kinds(5), 0u);
  });
}

// The tile status protocol on every execution space (on CUDA, the 16-byte accesses of
// BackendPair): each kind with its exact value, nothing from an earlier call, and no value
// from a pair torn between the aggregate and the inclusive prefix.
TEST(ScanApi, TileStatusProtocol) {
  check_tile_status<double>(-0x1.23456789abcdep+700, 0x1.fedcba9876543p-300);
  check_tile_status<std::int64_t>(-0x123456789abcdefLL, 0x7edcba9876543210LL);
  check_tile_status<float>(-1.5e30f, 3.25e-20f);
  check_tile_status<int>(-2000000000, 2000000001);
}

// The workspace of an instance keeps that instance alive, so that no later instance can take
// its id (CUDA derives ids from addresses) while scans on it may be in flight.
TEST(ScanApi, WorkspaceKeepsItsInstance) {
  const ExecutionSpace exec;
  Kokkos::View<int*, ExecutionSpace::memory_space> a("a", 1000);
  exclusive_scan(exec, a, a, ScanAlgorithm::single_pass);
  exec.fence();
  auto& ws = impl::workspace(exec);
  ASSERT_TRUE(ws.owner.has_value());
  EXPECT_EQ(impl::instance_key(*ws.owner), impl::instance_key(exec));
}

// An output that overlaps the input without being the same View (in place) would be read after
// it is written: refused, for every algorithm; the same View stays allowed.
TEST(ScanApi, PartlyOverlappingOutputIsRefused) {
  Kokkos::View<int*, DeviceType> buffer("buffer", 1001);
  const auto in = Kokkos::subview(buffer, std::make_pair(0, 1000));
  const auto ahead = Kokkos::subview(buffer, std::make_pair(1, 1001));
  const auto behind_in = Kokkos::subview(buffer, std::make_pair(1, 1001));
  const auto behind = Kokkos::subview(buffer, std::make_pair(0, 1000));
  for (ScanAlgorithm alg : {ScanAlgorithm::automatic, ScanAlgorithm::kokkos, ScanAlgorithm::hillis_steele,
                            ScanAlgorithm::blelloch, ScanAlgorithm::single_pass}) {
    SCOPED_TRACE(to_string(alg));
    EXPECT_THROW(exclusive_scan(ExecutionSpace(), in, ahead, alg), std::invalid_argument);
    EXPECT_THROW(inclusive_scan(ExecutionSpace(), behind_in, behind, alg), std::invalid_argument);
    EXPECT_NO_THROW(exclusive_scan(ExecutionSpace(), in, in, alg));
  }
  try {
    exclusive_scan(ExecutionSpace(), in, ahead);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("overlaps"), std::string::npos) << e.what();
  }
}

// The workspace's Views are made on the caller's instance: a scan from a second host thread on
// Kokkos::Serial (whose instances are per thread in Kokkos 4 and later) works.
TEST(ScanApi, ScanFromAnotherHostThread) {
#if defined(KOKKOS_ENABLE_SERIAL)
  std::string error;
  std::vector<int> got;
  std::thread worker([&] {
    try {
      const Kokkos::Serial serial;
      Kokkos::View<int*, Kokkos::HostSpace> v(Kokkos::view_alloc(serial, std::string("v")), 5000);
      for (int i = 0; i < 5000; ++i) v(i) = i % 3;
      exclusive_scan(serial, v, v, ScanAlgorithm::single_pass);
      serial.fence();
      got.assign(v.data(), v.data() + 5000);
    } catch (const std::exception& e) {
      error = e.what();
    }
  });
  worker.join();
  ASSERT_EQ(error, "");
  std::vector<int> x(5000);
  for (int i = 0; i < 5000; ++i) x[i] = i % 3;
  expect_matches(got, reference_scan(x, true));
#else
  GTEST_SKIP() << "this Kokkos has no Serial backend";
#endif
}

// Every signed 64-bit integer type is an int64 (std::int64_t is long here, long long too).
TEST(ScanApi, EverySigned64BitIntegerType) {
  static_assert(is_element_type_v<long long> && is_element_type_v<long>);
  EXPECT_STREQ(type_name<long long>(), "int64");
  EXPECT_STREQ(type_name<long>(), "int64");
  std::vector<long long> x(3000);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = (long long)(i % 11) * 1000000000LL;
  auto in = to_device<long long, ExecutionSpace::memory_space>(x);
  Kokkos::View<long long*, ExecutionSpace::memory_space> out("out", x.size());
  exclusive_scan(ExecutionSpace(), in, out);
  expect_matches(to_host(out), reference_scan(x, true));
  EXPECT_EQ(reduce_sum(ExecutionSpace(), in), std::accumulate(x.begin(), x.end(), 0LL));
}

}  // namespace scan_tests
}  // namespace kps::test
