// kps/tuning/tuning.hpp — the tuning table an execution space uses (kps/tuning/table.hpp), chosen
// once per process and device by its hardware (kps::hardware): the device's own table, else on a
// GPU the nearest one, else none (the rules). Any execution space: each Kokkos backend type and
// device has its own. KPS_TUNING_TABLE=FILE|DIR|none overrides the search (KPS_REDUCE_TABLE, its
// older name, is read where it is unset); a malformed or missing explicit table is an error
// (std::runtime_error from the first tuned call, and every call after).
#pragma once

#include <atomic>
#include <string>

#include <Kokkos_Core.hpp>

#include "kps/tuning/hardware.hpp"
#include "kps/tuning/table.hpp"

// The table folder of the kps package the including code was compiled against (a compile
// definition of kps::kps: the source tree's src/kps/tuning/tables in a build tree,
// <prefix>/share/kps/tables once installed, wherever the install was moved).
#ifdef KPS_TUNING_TABLE_DIR
#define KPS_IMPL_TUNING_TABLE_DIR KPS_TUNING_TABLE_DIR
#else
#define KPS_IMPL_TUNING_TABLE_DIR ""
#endif

namespace kps {

namespace impl {
/// Makes the selection for `hw` from the environment and the folders (first_dir first); prints
/// its warning once on stderr; never freed. Throws std::runtime_error on a malformed or missing
/// explicit table.
const TuningSelection* make_tuning_selection(const Hardware& hw, const char* first_dir);

/// The devices per backend whose selection is kept in a lock-free slot (more are looked up again).
inline constexpr int tuning_slots = 64;
}  // namespace impl

/// The tuning table exec's device uses (its `table` is null where none applies: the rules).
/// After the first call per device it costs one atomic load: it is on every tuned call's path.
template <class Exec>
const TuningSelection& tuning_table(const Exec& exec) {
  static std::atomic<const TuningSelection*> slots[impl::tuning_slots] = {};
  const int id = impl::BackendHardware<Exec>::device_id(exec);
  const bool slotted = id >= 0 && id < impl::tuning_slots;
  if (slotted)
    if (const TuningSelection* s = slots[id].load(std::memory_order_acquire)) return *s;
  const TuningSelection* s = impl::make_tuning_selection(hardware(exec), KPS_IMPL_TUNING_TABLE_DIR);
  if (slotted) {
    const TuningSelection* expected = nullptr;
    if (!slots[id].compare_exchange_strong(expected, s, std::memory_order_acq_rel)) return *expected;
  }
  return *s;
}

}  // namespace kps
