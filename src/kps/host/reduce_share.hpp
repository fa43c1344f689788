// kps/host/reduce_share.hpp — the reduction's share on host backends (Serial, OpenMP, Threads):
// each thread adds one contiguous range in SIMD lanes. A specialization of
// kps::impl::ReduceShare for every host execution space, included by kps/reduce/kernel.hpp (which
// defines the loads and the head and tail it uses); the GCC/Clang vector extension stays here.
#pragma once

#include <cstddef>
#include <cstring>
#include <type_traits>
#include <utility>

#include <Kokkos_Core.hpp>

#include "kps/impl/kokkos_compat.hpp"
#include "kps/operators.hpp"

namespace kps::impl {

/// add_lanes' portable form: 4 x V scalar accumulators, element by element, under op.
template <int V, class Load, class T, class Op = plus>
KOKKOS_INLINE_FUNCTION void add_lanes_scalar(const Load& load, std::size_t i, std::size_t end, T& acc, const Op& op = {}) {
  constexpr int L = 4 * V;
  const T e = operator_traits<Op, T>::identity(op);
  T s[L];
  for (int k = 0; k < L; ++k) s[k] = e;
  std::size_t x = i * V;
  const std::size_t stop = end * V;
  for (; x + L <= stop; x += L)
    for (int k = 0; k < L; ++k) s[k] = op(s[k], T(load(x + k)));
  for (; x < stop; ++x) s[0] = op(s[0], T(load(x)));
  T r = e;
  for (int k = 0; k < L; ++k) r = op(r, s[k]);
  acc = op(acc, r);
}

/// Whether add_lanes applies op to the compiler's vector type (the built-in arithmetic operators
/// on arithmetic values of loads that read vectors of them).
template <class Op, class T, class Load, int V>
inline constexpr bool lane_vector_op_v =
    std::is_arithmetic_v<T> &&
    std::is_same_v<std::decay_t<decltype(std::declval<const Load&>().template vector<V>(std::size_t(0)))>, Vec<T, V>> &&
    (std::is_same_v<Op, plus> || std::is_same_v<Op, multiplies> || std::is_same_v<Op, minimum> ||
     std::is_same_v<Op, maximum> || std::is_same_v<Op, bit_and> || std::is_same_v<Op, bit_or> ||
     std::is_same_v<Op, bit_xor>);

/// a = op(a, b) on two vectors of lanes (lane by lane, as the scalar operator; in place: a
/// vector wider than 16 bytes is no function's value without AVX).
template <class Op, class L>
KOKKOS_INLINE_FUNCTION void lanes_op(L& a, const L& b) {
  if constexpr (std::is_same_v<Op, plus>)
    a += b;
  else if constexpr (std::is_same_v<Op, multiplies>)
    a *= b;
  else if constexpr (std::is_same_v<Op, minimum>)
    a = b < a ? b : a;
  else if constexpr (std::is_same_v<Op, maximum>)
    a = a < b ? b : a;
  else if constexpr (std::is_same_v<Op, bit_and>)
    a &= b;
  else if constexpr (std::is_same_v<Op, bit_or>)
    a |= b;
  else
    a ^= b;
}

/// Adds the vectors [i, end) of V elements to acc in four vector accumulators (4 x V
/// independent sums, added together once at the end): the host share's loop. Compiled by GCC
/// or Clang, the accumulators are the compiler's own vector type (vector_size), so the adds
/// are SIMD instructions whatever its vectorizers decide; elsewhere (nvcc's host pass, other
/// compilers) add_lanes_scalar's 4 x V scalar accumulators. The vectorizers alone were
/// not dependable: GCC 12 compiled arrays of Vec<T, V> accumulators to scalar adds with some
/// accumulators spilled to the stack, and the element-by-element form to clean SIMD in one
/// program but, for floating-point dot products in kps-bench, to vector multiplies followed
/// by in-order scalar adds through memory. Kokkos::Serial at 2^20 on the 2-core development
/// host: sum int32 206 us with the Vec arrays, 60-96 with either later form (best of 200
/// calls); in kps-bench (medians of interleaved rounds), element by element -> vector type:
/// sum float 311-355 -> 105-126 us, dot float 703-822 -> 229, dot double 1000-1075 -> 593-938
/// (studies/reduce/README.md, finding 11). On a GPU the accumulators would cost the registers
/// add_strided saves. The other built-in operators on numbers (minimum, maximum, multiplies,
/// bitwise) run on the same vectors (lanes_op); every other reduction (a transform, an index,
/// a user's operator) on add_lanes_scalar's accumulators.
#if defined(__GNUC__) && !defined(__CUDACC__)
/// add_lanes' SIMD form: four accumulators of the compiler's vector type (see add_lanes).
template <int V, class Load, class T, class Op>
KOKKOS_FORCEINLINE_FUNCTION void add_lanes_vector(const Load& load, std::size_t i, std::size_t end, T& acc, const Op& op) {
  typedef T Lanes __attribute__((vector_size(V * sizeof(T))));
  const T e = operator_traits<Op, T>::identity(op);
  const Lanes ident = Lanes{} + e;  // the identity in every lane
  Lanes s[4] = {ident, ident, ident, ident};
  for (; i < end; i += 4)
    for (std::size_t u = 0; u < 4 && i + u < end; ++u) {
      const Vec<T, V> a = load.template vector<V>(i + u);
      Lanes l;
      std::memcpy(&l, &a, sizeof l);
      lanes_op<Op>(s[u], l);
    }
  lanes_op<Op>(s[0], s[1]);
  lanes_op<Op>(s[2], s[3]);
  lanes_op<Op>(s[0], s[2]);
  const Lanes t = s[0];
  T r = e;
  for (int k = 0; k < V; ++k) r = op(r, T(t[k]));
  acc = op(acc, r);
}
#endif

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__) && !defined(__HIP__) && !defined(__SSE4_2__)
#define KPS_IMPL_LANES_SSE42 1
/// Whether op on vectors of T compiles to other instructions with SSE4.1 and 4.2 than with the
/// x86-64 baseline (SSE2) a build without -march targets: the integers' minimum and maximum.
/// SSE2 has the compare and select of 1-, 2- and 4-byte lanes only as three more instructions
/// (PCMPGT, then PAND, PANDN, POR) and none of 8-byte lanes, which GCC 12 takes apart into scalar
/// compares and moves between registers; SSE4.1 and 4.2 have PMINSD, PMAXUB, ... and PCMPGTQ. On
/// the 2-core development machine, two threads at 2^18 (in its caches): a maximum of int32 at
/// 0.60 of the sum's bandwidth, of int64 at 0.34, where float's (MAXPS, in SSE) ran at 0.96.
template <class Op, class T>
inline constexpr bool lanes_want_sse42_v =
    std::is_integral_v<T> && (std::is_same_v<Op, minimum> || std::is_same_v<Op, maximum>);

