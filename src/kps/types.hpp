// kps/types.hpp — the element types kps' scans and reductions accept, and the names benchmarks,
// reports and the tuning tables use for them: int32, int64, float, double.
//
// int32 and int64 are every signed integer type of 4 and 8 bytes: std::int32_t and std::int64_t,
// and `long long` where std::int64_t is `long` (Linux), or `long` where it is `long long`.
// Character types, bool, unsigned types and other sizes are refused at compile time.
#pragma once

#include <cstdint>
#include <type_traits>

namespace kps {

namespace impl {
template <class T>
inline constexpr bool is_character_v = std::is_same_v<T, char> || std::is_same_v<T, signed char> ||
                                       std::is_same_v<T, wchar_t> || std::is_same_v<T, char16_t> ||
                                       std::is_same_v<T, char32_t>;

template <class T>
inline constexpr bool is_signed_integer_v =
    std::is_integral_v<T> && std::is_signed_v<T> && !is_character_v<T> && (sizeof(T) == 4 || sizeof(T) == 8);
}  // namespace impl

/// True for the types kps computes on: signed 32- and 64-bit integers, float, double.
template <class T>
inline constexpr bool is_element_type_v =
    impl::is_signed_integer_v<T> || std::is_same_v<T, float> || std::is_same_v<T, double>;

/// Name of T in benchmark labels, reports and tables: "int32", "int64", "float", "double".
template <class T>
constexpr const char* type_name() {
  static_assert(is_element_type_v<T>, "kps: element types are signed 32/64-bit integers, float and double");
  if constexpr (std::is_same_v<T, float>)
    return "float";
  else if constexpr (std::is_same_v<T, double>)
    return "double";
  else
    return sizeof(T) == 4 ? "int32" : "int64";
}

}  // namespace kps
