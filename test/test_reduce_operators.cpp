// test/test_reduce_operators.cpp — the reductions of every operator: kps::reduce with an initial
// value under the built-in operators and a user's (a commutative 16-byte count-and-sum; an
// operator without an identity), reduce_min and reduce_max, minmax, argmin and argmax (ties: the
// lowest index), transform_reduce of one View and of two, LayoutStride Views, on every execution
// space with the tuned policy and families of explicit ones (the seed's league, a capped one,
// dynamic teams, a league of one team), returned and into rank-0 Views, against host references
// (exact where the operator's result does not depend on the association).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kps/reduce.hpp"
#include "operator_support.hpp"

namespace kps::test {
// Named (not anonymous): nvcc cannot launch kernels on lambdas of anonymous namespaces.
namespace reduce_operator_tests {

const std::vector<std::size_t> sizes{0, 1, 2, 3, 31, 255, 256, 257, 7919, 104729, 1000003};

/// The policies every reduction runs besides the tuned one (team sizes past a backend's limit are
/// lowered to it).
std::vector<ReducePolicy> policies() {
  return {{1, 2, 0, 0},  {2, 3, 5, 1}, {1, 4, 1, 0},       {64, 16, 0, 0},
          {1, 64, 0, 0, true}, {2, 8, 3, 0, true}, {256, 8, 1, 0}};
}

template <class F>
void for_each_policy(F&& f) {
  for_each_exec([&](auto exec) {
    using Exec = decltype(exec);
    f(exec, static_cast<const ReducePolicy*>(nullptr));
    for (ReducePolicy p : policies()) {
      p.team_size = std::min(p.team_size, impl::team_size_limit(exec));
      SCOPED_TRACE(to_string(p));
      f(exec, &p);
      if (::testing::Test::HasFatalFailure()) return;
    }
    (void)sizeof(Exec);
  });
}

/// Checks kps::reduce of T under op after init, returned and into a View, against a left fold.
template <class T, class Op>
void check_reduce(const Op& op, T init) {
  for_each_policy([&](auto exec, const ReducePolicy* p) {
    using Space = typename decltype(exec)::memory_space;
    for (std::size_t n : sizes) {
      SCOPED_TRACE("n=" + std::to_string(n));
      const std::vector<T> x = values_of<T>(n, 41 + static_cast<std::uint32_t>(n));
      T want = init;
      for (const T& v : x) want = op(want, v);
      const auto in = to_device<T, Space>(x);
      const T got = p ? reduce(exec, in, init, op, *p) : reduce(exec, in, init, op);
      ASSERT_TRUE((same_value<T, Op>(got, want, n)));
      Kokkos::View<T, Space> r("r");
      if (p)
        reduce(exec, in, init, op, r, *p);
      else
        reduce(exec, in, init, op, r);
      exec.fence();
      T got_view;
      Kokkos::deep_copy(got_view, r);
      ASSERT_TRUE((same_value<T, Op>(got_view, want, n)));
    }
  });
}

TEST(OperatorReduce, Int8Plus) { check_reduce<std::int8_t>(plus{}, std::int8_t(3)); }
TEST(OperatorReduce, Uint16Max) { check_reduce<std::uint16_t>(maximum{}, std::uint16_t(0)); }
TEST(OperatorReduce, Int64Min) { check_reduce<std::int64_t>(minimum{}, std::int64_t(7)); }
TEST(OperatorReduce, Uint32BitOr) { check_reduce<std::uint32_t>(bit_or{}, std::uint32_t(0x80000000u)); }
TEST(OperatorReduce, DoublePlusInit) { check_reduce<double>(plus{}, 0.5); }
TEST(OperatorReduce, UserCountSum) { check_reduce<CountSum>(CountSumPlus{}, CountSum{2, 1.0}); }
TEST(OperatorReduce, OperatorWithoutIdentity) { check_reduce<int>(MaxWithoutIdentity{}, -1000); }

// The minimum, the maximum and both at once of every named integer size and floating point.
template <class T>
void check_extrema() {
  for_each_exec([&](auto exec) {
    using Space = typename decltype(exec)::memory_space;
    for (std::size_t n : sizes) {
      SCOPED_TRACE("n=" + std::to_string(n));
      const std::vector<T> x = values_of<T>(n, 43 + static_cast<std::uint32_t>(n), false);
      const auto in = to_device<T, Space>(x);
      const T lo = n ? *std::min_element(x.begin(), x.end()) : impl::highest<T>();
      const T hi = n ? *std::max_element(x.begin(), x.end()) : impl::lowest<T>();
      EXPECT_EQ(reduce_min(exec, in), lo);
      EXPECT_EQ(reduce_max(exec, in), hi);
      const MinMax<T> mm = minmax(exec, in);
      EXPECT_EQ(mm.min, lo);
      EXPECT_EQ(mm.max, hi);
      Kokkos::View<T, Space> r("r");
      reduce_max(exec, in, r);
      exec.fence();
      T got;
      Kokkos::deep_copy(got, r);
      EXPECT_EQ(got, hi);
    }
  });
}

TEST(OperatorReduce, ExtremaUint8) { check_extrema<std::uint8_t>(); }
TEST(OperatorReduce, ExtremaInt16) { check_extrema<std::int16_t>(); }
TEST(OperatorReduce, ExtremaFloat) { check_extrema<float>(); }

/// argmin and argmax: the value and the lowest index among equal ones (values in [-50, 50]: many
/// ties), every policy, returned and into a View; index -1 for an empty View.
template <class T>
void check_arg_extrema() {
  for_each_policy([&](auto exec, const ReducePolicy* p) {
    using Space = typename decltype(exec)::memory_space;
    for (std::size_t n : sizes) {
      SCOPED_TRACE("n=" + std::to_string(n));
      const std::vector<T> x = values_of<T>(n, 47 + static_cast<std::uint32_t>(n));
      const auto in = to_device<T, Space>(x);
      const auto lo = std::min_element(x.begin(), x.end()), hi = std::max_element(x.begin(), x.end());
      const std::int64_t lo_at = n ? std::int64_t(lo - x.begin()) : -1, hi_at = n ? std::int64_t(hi - x.begin()) : -1;
      const ValueIndex<T> a = p ? argmin(exec, in, *p) : argmin(exec, in);
      const ValueIndex<T> b = p ? argmax(exec, in, *p) : argmax(exec, in);
      ASSERT_EQ(a.index, lo_at);
      ASSERT_EQ(b.index, hi_at);
      if (n) {
        ASSERT_EQ(a.value, *lo);
        ASSERT_EQ(b.value, *hi);
      }
      if (p) continue;
      Kokkos::View<ValueIndex<T>, Space> r("r");
      argmin(exec, in, r);
      exec.fence();
      ValueIndex<T> got;
      Kokkos::deep_copy(got, r);
      ASSERT_EQ(got.index, lo_at);
    }
  });
}

TEST(OperatorReduce, ArgExtremaInt32) { check_arg_extrema<std::int32_t>(); }
TEST(OperatorReduce, ArgExtremaDouble) { check_arg_extrema<double>(); }

struct Absolute {
  KOKKOS_INLINE_FUNCTION double operator()(const float& v) const { return v < 0 ? -double(v) : double(v); }
};
struct Product {
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(const std::int16_t& a, const std::int16_t& b) const {
    return std::int64_t(a) * b;
  }
};

// transform_reduce of one View (float to double, absolute values: a norm) and of two (int16 x
// int16 into int64), and kps::dot as the binary form of plus and multiplies.
TEST(OperatorReduce, TransformReduce) {
  for_each_exec([&](auto exec) {
    using Space = typename decltype(exec)::memory_space;
    for (std::size_t n : sizes) {
      SCOPED_TRACE("n=" + std::to_string(n));
      const std::vector<float> x = values_of<float>(n, 53);
      const std::vector<std::int16_t> a = values_of<std::int16_t>(n, 54), b = values_of<std::int16_t>(n, 55);
      long double norm = 0;
      for (float v : x) norm += v < 0 ? -v : v;
      std::int64_t products = 10;
      for (std::size_t i = 0; i < n; ++i) products += std::int64_t(a[i]) * b[i];
      const auto dx = to_device<float, Space>(x);
      const auto da = to_device<std::int16_t, Space>(a), db = to_device<std::int16_t, Space>(b);
      EXPECT_TRUE(sum_matches(transform_reduce(exec, dx, 0.0, plus{}, Absolute{}), norm, n));
      EXPECT_EQ(transform_reduce(exec, da, db, std::int64_t(10), plus{}, Product{}), products);
      const std::vector<double> y = values_of<double>(n, 56), z = values_of<double>(n, 57);
      const auto dy = to_device<double, Space>(y), dz = to_device<double, Space>(z);
      EXPECT_TRUE(sum_matches(transform_reduce(exec, dy, dz, 0.0, plus{}, multiplies{}), reference_sum(y, &z), n));
    }
  });
}

// LayoutStride Views: the sum, the minimum's index and a dot product of every third element.
TEST(OperatorReduce, StridedViews) {
  using T = double;
  for_each_exec([&](auto exec) {
    using Space = typename decltype(exec)::memory_space;
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000), std::size_t(100003)}) {
      SCOPED_TRACE("n=" + std::to_string(n));
      const std::vector<T> wide = values_of<T>(3 * n + 2, 59);
      std::vector<T> every_third(n);
      for (std::size_t i = 0; i < n; ++i) every_third[i] = wide[3 * i + 2];
      const auto dw = to_device<T, Space>(wide);
      const Kokkos::View<T*, Kokkos::LayoutStride, Space> x(dw.data() + 2, Kokkos::LayoutStride(n, 3));
      EXPECT_TRUE(sum_matches(reduce_sum(exec, x), reference_sum(every_third), n));
      EXPECT_TRUE(sum_matches(dot(exec, x, x), reference_sum(every_third, &every_third), n));
      const ValueIndex<T> m = argmin(exec, x);
      const auto lo = std::min_element(every_third.begin(), every_third.end());
      EXPECT_EQ(m.index, n ? std::int64_t(lo - every_third.begin()) : -1);
    }
  });
}

}  // namespace reduce_operator_tests
}  // namespace kps::test