/// add_lanes_vector compiled for SSE4.2 (it inlines there), run where the CPU has it: every x86-64
/// CPU since 2008-2011 (Intel Nehalem, AMD Bulldozer).
template <int V, class Load, class T, class Op>
__attribute__((target("sse4.2"), noinline)) void add_lanes_sse42(const Load& load, std::size_t i, std::size_t end,
                                                                  T& acc, const Op& op) {
  add_lanes_vector<V>(load, i, end, acc, op);
}

inline bool cpu_has_sse42() {
  static const bool has = __builtin_cpu_supports("sse4.2");
  return has;
}
#endif

/// Adds the vectors [i, end) of V elements to acc in four vector accumulators (4 x V
/// independent sums, added together once at the end): the host share's loop. Compiled by GCC
/// or Clang, the accumulators are the compiler's own vector type (vector_size), so the adds
/// are SIMD instructions whatever its vectorizers decide; elsewhere (nvcc's host pass, other
/// compilers) add_lanes_scalar's 4 x V scalar accumulators. The vectorizers alone were
/// not dependable: GCC 12 compiled arrays of Vec<T, V> accumulators to scalar adds with some
/// accumulators spilled to the stack, and the element-by-element form to clean SIMD in one
/// program but, for floating-point dot products in kps-bench, to vector multiplies followed
/// by in-order scalar adds through memory. Kokkos::Serial at 2^20 on the 2-core development
/// host: sum int32 206 us with the Vec arrays, 60-96 with either later form (best of 200
/// calls); in kps-bench (medians of interleaved rounds), element by element -> vector type:
/// sum float 311-355 -> 105-126 us, dot float 703-822 -> 229, dot double 1000-1075 -> 593-938
/// (studies/reduce/README.md, finding 11). On a GPU the accumulators would cost the registers
/// add_strided saves. The other built-in operators on numbers (minimum, maximum, multiplies,
/// bitwise) run on the same vectors (lanes_op), the integers' minimum and maximum compiled for
/// SSE4.2 where the build's baseline lacks it and the CPU has it (lanes_want_sse42_v; without
/// it, 8-byte lanes on the scalar accumulators); every other reduction (a transform, an index,
/// a user's operator) on add_lanes_scalar's accumulators.
template <int V, class Load, class T, class Op = plus>
KOKKOS_INLINE_FUNCTION void add_lanes(const Load& load, std::size_t i, std::size_t end, T& acc, const Op& op = {}) {
#if defined(__GNUC__) && !defined(__CUDACC__)
  if constexpr (lane_vector_op_v<Op, T, Load, V>) {
#if defined(KPS_IMPL_LANES_SSE42)
    if constexpr (lanes_want_sse42_v<Op, T>) {
      if (cpu_has_sse42())
        add_lanes_sse42<V>(load, i, end, acc, op);
      else if constexpr (sizeof(T) == 8)
        add_lanes_scalar<V>(load, i, end, acc, op);
      else
        add_lanes_vector<V>(load, i, end, acc, op);
      return;
    }
#endif
    add_lanes_vector<V>(load, i, end, acc, op);
  } else {
    add_lanes_scalar<V>(load, i, end, acc, op);
  }
#else
  add_lanes_scalar<V>(load, i, end, acc, op);
#endif
}

