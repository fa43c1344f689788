// bench/host/tbb_peers.cpp — oneTBB's scan and sum (`tbb`): tbb::parallel_scan and
// tbb::parallel_reduce over a blocked_range with the default (auto) partitioner, in an arena of
// as many threads as the benchmarks' space has; float totals in double (host/peers.hpp). Compiled where CMake finds oneTBB (Debian's
// libtbb-dev, spack's intel-tbb). Another runtime than any Kokkos backend's, so always timed
// alone, in a process of its own (support/peers.hpp): the study's peers job, with
// OMP_WAIT_POLICY=passive and OMP_PROC_BIND=false. Not registered where OpenMP's idle threads
// would spin beside it (Kokkos' host space is OpenMP, and OMP_WAIT_POLICY is not passive), nor
// where the calling thread is bound to fewer cores than the arena's threads (OMP_PROC_BIND binds
// OpenMP's first thread, and threads it starts inherit its cores): oneTBB's workers would all
// share them. Either way the JSON context says why.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>

#include <sched.h>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/parallel_scan.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/version.h>

#include <Kokkos_Core.hpp>

#include "host/peers.hpp"

namespace kps::bench::host {
namespace {

/// The arena the peers run in, made on first use (with Exec's thread count).
tbb::task_arena& arena() {
  static tbb::task_arena a(static_cast<int>(Exec().concurrency()));
  return a;
}

template <class T>
void exclusive_scan(const T* in, T* out, std::size_t n) {
  using A = Accumulator<T>;
  arena().execute([&] {
    tbb::parallel_scan(
        tbb::blocked_range<std::size_t>(0, n), A(0),
        [=](const tbb::blocked_range<std::size_t>& r, A running, bool final_scan) {
          if (final_scan) {
            for (std::size_t i = r.begin(); i < r.end(); ++i) {
              const T x = in[i];
              out[i] = T(running);
              running += x;
            }
          } else {
            for (std::size_t i = r.begin(); i < r.end(); ++i) running += in[i];
          }
          return running;
        },
        std::plus<A>());
  });
}

template <class T>
T sum(const T* x, std::size_t n) {
  using A = Accumulator<T>;
  A s = 0;
  arena().execute([&] {
    s = tbb::parallel_reduce(
        tbb::blocked_range<std::size_t>(0, n), A(0),
        [=](const tbb::blocked_range<std::size_t>& r, A acc) {
          for (std::size_t i = r.begin(); i < r.end(); ++i) acc += x[i];
          return acc;
        },
        std::plus<A>());
  });
  return T(s);
}

template <class T>
void add_peers(Peers& all) {
  all.add(ScanPeer<T>{"tbb", [](const Exec&, const T* in, T* out, std::size_t n) { exclusive_scan(in, out, n); },
                      Placement::alone, true});
  all.add(SumPeer<T>{"tbb", [](const Exec&, const T* x, std::size_t n) { return sum(x, n); }, {}, Placement::alone});
}

/// Cores the calling thread may run on.
int allowed_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  return CPU_COUNT(&set);
}

[[maybe_unused]] const int registered = add_peer_provider(tbb_rank, [](Peers& all) {
  if constexpr (kps::impl::is_host_space_v<Exec>) {
    if (!other_runtimes_measurable()) {
      all.note("tbb: left out on " + exec_runtime() + " (its idle threads spin; the OpenMP build's peers job has it)");
      return;
    }
    // Kokkos' host space is OpenMP in this process (kps' space, or the one Kokkos runs its host
    // copies and fills on): its idle threads spin after every region unless told to sleep.
    const char* wait = std::getenv("OMP_WAIT_POLICY");
    if (std::string(Kokkos::DefaultHostExecutionSpace::name()) == "OpenMP" &&
        (!wait || (std::string(wait) != "passive" && std::string(wait) != "PASSIVE"))) {
      all.note("tbb: left out: OpenMP's idle threads would spin beside oneTBB's (run with OMP_WAIT_POLICY=passive: "
               "the study's peers job)");
      return;
    }
    const int threads = static_cast<int>(Exec().concurrency()), cores = allowed_cores();
    if (cores < threads) {
      all.note("tbb: left out: this thread may run on " + std::to_string(cores) + " core(s), fewer than the " +
               std::to_string(threads) + " threads of the arena (OMP_PROC_BIND binds it; run with OMP_PROC_BIND=false)");
      return;
    }
    all.note("tbb: oneTBB " + std::to_string(TBB_VERSION_MAJOR) + "." + std::to_string(TBB_VERSION_MINOR) + ", " +
             std::to_string(threads) + " threads");
    add_peers<std::int32_t>(all);
    add_peers<std::int64_t>(all);
    add_peers<float>(all);
    add_peers<double>(all);
  }
});

}  // namespace
}  // namespace kps::bench::host
