// kps/device_scan.hpp — device-wide scans of any length, written once against Kokkos:
//  - tile_scan: the seed's two-level scheme on a team algorithm (team scan of each tile in
//    scratch, a scan of the tile totals, propagation): ~4n memory traffic, three launches.
//  - single_pass: decoupled look-back (Merrill & Garland 2016): one launch, ~2n traffic.
//  - kokkos: Kokkos::parallel_scan (two passes over the input on GPUs).
// Used through kps/scan.hpp; this header holds the kernels and their policies.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include <Kokkos_Core.hpp>

#include "kps/impl/kokkos_compat.hpp"
#include "kps/impl/workspace.hpp"
#include "kps/team_scan.hpp"

namespace kps {

/// How the single-pass scan moves a tile between memory and its threads' registers.
enum class TileLoad {
  automatic,  ///< direct (staging was no faster on the H100: studies/scan/NOTES.md)
  /// Each thread reads its consecutive elements straight into registers (16-byte loads when
  /// aligned): neighbouring threads touch addresses items_per_thread elements apart.
  direct,
  /// The team reads and writes the tile in 16-byte vectors with neighbouring threads on
  /// neighbouring addresses (coalesced), and transposes it through team scratch (CUB's
  /// BLOCK_LOAD_TRANSPOSE); costs tile-sized scratch and two barriers.
  staged,
};

/// Tuning knobs of the single-pass scan: a tile is team_size * items_per_thread elements.
struct SinglePassPolicy {
  int team_size = 0;         ///< threads per team; 0: the backend's default (see below)
  int items_per_thread = 0;  ///< consecutive elements per thread, one of 8, 16, 32, 256; 0: default
  TileLoad load = TileLoad::automatic;
};

/// Knobs of the tile scans built on a team algorithm.
struct TileScanPolicy {
  int tile = 0;  ///< elements per tile, a power of two >= 2; 0: 1024 (the seed's n)
};

namespace impl {

// ---------------------------------------------------------------------------------------
// Tile scans on a team algorithm
// ---------------------------------------------------------------------------------------

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

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    T* x = static_cast<T*>(team.team_scratch(0).get_shmem(
        sizeof(T) * team_scan_scratch_elements(alg, tile)));
    T* tmp = x + tile;
    const std::size_t base = std::size_t(team.league_rank()) * tile;
    for (int i = team.team_rank(); i < tile; i += team.team_size())
      x[i] = base + i < n ? in[base + i] : T(0);
    team.team_barrier();
    team_inclusive_scan(team, alg, x, tmp, tile, count);
    for (int i = team.team_rank(); i < tile; i += team.team_size())
      if (base + i < n) out[base + i] = exclusive ? (i > 0 ? x[i - 1] : T(0)) : x[i];
    if (totals && team.team_rank() == 0) totals[team.league_rank()] = x[tile - 1];
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
  Kokkos::TeamPolicy<Exec> policy(exec, static_cast<int>(tiles), lanes < max ? lanes : max);
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

// ---------------------------------------------------------------------------------------
// Single-pass scan with decoupled look-back
// ---------------------------------------------------------------------------------------

// Tile status: a word per tile, (epoch << 2 | kind) in the high 32 bits. For 4-byte types the
// value sits in the low 32 bits, so status and value are published by one atomic store; for
// 8-byte types the value goes first to values[2 * tile + kind - 1] (a slot per kind, never
// overwritten within a call) and a fence orders it before the status word.
enum : std::uint32_t { tile_aggregate = 1, tile_inclusive = 2 };

template <class T>
KOKKOS_INLINE_FUNCTION std::uint64_t to_bits(T v) {
  if constexpr (sizeof(T) == 4) {
    std::uint32_t b;
    std::memcpy(&b, &v, 4);
    return b;
  } else {
    std::uint64_t b;
    std::memcpy(&b, &v, 8);
    return b;
  }
}

template <class T>
KOKKOS_INLINE_FUNCTION T from_bits(std::uint64_t b) {
  T v;
  if constexpr (sizeof(T) == 4) {
    const std::uint32_t w = static_cast<std::uint32_t>(b);
    std::memcpy(&v, &w, 4);
  } else {
    std::memcpy(&v, &b, 8);
  }
  return v;
}

template <class T>
struct TileStatus {
  std::uint64_t* status;
  std::uint64_t* values;
  std::uint32_t epoch;

