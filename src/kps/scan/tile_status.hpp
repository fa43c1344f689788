// kps/scan/tile_status.hpp — the single-pass scan's tile status protocol (CUB's ScanTileState):
// each tile publishes its aggregate (the reduction of its elements), then its inclusive prefix
// (the reduction of every element up to its end), in words its successors poll.
//
// The words persist between calls (kps::impl::Workspace): each published word carries a 32-bit
// tag, (epoch << 2 | kind), in its high half, so that a reader tells this call's words from
// earlier calls' without clearing them.
//  - values of up to 4 bytes: one word per tile, the value in the low half: status and value are
//    published by one 64-bit store and read by one load.
//  - values of 5 to 8 bytes: a 16-byte pair per tile, values[2 * tile + {0, 1}], the value's high
//    and low halves, each beside the tag; the inclusive prefix overwrites the aggregate. The pair
//    is written and read by one 16-byte access where the backend has one (BackendPair; CUB packs
//    its status and value in one 16-byte word the same way), else by two 8-byte ones. Either
//    way a reader takes the pair only when both halves carry this call's tag and the same kind:
//    a half from an earlier call, not yet written, or of the other kind (a read torn between
//    the aggregate and the inclusive prefix) reads as "not published", and the reader polls
//    again. So no fence orders value and status, and a window costs one round trip to memory.
//    (Four words per tile, one pair per kind read by four 8-byte loads, cost the H100 0.5-1.4 %
//    at 2^21..2^24 doubles: results/h100-cuda/experiments/scan-packed-status.)
//  - larger values (a 16-byte (flag, value) pair, a 2x2 matrix): the same, with one word per 4
//    bytes of the value, as many 16-byte pairs as it takes (2 for 16 bytes): every word carries the
//    tag, and a reader takes the value only where all of them carry this call's tag and one kind.
//    CUB keeps status and value apart for such values and orders them with a fence; the tags need
//    none, and a window stays one round trip (two 16-byte loads per lane for 16 bytes).
#pragma once

#include <cstdint>
#include <cstring>

#include <Kokkos_Core.hpp>

#include "kps/impl/backend.hpp"
#include "kps/impl/kokkos_compat.hpp"

namespace kps::impl {

/// A tile's published kind: 0 is "not published in this call".
enum : std::uint32_t { tile_aggregate = 1, tile_inclusive = 2 };

template <class T>
KOKKOS_INLINE_FUNCTION std::uint64_t to_bits(T v) {
  if constexpr (sizeof(T) == 4) {
    std::uint32_t b;
    impl::copy_bytes(&b, &v, 4);
    return b;
  } else if constexpr (sizeof(T) < 4) {
    std::uint32_t b = 0;
    impl::copy_bytes(&b, &v, sizeof(T));
    return b;
  } else if constexpr (sizeof(T) == 8) {
    std::uint64_t b;
    impl::copy_bytes(&b, &v, 8);
    return b;
  } else {
    std::uint64_t b = 0;
    impl::copy_bytes(&b, &v, sizeof(T));
    return b;
  }
}

template <class T>
KOKKOS_INLINE_FUNCTION T from_bits(std::uint64_t b) {
  T v;
  if constexpr (sizeof(T) == 4) {
    const std::uint32_t w = static_cast<std::uint32_t>(b);
    impl::copy_bytes(&v, &w, 4);
  } else if constexpr (sizeof(T) < 4) {
    const std::uint32_t w = static_cast<std::uint32_t>(b);
    impl::copy_bytes(&v, &w, sizeof(T));
  } else {
    impl::copy_bytes(&v, &b, sizeof(T));
  }
  return v;
}

/// Words per tile of T's status (values of up to 4 bytes: 1 in `status`; of 5 to 8 bytes: 2 in
/// `values`; larger: one per 4 bytes, rounded up to whole 16-byte pairs, in `values`).
template <class T>
inline constexpr int tile_status_words = sizeof(T) <= 4 ? 1 : sizeof(T) <= 8 ? 2 : int((sizeof(T) + 7) / 8) * 2;

template <class Exec, class T>
struct TileStatus {
  std::uint64_t* status;  // values of up to 4 bytes: a word per tile
  std::uint64_t* values;  // larger values: tile_status_words<T> words per tile, 16-byte aligned pairs
  std::uint32_t epoch;
  static constexpr int words = tile_status_words<T>;

  KOKKOS_INLINE_FUNCTION std::uint64_t tag(std::uint32_t kind) const {
    return std::uint64_t((epoch << 2) | kind) << 32;
  }

  KOKKOS_INLINE_FUNCTION void publish(long tile, std::uint32_t kind, T v) const {
    if constexpr (sizeof(T) <= 4) {
      store_relaxed(&status[tile], tag(kind) | to_bits(v));
    } else if constexpr (sizeof(T) <= 8) {
      const std::uint64_t b = to_bits(v);
      BackendPair<Exec>::store(values + 2 * tile, tag(kind) | (b >> 32), tag(kind) | (b & 0xffffffffu));
    } else {
      std::uint32_t chunk[words] = {};
      impl::copy_bytes(chunk, &v, sizeof(T));
      std::uint64_t* const w = values + std::size_t(words) * std::size_t(tile);
      for (int p = 0; p < words; p += 2) BackendPair<Exec>::store(w + p, tag(kind) | chunk[p], tag(kind) | chunk[p + 1]);
    }
  }

  /// Reads tile's status; returns its kind (0: not published yet in this call).
  KOKKOS_INLINE_FUNCTION std::uint32_t read(long tile, T& v) const {
    if constexpr (sizeof(T) <= 4) {
      const std::uint64_t w = load_relaxed(&status[tile]);
      const std::uint32_t t = static_cast<std::uint32_t>(w >> 32);
      if ((t >> 2) != epoch) return 0;
      v = from_bits<T>(w);
      return t & 3u;
    } else if constexpr (sizeof(T) <= 8) {
      std::uint64_t high, low;
      BackendPair<Exec>::load(values + 2 * tile, high, low);
      const std::uint32_t t = static_cast<std::uint32_t>(high >> 32);
      if (t != static_cast<std::uint32_t>(low >> 32) || (t >> 2) != epoch) return 0;
      v = from_bits<T>((high << 32) | (low & 0xffffffffu));
      return t & 3u;
    } else {
      std::uint64_t w[words];
      std::uint64_t* const at = values + std::size_t(words) * std::size_t(tile);
      for (int p = 0; p < words; p += 2) BackendPair<Exec>::load(at + p, w[p], w[p + 1]);
      const std::uint32_t t = static_cast<std::uint32_t>(w[0] >> 32);
      bool same = (t >> 2) == epoch;
      std::uint32_t chunk[words];
      for (int p = 0; p < words; ++p) {
        same = same && static_cast<std::uint32_t>(w[p] >> 32) == t;
        chunk[p] = static_cast<std::uint32_t>(w[p]);
      }
      if (!same) return 0;
      impl::copy_bytes(&v, chunk, sizeof(T));
      return t & 3u;
    }
  }
};

}  // namespace kps::impl
