// kps/scan.hpp — public scan API: exclusive and inclusive prefix sums of rank-1 Kokkos Views
// of int32, int64, float or double, on any execution space, with a choice of algorithm.
//
//   kps::exclusive_scan(exec, in, out);                         // automatic
//   kps::inclusive_scan(exec, in, out, kps::ScanAlgorithm::blelloch);
//
// `in` and `out` may be the same View (in place); an `out` that overlaps `in` otherwise is refused.
// Calls are asynchronous on `exec` like any Kokkos dispatch; mismatched lengths, overlaps and
// policies out of range throw std::invalid_argument. The algorithms, their knobs and what each
// costs: kps/scan/policy.hpp; the layers below: kps/scan/ (tile status, tile loads, look-back,
// per-tile kernel, dispatch, tuning) and kps/team/team_scan.hpp.
#pragma once

#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>

#include <Kokkos_Core.hpp>

#include "kps/impl/workspace.hpp"
#include "kps/scan/dispatch.hpp"
#include "kps/scan/kokkos_scan.hpp"
#include "kps/scan/policy.hpp"
#include "kps/scan/tile_scan.hpp"
#include "kps/scan/tuning.hpp"
#include "kps/types.hpp"

namespace kps {

/// What `automatic` runs for n elements of T on exec: the algorithm measured fastest there (the
/// tuning table of exec's device, else the rule of kps::impl::scan_rule).
template <class T, class Exec>
ScanAlgorithm choose_scan_algorithm(const Exec& exec, std::size_t n) {
  return impl::choose_scan_algorithm<Exec, T>(exec, n);
}

namespace impl {

template <class Exec, class InView, class OutView>
void scan(const Exec& exec, const InView& in, const OutView& out, bool exclusive, ScanAlgorithm alg,
          const ScanOptions& options) {
  static_assert(Kokkos::is_execution_space<Exec>::value, "kps scan: exec must be a Kokkos execution space");
  static_assert(Kokkos::is_view<InView>::value && Kokkos::is_view<OutView>::value,
                "kps scan: in and out must be Kokkos Views");
  static_assert(InView::rank == 1 && OutView::rank == 1, "kps scan: in and out must be rank-1 Views");
  using T = typename OutView::non_const_value_type;
  static_assert(std::is_same_v<typename InView::non_const_value_type, T>,
                "kps scan: in and out must have the same element type");
  static_assert(std::is_same_v<typename OutView::value_type, T>, "kps scan: out must not be const");
  static_assert(is_element_type_v<T>, "kps scan: element types are signed 32/64-bit integers, float and double");
  static_assert(Kokkos::SpaceAccessibility<Exec, typename InView::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<Exec, typename OutView::memory_space>::accessible,
                "kps scan: in and out must be accessible from exec");
  if (in.extent(0) != out.extent(0))
    throw std::invalid_argument("kps scan: in has " + std::to_string(in.extent(0)) + " elements but out has " +
                                std::to_string(out.extent(0)));
  if (in.span_is_contiguous() == false || out.span_is_contiguous() == false)
    throw std::invalid_argument("kps scan: in and out must be contiguous (LayoutRight/LayoutLeft rank-1)");
  const std::size_t n = in.extent(0);
  if (n == 0) return;
  // In place is the same View; any other overlap would read elements after they are written.
  const auto first_in = reinterpret_cast<std::uintptr_t>(in.data()), first_out = reinterpret_cast<std::uintptr_t>(out.data());
  const std::uintptr_t bytes = n * sizeof(T);
  if (first_in != first_out && first_in < first_out + bytes && first_out < first_in + bytes)
    throw std::invalid_argument("kps scan: out overlaps in without being the same View (" +
                                std::to_string((std::intptr_t(first_out) - std::intptr_t(first_in)) / std::intptr_t(sizeof(T))) +
                                " elements apart); scan in place with one View, or into memory of its own");
  if (alg == ScanAlgorithm::automatic) alg = kps::choose_scan_algorithm<T>(exec, n);

  Workspace<Exec>& ws = workspace(exec);
  std::lock_guard<std::mutex> lock(ws.mutex);
  const T* src = in.data();
  T* dst = out.data();
  switch (alg) {
    case ScanAlgorithm::kokkos: kokkos_scan(exec, src, dst, n, exclusive); break;
    case ScanAlgorithm::hillis_steele:
    case ScanAlgorithm::blelloch: {
      const TeamScanAlgorithm team =
          alg == ScanAlgorithm::blelloch ? TeamScanAlgorithm::blelloch : TeamScanAlgorithm::hillis_steele;
      const int tile = tile_scan_tile(options.tile.tile);
      unsigned char* scratch = ws.scratch_bytes(exec, tile_scan_scratch_bytes<T>(n, tile));
      tile_scan(exec, src, dst, n, exclusive, team, options.tile, scratch);
      break;
    }
    case ScanAlgorithm::single_pass:
    case ScanAlgorithm::automatic: single_pass_scan(exec, src, dst, n, exclusive, options.single_pass, ws); break;
  }
}

}  // namespace impl

/// out[i] = in[0] + ... + in[i-1] (out[0] = 0).
template <class Exec, class InView, class OutView>
void exclusive_scan(const Exec& exec, const InView& in, const OutView& out,
                    ScanAlgorithm alg = ScanAlgorithm::automatic, const ScanOptions& options = {}) {
  impl::scan(exec, in, out, true, alg, options);
}

/// out[i] = in[0] + ... + in[i].
template <class Exec, class InView, class OutView>
void inclusive_scan(const Exec& exec, const InView& in, const OutView& out,
                    ScanAlgorithm alg = ScanAlgorithm::automatic, const ScanOptions& options = {}) {
  impl::scan(exec, in, out, false, alg, options);
}

}  // namespace kps
