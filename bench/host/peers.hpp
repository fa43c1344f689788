// bench/host/peers.hpp — what the host peers' files share (bench/host/peers.cpp: a one-thread
// loop; openmp_peers.cpp: OpenMP 5; tbb_peers.cpp: oneTBB; each compiled where the build found
// what it needs, bench/CMakeLists.txt). Host peers exist only where the benchmarks' space runs on
// the host: a GPU build compares its GPU with GPU peers.
#pragma once

#include <string>
#include <type_traits>

#include "kps/impl/kokkos_compat.hpp"
#include "support/peers.hpp"

namespace kps::bench::host {

/// Whether a peer of another threading runtime than Exec's can be timed in this process at all.
/// Kokkos::Threads' idle workers never sleep (they yield in a loop between dispatches), so they
/// would take the cores from another runtime's threads however its calls are placed: such peers
/// are left out there (the OpenMP build's peers job measures them). OpenMP's idle threads sleep
/// once the peers job sets OMP_WAIT_POLICY=passive; Serial has none.
inline bool other_runtimes_measurable() { return exec_runtime() != "threads"; }

/// What a host peer accumulates T in: double for float. A float running total stops growing at 2^24
/// (adding an element below 1 to it changes nothing), so a plain float loop's scan or sum of 2^26
/// elements in [0, 1) is wrong by half, and fails the checks every kps result passes; a careful
/// user's loop carries a double, which costs a conversion per element next to the memory's pace.
template <class T>
using Accumulator = std::conditional_t<std::is_same_v<T, float>, double, T>;

/// Ranks of the host providers (support/peers.hpp: providers run in rank order, after the GPUs').
inline constexpr int serial_loop_rank = 10, openmp_rank = 11, tbb_rank = 12;

}  // namespace kps::bench::host
