// test/operator_support.hpp — what the operator tests share: user value types and operators (a
// segmented scan's (flag, value) pair, a 2x2 matrix product, a 12-byte record, an operator
// without an identity, a commutative user reduction), their host references (a left fold in
// order, exact), inputs of every named type, and comparisons that are exact where the operator's
// result does not depend on the association and within the sums' tolerance where it does.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "kps/operators.hpp"
#include "kps/segmented.hpp"
#include "test_support.hpp"

namespace kps::test {

/// The segmented scan's pair and operator (kps/segmented.hpp).
using kps::Segment;
using kps::SegmentedPlus;

/// A 2x2 integer matrix (32 bytes): products in order, not commutative.
struct Matrix2 {
  std::int64_t a, b, c, d;
};
struct MatrixProduct {
  KOKKOS_INLINE_FUNCTION Matrix2 operator()(const Matrix2& x, const Matrix2& y) const {
    return {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
  }
  KOKKOS_INLINE_FUNCTION static Matrix2 identity() { return {1, 0, 0, 1}; }
};

/// A 12-byte record (not a divisor of 16: staged one value per vector): the component-wise maximum.
struct Record {
  float x, y, z;
};
struct RecordMax {
  static constexpr bool commutative = true;
  KOKKOS_INLINE_FUNCTION Record operator()(const Record& p, const Record& q) const {
    return {p.x < q.x ? q.x : p.x, p.y < q.y ? q.y : p.y, p.z < q.z ? q.z : p.z};
  }
  KOKKOS_INLINE_FUNCTION static Record identity() { return {-1e30f, -1e30f, -1e30f}; }
};

/// The larger of two ints, with no identity of its own (kps carries a flag beside each value).
struct MaxWithoutIdentity {
  KOKKOS_INLINE_FUNCTION int operator()(const int& a, const int& b) const { return a < b ? b : a; }
};

/// A count and a sum at once (16 bytes), commutative: a user reduction.
struct CountSum {
  std::int64_t count;
  double sum;
};
struct CountSumPlus {
  static constexpr bool commutative = true;
  KOKKOS_INLINE_FUNCTION CountSum operator()(const CountSum& a, const CountSum& b) const {
    return {a.count + b.count, a.sum + b.sum};
  }
  KOKKOS_INLINE_FUNCTION static CountSum identity() { return {0, 0.0}; }
};

/// n values of T with a fixed seed: integers in their type's range (small ones in [-50, 50] where
/// `small`, so products and sums stay meaningful), floating point in [-1, 1); user types from them.
template <class T>
std::vector<T> values_of(std::size_t n, std::uint32_t seed, bool small = true) {
  std::mt19937_64 gen(seed);
  std::vector<T> v(n);
  if constexpr (std::is_same_v<T, Segment>) {
    std::uniform_real_distribution<double> d(-1.0, 1.0);
    for (auto& s : v) s = {d(gen), gen() % 97 == 0 ? 1 : 0};
  } else if constexpr (std::is_same_v<T, Matrix2>) {
    // Unit upper triangular matrices: products stay exact and grow slowly.
    for (auto& m : v) m = {1, std::int64_t(gen() % 3), 0, 1};
  } else if constexpr (std::is_same_v<T, Record>) {
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    for (auto& r : v) r = {d(gen), d(gen), d(gen)};
  } else if constexpr (std::is_same_v<T, CountSum>) {
    std::uniform_real_distribution<double> d(-1.0, 1.0);
    for (auto& c : v) c = {std::int64_t(gen() % 5), d(gen)};
  } else if constexpr (std::is_integral_v<T>) {
    if (small) {
      std::uniform_int_distribution<int> d(-50, 50);
      for (auto& x : v) x = T(d(gen));
    } else {
      for (auto& x : v) x = T(gen());
    }
  } else {
    std::uniform_real_distribution<double> d(-1.0, 1.0);
    for (auto& x : v) x = T(d(gen));
  }
  return v;
}

/// The scan of x under op in order (the host reference), after init where given.
template <class T, class Op>
std::vector<T> fold_scan(const std::vector<T>& x, bool exclusive, const Op& op, std::optional<T> init = std::nullopt) {
  std::vector<T> r(x.size());
  std::optional<T> acc = init;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (exclusive) r[i] = acc ? *acc : operator_traits<Op, T>::identity(op);
    acc = acc ? op(*acc, x[i]) : x[i];
    if (!exclusive) r[i] = *acc;
  }
  return r;
}

/// Whether got equals want: bit for bit, or (floating-point sums and products, whose association
/// the algorithms choose) within the sums' tolerance.
template <class T, class Op>
bool same_value(const T& got, const T& want, std::size_t i) {
  if constexpr (std::is_floating_point_v<T> && !operator_traits<Op, T>::exact)
    return scan_element_matches(got, want, i);
  else if constexpr (std::is_same_v<T, Segment>)
    return got.head == want.head && scan_element_matches(got.value, want.value, i);
  else if constexpr (std::is_same_v<T, CountSum>)
    return got.count == want.count && scan_element_matches(got.sum, want.sum, i);
  else if constexpr (std::is_floating_point_v<T>)
    return std::memcmp(&got, &want, sizeof(T)) == 0 || got == want;  // -0 and +0 of a minimum
  else
    return std::memcmp(&got, &want, sizeof(T)) == 0;
}

template <class T, class Op>
void expect_same(const std::vector<T>& got, const std::vector<T>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_TRUE((same_value<T, Op>(got[i], want[i], i))) << "first difference at index " << i << " of " << got.size();
}

}  // namespace kps::test
