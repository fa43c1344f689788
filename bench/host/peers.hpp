// bench/host/peers.hpp — what the host peers' files share (bench/host/peers.cpp: a one-thread
// loop; openmp_peers.cpp: OpenMP 5; tbb_peers.cpp: oneTBB; each compiled where the build found
// what it needs, bench/CMakeLists.txt). Host peers exist only where the benchmarks' space runs on
// the host: a GPU build compares its GPU with GPU peers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>

#include "kps/impl/kokkos_compat.hpp"
#include "support/peers.hpp"

namespace kps::bench::host {

/// Whether OpenMP's idle threads sleep between regions (OMP_WAIT_POLICY=passive); by default they
/// spin for a while after each one, on the cores another runtime's threads need.
bool openmp_threads_sleep();

/// Whether this system says which threads run (Linux: /proc/self/task): wait_until_asleep works.
bool can_wait_until_asleep();
/// Waits, untimed, until every thread of the process but the caller that is one of the benchmarks'
/// space's threads (`space`), or that is not (`!space`: another runtime's workers), sleeps, for at
/// most 200 ms (host/settle.cpp).
void wait_until_asleep(bool space);
/// An empty parallel region of the benchmarks' space, untimed: its idle threads, which may have
/// fallen asleep meanwhile, spin again when the timed call starts, as a user's repeated calls find them.
void wake_space();

/// Where a host peer running on `runtime` ("none": the calling thread alone) is timed on Exec: in
/// kps' rounds, or nowhere (nullopt, with the reason in `why`). Every host peer that is timed at
/// all shares kps' rounds, so that every ratio is measured side by side; one of another runtime
/// only where neither runtime's idle threads spin on the other's cores while it runs: oneTBB beside
/// OpenMP where each call can first wait for the other runtime's idle threads to sleep
/// (wait_until_asleep; the peer's `before` and Peers::before_own), or where OpenMP's never spin
/// (OMP_WAIT_POLICY=passive); nothing beside Kokkos::Threads, whose idle workers never sleep (they
/// yield in a loop). On Serial a parallel peer is no comparison (the Serial targets are the
/// one-thread loop's).
std::optional<Placement> host_placement(const std::string& runtime, std::string& why);

/// What a host peer accumulates T in: double for float. A float running total stops growing at 2^24
/// (adding an element below 1 to it changes nothing), so a plain float loop's scan or sum of 2^26
/// elements in [0, 1) is wrong by half, and fails the checks every kps result passes; a careful
/// user's loop carries a double, which costs a conversion per element next to the memory's pace.
template <class T>
using Accumulator = std::conditional_t<std::is_same_v<T, float>, double, T>;

/// Registers a host peer `name`, running on `runtime`, for every element type where host_placement
/// places it (else the reason, as a note): Calls<T>::scan(in, out, n), an exclusive scan, and
/// Calls<T>::sum(x, n). `found`: a note for the JSON context where it is registered (its version);
/// `before`: untimed before each of its calls (ScanPeer::before).
/// Each peer's Calls has a name of its own (SerialLoopCalls, OpenMPCalls, TbbCalls), and
/// Calls<T>::name must be `name`: g++ gives add_host_peer<X> a program-wide (weak) symbol even where
/// X is in an anonymous namespace, so three files' `(anonymous namespace)::Calls` made one function
/// at link time, and every host peer ran the one-thread loop. The check stops a program where that
/// happens again.
template <template <class> class Calls>
void add_host_peer(Peers& all, const std::string& name, const std::string& runtime, const std::string& found = {},
                   const std::function<void()>& before = {}) {
  if (name != Calls<std::int32_t>::name) {
    std::fprintf(stderr, "kps-bench: host peer '%s' registered with the calls of '%s' (one symbol for two peers)\n",
                 name.c_str(), Calls<std::int32_t>::name);
    std::abort();
  }
  if constexpr (kps::impl::is_host_space_v<Exec>) {
    std::string why;
    const std::optional<Placement> placement = host_placement(runtime, why);
    if (!placement) return all.note(why);
    if (!found.empty()) all.note(found);
    const auto add = [&](auto type) {
      using T = decltype(type);
      all.add(ScanPeer<T>{name, [](const Exec&, const T* in, T* out, std::size_t n) { Calls<T>::scan(in, out, n); },
                          *placement, true, before});
      all.add(SumPeer<T>{name, [](const Exec&, const T* x, std::size_t n) { return Calls<T>::sum(x, n); }, {},
                         *placement, false, before});
    };
    add(std::int32_t{});
    add(std::int64_t{});
    add(float{});
    add(double{});
  }
}

/// Ranks of the host providers (support/peers.hpp: providers run in rank order, after the GPUs').
inline constexpr int serial_loop_rank = 10, openmp_rank = 11, tbb_rank = 12;

}  // namespace kps::bench::host