  KOKKOS_INLINE_FUNCTION void publish(long tile, std::uint32_t kind, T v) const {
    const std::uint64_t tag = std::uint64_t((epoch << 2) | kind) << 32;
    if constexpr (sizeof(T) == 4) {
      store_relaxed(&status[tile], tag | to_bits(v));
    } else {
      store_relaxed(&values[2 * tile + kind - 1], to_bits(v));
      Kokkos::memory_fence();
      store_relaxed(&status[tile], tag);
    }
  }

  /// Reads tile's status; returns its kind (0: not published yet in this call).
  KOKKOS_INLINE_FUNCTION std::uint32_t read(long tile, T& v) const {
    const std::uint64_t w = load_relaxed(&status[tile]);
    const std::uint32_t tag = static_cast<std::uint32_t>(w >> 32);
    if ((tag >> 2) != epoch) return 0;
    const std::uint32_t kind = tag & 3u;
    if constexpr (sizeof(T) == 4) {
      v = from_bits<T>(w);
    } else {
      Kokkos::memory_fence();
      v = from_bits<T>(load_relaxed(&values[2 * tile + kind - 1]));
    }
    return kind;
  }
};

/// Items consecutive elements of one thread, loaded with 16-byte accesses when aligned.
template <class T, int Items>
struct ThreadItems {
  T v[Items];
  static constexpr int per_vector = 16 / sizeof(T);
  struct alignas(16) Vector {
    T v[per_vector];
  };

  KOKKOS_INLINE_FUNCTION void load(const T* p, std::size_t valid) {
    if (valid >= std::size_t(Items) && Items % per_vector == 0 &&
        reinterpret_cast<std::uintptr_t>(p) % 16 == 0) {
      for (int j = 0; j < Items / per_vector; ++j) {
        const Vector w = reinterpret_cast<const Vector*>(p)[j];
        for (int k = 0; k < per_vector; ++k) v[j * per_vector + k] = w.v[k];
      }
    } else {
      for (int j = 0; j < Items; ++j) v[j] = std::size_t(j) < valid ? p[j] : T(0);
    }
  }

  KOKKOS_INLINE_FUNCTION void store(T* p, std::size_t valid) const {
    if (valid >= std::size_t(Items) && Items % per_vector == 0 &&
        reinterpret_cast<std::uintptr_t>(p) % 16 == 0) {
      for (int j = 0; j < Items / per_vector; ++j) {
        Vector w;
        for (int k = 0; k < per_vector; ++k) w.v[k] = v[j * per_vector + k];
        reinterpret_cast<Vector*>(p)[j] = w;
      }
    } else {
      for (int j = 0; j < Items; ++j)
        if (std::size_t(j) < valid) p[j] = v[j];
    }
  }
};

/// A tile staged in team scratch: element e of the tile sits at e + pad(e), one 16-byte pad
/// after every eight 16-byte vectors, so that both the coalesced accesses (thread t on vector
/// j * team_size + t) and the blocked ones (thread t on its Items consecutive elements) spread
/// over the shared-memory banks.
template <class T, int Items>
struct StagedTile {
  static constexpr int per_vector = 16 / sizeof(T);
  static constexpr int vectors_per_thread = Items / per_vector;
  static_assert(Items % per_vector == 0, "kps: staged tiles hold whole 16-byte vectors per thread");
  using Vector = typename ThreadItems<T, Items>::Vector;

  T* base;  // 16-byte aligned

  KOKKOS_INLINE_FUNCTION static constexpr std::size_t bytes(int team_size) {
    const std::size_t vectors = std::size_t(team_size) * vectors_per_thread;
    return (vectors + vectors / 8 + 1) * 16;
  }
  KOKKOS_INLINE_FUNCTION Vector& vector(std::size_t v) const {
    return reinterpret_cast<Vector*>(base)[v + v / 8];
  }
  KOKKOS_INLINE_FUNCTION T& element(std::size_t e) const {
    return base[e + e / (8 * per_vector) * per_vector];
  }

