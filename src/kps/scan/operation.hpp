// kps/scan/operation.hpp — what every scan algorithm applies besides its input and output: the
// operator (kps/operators.hpp) and the initial value, as CUB's agents carry ScanOpT and InitValueT.
//
// Both live in a kernel as empty bases where they are empty (kps::plus, NoInit: a sum without an
// initial value), so a kernel of today's sums has today's layout and code; an operator with state
// or an initial value is a member like any other.
#pragma once

#include <type_traits>

#include <Kokkos_Core.hpp>

#include "kps/operators.hpp"

namespace kps::impl {

/// No initial value: the first tile's prefix is the operator's identity (out[0] = the identity in
/// an exclusive scan).
struct NoInit {};

/// An initial value: the first tile's prefix (out[0] = value in an exclusive scan; every output of
/// an inclusive one starts from it).
template <class T>
struct InitValue {
  T value;
};

/// op(init, x): x where there is no initial value.
template <class Op, class T>
KOKKOS_INLINE_FUNCTION T with_init(const Op&, const NoInit&, const T& x) {
  return x;
}
template <class Op, class T>
KOKKOS_INLINE_FUNCTION T with_init(const Op& op, const InitValue<T>& init, const T& x) {
  return op(init.value, x);
}

/// The exclusive prefix of the first element: the initial value, else the identity.
template <class T, class Op>
KOKKOS_INLINE_FUNCTION T first_prefix(const Op& op, const NoInit&) {
  return operator_traits<Op, T>::identity(op);
}
template <class T, class Op>
KOKKOS_INLINE_FUNCTION T first_prefix(const Op&, const InitValue<T>& init) {
  return init.value;
}

/// Holds a kernel's operator: an empty base where the operator is an empty class, else a member.
/// Made from the operator (a KOKKOS_LAMBDA with captures has no default constructor and no
/// assignment); default-constructed where the operator is.
template <class Op, bool Empty = std::is_empty_v<Op> && !std::is_final_v<Op>>
struct OpHolder : Op {
  OpHolder() = default;
  explicit OpHolder(const Op& o) : Op(o) {}
  KOKKOS_INLINE_FUNCTION const Op& scan_op() const { return *this; }
};
template <class Op>
struct OpHolder<Op, false> {
  Op op_;
  OpHolder() = default;
  explicit OpHolder(const Op& o) : op_(o) {}
  KOKKOS_INLINE_FUNCTION const Op& scan_op() const { return op_; }
};

/// Holds a kernel's initial value (an empty base for NoInit).
template <class Init, bool Empty = std::is_empty_v<Init>>
struct InitHolder : Init {
  InitHolder() = default;
  explicit InitHolder(const Init& i) : Init(i) {}
  KOKKOS_INLINE_FUNCTION const Init& scan_init() const { return *this; }
};
template <class Init>
struct InitHolder<Init, false> {
  Init init_{};
  InitHolder() = default;
  explicit InitHolder(const Init& i) : init_(i) {}
  KOKKOS_INLINE_FUNCTION const Init& scan_init() const { return init_; }
};

}  // namespace kps::impl

namespace kps::impl {

/// Whether a scan of T under Op over In and Out without an initial value is one of today's sums:
/// kps::plus on contiguous memory of an arithmetic type of 4 or 8 bytes (int32, int64, float,
/// double), the problems the kernels keep compiled as they were (every items count, exclusive and
/// inclusive as kernels of their own).
template <class T, class Op, class In, class Out, class Init>
inline constexpr bool classic_sum_v = is_plus_v<Op, T> && (sizeof(T) == 4 || sizeof(T) == 8) &&
                                      std::is_same_v<In, const T*> && std::is_same_v<Out, T*> &&
                                      std::is_same_v<Init, NoInit>;

/// One scan's types, as the kernels take them: the value type T, the operator, the input and
/// output accessors (kps/impl/access.hpp) and the initial value (NoInit or InitValue<T>). The
/// default is today's sum of contiguous memory.
///
/// Today's sums compile a kernel per items count (8 to 256), load, and exclusive or inclusive, as
/// before. Every other problem (`run_time_flags`) compiles a third of that: items counts of 64, 128
/// and 256 bytes per thread (kps::impl::single_pass_items), and exclusive or inclusive, the
/// deterministic look-back or not, as flags of one kernel (ScanFlags): what each operator, type
/// and accessor costs the build stays small, and so does the CI's. A sum in its deterministic form
/// runs as such a problem too.
template <class T, class Op = plus, class In = const T*, class Out = T*, class Init = NoInit,
          bool RunTimeFlags = !classic_sum_v<T, Op, In, Out, Init>>
struct ScanProblem {
  using value_type = T;
  using op_type = Op;
  using in_type = In;
  using out_type = Out;
  using init_type = Init;
  static constexpr bool run_time_flags = RunTimeFlags;
  /// Contiguous input and output of T: the 16-byte vector paths apply.
  static constexpr bool contiguous = std::is_same_v<In, const T*> && std::is_same_v<Out, T*>;
};

/// A kernel's exclusive and deterministic flags where they are decided at run time (an empty base
/// where they are the kernel's template arguments).
template <bool RunTime>
struct ScanFlags {
  KOKKOS_INLINE_FUNCTION constexpr bool exclusive_or(bool compiled) const { return compiled; }
  /// As the look-back takes it: std::false_type where it is compiled without the deterministic form.
  KOKKOS_INLINE_FUNCTION constexpr std::false_type deterministic() const { return {}; }
  KOKKOS_INLINE_FUNCTION constexpr bool is_deterministic() const { return false; }
};
template <>
struct ScanFlags<true> {
  bool exclusive_flag = true;
  bool deterministic_flag = false;
  KOKKOS_INLINE_FUNCTION bool exclusive_or(bool) const { return exclusive_flag; }
  KOKKOS_INLINE_FUNCTION bool deterministic() const { return deterministic_flag; }
  KOKKOS_INLINE_FUNCTION bool is_deterministic() const { return deterministic_flag; }
};

/// A flag that may be a compile-time false (std::false_type), as a bool.
KOKKOS_INLINE_FUNCTION constexpr bool flag_on(std::false_type) { return false; }
KOKKOS_INLINE_FUNCTION constexpr bool flag_on(bool b) { return b; }

}  // namespace kps::impl