/// The host backends' share: the same head and tail in team 0, then global thread
/// g = rank * team_size + t of G = league * team_size adds the vectors of its own contiguous
/// range, [g * nv / G, (g + 1) * nv / G) (balanced), lane by lane (add_lanes). A CPU core
/// streams its range front to back, each cache line and page read once by one core; the
/// grid-stride share above gave each of the seed league's teams one 16-byte vector every 32 KB
/// (a page per load), and on a 2-core host its sum of 2^20 doubles took 4.5x the best
/// configuration's time (studies/reduce/README.md, finding 10).
template <int V, class Load, class T, class Op = plus>
KOKKOS_INLINE_FUNCTION void add_share_contiguous(const Load& load, std::size_t n, std::size_t head,
                                                 std::size_t team_size, std::size_t league, std::size_t rank,
                                                 std::size_t t, T& acc, const Op& op = {}) {
  const std::size_t nv = (n - head) / V;
  add_head_and_tail<V>(load, n, head, nv, team_size, rank, t, acc, op);
  const std::size_t threads = league * team_size, g = rank * team_size + t;
  const std::size_t per = nv / threads, extra = nv % threads;
  const std::size_t begin = g * per + (g < extra ? g : extra);
  const std::size_t end = begin + per + (g < extra ? 1 : 0);
  add_lanes<V>(load.advanced(head), begin, end, acc, op);
}

template <class Exec>
struct ReduceShare<Exec, std::enable_if_t<is_host_space_v<Exec>>> {
  template <int V, class Index, class Load, class T, class Op = plus>
  KOKKOS_INLINE_FUNCTION static void add(const Load& load, std::size_t n, std::size_t head, std::size_t team_size,
                                         std::size_t league, std::size_t rank, std::size_t t, T& acc,
                                         const Op& op = {}) {
    add_share_contiguous<V>(load, n, head, team_size, league, rank, t, acc, op);
  }
};

}  // namespace kps::impl