  /// Reads src[0, valid) of a tile of team_size * Items elements, coalesced; zeros past valid.
  template <class Member>
  KOKKOS_INLINE_FUNCTION void read(const Member& team, const T* src, std::size_t valid) const {
    const int ts = team.team_size(), rank = team.team_rank();
    const std::size_t tile = std::size_t(ts) * Items;
    if (valid == tile && reinterpret_cast<std::uintptr_t>(src) % 16 == 0) {
      for (int j = 0; j < vectors_per_thread; ++j) {
        const std::size_t v = std::size_t(j) * ts + rank;
        vector(v) = reinterpret_cast<const Vector*>(src)[v];
      }
    } else {
      for (std::size_t e = rank; e < tile; e += ts) element(e) = e < valid ? src[e] : T(0);
    }
  }

  /// Writes dst[0, valid) of the tile, coalesced.
  template <class Member>
  KOKKOS_INLINE_FUNCTION void write(const Member& team, T* dst, std::size_t valid) const {
    const int ts = team.team_size(), rank = team.team_rank();
    const std::size_t tile = std::size_t(ts) * Items;
    if (valid == tile && reinterpret_cast<std::uintptr_t>(dst) % 16 == 0) {
      for (int j = 0; j < vectors_per_thread; ++j) {
        const std::size_t v = std::size_t(j) * ts + rank;
        reinterpret_cast<Vector*>(dst)[v] = vector(v);
      }
    } else {
      for (std::size_t e = rank; e < valid; e += ts) dst[e] = element(e);
    }
  }

  /// Thread rank's Items consecutive elements, to and from registers.
  KOKKOS_INLINE_FUNCTION void get(int rank, ThreadItems<T, Items>& x) const {
    for (int j = 0; j < vectors_per_thread; ++j) {
      const Vector w = vector(std::size_t(rank) * vectors_per_thread + j);
      for (int k = 0; k < per_vector; ++k) x.v[j * per_vector + k] = w.v[k];
    }
  }
  KOKKOS_INLINE_FUNCTION void put(int rank, const ThreadItems<T, Items>& x) const {
    for (int j = 0; j < vectors_per_thread; ++j) {
      Vector w;
      for (int k = 0; k < per_vector; ++k) w.v[k] = x.v[j * per_vector + k];
      vector(std::size_t(rank) * vectors_per_thread + j) = w;
    }
  }
};

template <class Exec, class T, int Items, bool Exclusive, bool Staged>
struct SinglePassKernel {
  using member_type = typename Kokkos::TeamPolicy<Exec>::member_type;
  const T* in;
  T* out;
  std::size_t n;
  TileStatus<T> tiles;
  unsigned int* counter;  // 0 at launch; 32-bit: Kokkos' 64-bit atomic_fetch_add is a CAS loop on CUDA

  /// Team scratch: the tile aggregate and, when staged, the tile.
  struct Scratch {
    T aggregate;
    KOKKOS_INLINE_FUNCTION static constexpr std::size_t head_bytes() { return (sizeof(Scratch) + 15) / 16 * 16; }
    KOKKOS_INLINE_FUNCTION static constexpr std::size_t bytes(int team_size) {
      if constexpr (Staged)
        return head_bytes() + StagedTile<T, Items>::bytes(team_size) + 16;
      else
        return head_bytes() + 16;
    }
    KOKKOS_INLINE_FUNCTION T* tile(int) {
      const std::uintptr_t p = reinterpret_cast<std::uintptr_t>(this) + head_bytes();
      return reinterpret_cast<T*>((p + 15) / 16 * 16);
    }
  };

