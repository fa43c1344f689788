// kps/scan/tile_scan.hpp — the seed's two-level scans on a team algorithm (kps/team/team_scan.hpp):
// each tile scanned by one team in scratch, a scan of the tile totals (recursively, the same
// algorithm), and the totals added back (propagation): ~4n memory traffic, three launches per
// level. ScanAlgorithm::hillis_steele and ::blelloch.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include <Kokkos_Core.hpp>

#include "kps/impl/kokkos_compat.hpp"
#include "kps/scan/policy.hpp"
#include "kps/team/team_scan.hpp"

namespace kps::impl {

/// Scans each tile of `in` into `out` (exclusive or inclusive within the tile) and writes
/// the tile's total to `totals`.
template <class Exec, class T, class Count = NoWarpCount>
struct TileScanKernel {
  using member_type = typename Kokkos::TeamPolicy<Exec>::member_type;
  const T* in;
  T* out;
  T* totals;
  std::size_t n;
  int tile;
  TeamScanAlgorithm alg;
  bool exclusive;
  Count count;

  /// Team r scans tiles r, r + league, ...: one tile per team up to max_league_size teams.
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    T* x = static_cast<T*>(team.team_scratch(0).get_shmem(
        sizeof(T) * team_scan_scratch_elements(alg, tile)));
    T* tmp = x + tile;
    const std::size_t tiles = (n + tile - 1) / tile;
    for (std::size_t t = team.league_rank(); t < tiles; t += team.league_size()) {
      const std::size_t base = t * tile;
      for (int i = team.team_rank(); i < tile; i += team.team_size())
        x[i] = base + i < n ? in[base + i] : T(0);
      team.team_barrier();
      team_inclusive_scan(team, alg, x, tmp, tile, count);
      for (int i = team.team_rank(); i < tile; i += team.team_size())
        if (base + i < n) out[base + i] = exclusive ? (i > 0 ? x[i - 1] : T(0)) : x[i];
      if (totals && team.team_rank() == 0) totals[t] = x[tile - 1];
      team.team_barrier();  // x is read above before the next tile overwrites it
    }
  }
};

/// Launches one team per tile, with one thread per lane where the backend allows it.
template <class Exec, class T, class Count>
void launch_tile_scan(const Exec& exec, const TileScanKernel<Exec, T, Count>& k,
                      std::size_t tiles, const char* label) {
  const auto scratch = Kokkos::PerTeam(sizeof(T) * team_scan_scratch_elements(k.alg, k.tile));
  Kokkos::TeamPolicy<Exec> probe(exec, 1, 1);
  probe.set_scratch_size(0, scratch);
  const int lanes = team_scan_lanes(k.alg, k.tile);
  const int max = probe.team_size_max(k, Kokkos::ParallelForTag());
  const std::size_t league = tiles < std::size_t(max_league_size) ? tiles : std::size_t(max_league_size);
  Kokkos::TeamPolicy<Exec> policy(exec, static_cast<int>(league), lanes < max ? lanes : max);
  policy.set_scratch_size(0, scratch);
  Kokkos::parallel_for(label, policy, k);
}

/// The tile of a tile scan: a power of two >= 2 (each level must shrink the problem).
inline int tile_scan_tile(int requested) {
  const int tile = requested == 0 ? 1024 : requested;  // the seed's n
  if (tile < 2 || (tile & (tile - 1)))
    throw std::invalid_argument("kps: tile scan tile must be a power of two >= 2, got " + std::to_string(tile));
  return tile;
}

/// Device-wide scan of in[0, n) into out on a team algorithm (in may equal out).
template <class Exec, class T>
void tile_scan(const Exec& exec, const T* in, T* out, std::size_t n, bool exclusive,
               TeamScanAlgorithm alg, TileScanPolicy policy, unsigned char* scratch) {
  if (n == 0) return;
  const int tile = tile_scan_tile(policy.tile);
  const std::size_t tiles = (n + tile - 1) / tile;
  T* totals = tiles > 1 ? reinterpret_cast<T*>(scratch) : nullptr;
  launch_tile_scan(exec, TileScanKernel<Exec, T>{in, out, totals, n, tile, alg, exclusive, {}}, tiles,
                   exclusive ? "kps::tile_scan::exclusive" : "kps::tile_scan::inclusive");
  if (tiles == 1) return;
  // Exclusive scan of the tile totals (recursively, same algorithm), then propagation.
  unsigned char* next = scratch + ((tiles * sizeof(T) + 255) / 256) * 256;
  tile_scan(exec, totals, totals, tiles, true, alg, policy, next);
  Kokkos::parallel_for(
      "kps::tile_scan::propagate", Kokkos::RangePolicy<Exec>(exec, std::size_t(tile), n),
      KOKKOS_LAMBDA(std::size_t i) { out[i] += totals[i / tile]; });
}

/// Scratch bytes tile_scan needs for n elements.
template <class T>
std::size_t tile_scan_scratch_bytes(std::size_t n, int tile) {
  std::size_t bytes = 0;
  for (std::size_t tiles = (n + tile - 1) / tile; tiles > 1; tiles = (tiles + tile - 1) / tile)
    bytes += ((tiles * sizeof(T) + 255) / 256) * 256;
  return bytes;
}

}  // namespace kps::impl
