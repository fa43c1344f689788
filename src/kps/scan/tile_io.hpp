// kps/scan/tile_io.hpp — how the single-pass scan moves a tile between memory and its threads
// (CUB's BlockLoad / BlockStore): ThreadItems, a thread's consecutive elements in registers
// (TileLoad::direct), and StagedTile, the tile transposed through team scratch with coalesced
// 16-byte accesses (TileLoad::staged). Both take any tile length (elements past the end read as
// the operator's identity, `pad`, and are not written) and any accessor (kps/impl/access.hpp):
// contiguous memory of a value type whose size divides 16 moves in 16-byte vectors where aligned;
// other values (a 12-byte struct, a strided or transformed input) one element at a time.
#pragma once

#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "kps/impl/access.hpp"
#include "kps/impl/backend.hpp"

namespace kps::impl {

/// How a tile of T is cut into vectors: 16 bytes of whole values where sizeof(T) divides 16 (the
/// 16-byte loads and stores), else one value per vector.
template <class T>
struct TileVectors {
  static constexpr bool vectorized = sizeof(T) <= 16 && 16 % sizeof(T) == 0;
  static constexpr int per_vector = vectorized ? int(16 / sizeof(T)) : 1;
  struct alignas(vectorized ? 16 : alignof(T)) Vector {
    T v[per_vector];
  };
};

/// Items consecutive elements of one thread, loaded with 16-byte accesses when contiguous and aligned.
template <class T, int Items>
struct ThreadItems {
  T v[Items];
  static constexpr int per_vector = TileVectors<T>::per_vector;
  using Vector = typename TileVectors<T>::Vector;

  /// The thread's elements from `in` (its first element at in[0]); `pad` past valid.
  template <class In>
  KOKKOS_INLINE_FUNCTION void load(const In& in, std::size_t valid, const T& pad) {
    if constexpr (contiguous_v<In, T> && TileVectors<T>::vectorized) {
      const T* p = in;
      if (valid >= std::size_t(Items) && Items % per_vector == 0 && reinterpret_cast<std::uintptr_t>(p) % 16 == 0) {
        for (int j = 0; j < Items / per_vector; ++j) {
          const Vector w = reinterpret_cast<const Vector*>(p)[j];
          for (int k = 0; k < per_vector; ++k) v[j * per_vector + k] = w.v[k];
        }
      } else {
        for (int j = 0; j < Items; ++j) v[j] = std::size_t(j) < valid ? p[j] : pad;
      }
    } else {
      for (int j = 0; j < Items; ++j) v[j] = std::size_t(j) < valid ? T(impl::load(in, j)) : pad;
    }
  }

  template <class Out>
  KOKKOS_INLINE_FUNCTION void store(const Out& out, std::size_t valid) const {
    if constexpr (contiguous_v<Out, T> && TileVectors<T>::vectorized) {
      T* p = out;
      if (valid >= std::size_t(Items) && Items % per_vector == 0 && reinterpret_cast<std::uintptr_t>(p) % 16 == 0) {
        for (int j = 0; j < Items / per_vector; ++j) {
          Vector w;
          for (int k = 0; k < per_vector; ++k) w.v[k] = v[j * per_vector + k];
          reinterpret_cast<Vector*>(p)[j] = w;
        }
      } else {
        for (int j = 0; j < Items; ++j)
          if (std::size_t(j) < valid) p[j] = v[j];
      }
    } else {
      for (int j = 0; j < Items; ++j)
        if (std::size_t(j) < valid) impl::store(out, j, v[j]);
    }
  }
};

/// A tile staged in team scratch, laid out so that both the coalesced accesses (thread t on
/// vector j * team_size + t) and the blocked ones (thread t on its Items consecutive elements)
/// spread over the shared-memory banks (eight 16-byte vectors span them): where a thread's run
/// is a multiple of eight vectors, vector v sits at v XOR (v / run mod 8), a permutation within
/// each aligned group of eight that costs no space; otherwise one pad vector follows every
/// eight vectors (runs of 6 or 12 vectors, 24 items, still meet two ways on the blocked side).
/// The space matters: on Hopper a 32 KiB tile with padding leaves room for five teams per SM,
/// without it for six. A thread's run must be whole vectors (stageable): 1-byte values stage runs
/// of 16, 32, 48 or 64 items.
template <class T, int Items>
struct StagedTile {
  static constexpr int per_vector = TileVectors<T>::per_vector;
  static constexpr bool stageable = Items % per_vector == 0;
  static constexpr int vectors_per_thread = stageable ? Items / per_vector : 1;
  /// Loads a thread keeps in flight while staging the tile (128 bytes of 16-byte vectors).
  static constexpr int batch = vectors_per_thread < 8 ? vectors_per_thread : 8;
  using Vector = typename TileVectors<T>::Vector;

