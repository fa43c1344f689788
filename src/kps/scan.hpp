// kps/scan.hpp — public scan API: exclusive and inclusive prefix sums of rank-1 Kokkos Views
// of int32, int64, float or double, on any execution space, with a choice of algorithm.
//
//   kps::exclusive_scan(exec, in, out);                         // automatic
//   kps::inclusive_scan(exec, in, out, kps::ScanAlgorithm::blelloch);
//
// `in` and `out` may be the same View (in place). Calls are asynchronous on `exec` like any
// Kokkos dispatch; mismatched lengths or types throw std::invalid_argument.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <Kokkos_Core.hpp>

#include "kps/device_scan.hpp"
#include "kps/types.hpp"

namespace kps {

/// Scan algorithms. Every one is correct on every backend.
enum class ScanAlgorithm {
  /// The fastest for the backend and size (see kps::choose_scan_algorithm).
  automatic,
  /// Kokkos::parallel_scan: two passes over the input on GPUs (~3n memory traffic).
  kokkos,
  /// The seed's naive team scan in tiles + scan of tile totals + propagation.
  hillis_steele,
  /// The seed's work-efficient team scan in tiles + scan of tile totals + propagation.
  blelloch,
  /// Decoupled look-back single-pass scan (Merrill & Garland 2016): one launch, ~2n traffic;
  /// the fastest on GPUs from a few thousand elements up.
  single_pass,
};

inline const char* to_string(ScanAlgorithm a) {
  switch (a) {
    case ScanAlgorithm::automatic: return "automatic";
    case ScanAlgorithm::kokkos: return "kokkos";
    case ScanAlgorithm::hillis_steele: return "hillis_steele";
    case ScanAlgorithm::blelloch: return "blelloch";
    case ScanAlgorithm::single_pass: return "single_pass";
  }
  return "unknown";
}

inline std::optional<ScanAlgorithm> scan_algorithm_from_string(std::string_view s) {
  for (ScanAlgorithm a : {ScanAlgorithm::automatic, ScanAlgorithm::kokkos, ScanAlgorithm::hillis_steele,
                          ScanAlgorithm::blelloch, ScanAlgorithm::single_pass})
    if (s == to_string(a)) return a;
  return std::nullopt;
}

/// Elements from which `automatic` runs the single pass on a GPU: below, 16384-element tiles
/// leave most SMs idle and Kokkos' scan is as fast or faster. H100 crossover with the session-5
/// defaults (same run, results/h100-cuda/scan/scan-single-pass.json): the single pass is 1.12x
/// (int32) and 1.39x (double) Kokkos' scan at 2^18, 1.02x / 1.04x at 2^16 (noise at that size),
/// 0.96x / 0.94x at 2^14; so both from 2^18.
template <class T>
inline constexpr std::size_t single_pass_gpu_threshold = std::size_t(1) << 18;

/// What `automatic` runs for n elements on Exec: the algorithm measured fastest there.
/// On the host backends the team-parallel single pass wins once there are enough tiles to
/// spread over the threads, Kokkos' scan below that; on GPUs from single_pass_gpu_threshold.
template <class Exec, class T>
ScanAlgorithm choose_scan_algorithm(std::size_t n) {
  if (impl::is_host_space_v<Exec>) return n >= 4096 ? ScanAlgorithm::single_pass : ScanAlgorithm::kokkos;
  return n >= single_pass_gpu_threshold<T> ? ScanAlgorithm::single_pass : ScanAlgorithm::kokkos;
}

/// Extra knobs; the defaults are what `automatic` and the named algorithms use.
struct ScanOptions {
  SinglePassPolicy single_pass;
  TileScanPolicy tile;
};

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
  if (alg == ScanAlgorithm::automatic) alg = choose_scan_algorithm<Exec, typename InView::non_const_value_type>(n);

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