  /// Publishes the tile's aggregate, finds the sum of everything before the tile and
  /// publishes the tile's inclusive prefix.
  ///
  /// The whole team reads a window of team_size predecessors at once (nearest first, one
  /// status word per thread, neighbouring threads on neighbouring words). A team reduction
  /// finds the nearest inclusive prefix in the window; the threads whose entries lie before it
  /// and have not published yet wait for them, in parallel; a second reduction finds the
  /// nearest inclusive again (a tile waited for may have published its inclusive prefix
  /// meanwhile) and a third sums the entries up to it. A window with no inclusive prefix adds
  /// all its aggregates and the next window follows. Every entry waited for is a predecessor
  /// held by a running team (tile ids come in start order) that publishes its aggregate before
  /// it looks back itself, so every wait ends; tile 0 is always inclusive, so the walk ends.
  ///
  /// Measured on the H100 (studies/scan/NOTES.md): a window walked by one thread made the
  /// look-back grow with the window; the parallel window is 1.3-1.6x faster on tiles of up to
  /// 2048 elements. What the look-back still costs is mostly the window read itself: reading
  /// status words that other SMs are writing, once per tile, doubles the time of the scan
  /// without look-back; waits, polling scope, delays and occupancy changed nothing measurable.
  KOKKOS_INLINE_FUNCTION T look_back(const member_type& team, long tile, T aggregate) const {
    const int rank = team.team_rank();
    const int width = team.team_size();
    if (rank == 0) tiles.publish(tile, tile == 0 ? tile_inclusive : tile_aggregate, aggregate);
    if (tile == 0) return T(0);
    T prefix = T(0);
    long base = tile - 1;  // nearest predecessor not added yet
    for (;;) {
      // My entry of the window: predecessor base - rank.
      T v = T(0);
      std::uint32_t kind = tile_inclusive;  // before tile 0: never added (tile 0 is inclusive)
      if (base - rank >= 0) kind = tiles.read(base - rank, v);
      int nearest = kind == tile_inclusive ? rank : width;  // nearest inclusive prefix in the window
      team.team_reduce(Kokkos::Min<int>(nearest));
      if (rank < nearest && kind == 0) {
        // Wait for my predecessor; it may publish its inclusive prefix meanwhile.
        do {
          spin_pause();
          kind = tiles.read(base - rank, v);
        } while (kind == 0);
        if (kind == tile_inclusive) nearest = rank;
      }
      team.team_reduce(Kokkos::Min<int>(nearest));
      T sum = rank <= nearest ? v : T(0);
      team.team_reduce(Kokkos::Sum<T>(sum));
      prefix = sum + prefix;
      if (nearest < width) break;
      base -= width;
    }
    if (rank == 0) tiles.publish(tile, tile_inclusive, prefix + aggregate);
    return prefix;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    // Tile ids in the order teams start, so every predecessor of a tile is already running:
    // the look-back below never waits on a team that has not been scheduled.
    long tile = 0;
    Kokkos::single(
        Kokkos::PerTeam(team),
        [&](long& id) { id = long(Kokkos::atomic_fetch_add(counter, 1u)); },
        tile);

    const int rank = team.team_rank();
    const int ts = team.team_size();
    Scratch* sh = static_cast<Scratch*>(team.team_scratch(0).get_shmem(Scratch::bytes(ts)));
    const std::size_t tile_first = std::size_t(tile) * ts * Items;
    const std::size_t left = tile_first < n ? n - tile_first : 0;
    const std::size_t tile_valid = left < std::size_t(ts) * Items ? left : std::size_t(ts) * Items;
    const std::size_t first = tile_first + std::size_t(rank) * Items;
    const std::size_t valid = first < n ? n - first : 0;
    ThreadItems<T, Items> x;
    if constexpr (Staged) {
      const StagedTile<T, Items> staged{sh->tile(ts)};
      staged.read(team, in + tile_first, tile_valid);
      team.team_barrier();
      staged.get(rank, x);
    } else {
      x.load(in + first, valid);
    }
    for (int j = 1; j < Items; ++j) x.v[j] += x.v[j - 1];

    // Exclusive prefix of this thread within the tile, and the tile's aggregate.
    const T thread_total = x.v[Items - 1];
    const T thread_prefix = team.team_scan(thread_total);
    if (rank == team.team_size() - 1) sh->aggregate = thread_prefix + thread_total;
    team.team_barrier();
    const T aggregate = sh->aggregate;
    const T tile_prefix = look_back(team, tile, aggregate);

    const T offset = tile_prefix + thread_prefix;
    if constexpr (Exclusive) {
      // exclusive[j] = offset + inclusive[j] - input[j], done by shifting to stay exact
      for (int j = Items - 1; j > 0; --j) x.v[j] = offset + x.v[j - 1];
      x.v[0] = offset;
    } else {
      for (int j = 0; j < Items; ++j) x.v[j] += offset;
    }
    if constexpr (Staged) {
      // Every thread read its elements from the staged tile before the barrier on the aggregate.
      const StagedTile<T, Items> staged{sh->tile(ts)};
      staged.put(rank, x);
      team.team_barrier();
      staged.write(team, out + tile_first, tile_valid);
    } else {
      x.store(out + first, valid);
    }
  }
};

/// Default team size of the single pass on GPUs (lowered at launch to what fits).
template <class T>
constexpr int single_pass_default_team(bool staged) {
  return staged ? 128 : sizeof(T) <= 4 ? 512 : 256;
}

/// The single-pass policy with defaults filled in for Exec and T.
template <class Exec, class T>
SinglePassPolicy resolve(SinglePassPolicy p) {
  // GPUs: direct loads; 512 x 16 for 4-byte types and 256 x 32 for 8-byte ones (team size
  // lowered at launch to what fits), the best of the H100 sweep with the parallel look-back
  // (scan_sweep/..., results/h100-cuda/scan/scan-sweep.json; runs differ by up to 10 % at
  // one configuration, studies/scan/NOTES.md). Host backends: one thread per team, 256
  // items. Team size 0 stays "automatic" until the launch.
  if (p.load == TileLoad::automatic) p.load = TileLoad::direct;
  if (p.items_per_thread == 0) p.items_per_thread = is_host_space_v<Exec> ? 256 : sizeof(T) <= 4 ? 16 : 32;
  if (p.team_size == 0 && is_host_space_v<Exec>) p.team_size = 1;
  return p;
}

/// The largest team the backend launches the single pass with, given the team scratch a team
/// of `team_size` threads needs (the kernel's registers and that scratch decide it).
template <class Exec, class T, int Items, bool Exclusive, bool Staged>
int single_pass_limit(const Exec& exec, int team_size) {
  using Kernel = SinglePassKernel<Exec, T, Items, Exclusive, Staged>;
  Kokkos::TeamPolicy<Exec> probe(exec, 1, 1);
  probe.set_scratch_size(0, Kokkos::PerTeam(Kernel::Scratch::bytes(team_size)));
  return probe.team_size_max(Kernel{}, Kokkos::ParallelForTag());
}

/// Calls f(std::integral_constant<int, Items>, std::bool_constant<Staged>) for the policy's
/// items per thread and tile load (both resolved); throws std::invalid_argument for the
/// combinations kps does not instantiate.
template <class F>
decltype(auto) with_single_pass_kernel(const SinglePassPolicy& p, F&& f) {
  const bool staged = p.load == TileLoad::staged;
  auto either = [&](auto items) -> decltype(auto) {
    if (staged) return f(items, std::true_type{});
    return f(items, std::false_type{});
  };
  switch (p.items_per_thread) {
    case 8: return either(std::integral_constant<int, 8>{});
    case 16: return either(std::integral_constant<int, 16>{});
    case 32: return either(std::integral_constant<int, 32>{});
    case 256:
      if (staged)
        throw std::invalid_argument("kps: single_pass scan: 256 items per thread load directly (a staged tile "
                                    "that large exceeds team scratch)");
      return f(std::integral_constant<int, 256>{}, std::false_type{});
    default:
      throw std::invalid_argument("kps: single_pass scan: items_per_thread must be 8, 16, 32 or 256, got " +
                                  std::to_string(p.items_per_thread));
  }
}

/// Whether the backend launches the (exclusive) single pass with this policy; policies kps
/// refuses (items per thread not 8, 16, 32 or 256, staged 256) are not launchable either.
template <class Exec, class T>
bool single_pass_launchable(const Exec& exec, SinglePassPolicy p) {
  p = resolve<Exec, T>(p);
  if (p.team_size <= 0) return p.team_size == 0;  // automatic: lowered to what fits
  try {
    return with_single_pass_kernel(p, [&](auto items, auto stage) {
      return p.team_size <=
             single_pass_limit<Exec, T, decltype(items)::value, true, decltype(stage)::value>(exec, p.team_size);
    });
  } catch (const std::invalid_argument&) {
    return false;
  }
}

template <class Exec, class T, int Items, bool Exclusive, bool Staged>
void launch_single_pass(const Exec& exec, const T* in, T* out, std::size_t n, int team_size,
                        Workspace<Exec>& ws) {
  using Kernel = SinglePassKernel<Exec, T, Items, Exclusive, Staged>;
  auto limit = [&](int ts) { return single_pass_limit<Exec, T, Items, Exclusive, Staged>(exec, ts); };
  if (team_size == 0) {  // automatic: the largest multiple of 128 up to the default that fits
    int ts = single_pass_default_team<T>(Staged);
    while (ts > 1 && limit(ts) < ts) ts = ts > 128 ? ts - 128 : ts / 2;
    team_size = ts;
  }
  const int max = limit(team_size);
  if (team_size > max)
    throw std::invalid_argument("kps: single_pass scan: team size " + std::to_string(team_size) + " with " +
                                std::to_string(Items) + " items per thread exceeds the backend's limit of " +
                                std::to_string(max) + " (team scratch " +
                                std::to_string(Kernel::Scratch::bytes(team_size)) + " bytes)");
  const std::size_t tile_elems = std::size_t(team_size) * Items;
  const std::size_t tiles = (n + tile_elems - 1) / tile_elems;
  if (tiles > std::size_t(2147483647))
    throw std::invalid_argument("kps: single_pass scan: too many tiles for one launch");

  // Tile status words persist between calls; the epoch tells this call's words apart.
  if (ws.status.extent(0) < tiles || ws.epoch + 1 >= (1u << 30)) {
    exec.fence();
    ws.status = {};
    ws.values = {};
    const std::size_t cap = tiles > ws.status.extent(0) ? tiles : ws.status.extent(0);
    ws.status = Kokkos::View<std::uint64_t*, typename Exec::memory_space>("kps::scan::status", cap);
    ws.values = Kokkos::View<std::uint64_t*, typename Exec::memory_space>("kps::scan::values", 2 * cap);
    ws.epoch = 0;
  }
  if (!ws.tile_counter.data())
    ws.tile_counter = Kokkos::View<unsigned int, typename Exec::memory_space>("kps::scan::tile_counter");
  Kernel k{in, out, n, TileStatus<T>{ws.status.data(), ws.values.data(), ws.epoch + 1}, ws.tile_counter.data()};
  // Every call starts its tile ids from 0 on exec's stream (a 4-byte fill): a call that
  // failed to launch can never leave the counter out of step with the next one.
  ++ws.epoch;
  Kokkos::deep_copy(exec, ws.tile_counter, 0u);
  Kokkos::TeamPolicy<Exec> policy(exec, static_cast<int>(tiles), team_size);
  policy.set_scratch_size(0, Kokkos::PerTeam(Kernel::Scratch::bytes(team_size)));
  Kokkos::parallel_for(Exclusive ? "kps::single_pass_scan::exclusive" : "kps::single_pass_scan::inclusive",
                       policy, k);
}

/// Single-pass scan of in[0, n) into out (in may equal out).
template <class Exec, class T>
void single_pass_scan(const Exec& exec, const T* in, T* out, std::size_t n, bool exclusive,
                      SinglePassPolicy policy, Workspace<Exec>& ws) {
  if (n == 0) return;
  policy = resolve<Exec, T>(policy);
  const int ts = policy.team_size;  // 0: automatic (GPUs)
  if (ts < 0) throw std::invalid_argument("kps: single_pass scan: team size must be positive");
  with_single_pass_kernel(policy, [&](auto items, auto stage) {
    constexpr int I = decltype(items)::value;
    constexpr bool S = decltype(stage)::value;
    if (exclusive)
      launch_single_pass<Exec, T, I, true, S>(exec, in, out, n, ts, ws);
    else
      launch_single_pass<Exec, T, I, false, S>(exec, in, out, n, ts, ws);
  });
}

// ---------------------------------------------------------------------------------------
// Kokkos' own parallel_scan
// ---------------------------------------------------------------------------------------

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

}  // namespace impl
}  // namespace kps
