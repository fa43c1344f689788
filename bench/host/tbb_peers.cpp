// bench/host/tbb_peers.cpp — oneTBB's scan and sum (`tbb`): tbb::parallel_scan and
// tbb::parallel_reduce over a blocked_range with the default (auto) partitioner, in an arena of
// as many threads as the benchmarks' space has (and the same for the operators-and-types
// problems, with the C++ standard's parallel algorithms on the same arena, `std_par`); float totals in double (host/peers.hpp). Compiled
// where CMake finds oneTBB (Debian's libtbb-dev, spack's intel-tbb). Another runtime than any
// Kokkos backend's: in kps' rounds where OpenMP's idle threads sleep, else left out
// (host/peers.hpp: host_placement). oneTBB's workers are started by the thread that first enters
// the arena, and a thread inherits its starter's cores: with OMP_PROC_BIND, libgomp binds the
// process's first thread to one core as it loads (before any constructor of kps-bench runs), and
// every worker would share that core; oneTBB also counts its workers from that one core (see
// arena()). So each worker, as it enters the arena, is given the cores
// of the benchmarks' space's threads (support/environment.hpp: backend_threads_cpus).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <execution>
#include <numeric>
#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <sched.h>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/parallel_scan.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_scheduler_observer.h>
#include <oneapi/tbb/version.h>

#include <Kokkos_Core.hpp>

#include "host/peers.hpp"
#include "support/environment.hpp"

namespace kps::bench::host {
namespace {

/// The cores of the benchmarks' space's threads, as a mask (empty: leave the workers as they are).
cpu_set_t backend_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (const int c : backend_threads_cpus())
    if (c < CPU_SETSIZE) CPU_SET(c, &set);
  return set;
}

/// Gives each worker that enters the arena the backend threads' cores (see the file's comment).
class Unbind : public tbb::task_scheduler_observer {
 public:
  Unbind(tbb::task_arena& a, cpu_set_t cores) : tbb::task_scheduler_observer(a), cores_(cores) { observe(true); }
  void on_scheduler_entry(bool worker) override {
    if (worker && CPU_COUNT(&cores_) > 0) sched_setaffinity(0, sizeof cores_, &cores_);
  }

