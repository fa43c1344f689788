// kps/segmented.hpp — a segmented sum as a scan operator: each element a (value, head) pair, head
// set where a segment starts; scanned with SegmentedPlus, each position holds the sum of its
// segment so far (CUB's segmented scan by a (flag, value) pair, its benchmarks' scan/applications).
// A 16-byte value with an associative, non-commutative operator: what kps-bench's `segmented`
// family measures and the operator tests check.
#pragma once

#include <cstdint>

#include <Kokkos_Core.hpp>

namespace kps {

/// A segmented scan's element (16 bytes): a value and whether a segment starts at it.
struct Segment {
  double value;
  std::int64_t head;
};

/// (a, b) -> b where b starts a segment, else (a.value + b.value, a.head): associative, not
/// commutative; identity (0, 0).
struct SegmentedPlus {
  KOKKOS_INLINE_FUNCTION Segment operator()(const Segment& a, const Segment& b) const {
    return b.head ? b : Segment{a.value + b.value, a.head};
  }
  KOKKOS_INLINE_FUNCTION static Segment identity() { return {0.0, 0}; }
};

}  // namespace kps
