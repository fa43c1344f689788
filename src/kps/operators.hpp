// kps/operators.hpp — the operators kps' scans and reductions take (CUB's ScanOpT / ReductionOpT,
// the C++ standard's function objects), and what kps knows of each on a value type: its identity,
// whether it is commutative, whether its result is exact (the same whatever the association), and
// the class the tuning tables key it by (kps/tuning/table.hpp: plus, builtin, user).
//
//   kps::plus, kps::minimum, kps::maximum, kps::multiplies, kps::bit_and, kps::bit_or, kps::bit_xor
//   kps::arg_minimum, kps::arg_maximum (on kps::ValueIndex), kps::min_max (on kps::MinMax)
//   any functor with a KOKKOS_FUNCTION call operator T(const T&, const T&)
//
// Requirements: a scan's operator must be associative, and nothing more: kps scans in order on
// every algorithm (a non-commutative operator, a segmented scan's (flag, value) pair or a product
// of matrices, gives the left-to-right result). A reduction's operator must be associative and
// commutative, as std::reduce, Kokkos' reducers and OpenMP's declare reduction require: the
// reductions combine elements in the order their threads meet them. A user operator says it is
// not commutative with `static constexpr bool commutative = false;` (the reductions then refuse it
// at compile time), or that it is with `= true` (the scans' look-back may then reduce its windows
// in any order, as for the built-in operators).
//
// An operator's identity (the value e with op(e, x) == op(x, e) == x) lets every algorithm pad
// partial tiles and start its sums. The built-in operators have one for every arithmetic type; a
// user operator gives its own as a member `identity()` returning the value type (static or not).
// An operator without one still works on every algorithm: kps then carries a flag beside each
// value (kps::impl::Maybe, 1 byte and its padding more per value in registers and scratch, never
// in memory), which costs a 16-byte type the look-back's single-word status (docs/operators.md).
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include <Kokkos_Core.hpp>