#include "support/problems.hpp"

namespace kps::bench::host {

/// Registers a host peer's forms of the operators-and-types problems (bench/support/problems.hpp)
/// where host_placement places `runtime`: Impl::scan<Op>(in, out, n, init) (exclusive, after
/// init), Impl::reduce<Op>(x, n, init) and Impl::arg<Max>(x, n) (argmin / argmax: the value and the
/// lowest index). Impl has a name of its own for the reason add_host_peer's Calls do.
template <class Impl>
void add_host_op_peers(Peers& all, const std::string& name, const std::string& runtime,
                       const std::function<void()>& before = {}) {
  if constexpr (kps::impl::is_host_space_v<Exec>) {
    std::string why;
    const std::optional<Placement> placement = host_placement(runtime, why);
    if (!placement) return;  // add_host_peer's note says why
#define KPS_IMPL_HOST_SCAN(OP, T)                                                                               \
  all.add_op(scan_key<OP, T>(), OpPeer{name,                                                                    \
                                       [](const Exec&, const void* in, void* out, std::size_t n, const void* init) { \
                                         Impl::template scan<OP>(static_cast<const T*>(in), static_cast<T*>(out), n, \
                                                                 *static_cast<const T*>(init));                  \
                                       },                                                                        \
                                       *placement, true, before});
#define KPS_IMPL_HOST_REDUCE(OP, T)                                                                              \
  all.add_op(reduce_key<OP, T>(), OpPeer{name,                                                                   \
                                         [](const Exec&, const void* x, void* out, std::size_t n, const void* init) { \
                                           *static_cast<T*>(out) = Impl::template reduce<OP>(                     \
                                               static_cast<const T*>(x), n, *static_cast<const T*>(init));         \
                                         },                                                                       \
                                         *placement, true, before});
#define KPS_IMPL_HOST_ARG(T)                                                                                     \
  all.add_op(arg_key<T>(false), OpPeer{name,                                                                     \
                                       [](const Exec&, const void* x, void* out, std::size_t n, const void*) {     \
                                         *static_cast<ValueIndex<T>*>(out) = Impl::template arg<false>(           \
                                             static_cast<const T*>(x), n);                                        \
                                       },                                                                         \
                                       *placement, true, before});                                                \
  all.add_op(arg_key<T>(true), OpPeer{name,                                                                      \
                                      [](const Exec&, const void* x, void* out, std::size_t n, const void*) {      \
                                        *static_cast<ValueIndex<T>*>(out) = Impl::template arg<true>(            \
                                            static_cast<const T*>(x), n);                                         \
                                      },                                                                          \
                                      *placement, true, before});
    KPS_BENCH_SCANS(KPS_IMPL_HOST_SCAN)
    KPS_BENCH_REDUCTIONS(KPS_IMPL_HOST_REDUCE)
    KPS_BENCH_ARG_EXTREMA(KPS_IMPL_HOST_ARG)
#undef KPS_IMPL_HOST_SCAN
#undef KPS_IMPL_HOST_REDUCE
#undef KPS_IMPL_HOST_ARG
  } else {
    (void)all, (void)name, (void)runtime, (void)before;
  }
}

/// The better of two (value, index) pairs for argmin (Max false) or argmax: the lower index of
/// equal values.
template <bool Max, class T>
inline ValueIndex<T> better(const ValueIndex<T>& a, const ValueIndex<T>& b) {
  return Max ? arg_maximum{}(a, b) : arg_minimum{}(a, b);
}

}  // namespace kps::bench::host
