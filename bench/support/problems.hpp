// bench/support/problems.hpp — what kps-bench measures beyond today's sums (the scan and reduction
// studies' operators-and-types part), as one list of problems: a scan or a reduction under an
// operator of a value type. The families (bench/operator_bench.cpp), their names
// (scan/automatic/max/int8/<N>, reduce/tuned/min/double/<N>, argmin/tuned/int32/<N>), their host
// references and every backend's peers (bench/host/*.cpp, bench/cuda/peers.cpp) are made from it; a
// new problem is a line here, a new type a line of kps/types.hpp.
#pragma once

#include <cstdint>
#include <string>

#include <Kokkos_Core.hpp>

#include "kps/operators.hpp"
#include "kps/segmented.hpp"
#include "kps/types.hpp"

namespace kps::bench {

/// The segmented scan's pair and operator (kps/segmented.hpp).
using kps::Segment;
using kps::SegmentedPlus;

/// Two doubles (16 bytes) added component by component: "kps' own sum" of the pair's value size.
struct Double2 {
  double a, b;
};
struct PlusDouble2 {
  static constexpr bool commutative = true;
  KOKKOS_INLINE_FUNCTION Double2 operator()(const Double2& x, const Double2& y) const { return {x.a + y.a, x.b + y.b}; }
  KOKKOS_INLINE_FUNCTION static Double2 identity() { return {0.0, 0.0}; }
};

/// The operator's name in benchmark labels: kps' names (kps/operators.hpp), and the user types'.
template <class Op, class T>
inline const char* op_label() {
  if constexpr (std::is_same_v<Op, SegmentedPlus>)
    return "segmented";
  else if constexpr (std::is_same_v<Op, PlusDouble2>)
    return "plus";
  else
    return operator_traits<Op, T>::name;
}

/// The value type's name in labels: its kps name, a user type's size key (bytes16).
template <class T>
inline const char* type_label() {
  return type_name<T>();
}

// The scans (X(operator, value type)): sums of the types today's scan/ families do not measure,
// maxima and minima of every named type, the segmented pair and the sum of its size.
#define KPS_BENCH_SCANS(X)                                                                                   \
  X(kps::plus, std::int8_t) X(kps::plus, std::int16_t) X(kps::plus, std::uint8_t) X(kps::plus, std::uint16_t)   \
  X(kps::plus, std::uint32_t) X(kps::plus, std::uint64_t)                                                      \
  X(kps::maximum, std::int8_t) X(kps::maximum, std::int16_t) X(kps::maximum, std::int32_t)                     \
  X(kps::maximum, std::int64_t) X(kps::maximum, std::uint8_t) X(kps::maximum, std::uint16_t)                   \
  X(kps::maximum, std::uint32_t) X(kps::maximum, std::uint64_t) X(kps::maximum, float) X(kps::maximum, double) \
  X(kps::minimum, std::int8_t) X(kps::minimum, std::int16_t) X(kps::minimum, std::int32_t)                     \
  X(kps::minimum, std::int64_t) X(kps::minimum, std::uint8_t) X(kps::minimum, std::uint16_t)                   \
  X(kps::minimum, std::uint32_t) X(kps::minimum, std::uint64_t) X(kps::minimum, float) X(kps::minimum, double) \
  X(kps::bench::SegmentedPlus, kps::bench::Segment) X(kps::bench::PlusDouble2, kps::bench::Double2)

// The reductions (X(operator, value type)): the same, but the segmented pair (a reduction needs a
// commutative operator).
#define KPS_BENCH_REDUCTIONS(X)                                                                              \
  X(kps::plus, std::int8_t) X(kps::plus, std::int16_t) X(kps::plus, std::uint8_t) X(kps::plus, std::uint16_t)   \
  X(kps::plus, std::uint32_t) X(kps::plus, std::uint64_t)                                                      \
  X(kps::maximum, std::int8_t) X(kps::maximum, std::int16_t) X(kps::maximum, std::int32_t)                     \
  X(kps::maximum, std::int64_t) X(kps::maximum, std::uint8_t) X(kps::maximum, std::uint16_t)                   \
  X(kps::maximum, std::uint32_t) X(kps::maximum, std::uint64_t) X(kps::maximum, float) X(kps::maximum, double) \
  X(kps::minimum, std::int8_t) X(kps::minimum, std::int16_t) X(kps::minimum, std::int32_t)                     \
  X(kps::minimum, std::int64_t) X(kps::minimum, std::uint8_t) X(kps::minimum, std::uint16_t)                   \
  X(kps::minimum, std::uint32_t) X(kps::minimum, std::uint64_t) X(kps::minimum, float) X(kps::minimum, double)

// argmin and argmax (X(value type)): the value and its lowest index.
#define KPS_BENCH_ARG_EXTREMA(X) X(std::int32_t) X(float) X(double)

/// The key of a problem's peers (OpPeers): "scan/max/int8", "reduce/min/double", "argmin/int32".
template <class Op, class T>
std::string scan_key() {
  return std::string("scan/") + op_label<Op, T>() + "/" + type_label<T>();
}
template <class Op, class T>
std::string reduce_key() {
  return std::string("reduce/") + op_label<Op, T>() + "/" + type_label<T>();
}
template <class T>
std::string arg_key(bool max) {
  return std::string(max ? "argmax/" : "argmin/") + type_label<T>();
}

}  // namespace kps::bench
