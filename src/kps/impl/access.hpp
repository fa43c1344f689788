// kps/impl/access.hpp — how kps' kernels read their input and write their output: accessors, the
// one interface every scan and reduction kernel reads and writes through (Kokkos' std algorithms
// take iterators, CUB its input and output iterators; these are the same idea on device code).
//
//   const T* / T*      contiguous memory: load(p, i) is p[i], and the kernels' 16-byte vector
//                      paths apply (kps/scan/tile_io.hpp, kps/reduce/kernel.hpp)
//   Strided<T>         every `stride`-th element of a LayoutStride View
//   Mapped<In, F>      f(x) of each element x of In (transform_reduce, transform_*_scan)
//   Zipped<A, B, F>    f(a, b) of the elements of two accessors (binary transform_reduce)
//   Indexed<In, I>     each element with its index, ValueIndex{x, base + i} (argmin, argmax)
//   MappedOut<Out,F,G> writes f(v), reads back g(x) (an operator without an identity: its flag
//                      dropped, and put back where the tile scans read their output again)
//
// load(a, i), store(a, i, v) and shifted(a, k) (the accessor of the elements from k on) are what
// the kernels call; contiguous_v<A, T> says where the vector paths apply.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "kps/operators.hpp"

namespace kps::impl {

template <class T>
struct Strided {
  T* p;
  std::size_t stride;
};

template <class In, class F>
struct Mapped {
  In in;
  F f;
};

template <class A, class B, class F>
struct Zipped {
  A a;
  B b;
  F f;
};

template <class In, class I>
struct Indexed {
  In in;
  I base;
};

/// Writes f(v); reads back g(x) (the propagation of the tile scans reads what it wrote).
template <class Out, class F, class G>
struct MappedOut {
  Out out;
  F f;
  G g;
};

template <class T>
KOKKOS_INLINE_FUNCTION std::remove_cv_t<T> load(T* p, std::size_t i) {
  return p[i];
}
template <class T>
KOKKOS_INLINE_FUNCTION std::remove_const_t<T> load(const Strided<T>& s, std::size_t i) {
  return s.p[i * s.stride];
}
template <class In, class F>
KOKKOS_INLINE_FUNCTION auto load(const Mapped<In, F>& m, std::size_t i) {
  return m.f(load(m.in, i));
}
template <class A, class B, class F>
KOKKOS_INLINE_FUNCTION auto load(const Zipped<A, B, F>& z, std::size_t i) {
  return z.f(load(z.a, i), load(z.b, i));
}

template <class In, class I>
KOKKOS_INLINE_FUNCTION auto load(const Indexed<In, I>& x, std::size_t i) {
  using T = std::remove_cv_t<decltype(load(x.in, i))>;
  return ValueIndex<T, I>{load(x.in, i), I(x.base + I(i))};
}

template <class T, class V>
KOKKOS_INLINE_FUNCTION void store(T* p, std::size_t i, const V& v) {
  p[i] = v;
}
template <class T, class V>
KOKKOS_INLINE_FUNCTION void store(const Strided<T>& s, std::size_t i, const V& v) {
  s.p[i * s.stride] = v;
}
template <class Out, class F, class G, class V>
KOKKOS_INLINE_FUNCTION void store(const MappedOut<Out, F, G>& m, std::size_t i, const V& v) {
  store(m.out, i, m.f(v));
}
template <class Out, class F, class G>
KOKKOS_INLINE_FUNCTION auto load(const MappedOut<Out, F, G>& m, std::size_t i) {
  return m.g(load(m.out, i));
}

template <class T>
KOKKOS_INLINE_FUNCTION T* shifted(T* p, std::size_t k) {
  return p + k;
}
template <class T>
KOKKOS_INLINE_FUNCTION Strided<T> shifted(const Strided<T>& s, std::size_t k) {
  return {s.p + k * s.stride, s.stride};
}
template <class In, class F>
KOKKOS_INLINE_FUNCTION Mapped<In, F> shifted(const Mapped<In, F>& m, std::size_t k) {
  return {shifted(m.in, k), m.f};
}
template <class A, class B, class F>
KOKKOS_INLINE_FUNCTION Zipped<A, B, F> shifted(const Zipped<A, B, F>& z, std::size_t k) {
  return {shifted(z.a, k), shifted(z.b, k), z.f};
}
template <class In, class I>
KOKKOS_INLINE_FUNCTION Indexed<In, I> shifted(const Indexed<In, I>& x, std::size_t k) {
  return {shifted(x.in, k), I(x.base + I(k))};
}
template <class Out, class F, class G>
KOKKOS_INLINE_FUNCTION MappedOut<Out, F, G> shifted(const MappedOut<Out, F, G>& m, std::size_t k) {
  return {shifted(m.out, k), m.f, m.g};
}

/// The value type an accessor reads.
template <class A>
using value_of_t = std::remove_cv_t<decltype(load(std::declval<const A&>(), std::size_t(0)))>;

/// Whether A is contiguous memory of T (a pointer): where 16-byte vector loads and stores apply.
template <class A, class T>
inline constexpr bool contiguous_v = std::is_same_v<std::remove_cv_t<A>, const T*> || std::is_same_v<std::remove_cv_t<A>, T*>;

/// The first byte an accessor reads or writes (null for accessors of no memory of their own).
template <class T>
KOKKOS_INLINE_FUNCTION const void* address(T* p) {
  return p;
}
template <class T>
KOKKOS_INLINE_FUNCTION const void* address(const Strided<T>& s) {
  return s.p;
}
template <class In, class F>
KOKKOS_INLINE_FUNCTION const void* address(const Mapped<In, F>& m) {
  return address(m.in);
}
template <class A, class B, class F>
KOKKOS_INLINE_FUNCTION const void* address(const Zipped<A, B, F>& z) {
  return address(z.a);
}
template <class In, class I>
KOKKOS_INLINE_FUNCTION const void* address(const Indexed<In, I>& x) {
  return address(x.in);
}
template <class Out, class F, class G>
KOKKOS_INLINE_FUNCTION const void* address(const MappedOut<Out, F, G>& m) {
  return address(m.out);
}

}  // namespace kps::impl
