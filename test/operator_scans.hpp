// test/operator_scans.hpp — what the operator scan tests share (test_operators.cpp: the named
// types and built-in operators; test_operator_types.cpp: user types, strided Views, transforms,
// the largest sizes): every configuration of every algorithm on every execution space, and the
// check of one problem's scans against a host fold in order.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kps/reduce.hpp"
#include "kps/scan.hpp"
#include "operator_support.hpp"

namespace kps::test {
// Named (not anonymous): nvcc cannot launch kernels on lambdas of anonymous namespaces.
namespace operator_tests {

/// Sizes around tiles and warps, primes, and several tiles of every default policy.
inline const std::vector<std::size_t> sizes{0, 1, 2, 31, 32, 33, 1000, 1023, 1024, 1025, 65537, 300007};
/// For the many explicit policies: without the largest.
inline const std::vector<std::size_t> policy_sizes{1, 2, 33, 1023, 1025, 4099, 65537};

/// The policies every problem's single pass runs besides its default: direct and staged tiles at
/// each items count the problem compiles, of one and two Kokkos threads; cached tiles of 64 and of
/// 100 items (a thread's run off a line), of one and two threads, ordinary and streaming stores;
/// tiles of 4 and 32 lanes (the GPU's look-back windows, run lane by lane on a host).
template <class P>
std::vector<ScanOptions> single_pass_policies() {
  std::vector<ScanOptions> all;
  for (int items : {8, 16, 24, 32, 48, 64, 128, 256}) {
    if (!impl::single_pass_items<P>(items)) continue;
    for (TileLoad load : {TileLoad::direct, TileLoad::staged})
      for (int warps : {1, 2}) {
        ScanOptions o;
        o.single_pass = {warps, items, load};
        all.push_back(o);
      }
  }
  for (int items : {64, 100})
    for (int team : {1, 2})
      for (TileStore store : {TileStore::cached, TileStore::streaming}) {
        ScanOptions o;
        o.single_pass = {team, items, TileLoad::cached};
        o.single_pass.store = store;
        all.push_back(o);
      }
  for (int lanes : {4, 32})
    for (TileLoad load : {TileLoad::direct, TileLoad::cached}) {
      ScanOptions o;
      o.single_pass = {lanes, load == TileLoad::cached ? 64 : impl::nearest_single_pass_items<P>(8), load};
      o.single_pass.lanes = lanes;
      all.push_back(o);
    }
  return all;
}

inline std::string describe(const ScanOptions& o) {
  const SinglePassPolicy& p = o.single_pass;
  return "team=" + std::to_string(p.team_size) + " items=" + std::to_string(p.items_per_thread) + " load=" +
         to_string(p.load) + " store=" + to_string(p.store) + " lanes=" + std::to_string(p.lanes);
}

/// Runs f(exec, alg, options, sizes) for every algorithm (the default options) and every explicit
/// single-pass policy, on every execution space, with a trace of each.
template <class P, class F>
void for_each_configuration(F&& f) {
  for_each_exec([&](auto exec) {
    using Exec = decltype(exec);
    for (ScanAlgorithm alg : {ScanAlgorithm::automatic, ScanAlgorithm::kokkos, ScanAlgorithm::hillis_steele,
                              ScanAlgorithm::blelloch, ScanAlgorithm::single_pass}) {
      SCOPED_TRACE(to_string(alg));
      f(exec, alg, ScanOptions{}, sizes);
      if (::testing::Test::HasFatalFailure()) return;
    }
    {
      SCOPED_TRACE("blelloch and hillis_steele, tiles of 64");
      ScanOptions o;
      o.tile.tile = 64;
      f(exec, ScanAlgorithm::blelloch, o, policy_sizes);
      f(exec, ScanAlgorithm::hillis_steele, o, policy_sizes);
      if (::testing::Test::HasFatalFailure()) return;
    }
    for (ScanOptions o : single_pass_policies<P>()) {
      SCOPED_TRACE(describe(o));
      // Team sizes count Kokkos threads of the backend's lanes (a warp on a GPU).
      if (o.single_pass.lanes == 0) o.single_pass.team_size *= impl::default_lanes<Exec>();
      if (!impl::single_pass_launchable<Exec, typename P::value_type, typename P::op_type>(exec, o.single_pass)) {
        EXPECT_FALSE(impl::is_host_space_v<Exec> && o.single_pass.team_size <= 1)
            << "a one-thread policy host backends launch";
        continue;
      }
      f(exec, ScanAlgorithm::single_pass, o, policy_sizes);
      if (::testing::Test::HasFatalFailure()) return;
    }
  });
}

/// Checks the scans of T under op with the initial value `init` (exclusive and inclusive: one
/// problem) or without one (inclusive): out of place and in place, every configuration, poisoned
/// outputs, against fold_scan.
template <class T, class Op>
void check_scans(const Op& op, std::optional<T> init) {
  // The problem whose items counts the policies take (with an initial value or not, the same); an
  // operator without an identity scans flagged values (kps::impl::Maybe) through accessors.
  using P = std::conditional_t<operator_traits<Op, T>::has_identity, impl::ScanProblem<T, Op, const T*, T*, impl::InitValue<T>>,
                               impl::ScanProblem<impl::Maybe<T>, impl::MaybeOp<Op>, const T*, T*, impl::InitValue<impl::Maybe<T>>>>;
  for_each_configuration<P>([&](auto exec, ScanAlgorithm alg, const ScanOptions& options,
                                const std::vector<std::size_t>& ns) {
    using Exec = decltype(exec);
    using Space = typename Exec::memory_space;
    for (std::size_t n : ns) {
      const std::vector<T> x = values_of<T>(n, 17 + static_cast<std::uint32_t>(n));
      for (bool exclusive : {true, false}) {
        if (exclusive && !init) continue;  // an exclusive scan of a general operator starts from init
        for (bool in_place : {false, true}) {
          SCOPED_TRACE("n=" + std::to_string(n) + (exclusive ? " exclusive" : " inclusive") +
                       (in_place ? " in place" : ""));
          auto in = to_device<T, Space>(x);
          Kokkos::View<T*, Space> out("kps::test::out", n);
          Kokkos::deep_copy(out, values_of<T>(1, 3)[0]);  // poison: every element must be written
          auto& dst = in_place ? in : out;
          if (exclusive)
            exclusive_scan(exec, in, dst, *init, op, alg, options);
          else if (init)
            inclusive_scan(exec, in, dst, op, *init, alg, options);
          else
            inclusive_scan(exec, in, dst, op, alg, options);
          exec.fence();
          expect_same<T, Op>(to_host(dst), fold_scan(x, exclusive, op, init));
          if (::testing::Test::HasFatalFailure()) return;
        }
      }
    }
  });
}

}  // namespace operator_tests
}  // namespace kps::test
