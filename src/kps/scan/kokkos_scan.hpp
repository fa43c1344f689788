// kps/scan/kokkos_scan.hpp — ScanAlgorithm::kokkos: Kokkos::parallel_scan over the range (two
// passes over the input on GPUs), the peer every other scan is measured against.
//
// Sums keep Kokkos' own sum (a lambda adding into its update). Any other operator runs through a
// functor whose partial results carry the index of their first element: Kokkos joins the partial
// results of adjacent ranges in an order of its own (the earlier into the later on CUDA, the
// later into the earlier on OpenMP), and the join puts the one that starts first in front, so the
// scan keeps the sequence's order for a non-commutative operator too, and needs no identity.
#pragma once

#include <cstddef>
#include <cstring>
#include <limits>

#include <Kokkos_Core.hpp>

#include "kps/impl/kokkos_compat.hpp"

#include "kps/impl/access.hpp"
#include "kps/operators.hpp"
#include "kps/scan/operation.hpp"

namespace kps::impl {

template <class Exec, class T>
void kokkos_scan(const Exec& exec, const T* in, T* out, std::size_t n, bool exclusive) {
  if (n == 0) return;
  Kokkos::parallel_scan(
      exclusive ? "kps::kokkos_scan::exclusive" : "kps::kokkos_scan::inclusive",
      Kokkos::RangePolicy<Exec>(exec, 0, n), KOKKOS_LAMBDA(std::size_t i, T& update, const bool final) {
        const T v = in[i];
        if (final && exclusive) out[i] = update;
        update += v;
        if (final && !exclusive) out[i] = update;
      });
}

/// A partial result of the ordered scan: the reduction of the elements from `start` on (none:
/// empty).
template <class T>
struct OrderedPartial {
  T value;
  std::size_t start;
  bool empty;
};

template <class Exec, class P>
struct KokkosScanFunctor : OpHolder<typename P::op_type>, InitHolder<typename P::init_type> {
  using T = typename P::value_type;
  using value_type = OrderedPartial<T>;
  typename P::in_type in;
  typename P::out_type out;
  bool exclusive;

  KokkosScanFunctor(const typename P::op_type& op, const typename P::init_type& init, const typename P::in_type& i,
                    const typename P::out_type& o, bool excl)
      : OpHolder<typename P::op_type>(op), InitHolder<typename P::init_type>(init), in(i), out(o), exclusive(excl) {}

  KOKKOS_INLINE_FUNCTION void operator()(std::size_t i, value_type& update, const bool final) const {
    const auto& op = this->scan_op();
    const T v = impl::load(in, i);
    if (final && exclusive)
      impl::store(out, i, update.empty ? first_prefix<T>(op, this->scan_init()) : with_init(op, this->scan_init(), update.value));
    if (update.empty)
      update = {v, i, false};
    else
      update.value = op(update.value, v);
    if (final && !exclusive) impl::store(out, i, with_init(op, this->scan_init(), update.value));
  }
  KOKKOS_INLINE_FUNCTION void init(value_type& u) const {
    u.empty = true;
    u.start = ~std::size_t(0);  // no element yet (std::numeric_limits is host code on CUDA)
  }
#if KOKKOS_VERSION < 40000
  // Kokkos 3 joins through volatile references where the functor has that form.
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& dst, const volatile value_type& src) const {
    value_type d, s;
    impl::copy_bytes(&d, const_cast<const value_type*>(&dst), sizeof(value_type));
    impl::copy_bytes(&s, const_cast<const value_type*>(&src), sizeof(value_type));
    join(d, s);
    impl::copy_bytes(const_cast<value_type*>(&dst), &d, sizeof(value_type));
  }
#endif
  KOKKOS_INLINE_FUNCTION void join(value_type& dst, const value_type& src) const {
    if (src.empty) return;
    if (dst.empty) {
      dst = src;
      return;
    }
    if (dst.start < src.start) {
      dst.value = this->scan_op()(dst.value, src.value);
    } else {
      dst.value = this->scan_op()(src.value, dst.value);
      dst.start = src.start;
    }
  }
};

/// ScanAlgorithm::kokkos for the problem P: Kokkos' sum for today's sums (kps/scan/operation.hpp:
/// classic_sum_v), else the ordered functor above (Kokkos 3 also takes a lambda's sum only of
/// values of whole ints).
template <class Exec, class P>
void kokkos_scan_problem(const Exec& exec, const typename P::in_type& in, const typename P::out_type& out, std::size_t n,
                         bool exclusive, const typename P::op_type& op, const typename P::init_type& init) {
  using T = typename P::value_type;
  if (n == 0) return;
  if constexpr (classic_sum_v<T, typename P::op_type, typename P::in_type, typename P::out_type, typename P::init_type>) {
    (void)op;
    (void)init;
    kokkos_scan(exec, in, out, n, exclusive);
  } else {
    Kokkos::parallel_scan(exclusive ? "kps::kokkos_scan::exclusive" : "kps::kokkos_scan::inclusive",
                          Kokkos::RangePolicy<Exec>(exec, 0, n), KokkosScanFunctor<Exec, P>(op, init, in, out, exclusive));
  }
}

}  // namespace kps::impl