namespace kps {

/// a + b.
struct plus {
  template <class T>
  KOKKOS_INLINE_FUNCTION constexpr T operator()(const T& a, const T& b) const {
    return T(a + b);
  }
};

/// a * b.
struct multiplies {
  template <class T>
  KOKKOS_INLINE_FUNCTION constexpr T operator()(const T& a, const T& b) const {
    return T(a * b);
  }
};

/// The smaller of a and b, a where they are equal (std::min; CUB's Min).
struct minimum {
  template <class T>
  KOKKOS_INLINE_FUNCTION constexpr T operator()(const T& a, const T& b) const {
    return b < a ? b : a;
  }
};

/// The larger of a and b, a where they are equal (std::max; CUB's Max).
struct maximum {
  template <class T>
  KOKKOS_INLINE_FUNCTION constexpr T operator()(const T& a, const T& b) const {
    return a < b ? b : a;
  }
};

/// a & b, a | b, a ^ b (integer types).
struct bit_and {
  template <class T>
  KOKKOS_INLINE_FUNCTION constexpr T operator()(const T& a, const T& b) const {
    static_assert(std::is_integral_v<T>, "kps::bit_and: an integer type");
    return T(a & b);
  }
};
struct bit_or {
  template <class T>
  KOKKOS_INLINE_FUNCTION constexpr T operator()(const T& a, const T& b) const {
    static_assert(std::is_integral_v<T>, "kps::bit_or: an integer type");
    return T(a | b);
  }
};
struct bit_xor {
  template <class T>
  KOKKOS_INLINE_FUNCTION constexpr T operator()(const T& a, const T& b) const {
    static_assert(std::is_integral_v<T>, "kps::bit_xor: an integer type");
    return T(a ^ b);
  }
};

/// A value and its index: what kps::argmin and kps::argmax return (Kokkos' ValLocScalar, CUB's
/// KeyValuePair). The index of an empty View's is -1.
template <class T, class Index = std::int64_t>
struct ValueIndex {
  T value;
  Index index;
};

/// The smallest and the largest value: what kps::minmax returns (Kokkos' MinMaxScalar).
template <class T>
struct MinMax {
  T min;
  T max;
};

/// The smaller value, the lower index of equal ones (kps::argmin; CUB's ArgMin).
struct arg_minimum {
  template <class T, class I>
  KOKKOS_INLINE_FUNCTION constexpr ValueIndex<T, I> operator()(const ValueIndex<T, I>& a,
                                                               const ValueIndex<T, I>& b) const {
    return (b.value < a.value || (!(a.value < b.value) && b.index < a.index)) ? b : a;
  }
};

/// The larger value, the lower index of equal ones (kps::argmax; CUB's ArgMax).
struct arg_maximum {
  template <class T, class I>
  KOKKOS_INLINE_FUNCTION constexpr ValueIndex<T, I> operator()(const ValueIndex<T, I>& a,
                                                               const ValueIndex<T, I>& b) const {
    return (a.value < b.value || (!(b.value < a.value) && b.index < a.index)) ? b : a;
  }
};

/// Both at once (kps::minmax).
struct min_max {
  template <class T>
  KOKKOS_INLINE_FUNCTION constexpr MinMax<T> operator()(const MinMax<T>& a, const MinMax<T>& b) const {
    return {b.min < a.min ? b.min : a.min, a.max < b.max ? b.max : a.max};
  }
};

/// How the tuning tables class an operator (kps/tuning/table.hpp): `plus`, the sums the sweeps
/// measure; `builtin`, kps' other operators (as cheap per element, exact or nearly); `user`, any
/// other functor (its cost unknown). A table row of one class serves the next where that has none
/// (user, then builtin, then plus).
enum class OperatorClass { plus, builtin, user };

inline const char* to_string(OperatorClass c) {
  return c == OperatorClass::plus ? "plus" : c == OperatorClass::builtin ? "builtin" : "user";
}

namespace impl {

template <class T>
inline constexpr bool is_arithmetic_value_v = std::is_arithmetic_v<T>
#if defined(KOKKOS_HALF_T_IS_FLOAT) && !KOKKOS_HALF_T_IS_FLOAT
                                              || std::is_same_v<T, Kokkos::Experimental::half_t>
#endif
    ;

/// The largest and the smallest value of T, infinities where T has them: constexpr variables of
/// a scalar type, which device code may read (CUDA refuses calls of std::numeric_limits' host
/// functions there without --expt-relaxed-constexpr).
template <class T>
inline constexpr T highest_v =
    std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
template <class T>
inline constexpr T lowest_v =
    std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
template <class T>
inline constexpr T max_v = std::numeric_limits<T>::max();

template <class T>
KOKKOS_INLINE_FUNCTION constexpr T highest() {
#if defined(KOKKOS_HALF_T_IS_FLOAT) && !KOKKOS_HALF_T_IS_FLOAT
  if constexpr (std::is_same_v<T, Kokkos::Experimental::half_t>)
    return Kokkos::reduction_identity<T>::min();
  else
#endif
    return highest_v<T>;
}
template <class T>
KOKKOS_INLINE_FUNCTION constexpr T lowest() {
#if defined(KOKKOS_HALF_T_IS_FLOAT) && !KOKKOS_HALF_T_IS_FLOAT
  if constexpr (std::is_same_v<T, Kokkos::Experimental::half_t>)
    return Kokkos::reduction_identity<T>::max();
  else
#endif
    return lowest_v<T>;
}

// Detection of a user operator's members.
template <class Op, class T, class = void>
struct has_identity_member : std::false_type {};
template <class Op, class T>
struct has_identity_member<Op, T, std::void_t<decltype(std::declval<const Op&>().identity())>>
    : std::is_convertible<decltype(std::declval<const Op&>().identity()), T> {};

template <class Op, class = void>
struct declared_commutative {
  static constexpr bool declared = false;
  static constexpr bool value = false;
};
template <class Op>
struct declared_commutative<Op, std::void_t<decltype(Op::commutative)>> {
  static constexpr bool declared = true;
  static constexpr bool value = bool(Op::commutative);
};

}  // namespace impl

/// What kps knows of Op on T (specialize it for an operator of your own instead of giving it
/// members): has_identity and identity(op), commutative, exact (every association gives the same
/// bits: integers' wrapping sums and products, minima, maxima, bitwise operators), op_class and
/// name (benchmark labels). The general form reads a user operator's members.
template <class Op, class T, class Enable = void>
struct operator_traits {
  static constexpr bool has_identity = impl::has_identity_member<Op, T>::value;
  KOKKOS_INLINE_FUNCTION static T identity(const Op& op) {
    if constexpr (has_identity)
      return T(op.identity());
    else
      return T{};
  }
  /// Whether the operator said it is (false where it said nothing).
  static constexpr bool commutative = impl::declared_commutative<Op>::value;
  /// Whether the operator said it is not: the reductions refuse it.
  static constexpr bool declared_noncommutative =
      impl::declared_commutative<Op>::declared && !impl::declared_commutative<Op>::value;
  static constexpr bool exact = false;
  static constexpr OperatorClass op_class = OperatorClass::user;
  static constexpr const char* name = "user";
};

namespace impl {
/// The built-in operators' traits on arithmetic types: identity, commutative, exactness, name.
template <class T, bool Exact, class Derived>
struct builtin_traits {
  static constexpr bool has_identity = true;
  static constexpr bool commutative = true;
  static constexpr bool declared_noncommutative = false;
  static constexpr bool exact = Exact;
  static constexpr OperatorClass op_class = OperatorClass::builtin;
};
}  // namespace impl

template <class T>
struct operator_traits<plus, T, std::enable_if_t<impl::is_arithmetic_value_v<T>>>
    : impl::builtin_traits<T, std::is_integral_v<T>, plus> {
  static constexpr OperatorClass op_class = OperatorClass::plus;
  static constexpr const char* name = "plus";
  KOKKOS_INLINE_FUNCTION static constexpr T identity(const plus&) { return T(0); }
};
/// kps::plus on a user type (a struct with operator+): T{} is its identity (value-initialized:
/// zero for aggregates of numbers), commutative as declared by nothing: the scans keep the order.
template <class T>
struct operator_traits<plus, T, std::enable_if_t<!impl::is_arithmetic_value_v<T>>> {
  static constexpr bool has_identity = true;
  KOKKOS_INLINE_FUNCTION static T identity(const plus&) { return T{}; }
  static constexpr bool commutative = false;
  static constexpr bool declared_noncommutative = false;
  static constexpr bool exact = false;
  static constexpr OperatorClass op_class = OperatorClass::user;
  static constexpr const char* name = "plus";
};
template <class T>
struct operator_traits<multiplies, T, std::enable_if_t<impl::is_arithmetic_value_v<T>>>
    : impl::builtin_traits<T, std::is_integral_v<T>, multiplies> {
  static constexpr const char* name = "multiplies";
  KOKKOS_INLINE_FUNCTION static constexpr T identity(const multiplies&) { return T(1); }
};
template <class T>
struct operator_traits<minimum, T, std::enable_if_t<impl::is_arithmetic_value_v<T>>>
    : impl::builtin_traits<T, true, minimum> {
  static constexpr const char* name = "min";
  KOKKOS_INLINE_FUNCTION static constexpr T identity(const minimum&) { return impl::highest<T>(); }
};
template <class T>
struct operator_traits<maximum, T, std::enable_if_t<impl::is_arithmetic_value_v<T>>>
    : impl::builtin_traits<T, true, maximum> {
  static constexpr const char* name = "max";
  KOKKOS_INLINE_FUNCTION static constexpr T identity(const maximum&) { return impl::lowest<T>(); }
};
template <class T>
struct operator_traits<bit_and, T, std::enable_if_t<std::is_integral_v<T>>> : impl::builtin_traits<T, true, bit_and> {
  static constexpr const char* name = "bit_and";
  KOKKOS_INLINE_FUNCTION static constexpr T identity(const bit_and&) { return T(~T(0)); }
};
template <class T>
struct operator_traits<bit_or, T, std::enable_if_t<std::is_integral_v<T>>> : impl::builtin_traits<T, true, bit_or> {
  static constexpr const char* name = "bit_or";
  KOKKOS_INLINE_FUNCTION static constexpr T identity(const bit_or&) { return T(0); }
};
template <class T>
struct operator_traits<bit_xor, T, std::enable_if_t<std::is_integral_v<T>>> : impl::builtin_traits<T, true, bit_xor> {
  static constexpr const char* name = "bit_xor";
  KOKKOS_INLINE_FUNCTION static constexpr T identity(const bit_xor&) { return T(0); }
};
template <class T, class I>
struct operator_traits<arg_minimum, ValueIndex<T, I>> : impl::builtin_traits<T, true, arg_minimum> {
  static constexpr const char* name = "argmin";
  KOKKOS_INLINE_FUNCTION static constexpr ValueIndex<T, I> identity(const arg_minimum&) {
    return {impl::highest<T>(), impl::max_v<I>};
  }
};
template <class T, class I>
struct operator_traits<arg_maximum, ValueIndex<T, I>> : impl::builtin_traits<T, true, arg_maximum> {
  static constexpr const char* name = "argmax";
  KOKKOS_INLINE_FUNCTION static constexpr ValueIndex<T, I> identity(const arg_maximum&) {
    return {impl::lowest<T>(), impl::max_v<I>};
  }
};
template <class T>
struct operator_traits<min_max, MinMax<T>> : impl::builtin_traits<T, true, min_max> {
  static constexpr const char* name = "minmax";
  KOKKOS_INLINE_FUNCTION static constexpr MinMax<T> identity(const min_max&) {
    return {impl::highest<T>(), impl::lowest<T>()};
  }
};

namespace impl {

/// Whether Op is kps::plus on an arithmetic T: the form today's sums and scans were written and
/// measured in, which the kernels keep expression for expression (Kokkos' own vector sums, `+=`
/// with its operands in the order they had): the GPU code of a sum does not change with the
/// operators beside it (test/ptx_same.sh compares them).
template <class Op, class T>
inline constexpr bool is_plus_v = std::is_same_v<Op, plus> && is_arithmetic_value_v<T>;

/// Whether a reduction of Op on T is Kokkos' own sum (a sum of a type of whole ints: Kokkos 3
/// deduces a reduction's value only of such types); others reduce through kps' reducer.
template <class Op, class T>
inline constexpr bool is_kokkos_sum_v = is_plus_v<Op, T> && sizeof(T) % sizeof(int) == 0;

/// Whether Op can be called on two T (and gives a T): what the API checks first.
template <class Op, class T, class = void>
struct is_binary_operator : std::false_type {};
template <class Op, class T>
struct is_binary_operator<Op, T,
                          std::void_t<decltype(std::declval<const Op&>()(std::declval<const T&>(), std::declval<const T&>()))>>
    : std::is_convertible<decltype(std::declval<const Op&>()(std::declval<const T&>(), std::declval<const T&>())), T> {};

/// The operator as the kernels call it: op(a, b) with a before b in the sequence, and
/// after(prefix, x) = op(prefix, x), which for kps::plus keeps today's `x + prefix`.
template <class Op, class T>
KOKKOS_INLINE_FUNCTION T after(const Op& op, const T& prefix, const T& x) {
  if constexpr (is_plus_v<Op, T>)
    return x + prefix;
  else
    return op(prefix, x);
}

/// A value of T or none: what a value of an operator without an identity is carried as (the
/// flag is false in the identity and in the padding of partial tiles).
template <class T>
struct Maybe {
  T value;
  bool valid;
};

/// Op on Maybe values: the identity is {_, false}.
template <class Op>
struct MaybeOp {
  Op op;
  template <class T>
  KOKKOS_INLINE_FUNCTION Maybe<T> operator()(const Maybe<T>& a, const Maybe<T>& b) const {
    if (!a.valid) return b;
    if (!b.valid) return a;
    return {op(a.value, b.value), true};
  }
  template <class T>
  KOKKOS_INLINE_FUNCTION static Maybe<T> identity_of() {
    return {T{}, false};
  }
};

}  // namespace impl

template <class Op, class T>
struct operator_traits<impl::MaybeOp<Op>, impl::Maybe<T>> {
  static constexpr bool has_identity = true;
  KOKKOS_INLINE_FUNCTION static impl::Maybe<T> identity(const impl::MaybeOp<Op>&) {
    return impl::MaybeOp<Op>::template identity_of<T>();
  }
  static constexpr bool commutative = operator_traits<Op, T>::commutative;
  static constexpr bool declared_noncommutative = operator_traits<Op, T>::declared_noncommutative;
  static constexpr bool exact = operator_traits<Op, T>::exact;
  static constexpr OperatorClass op_class = operator_traits<Op, T>::op_class;
  static constexpr const char* name = operator_traits<Op, T>::name;
};

/// The identity of op on T (operator_traits); only for operators that have one.
template <class T, class Op>
KOKKOS_INLINE_FUNCTION T identity_of(const Op& op) {
  static_assert(operator_traits<Op, T>::has_identity, "kps: this operator has no identity() for this value type");
  return operator_traits<Op, T>::identity(op);
}

}  // namespace kps