 private:
  cpu_set_t cores_;
};

/// The arena the peers run in, made on first use (with Exec's thread count), and its observer.
/// oneTBB sizes its worker pool by the cores its first thread may use when it starts (one, where
/// libgomp has bound it): without the global limit raised to Exec's thread count the arena would
/// get no workers at all and run on its caller alone.
tbb::task_arena& arena() {
  static const int threads = static_cast<int>(Exec().concurrency());
  static tbb::global_control workers(tbb::global_control::max_allowed_parallelism, std::size_t(threads));
  static tbb::task_arena a(threads);
  static Unbind unbind(a, backend_cores());
  return a;
}

template <class T>
struct TbbCalls {
  static constexpr const char* name = "tbb";
  using A = Accumulator<T>;
  static void scan(const T* in, T* out, std::size_t n) {
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
  static T sum(const T* x, std::size_t n) {
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
};

/// oneTBB's forms of the operators-and-types problems: parallel_scan and parallel_reduce with the
/// operator (both keep the order of the ranges they join), argmin and argmax parallel_reduce of
/// (value, index) pairs.
struct TbbOps {
  template <class Op, class T>
  static void scan(const T* in, T* out, std::size_t n, T init) {
    arena().execute([&] {
      const Op op{};
      const T e = kps::operator_traits<Op, T>::identity(op);
      const T last = tbb::parallel_scan(
          tbb::blocked_range<std::size_t>(0, n), e,
          [=](const tbb::blocked_range<std::size_t>& r, T running, bool final_scan) {
            for (std::size_t i = r.begin(); i < r.end(); ++i) {
              const T x = in[i];
              if (final_scan) out[i] = op(init, running);
              running = op(running, x);
            }
            return running;
          },
          [=](const T& a, const T& b) { return op(a, b); });
      (void)last;
    });
  }
  template <class Op, class T>
  static T reduce(const T* x, std::size_t n, T init) {
    T result = init;
    arena().execute([&] {
      const Op op{};
      result = op(init, tbb::parallel_reduce(
                            tbb::blocked_range<std::size_t>(0, n), kps::operator_traits<Op, T>::identity(op),
                            [=](const tbb::blocked_range<std::size_t>& r, T acc) {
                              for (std::size_t i = r.begin(); i < r.end(); ++i) acc = op(acc, x[i]);
                              return acc;
                            },
                            [=](const T& a, const T& b) { return op(a, b); }));
    });
    return result;
  }
  template <bool Max, class T>
  static ValueIndex<T> arg(const T* x, std::size_t n) {
    using A = ValueIndex<T>;
    if (n == 0) return {T{}, -1};
    A best{x[0], 0};
    arena().execute([&] {
      best = tbb::parallel_reduce(
          tbb::blocked_range<std::size_t>(0, n), A{x[0], 0},
          [=](const tbb::blocked_range<std::size_t>& r, A acc) {
            for (std::size_t i = r.begin(); i < r.end(); ++i) acc = better<Max>(acc, A{x[i], std::int64_t(i)});
            return acc;
          },
          [](const A& a, const A& b) { return better<Max>(a, b); });
    });
    return best;
  }
};

/// The C++17 standard's parallel algorithms (`std_par`): std::exclusive_scan and std::reduce with
/// std::execution::par and the operator, std::min_element / std::max_element for argmin and argmax
/// (the first of equal elements). libstdc++ runs them on oneTBB, here in the tbb peer's arena (its
/// threads and cores, not the one core libgomp bound the first thread to), so the peer is placed as
/// the tbb peer is (on the 16-core node std::execution::par beside 16 spinning OpenMP threads ran
/// at 5-9 GB/s). std::reduce, as kps' reductions, may combine in any order (commutative operators);
/// std::exclusive_scan keeps the order.
struct StdParOps {
  template <class Op, class T>
  static void scan(const T* in, T* out, std::size_t n, T init) {
    arena().execute([&] { std::exclusive_scan(std::execution::par, in, in + n, out, init, Op{}); });
  }
  template <class Op, class T>
  static T reduce(const T* x, std::size_t n, T init) {
    T r = init;
    arena().execute([&] { r = std::reduce(std::execution::par, x, x + n, init, Op{}); });
    return r;
  }
  template <bool Max, class T>
  static ValueIndex<T> arg(const T* x, std::size_t n) {
    if (n == 0) return {T{}, -1};
    const T* at = x;
    arena().execute([&] {
      at = Max ? std::max_element(std::execution::par, x, x + n) : std::min_element(std::execution::par, x, x + n);
    });
    return {*at, std::int64_t(at - x)};
  }
};

[[maybe_unused]] const int registered = add_peer_provider(tbb_rank, [](Peers& all) {
  // Where OpenMP's threads may spin (no OMP_WAIT_POLICY=passive), oneTBB's calls wait for them to
  // sleep, and every other call of the rounds for oneTBB's workers to sleep (host/settle.cpp).
  const bool wait = exec_runtime() == "openmp" && !openmp_threads_sleep() && can_wait_until_asleep();
  const std::string how = wait ? "; in kps' rounds, each of its calls once the space's threads sleep, each other call "
                                 "once its workers sleep (untimed waits)"
                               : "";
  const std::size_t had = all.scans<std::int32_t>().size();
  const std::function<void()> before =
      wait ? std::function<void()>([] { wait_until_asleep(true); }) : std::function<void()>();
  add_host_peer<TbbCalls>(all, "tbb", "tbb",
                          "tbb: oneTBB " + std::to_string(TBB_VERSION_MAJOR) + "." + std::to_string(TBB_VERSION_MINOR) +
                              ", " + std::to_string(Exec().concurrency()) + " threads" + how,
                          before);
  add_host_op_peers<TbbOps>(all, "tbb", "tbb", before);
  add_host_op_peers<StdParOps>(all, "std_par", "tbb", before);
  if (wait && all.scans<std::int32_t>().size() > had) all.set_before_own([] {
    wait_until_asleep(false);
    wake_space();
  });
});

}  // namespace
}  // namespace kps::bench::host
