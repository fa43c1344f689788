// bench/support/environment.hpp — what every benchmark result carries beside it and what the
// benchmarks and tests check before they start: the device of kps' execution space
// (kps::hardware, the library's description), Kokkos and the build, as benchmark context.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "kps/tuning/hardware.hpp"
#include "support/execution_space.hpp"

namespace kps::bench {

/// The hardware ExecutionSpace (support/execution_space.hpp) runs on (Kokkos initialized).
Hardware device_info();

/// The CPUs ExecutionSpace's threads may run on (the union of their affinity masks, asked
/// once, Kokkos initialized; empty where the system does not say): a peer on another threading
/// runtime runs its workers on these.
const std::vector<int>& backend_threads_cpus();

/// Everything a result needs next to it: Kokkos version and backends, compiler, device, the
/// tuning table in use, kps version and git revision. Keys are stable (benchmark context).
std::map<std::string, std::string> environment();

}  // namespace kps::bench
