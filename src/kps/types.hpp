// kps/types.hpp — the value types kps' scans and reductions take, and the one list of the named
// ones: the types benchmarks, reports, the tests' typed suites and the tuning tables name
// (int8 ... uint64, float, double, and half where the backend has a 16-bit half_t).
//
// Any trivially copyable type is a value type: the named ones below, and a user's structs (a
// segmented scan's (flag, value) pair, a 2x2 matrix), which kps keys in its tables by their size
// (`bytes16`). Up to 16 bytes a value travels the look-back in one 16-byte status pair or less
// (kps/scan/tile_status.hpp); larger ones in as many 16-byte pairs as they need, correct and
// slower (docs/operators.md).
//
// int8, int16, int32, int64 name every signed integer type of 1, 2, 4 and 8 bytes (std::int64_t
// and `long long` alike), uint8 ... uint64 the unsigned ones. char, wchar_t, char8/16/32_t and
// bool are characters and truth values, not numbers: refused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

namespace kps {

/// A list of types (the tests' typed suites and kps-bench's type axis iterate one).
template <class... T>
struct type_list {
  static constexpr std::size_t size = sizeof...(T);
};

// The named value types, one line each: X(name, type). A new type is a line here and its tests.
#if defined(KOKKOS_HALF_T_IS_FLOAT) && !KOKKOS_HALF_T_IS_FLOAT
#define KPS_IMPL_HALF_TYPE(X) X(half, Kokkos::Experimental::half_t)
#define KPS_HAS_HALF 1
#else
#define KPS_IMPL_HALF_TYPE(X)
#endif
#define KPS_ELEMENT_TYPES(X) \
  X(int8, std::int8_t)       \
  X(int16, std::int16_t)     \
  X(int32, std::int32_t)     \
  X(int64, std::int64_t)     \
  X(uint8, std::uint8_t)     \
  X(uint16, std::uint16_t)   \
  X(uint32, std::uint32_t)   \
  X(uint64, std::uint64_t)   \
  X(float, float)            \
  X(double, double)          \
  KPS_IMPL_HALF_TYPE(X)

namespace impl {
#define KPS_IMPL_TYPE_ENTRY(name, type) , type
template <class Sentinel, class... T>
struct drop_first {
  using type = type_list<T...>;
};
}  // namespace impl

/// Every named value type, in the order above.
using element_types = typename impl::drop_first<void KPS_ELEMENT_TYPES(KPS_IMPL_TYPE_ENTRY)>::type;
#undef KPS_IMPL_TYPE_ENTRY

namespace impl {
template <class T>
inline constexpr bool is_character_v = std::is_same_v<T, char> || std::is_same_v<T, wchar_t> ||
                                       std::is_same_v<T, char16_t> || std::is_same_v<T, char32_t> ||
#if defined(__cpp_char8_t)
                                       std::is_same_v<T, char8_t> ||
#endif
                                       std::is_same_v<T, bool>;

/// The named type an integer type stands for (int64 for long long as for long), else T.
template <class T, class = void>
struct canonical {
  using type = T;
};
template <class T>
struct canonical<T, std::enable_if_t<std::is_integral_v<T> && !is_character_v<T>>> {
  using type = std::conditional_t<
      std::is_signed_v<T>,
      std::conditional_t<sizeof(T) == 1, std::int8_t,
                         std::conditional_t<sizeof(T) == 2, std::int16_t,
                                            std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>>>,
      std::conditional_t<sizeof(T) == 1, std::uint8_t,
                         std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                            std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>>;
};

template <class T, class List>
struct in_list;
template <class T, class... U>
struct in_list<T, type_list<U...>> : std::bool_constant<(std::is_same_v<T, U> || ...)> {};
}  // namespace impl

/// True for the named types (any integer type of 1 to 8 bytes but characters and bool, float,
/// double, half where the backend has one).
template <class T>
inline constexpr bool is_named_type_v =
    !impl::is_character_v<T> && (!std::is_integral_v<T> || sizeof(T) <= 8) &&
    impl::in_list<typename impl::canonical<std::remove_cv_t<T>>::type, element_types>::value;

/// True for every type kps scans and reduces: trivially copyable, not a character or a bool.
template <class T>
inline constexpr bool is_element_type_v =
    std::is_trivially_copyable_v<T> && !impl::is_character_v<std::remove_cv_t<T>> && !std::is_pointer_v<T> &&
    (!std::is_integral_v<T> || is_named_type_v<T>);

namespace impl {
template <class T>
constexpr const char* named_type_name() {
  using C = typename canonical<std::remove_cv_t<T>>::type;
#define KPS_IMPL_TYPE_NAME(name, type) \
  if constexpr (std::is_same_v<C, type>) return #name;
  KPS_ELEMENT_TYPES(KPS_IMPL_TYPE_NAME)
#undef KPS_IMPL_TYPE_NAME
  return nullptr;
}

/// "bytes16": the size key of a type of 16 bytes in the tables and of an unnamed type in
/// benchmark labels.
constexpr const char* size_key(std::size_t bytes) {
  switch (bytes) {
    case 1: return "bytes1";
    case 2: return "bytes2";
    case 4: return "bytes4";
    case 8: return "bytes8";
    case 16: return "bytes16";
    case 32: return "bytes32";
    case 64: return "bytes64";
    default: return "bytes";
  }
}
}  // namespace impl

/// Name of T in benchmark labels, reports and tables: "int32", "uint8", "double", ...; a user
/// type's size key ("bytes16").
template <class T>
constexpr const char* type_name() {
  static_assert(is_element_type_v<T>,
                "kps: value types are trivially copyable types (not characters, bool or pointers)");
  if constexpr (is_named_type_v<T>)
    return impl::named_type_name<T>();
  else
    return impl::size_key(sizeof(T));
}

/// What the tables, kps-bench and the reports know of a named type at run time.
struct NamedType {
  const char* name;
  std::size_t size;
  bool integer;
  bool is_signed;
};

#define KPS_IMPL_NAMED_TYPE(name, type) \
  NamedType{#name, sizeof(type), std::is_integral_v<type>, std::is_integral_v<type> && std::is_signed_v<type>},
/// Every named type, in element_types' order.
inline constexpr NamedType named_types[] = {KPS_ELEMENT_TYPES(KPS_IMPL_NAMED_TYPE)};
#undef KPS_IMPL_NAMED_TYPE

/// The named type called `name`, or null.
inline const NamedType* find_named_type(const char* name) {
  for (const NamedType& t : named_types) {
    const char *a = t.name, *b = name;
    while (*a && *a == *b) ++a, ++b;
    if (*a == 0 && *b == 0) return &t;
  }
  return nullptr;
}

/// Calls f(T{}) for every named type (in element_types' order).
template <class F, class... T>
void for_each_type(type_list<T...>, F&& f) {
  (f(T{}), ...);
}

}  // namespace kps
