// bench/support/checks.hpp — host references and comparisons for benchmark results: exact for
// integers, relative tolerance for floating point (references accumulated in long double).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

namespace kps::bench {

template <class T>
constexpr double tolerance() {
  return std::is_same_v<T, float> ? 1e-4 : 1e-10;
}

/// Host copy of a View.
template <class V>
std::vector<typename V::non_const_value_type> to_host(const V& v) {
  std::vector<typename V::non_const_value_type> h(v.extent(0));
  Kokkos::View<typename V::non_const_value_type*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> hv(
      h.data(), h.size());
  Kokkos::deep_copy(hv, v);
  return h;
}

/// Exclusive or inclusive scan of x on the host, accumulated in long double (exact for ints).
template <class T>
std::vector<T> reference_scan(const std::vector<T>& x, bool exclusive) {
  std::vector<T> r(x.size());
  // Integers wrap on overflow like the device's two's complement arithmetic (defined for
  // unsigned types); floating point is accumulated in long double.
  using Acc = std::conditional_t<std::is_integral_v<T>, std::make_unsigned_t<std::conditional_t<std::is_integral_v<T>, T, int>>, long double>;
  Acc s = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (exclusive) r[i] = static_cast<T>(s);
    s += static_cast<Acc>(x[i]);
    if (!exclusive) r[i] = static_cast<T>(s);
  }
  return r;
}

/// Empty when got matches want, else a message naming the first mismatch.
template <class T>
std::string compare(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size()) return "size mismatch";
  for (std::size_t i = 0; i < got.size(); ++i) {
    bool ok;
    if constexpr (std::is_integral_v<T>)
      ok = got[i] == want[i];
    else
      ok = std::abs(double(got[i]) - double(want[i])) <= tolerance<T>() * (std::abs(double(want[i])) + 1.0);
    if (!ok)
      return "wrong result at index " + std::to_string(i) + " of " + std::to_string(got.size()) + ": got " +
             std::to_string(got[i]) + ", expected " + std::to_string(want[i]);
  }
  return {};
}

/// Empty when the scalar matches, else a message.
template <class T>
std::string compare_scalar(T got, long double want, std::size_t n) {
  bool ok;
  if constexpr (std::is_integral_v<T>)
    ok = got == static_cast<T>(static_cast<std::uint64_t>(static_cast<long long>(want)));  // wraps like the device
  else
    ok = std::abs((long double)got - want) <= tolerance<T>() * (std::abs(want) + 1.0L) * (1.0 + std::log2(double(n) + 1) / 8);
  if (ok) return {};
  return "wrong result: got " + std::to_string(got) + ", expected " + std::to_string((double)want);
}

}  // namespace kps::bench
