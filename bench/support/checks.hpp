// bench/support/checks.hpp — the one set of host references and comparisons of kps' results, for
// the benchmarks' checks and the tests alike: exact for integers (wrapping like the device),
// relative tolerance for floating point (references accumulated in long double).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

namespace kps::bench {

/// Relative tolerance of floating-point results (integers are exact): float 2e-4, double 1e-10.
template <class T>
constexpr double tolerance() {
  return std::is_same_v<T, float> ? 2e-4 : 1e-10;
}

/// Whether element i of a scan matches its reference: exactly for integers; for floating point
/// within tolerance x (1 + |want| + sqrt(i)) (the rounding of the i additions before it).
template <class T>
bool scan_element_matches(T got, T want, std::size_t i) {
  if constexpr (std::is_integral_v<T>)
    return got == want;
  else
    return std::abs(double(got) - double(want)) <= tolerance<T>() * (1.0 + std::abs(double(want)) + std::sqrt(double(i)));
}

/// Whether a sum (or dot product) of n terms matches its reference: integers wrap like the
/// device's two's complement; floating point within tolerance x ((1 + |want|)(1 + log2(n + 1) / 8)
/// + 4 sqrt(n)) (a reduction's rounding grows with its depth, and with sqrt(n) for sums near 0).
template <class T>
bool sum_matches(T got, long double want, std::size_t n) {
  if constexpr (std::is_integral_v<T>)
    return got == static_cast<T>(static_cast<std::uint64_t>(static_cast<long long>(want)));
  else
    return std::abs((long double)got - want) <=
           tolerance<T>() * ((std::abs(want) + 1.0L) * (1.0 + std::log2(double(n) + 1) / 8) + 4 * std::sqrt(double(n)));
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

/// Compensated (Kahan) sum in long double of x[i] (or x[i] * y[i]) over [begin, end).
template <class T>
long double kahan_sum(const T* x, const T* y, std::size_t begin, std::size_t end) {
  long double s = 0, c = 0;
  for (std::size_t i = begin; i < end; ++i) {
    const long double v = y ? (long double)x[i] * (long double)y[i] : (long double)x[i];
    const long double a = v - c;
    const long double t = s + a;
    c = (t - s) - a;
    s = t;
  }
  return s;
}

/// The reference of a sum of x (y null) or of its dot product with *y, split over the host's
/// threads (at 2^30 elements a serial sum takes seconds).
template <class T>
long double reference_sum(const std::vector<T>& x, const std::vector<T>* y = nullptr) {
  const std::size_t n = x.size();
  const std::size_t threads = std::max<std::size_t>(1, std::min<std::size_t>(std::thread::hardware_concurrency(), n >> 20));
  std::vector<long double> part(threads);
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t)
    pool.emplace_back([&, t] { part[t] = kahan_sum(x.data(), y ? y->data() : nullptr, n * t / threads, n * (t + 1) / threads); });
  for (auto& th : pool) th.join();
  long double s = 0;
  for (long double p : part) s += p;
  return s;
}

/// Empty when got matches want, else a message naming the first mismatch. Split over the host's
/// threads like reference_sum (a check of 2^30 doubles element by element takes seconds).
template <class T>
std::string compare(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size()) return "size mismatch";
  const std::size_t n = got.size();
  const std::size_t threads = std::max<std::size_t>(1, std::min<std::size_t>(std::thread::hardware_concurrency(), n >> 20));
  std::vector<std::size_t> first(threads, n);
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (std::size_t i = n * t / threads, end = n * (t + 1) / threads; i < end; ++i)
        if (!scan_element_matches(got[i], want[i], i)) {
          first[t] = i;
          return;
        }
    });
  for (auto& th : pool) th.join();
  const std::size_t i = *std::min_element(first.begin(), first.end());
  if (i == n) return {};
  return "wrong result at index " + std::to_string(i) + " of " + std::to_string(n) + ": got " + std::to_string(got[i]) +
         ", expected " + std::to_string(want[i]);
}

/// Empty when the scalar matches, else a message.
template <class T>
std::string compare_scalar(T got, long double want, std::size_t n) {
  if (sum_matches(got, want, n)) return {};
  return "wrong result: got " + std::to_string(got) + ", expected " + std::to_string((double)want);
}

}  // namespace kps::bench
