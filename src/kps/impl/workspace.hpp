// kps/impl/workspace.hpp — device memory that kps' algorithms keep between calls, one set per
// execution space instance, so that a call needs no allocation and the single-pass scan needs
// no initialisation kernel (its tile status words carry the epoch of the call that wrote them).
//
// Instances are told apart by Kokkos' instance id where the backend has one, so scans on
// different streams never share status words. Calls on one instance run in order. Each
// workspace keeps a copy of the instance it was made for, so that instance (its stream) lives
// until Kokkos finalizes: a backend may give a new instance the id of a destroyed one (CUDA
// derives it from the instance's address), and the new instance would then share the status
// words and tile counter of scans still in flight on the old stream.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <typeindex>
#include <utility>

#include <Kokkos_Core.hpp>

namespace kps::impl {

template <class Exec, class = void>
struct has_instance_id : std::false_type {};
template <class Exec>
struct has_instance_id<Exec, std::void_t<decltype(std::declval<const Exec&>().impl_instance_id())>>
    : std::true_type {};

/// A key telling execution space instances apart (0 where the backend has a single one).
template <class Exec>
std::uint64_t instance_key(const Exec& exec) {
  if constexpr (has_instance_id<Exec>::value)
    return static_cast<std::uint64_t>(exec.impl_instance_id());
  else
    return 0;
}

/// Per-instance persistent buffers in the memory space of Exec.
template <class Exec>
struct Workspace {
  using memory_space = typename Exec::memory_space;
  std::mutex mutex;                                     // held by a host call while it uses this
  Kokkos::View<unsigned char*, memory_space> scratch;   // reused by each call (tile totals)
  Kokkos::View<std::uint64_t*, memory_space> status;    // single-pass tile status words
  Kokkos::View<std::uint64_t*, memory_space> values;    // single-pass tile values (8-byte types)
  // Dynamic tile ids, reset to 0 by every call. 32 bits: on CUDA, Kokkos (desul) implements a
  // 64-bit atomic_fetch_add as a compare-and-swap loop (ATOM.CAS.64 in the SASS), which
  // serialises thousands of teams on one word (~500 ns per tile measured); the 32-bit one is
  // a single ATOMG.ADD. A launch has fewer than 2^31 tiles.
  Kokkos::View<unsigned int, memory_space> tile_counter;
  // The cached tiles' claims (kps/scan/single_pass_cached.hpp), never reset: `claims` is how many
  // the calls so far made (mod 2^32), where the next call's tile ids start.
  Kokkos::View<unsigned int, memory_space> tile_claims;
  std::uint32_t claims = 0;
  std::uint32_t epoch = 0;         // epoch of the last single-pass call
  std::optional<Exec> owner;       // the instance this workspace belongs to, kept alive (see above)

  /// At least `bytes` of scratch, aligned for any element type.
  unsigned char* scratch_bytes(const Exec& exec, std::size_t bytes) {
    if (scratch.extent(0) < bytes) {
      exec.fence();  // an older buffer may still be read by work in flight
      scratch = {};
      scratch = Kokkos::View<unsigned char*, memory_space>(
          Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, std::string("kps::workspace::scratch")), bytes);
    }
    return scratch.data();
  }
};

/// The workspace of `exec`, created on first use; all are released, with the instances they
/// keep, when Kokkos finalizes (Views must not outlive it). Thread-safe.
template <class Exec>
Workspace<Exec>& workspace(const Exec& exec) {
  using Registry = std::map<std::uint64_t, std::unique_ptr<Workspace<Exec>>>;
  static std::mutex registry_mutex;
  static Registry* registry = nullptr;
  std::lock_guard<std::mutex> lock(registry_mutex);
  if (!registry) {
    registry = new Registry;
    Kokkos::push_finalize_hook([] {
      std::lock_guard<std::mutex> hook_lock(registry_mutex);
      delete registry;
      registry = nullptr;
    });
  }
  auto& slot = (*registry)[instance_key(exec)];
  if (!slot) {
    slot = std::make_unique<Workspace<Exec>>();
    slot->owner = exec;
  }
  return *slot;
}

}  // namespace kps::impl
