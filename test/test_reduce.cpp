// test/test_reduce.cpp — kps::reduce_sum and kps::dot on every element type, with the
// default policy and families of explicit ones, on sizes 0..3, around team x items, primes
// and 10^6+3, against host references (exact for integers, compensated long double
// otherwise); bad policies and mismatched lengths throw.
#include <cmath>
#include <string>

#include "kps/reduce.hpp"
#include "test_support.hpp"

namespace kps::test {
// Named (not anonymous): nvcc cannot launch kernels on lambdas of anonymous namespaces.
namespace reduce_tests {

template <class T>
long double reference_sum(const std::vector<T>& x, const std::vector<T>* y = nullptr) {
  long double s = 0;
  for (std::size_t i = 0; i < x.size(); ++i) s += y ? (long double)x[i] * (*y)[i] : (long double)x[i];
  return s;
}

template <class T>
void expect_value(T got, long double want, std::size_t n) {
  if constexpr (std::is_integral_v<T>)
    EXPECT_EQ(got, T(want));
  else
    EXPECT_NEAR(double(got), double(want), tolerance<T>() * (1.0 + std::sqrt(double(n)) * 4));
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
    const int limit = impl::team_size_limit(exec);
    if (p.team_size > limit) p.team_size = limit;
    for (std::size_t n : sizes_for(p, large)) {
      SCOPED_TRACE("n=" + std::to_string(n) + " " + to_string(p) + (use_default ? " (default policy)" : ""));
      const auto hx = random_values<T>(n, 7 + static_cast<std::uint32_t>(n));
      const auto hy = random_values<T>(n, 8 + static_cast<std::uint32_t>(n));
      const auto x = to_device<T, Space>(hx);
      const auto y = to_device<T, Space>(hy);
      expect_value(use_default ? reduce_sum(exec, x) : reduce_sum(exec, x, p), reference_sum(hx), n);
      expect_value(use_default ? dot(exec, x, y) : dot(exec, x, y, p), reference_sum(hx, &hy), n);
      // A subview one element in: unaligned for vector loads, must fall back.
      if (n > 1) {
        auto xs = Kokkos::subview(x, std::make_pair(std::size_t(1), n));
        const std::vector<T> tail(hx.begin() + 1, hx.end());
        expect_value(use_default ? reduce_sum(exec, xs) : reduce_sum(exec, xs, p), reference_sum(tail), n);
      }
    }
  });
}

template <class T>
class Reduce : public ::testing::Test {};
using Types = ::testing::Types<std::int32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(Reduce, Types);

TYPED_TEST(Reduce, DefaultPolicy) { check_policy<TypeParam>({1, 1, 0, 0}, true); }

TYPED_TEST(Reduce, PolicyFamilies) {
  // Every family on small sizes (0..3, team x items +- 1, a prime) ...
  for (int team : {1, 2, 64})
    for (int items : {1, 2, 3, 4, 16})
      for (int league : {0, 1, 5})
        for (int width : {0, 1, 2, 4}) check_policy<TypeParam>({team, items, league, width}, false, false);
  // ... and one of each kind on large primes.
  check_policy<TypeParam>({64, 16, 0, 0});
  check_policy<TypeParam>({2, 3, 5, 1});
  check_policy<TypeParam>({1, 4, 1, 4});
}

TEST(ReduceApi, BadPoliciesThrow) {
  using Exec = Kokkos::DefaultExecutionSpace;
  Kokkos::View<double*> x("x", 100), y("y", 101);
  EXPECT_THROW(reduce_sum(Exec(), x, ReducePolicy{0, 4, 1, 0}), std::invalid_argument);
  EXPECT_THROW(reduce_sum(Exec(), x, ReducePolicy{1, 0, 1, 0}), std::invalid_argument);
  EXPECT_THROW(reduce_sum(Exec(), x, ReducePolicy{1, 4, -1, 0}), std::invalid_argument);
  EXPECT_THROW(reduce_sum(Exec(), x, ReducePolicy{1, 4, 1, 3}), std::invalid_argument);
  EXPECT_THROW(reduce_sum(Exec(), x, ReducePolicy{1 << 20, 4, 1, 0}), std::invalid_argument);
  EXPECT_THROW(dot(Exec(), x, y), std::invalid_argument);
}

}  // namespace reduce_tests
}  // namespace kps::test