  T* base;  // aligned for Vector

  static constexpr bool swizzled = vectors_per_thread % 8 == 0;

  KOKKOS_INLINE_FUNCTION static constexpr std::size_t bytes(int team_size) {
    const std::size_t vectors = std::size_t(team_size) * vectors_per_thread;
    return (swizzled ? vectors : vectors + vectors / 8 + 1) * sizeof(Vector);
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

  /// Reads the tile's elements [0, valid) from `in` (the tile's first at in[0]; a tile of ts *
  /// Items elements), coalesced (thread `rank` of `ts`); `pad` past valid.
  template <class In>
  KOKKOS_INLINE_FUNCTION void read(int rank, int ts, const In& in, std::size_t valid, const T& pad) const {
    const std::size_t tile = std::size_t(ts) * Items;
    if constexpr (contiguous_v<In, T> && TileVectors<T>::vectorized) {
      const T* src = in;
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
        for (std::size_t e = rank; e < tile; e += ts) element(e) = e < valid ? src[e] : pad;
      }
    } else {
      for (std::size_t e = rank; e < tile; e += ts) element(e) = e < valid ? T(impl::load(in, e)) : pad;
    }
  }

  /// Scans thread rank's Items consecutive elements in place under op, one vector at a time
  /// (so that only a vector and the running value occupy registers, whatever Items is):
  /// inclusive, or exclusive (each element replaced by the reduction of those before it in the
  /// thread's run, in the inclusive scan's order, hence exact). Returns the run's total.
  template <class Op>
  KOKKOS_INLINE_FUNCTION T scan_run(int rank, bool exclusive, const Op& op) const {
    T sum = operator_traits<Op, T>::identity(op);
    KPS_IMPL_ROLLED_LOOP
    for (int j = 0; j < vectors_per_thread; ++j) {
      Vector& slot = vector(std::size_t(rank) * vectors_per_thread + j);
      Vector w = slot;
      for (int k = 0; k < per_vector; ++k) {
        const T x = w.v[k];
        if (exclusive) {
          w.v[k] = sum;
          sum = op(sum, x);
        } else {
          sum = op(sum, x);
          w.v[k] = sum;
        }
      }
      slot = w;
    }
    return sum;
  }

  /// Writes the tile's elements [0, valid) to `out` (the tile's first at out[0]), coalesced, each
  /// after op(base, offsets[t]) where t is the thread whose run holds it (the tile's prefix and
  /// that thread's prefix in the tile).
  template <class Out, class Op>
  KOKKOS_INLINE_FUNCTION void write(int rank, int ts, const Out& out, std::size_t valid, T base, const T* offsets,
                                    const Op& op) const {
    const std::size_t tile = std::size_t(ts) * Items;
    if constexpr (contiguous_v<Out, T> && TileVectors<T>::vectorized) {
      T* dst = out;
      if (valid == tile && reinterpret_cast<std::uintptr_t>(dst) % 16 == 0) {
        // One vector at a time: a store does not hold up the next read of scratch.
        KPS_IMPL_ROLLED_LOOP
        for (int j = 0; j < vectors_per_thread; ++j) {
          const std::size_t v = std::size_t(j) * ts + rank;
          Vector w = vector(v);
          const T o = op(base, offsets[v / vectors_per_thread]);
          for (int k = 0; k < per_vector; ++k) w.v[k] = after(op, o, w.v[k]);
          reinterpret_cast<Vector*>(dst)[v] = w;
        }
      } else if constexpr (is_plus_v<Op, T>) {
        for (std::size_t e = rank; e < valid; e += ts) dst[e] = element(e) + (base + offsets[e / Items]);
      } else {
        for (std::size_t e = rank; e < valid; e += ts) dst[e] = after(op, op(base, offsets[e / Items]), element(e));
      }
    } else {
      for (std::size_t e = rank; e < valid; e += ts)
        impl::store(out, e, after(op, op(base, offsets[e / Items]), element(e)));
    }
  }
};

}  // namespace kps::impl
