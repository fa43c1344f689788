// kps/scan/tile_io.hpp — how the single-pass scan moves a tile between memory and its threads
// (CUB's BlockLoad / BlockStore): ThreadItems, a thread's consecutive elements in registers
// (TileLoad::direct), and StagedTile, the tile transposed through team scratch with coalesced
// 16-byte accesses (TileLoad::staged). Both take any tile length: elements past the end read as 0
// and are not written.
#pragma once

#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "kps/impl/backend.hpp"

namespace kps::impl {

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

/// A tile staged in team scratch, laid out so that both the coalesced accesses (thread t on
/// vector j * team_size + t) and the blocked ones (thread t on its Items consecutive elements)
/// spread over the shared-memory banks (eight 16-byte vectors span them): where a thread's run
/// is a multiple of eight vectors, vector v sits at v XOR (v / run mod 8), a permutation within
/// each aligned group of eight that costs no space; otherwise one 16-byte pad follows every
/// eight vectors (runs of 6 or 12 vectors, 24 items, still meet two ways on the blocked side).
/// The space matters: on Hopper a 32 KiB tile with padding leaves room for five teams per SM,
/// without it for six.
template <class T, int Items>
struct StagedTile {
  static constexpr int per_vector = 16 / sizeof(T);
  static constexpr int vectors_per_thread = Items / per_vector;
  static_assert(Items % per_vector == 0, "kps: staged tiles hold whole 16-byte vectors per thread");
  /// 16-byte loads a thread keeps in flight while staging the tile (128 bytes).
  static constexpr int batch = vectors_per_thread < 8 ? vectors_per_thread : 8;
  using Vector = typename ThreadItems<T, Items>::Vector;

  T* base;  // 16-byte aligned

  static constexpr bool swizzled = vectors_per_thread % 8 == 0;

  KOKKOS_INLINE_FUNCTION static constexpr std::size_t bytes(int team_size) {
    const std::size_t vectors = std::size_t(team_size) * vectors_per_thread;
    return (swizzled ? vectors : vectors + vectors / 8 + 1) * 16;
  }
  /// Where vector v of the tile sits, in vectors from base.
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t slot(std::size_t v) {
    if constexpr (swizzled)
      return v ^ (v / vectors_per_thread % 8);
    else
      return v + v / 8;
  }
  KOKKOS_INLINE_FUNCTION Vector& vector(std::size_t v) const { return reinterpret_cast<Vector*>(base)[slot(v)]; }
  KOKKOS_INLINE_FUNCTION T& element(std::size_t e) const {
    return base[slot(e / per_vector) * per_vector + e % per_vector];
  }

  /// Reads src[0, valid) of a tile of ts * Items elements, coalesced (thread `rank` of `ts`);
  /// zeros past valid.
  KOKKOS_INLINE_FUNCTION void read(int rank, int ts, const T* src, std::size_t valid) const {
    const std::size_t tile = std::size_t(ts) * Items;
    if (valid == tile && reinterpret_cast<std::uintptr_t>(src) % 16 == 0) {
      // All of a batch's loads are issued before any of its stores to scratch: the compiler
      // cannot tell that scratch and src do not overlap, so a load placed after a store waits
      // for it, and a store waits for its load (measured on the H100, CUDA 13: one 16-byte
      // load in flight per thread, a memory round trip per vector).
      for (int j0 = 0; j0 < vectors_per_thread; j0 += batch) {
        Vector r[batch];
        for (int b = 0; b < batch; ++b)
          if (j0 + b < vectors_per_thread) r[b] = reinterpret_cast<const Vector*>(src)[std::size_t(j0 + b) * ts + rank];
        for (int b = 0; b < batch; ++b)
          if (j0 + b < vectors_per_thread) vector(std::size_t(j0 + b) * ts + rank) = r[b];
      }
    } else {
      for (std::size_t e = rank; e < tile; e += ts) element(e) = e < valid ? src[e] : T(0);
    }
  }

  /// Scans thread rank's Items consecutive elements in place, one 16-byte vector at a time
  /// (so that only a vector and the running sum occupy registers, whatever Items is):
  /// inclusive, or exclusive (each element replaced by the sum of those before it in the
  /// thread's run, summed in the inclusive scan's order, hence exact). Returns the run's total.
  KOKKOS_INLINE_FUNCTION T scan_run(int rank, bool exclusive) const {
    T sum = T(0);
    KPS_IMPL_ROLLED_LOOP
    for (int j = 0; j < vectors_per_thread; ++j) {
      Vector& slot = vector(std::size_t(rank) * vectors_per_thread + j);
      Vector w = slot;
      for (int k = 0; k < per_vector; ++k) {
        const T x = w.v[k];
        if (exclusive) {
          w.v[k] = sum;
          sum += x;
        } else {
          sum += x;
          w.v[k] = sum;
        }
      }
      slot = w;
    }
    return sum;
  }

  /// Writes dst[0, valid) of the tile, coalesced, each element plus base + offsets[t] where t
  /// is the thread whose run holds it (the tile's prefix and that thread's prefix in the tile).
  KOKKOS_INLINE_FUNCTION void write(int rank, int ts, T* dst, std::size_t valid, T base, const T* offsets) const {
    const std::size_t tile = std::size_t(ts) * Items;
    if (valid == tile && reinterpret_cast<std::uintptr_t>(dst) % 16 == 0) {
      // One vector at a time: a store does not hold up the next read of scratch.
      KPS_IMPL_ROLLED_LOOP
      for (int j = 0; j < vectors_per_thread; ++j) {
        const std::size_t v = std::size_t(j) * ts + rank;
        Vector w = vector(v);
        const T o = base + offsets[v / vectors_per_thread];
        for (int k = 0; k < per_vector; ++k) w.v[k] += o;
        reinterpret_cast<Vector*>(dst)[v] = w;
      }
    } else {
      for (std::size_t e = rank; e < valid; e += ts) dst[e] = element(e) + (base + offsets[e / Items]);
    }
  }
};

}  // namespace kps::impl
