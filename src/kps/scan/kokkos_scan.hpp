// kps/scan/kokkos_scan.hpp — ScanAlgorithm::kokkos: Kokkos::parallel_scan over the range (two
// passes over the input on GPUs), the peer every other scan is measured against.
#pragma once

#include <cstddef>

#include <Kokkos_Core.hpp>

namespace kps::impl {

template <class Exec, class T>
void kokkos_scan(const Exec& exec, const T* in, T* out, std::size_t n, bool exclusive) {
  if (n == 0) return;
  Kokkos::parallel_scan(
      exclusive ? "kps::kokkos_scan::exclusive" : "kps::kokkos_scan::inclusive",
      Kokkos::RangePolicy<Exec>(exec, 0, n), KOKKOS_LAMBDA(std::size_t i, T& update, const bool final) {
        const T v = in[i];
        if (final && exclusive) out[i] = update;
        update += v;
        if (final && !exclusive) out[i] = update;
      });
}

}  // namespace kps::impl
