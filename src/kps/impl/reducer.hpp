// kps/impl/reducer.hpp — an operator as a Kokkos reducer (Kokkos' Sum, Min, ... for any kps
// operator): what kps' reductions hand Kokkos' parallel_reduce and team_reduce where the operator
// is not kps::plus (kps::plus keeps Kokkos' own sum). join(dest, src) is dest = op(dest, src);
// Kokkos combines partial results in an order of its own, so the operator must be commutative as
// well as associative (kps/operators.hpp).
#pragma once

#include <cstring>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "kps/impl/kokkos_compat.hpp"

#include "kps/operators.hpp"

namespace kps::impl {

template <class T, class Op, class Space>
struct OpReducer {
  using reducer = OpReducer;
  using value_type = std::remove_cv_t<T>;
  using result_view_type = Kokkos::View<value_type, Space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  Op op;
  result_view_type value;
  bool references_scalar_v = true;

  KOKKOS_INLINE_FUNCTION OpReducer(value_type& v, const Op& o) : op(o), value(&v), references_scalar_v(true) {}
  KOKKOS_INLINE_FUNCTION OpReducer(const result_view_type& v, const Op& o)
      : op(o), value(v), references_scalar_v(false) {}

  KOKKOS_INLINE_FUNCTION void join(value_type& dest, const value_type& src) const { dest = op(dest, src); }
#if KOKKOS_VERSION < 40000
  // Kokkos 3 joins through volatile references where its reducers have that form.
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& dest, const volatile value_type& src) const {
    value_type d, s;
    impl::copy_bytes(&d, const_cast<const value_type*>(&dest), sizeof(value_type));
    impl::copy_bytes(&s, const_cast<const value_type*>(&src), sizeof(value_type));
    d = op(d, s);
    impl::copy_bytes(const_cast<value_type*>(&dest), &d, sizeof(value_type));
  }
#endif
  KOKKOS_INLINE_FUNCTION void init(value_type& v) const { v = operator_traits<Op, value_type>::identity(op); }
  KOKKOS_INLINE_FUNCTION value_type& reference() const { return *value.data(); }
  KOKKOS_INLINE_FUNCTION result_view_type view() const { return value; }
  KOKKOS_INLINE_FUNCTION bool references_scalar() const { return references_scalar_v; }
};

}  // namespace kps::impl
