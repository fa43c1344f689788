// kps/scan/tile_status.hpp — the single-pass scan's tile status protocol (CUB's ScanTileState):
// each tile publishes its aggregate (the sum of its elements), then its inclusive prefix (the
// sum of every element up to its end), in words its successors poll.
//
// The words persist between calls (kps::impl::Workspace): each published word carries a 32-bit
// tag, (epoch << 2 | kind), in its high half, so that a reader tells this call's words from
// earlier calls' without clearing them.
//  - 4-byte types: one word per tile, the value in the low half: status and value are
//    published by one 64-bit store and read by one load.
//  - 8-byte types: four words per tile, values[4 * tile + 2 * (kind - 1) + {0, 1}], the
//    value's high and low halves, each beside the tag. A reader loads all four at once and
//    takes a kind only when both of its halves carry this call's tag (a half from an earlier
//    call, or not yet written, fails the check), so no fence orders value and status and a
//    window costs one round trip to memory, as for 4-byte types (CUB packs status and value in
//    one 16-byte word instead; Kokkos has no portable 16-byte atomic load or store).
#pragma once

#include <cstdint>
#include <cstring>

#include <Kokkos_Core.hpp>

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

/// Words per tile of T's status (4-byte types: 1 in `status`; 8-byte types: 4 in `values`).
template <class T>
inline constexpr int tile_status_words = sizeof(T) <= 4 ? 1 : 4;

template <class T>
struct TileStatus {
  std::uint64_t* status;  // 4-byte types: a word per tile
  std::uint64_t* values;  // 8-byte types: four words per tile
  std::uint32_t epoch;

  KOKKOS_INLINE_FUNCTION std::uint64_t tag(std::uint32_t kind) const {
    return std::uint64_t((epoch << 2) | kind) << 32;
  }

  KOKKOS_INLINE_FUNCTION void publish(long tile, std::uint32_t kind, T v) const {
    if constexpr (sizeof(T) == 4) {
      store_relaxed(&status[tile], tag(kind) | to_bits(v));
    } else {
      const std::uint64_t b = to_bits(v);
      std::uint64_t* w = values + 4 * tile + 2 * (kind - 1);
      store_relaxed(&w[0], tag(kind) | (b >> 32));
      store_relaxed(&w[1], tag(kind) | (b & 0xffffffffu));
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
      std::uint64_t w[4];
      for (int k = 0; k < 4; ++k) w[k] = load_relaxed(&values[4 * tile + k]);
      constexpr std::uint64_t high = ~std::uint64_t(0xffffffffu);
      auto complete = [&](std::uint32_t kind) {
        const std::uint64_t* h = w + 2 * (kind - 1);
        if ((h[0] & high) != tag(kind) || (h[1] & high) != tag(kind)) return false;
        v = from_bits<T>((h[0] << 32) | (h[1] & 0xffffffffu));
        return true;
      };
      if (complete(tile_inclusive)) return tile_inclusive;
      if (complete(tile_aggregate)) return tile_aggregate;
      return 0;
    }
  }
};

}  // namespace kps::impl
