// kps/scan/tile_status.hpp — the single-pass scan's tile status protocol (CUB's ScanTileState):
// each tile publishes its aggregate (the sum of its elements), then its inclusive prefix (the
// sum of every element up to its end), in words its successors poll.
//
// The words persist between calls (kps::impl::Workspace): each published word carries a 32-bit
// tag, (epoch << 2 | kind), in its high half, so that a reader tells this call's words from
// earlier calls' without clearing them.
//  - 4-byte types: one word per tile, the value in the low half: status and value are
//    published by one 64-bit store and read by one load.
//  - 8-byte types: a 16-byte pair per tile, values[2 * tile + {0, 1}], the value's high and low
//    halves, each beside the tag; the inclusive prefix overwrites the aggregate. The pair is
//    written and read by one 16-byte access where the backend has one (BackendPair; CUB packs
//    its status and value in one 16-byte word the same way), else by two 8-byte ones. Either
//    way a reader takes the pair only when both halves carry this call's tag and the same kind:
//    a half from an earlier call, not yet written, or of the other kind (a read torn between
//    the aggregate and the inclusive prefix) reads as "not published", and the reader polls
//    again. So no fence orders value and status, and a window costs one round trip to memory.
//    (Four words per tile, one pair per kind read by four 8-byte loads, cost the H100 0.5-1.4 %
//    at 2^21..2^24 doubles: results/h100-cuda/experiments/scan-packed-status.)
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

/// Words per tile of T's status (4-byte types: 1 in `status`; 8-byte types: 2 in `values`).
template <class T>
inline constexpr int tile_status_words = sizeof(T) <= 4 ? 1 : 2;

template <class Exec, class T>
struct TileStatus {
  std::uint64_t* status;  // 4-byte types: a word per tile
  std::uint64_t* values;  // 8-byte types: a 16-byte aligned pair of words per tile
  std::uint32_t epoch;

  KOKKOS_INLINE_FUNCTION std::uint64_t tag(std::uint32_t kind) const {
    return std::uint64_t((epoch << 2) | kind) << 32;
  }

  KOKKOS_INLINE_FUNCTION void publish(long tile, std::uint32_t kind, T v) const {
    if constexpr (sizeof(T) == 4) {
      store_relaxed(&status[tile], tag(kind) | to_bits(v));
    } else {
      const std::uint64_t b = to_bits(v);
      BackendPair<Exec>::store(values + 2 * tile, tag(kind) | (b >> 32), tag(kind) | (b & 0xffffffffu));
    }
  }

  /// Reads tile's status; returns its kind (0: not published yet in this call).
  KOKKOS_INLINE_FUNCTION std::uint32_t read(long tile, T& v) const {
    if constexpr (sizeof(T) == 4) {
      const std::uint64_t w = load_relaxed(&status[tile]);
      const std::uint32_t t = static_cast<std::uint32_t>(w >> 32);
      if ((t >> 2) != epoch) return 0;
      v = from_bits<T>(w);
      return t & 3u;
    } else {
      std::uint64_t high, low;
      BackendPair<Exec>::load(values + 2 * tile, high, low);
      const std::uint32_t t = static_cast<std::uint32_t>(high >> 32);
      if (t != static_cast<std::uint32_t>(low >> 32) || (t >> 2) != epoch) return 0;
      v = from_bits<T>((high << 32) | (low & 0xffffffffu));
      return t & 3u;
    }
  }
};

}  // namespace kps::impl
