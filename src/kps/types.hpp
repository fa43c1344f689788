// kps/types.hpp — the element types kps studies and the names benchmarks and reports use
// for them (int32, int64, float, double).
#pragma once

#include <cstdint>
#include <type_traits>

namespace kps {

template <class T>
struct element_type;  // only the four studied types are defined

template <>
struct element_type<std::int32_t> {
  static constexpr const char* name = "int32";
};
template <>
struct element_type<std::int64_t> {
  static constexpr const char* name = "int64";
};
template <>
struct element_type<float> {
  static constexpr const char* name = "float";
};
template <>
struct element_type<double> {
  static constexpr const char* name = "double";
};

template <class T>
inline constexpr bool is_element_type_v =
    std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t> ||
    std::is_same_v<T, float> || std::is_same_v<T, double>;

/// Name of T in benchmark labels and reports: "int32", "int64", "float", "double".
template <class T>
constexpr const char* type_name() {
  return element_type<T>::name;
}

}  // namespace kps
