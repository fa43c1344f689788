// kps/scan/tile_scan.hpp — the seed's two-level scans on a team algorithm (kps/team/team_scan.hpp):
// each tile scanned by one team in scratch, a scan of the tile totals (recursively, the same
// algorithm), and the totals combined back (propagation): ~4n memory traffic, three launches per
// level. ScanAlgorithm::hillis_steele and ::blelloch, for any problem (kps/scan/operation.hpp):
// the tiles scan under its operator in order, and an initial value enters through the scan of the
// tile totals (the first tile's prefix) and the propagation, which then covers the first tile too.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "kps/impl/access.hpp"
#include "kps/impl/kokkos_compat.hpp"
#include "kps/operators.hpp"
#include "kps/scan/operation.hpp"
#include "kps/scan/policy.hpp"
#include "kps/team/team_scan.hpp"

namespace kps::impl {

/// Scans each tile of `in` into `out` (exclusive or inclusive within the tile) and writes
/// the tile's total to `totals`.
template <class Exec, class T, class Count = NoWarpCount, class In = const T*, class Out = T*, class Op = plus>
struct TileScanKernel : OpHolder<Op> {
  using member_type = typename Kokkos::TeamPolicy<Exec>::member_type;
  In in;
  Out out;
  T* totals;
  std::size_t n;
  int tile;
  TeamScanAlgorithm alg;
  bool exclusive;
  Count count;

  TileScanKernel(In i, Out o, T* t, std::size_t count_n, int tile_n, TeamScanAlgorithm a, bool excl, Count c,
                 const Op& op = Op{})
      : OpHolder<Op>(op), in(i), out(o), totals(t), n(count_n), tile(tile_n), alg(a), exclusive(excl), count(c) {}

  /// Team r scans tiles r, r + league, ...: one tile per team up to max_league_size teams.
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const Op& op = this->scan_op();
    [[maybe_unused]] const T e = operator_traits<Op, T>::identity(op);
    T* x = static_cast<T*>(team.team_scratch(0).get_shmem(
        sizeof(T) * team_scan_scratch_elements(alg, tile)));
    T* tmp = x + tile;
    const std::size_t tiles = (n + tile - 1) / tile;
    for (std::size_t t = team.league_rank(); t < tiles; t += team.league_size()) {
      const std::size_t base = t * tile;
      if constexpr (is_plus_v<Op, T> && contiguous_v<In, T> && contiguous_v<Out, T>) {
        for (int i = team.team_rank(); i < tile; i += team.team_size()) x[i] = base + i < n ? in[base + i] : T(0);
      } else {
        for (int i = team.team_rank(); i < tile; i += team.team_size())
          x[i] = base + i < n ? T(impl::load(in, base + i)) : e;
      }
      team.team_barrier();
      team_inclusive_scan(team, alg, x, tmp, tile, count, op);
      if constexpr (is_plus_v<Op, T> && contiguous_v<In, T> && contiguous_v<Out, T>) {
        for (int i = team.team_rank(); i < tile; i += team.team_size())
          if (base + i < n) out[base + i] = exclusive ? (i > 0 ? x[i - 1] : T(0)) : x[i];
      } else {
        for (int i = team.team_rank(); i < tile; i += team.team_size())
          if (base + i < n) impl::store(out, base + i, exclusive ? (i > 0 ? x[i - 1] : e) : x[i]);
      }
      if (totals && team.team_rank() == 0) totals[t] = x[tile - 1];
      team.team_barrier();  // x is read above before the next tile overwrites it
    }
  }
};

/// Launches one team per tile, with one thread per lane where the backend allows it.
template <class Exec, class K>
void launch_tile_scan(const Exec& exec, const K& k, std::size_t tiles, const char* label) {
  using T = std::remove_pointer_t<decltype(k.totals)>;
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

/// out[i] = op(totals[i / tile], out[i]) for i in [first, n): the tiles' prefixes combined in.
template <class Exec, class T, class Out, class Op>
struct TilePropagate : OpHolder<Op> {
  Out out;
  const T* totals;
  std::size_t tile;
  TilePropagate(const Op& op, Out o, const T* t, std::size_t tl) : OpHolder<Op>(op), out(o), totals(t), tile(tl) {}
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t i) const {
    impl::store(out, i, after(this->scan_op(), totals[i / tile], T(impl::load(out, i))));
  }
};

/// Device-wide scan of in[0, n) into out on a team algorithm (in may equal out), under op and
/// after init.
template <class Exec, class T, class In, class Out, class Op, class Init>
void tile_scan(const Exec& exec, const In& in, const Out& out, std::size_t n, bool exclusive, TeamScanAlgorithm alg,
               TileScanPolicy policy, unsigned char* scratch, const Op& op, const Init& init) {
  if (n == 0) return;
  constexpr bool has_init = !std::is_same_v<Init, NoInit>;
  const int tile = tile_scan_tile(policy.tile);
  const std::size_t tiles = (n + tile - 1) / tile;
  T* totals = tiles > 1 || has_init ? reinterpret_cast<T*>(scratch) : nullptr;
  launch_tile_scan(exec, TileScanKernel<Exec, T, NoWarpCount, In, Out, Op>{in, out, totals, n, tile, alg, exclusive, {}, op},
                   tiles, exclusive ? "kps::tile_scan::exclusive" : "kps::tile_scan::inclusive");
  if (tiles == 1 && !has_init) return;
  // Exclusive scan of the tile totals after the initial value (recursively, same algorithm), then
  // propagation: every tile's from the second on, and the first's too where there is an initial
  // value. A single tile's prefix is the initial value itself.
  unsigned char* next = scratch + ((tiles * sizeof(T) + 255) / 256) * 256;
  if (tiles > 1)
    tile_scan<Exec, T>(exec, static_cast<const T*>(totals), totals, tiles, true, alg, policy, next, op, init);
  else if constexpr (has_init)
    Kokkos::deep_copy(exec, Kokkos::View<T, typename Exec::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(totals),
                      init.value);
  if constexpr (is_plus_v<Op, T> && contiguous_v<Out, T> && !has_init) {
    Kokkos::parallel_for(
        "kps::tile_scan::propagate", Kokkos::RangePolicy<Exec>(exec, std::size_t(tile), n),
        KOKKOS_LAMBDA(std::size_t i) { out[i] += totals[i / tile]; });
  } else {
    Kokkos::parallel_for("kps::tile_scan::propagate", Kokkos::RangePolicy<Exec>(exec, has_init ? 0 : std::size_t(tile), n),
                         TilePropagate<Exec, T, Out, Op>(op, out, totals, std::size_t(tile)));
  }
}

/// The sum's form on contiguous memory.
template <class Exec, class T>
void tile_scan(const Exec& exec, const T* in, T* out, std::size_t n, bool exclusive, TeamScanAlgorithm alg,
               TileScanPolicy policy, unsigned char* scratch) {
  tile_scan<Exec, T>(exec, in, out, n, exclusive, alg, policy, scratch, plus{}, NoInit{});
}

/// Scratch bytes tile_scan needs for n elements (with an initial value, one level more: the first
/// tile's prefix).
template <class T>
std::size_t tile_scan_scratch_bytes(std::size_t n, int tile, bool has_init = false) {
  std::size_t bytes = 0;
  std::size_t tiles = (n + tile - 1) / tile;
  for (; tiles > 1; tiles = (tiles + tile - 1) / tile) bytes += ((tiles * sizeof(T) + 255) / 256) * 256;
  if (has_init) bytes += (sizeof(T) + 255) / 256 * 256;
  return bytes;
}

}  // namespace kps::impl
