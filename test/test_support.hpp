// test/test_support.hpp — execution spaces under test, random inputs with fixed seeds and
// host references for the kps tests.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include "support/checks.hpp"
#include "support/execution_space.hpp"

namespace kps::test {

using kps::bench::DeviceType;
using kps::bench::ExecutionSpace;

/// Every enabled host execution space, plus kps' own (ExecutionSpace) where it is a device.
using ExecSpaces = std::tuple<
#if defined(KOKKOS_ENABLE_OPENMP)
    Kokkos::OpenMP,
#endif
#if defined(KOKKOS_ENABLE_THREADS)
    Kokkos::Threads,
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
    Kokkos::Serial,
#endif
    ExecutionSpace>;

/// Calls f(Exec{}) for each distinct execution space of ExecSpaces.
template <class F, std::size_t I = 0, class... Seen>
void for_each_exec(F&& f) {
  if constexpr (I < std::tuple_size_v<ExecSpaces>) {
    using E = std::tuple_element_t<I, ExecSpaces>;
    if constexpr (!(std::is_same_v<E, Seen> || ...)) {
      SCOPED_TRACE(E::name());
      f(E{});
      for_each_exec<F, I + 1, Seen..., E>(std::forward<F>(f));
    } else {
      for_each_exec<F, I + 1, Seen...>(std::forward<F>(f));
    }
  }
}

/// n random values with a fixed seed: integers in [-50, 50], floating point in [-1, 1).
template <class T>
std::vector<T> random_values(std::size_t n, std::uint32_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<T> v(n);
  if constexpr (std::is_integral_v<T>) {
    std::uniform_int_distribution<int> d(-50, 50);
    for (auto& x : v) x = T(d(gen));
  } else {
    std::uniform_real_distribution<double> d(-1.0, 1.0);
    for (auto& x : v) x = T(d(gen));
  }
  return v;
}

template <class T, class Space>
Kokkos::View<T*, Space> to_device(const std::vector<T>& h, const char* label = "kps::test") {
  Kokkos::View<T*, Space> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), h.size());
  Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> hv(h.data(), h.size());
  Kokkos::deep_copy(d, hv);
  return d;
}

// One reference and tolerance for the tests and the benchmarks' checks (support/checks.hpp).
using bench::reference_scan;
using bench::reference_sum;
using bench::scan_element_matches;
using bench::sum_matches;
using bench::to_host;
using bench::tolerance;

}  // namespace kps::test
