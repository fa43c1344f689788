// bench/support/common.hpp — what every kps benchmark shares: the sweep options (sizes, types),
// registration, manual timing with fences, random inputs, result checks that fail loudly,
// and the figures of merit (GB/s from the bytes each kernel must move).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>

#include "support/environment.hpp"
#include "support/execution_space.hpp"
#include "support/rounds.hpp"
#include "kps/impl/kokkos_compat.hpp"
#include "kps/types.hpp"

namespace kps::bench {

/// The space every benchmark runs on (KPS_EXECUTION_SPACE at configure time), and the device
/// type of the benchmarks' Views: Kokkos Kernels' peers run where the View says, so they run on
/// Exec too (support/execution_space.hpp).
using Exec = ExecutionSpace;
using Device = DeviceType;

/// The sweep, from the command line (--kps_sizes, --kps_types) or the backend's defaults.
struct Options {
  std::vector<std::size_t> sizes;
  std::vector<std::string> types;      ///< value types by name (kps/types.hpp; bytes16: the user pairs)
  std::vector<std::string> operators;  ///< the operators-and-types families' operators by name (empty: none of them)
  std::size_t memory_bytes = 0;  ///< device memory, for the size check
  bool host = false;             ///< Exec runs on the host
  Hardware device;               ///< Exec's device
  long long iterations = 0;      ///< loop length of the latency / spin studies (0: the backend's default)
  std::vector<std::size_t> footprints;  ///< bytes: the memory-latency probe's footprints
  bool footprints_given = false;        ///< by --kps_footprints (else the default: too large ones left out)
  bool wants(const std::string& type) const;
  bool wants_operator(const std::string& op) const;
};

/// The operators the operators-and-types families name (bench/support/problems.hpp), for
/// --kps_operators and the JSON context's kps_operators.
inline const std::vector<std::string>& bench_operators() {
  static const std::vector<std::string> all{"plus", "min", "max", "segmented", "argmin", "argmax"};
  return all;
}

/// Parses "1000,2^20,4M,2^10..2^30:4" (the last: powers of two from 2^10 to 2^30, step x4).
/// Throws std::invalid_argument with a clear message on a bad size.
std::vector<std::size_t> parse_sizes(const std::string& text);

/// A function that registers a family's benchmarks for the sweep; called once from main.
using Registrar = void (*)(const Options&);
int add_registrar(Registrar r);
const std::vector<Registrar>& registrars();

/// Calls f(T{}, n) for every size and every requested type T among today's four (int32, int64,
/// float, double: the families of today's sums; the operators-and-types families take every type,
/// bench/operator_bench.cpp).
template <class F>
void for_each_size_and_type(const Options& o, F&& f) {
  for (std::size_t n : o.sizes) {
    if (o.wants("int32")) f(std::int32_t{}, n);
    if (o.wants("int64")) f(std::int64_t{}, n);
    if (o.wants("float")) f(float{}, n);
    if (o.wants("double")) f(double{}, n);
  }
}

/// Throws std::invalid_argument if `bytes` of device memory cannot hold a benchmark at n.
void require_memory(const Options& o, const std::string& name, std::size_t n, std::size_t bytes);

/// Marks the benchmark failed (SkipWithError) and makes the program exit non-zero.
void fail(benchmark::State& state, const std::string& why);
/// A peer of the benchmark returned a wrong result (a float running total of another library
/// that stops growing at 2^24, say): the variant's own result stands, the peer gets no ratio, and
/// the benchmark says so (counter wrong_<peer> = 1 and its label). Returns false (not right).
bool peer_wrong(benchmark::State& state, const std::string& peer, const std::string& why);
bool any_failure();

/// Times one call of f per iteration with fences around it (manual time); returns the median
/// of the iterations' times (0 when the loop did not run).
template <class F>
double timed_loop(benchmark::State& state, const Exec& exec, F&& f) {
  std::vector<double> times;
  for (auto _ : state) {
    exec.fence();
    Kokkos::Timer timer;
    f();
    exec.fence();
    times.push_back(timer.seconds());
    state.SetIterationTime(times.back());
  }
  if (times.empty()) return 0;
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

/// Whether the rounds (timed_rounds) and median_seconds flush the last-level cache before each
/// timed call (kps-bench --kps_cache_flush=on|off; before the first benchmark runs). Unset: on a
/// GPU, not on a host. cache_flush_note(): "off", or the bytes each flush reads (the JSON context's
/// kps_cache_flush).
void set_cache_flush(bool on);
std::string cache_flush_note();

/// Median seconds of `reps` timed calls of f, each after a cache flush (a calibration inside a
/// benchmark, not the benchmark's own timing).
double median_seconds(const Exec& exec, const std::function<void()>& f, int reps = 15);

/// The benchmark loop of a comparison: each of the state's iterations is one round that times
/// every call of `fs` once, in the orders of a Williams design (bench/support/rounds.hpp: over
/// whole designs every call takes every place and follows every other call equally often, so
/// no call keeps one place or one predecessor), after one untimed warm-up round. A variant and
/// its peers see the same device state, so a drift of that state (placement of a fresh
/// allocation, clocks) moves them alike and their ratio stays a ratio measured side by side.
/// The iteration's time is fs[0]'s (the benchmark's own call). On GPUs an untimed read of 4x
/// the last-level cache precedes every timed call, so no call pays for its predecessor's writes
/// (bench/support/common.cpp, CacheFlush). Register such a benchmark with add_rounds, which
/// fixes its iterations to whole designs: Google Benchmark's own search for an iteration count
/// would run the setup and the rounds again.
///
/// A call's wall time runs from its start to the end of a fence of exec after it, except for a
/// call marked in `waits`, one that returns only once its work is done (it returns a value to
/// the host, or fences exec itself): its time ends at its return, as its caller's does. A fence
/// of an idle instance still costs a round trip to the driver (CUDA 13: 1.5 us on an H200,
/// 2.0 us on an H100, results/h200-cuda/experiments/reduce-host-result), which no caller of such
/// a call pays.
///
/// Returns each call's median wall time; where `device_clock` and the backend has device
/// events (CUDA), as many rounds again timed by events on exec (`gpu`: what the GPU spent from
/// the call's first operation to its last, plus any wait for the host inside the call), in
/// rounds of their own because recording events costs the host time.
///
/// `before` (empty, or one per call): untimed, after the flush and before the call: a peer's
/// ScanPeer/SumPeer::before; a call without one waits as peers().before_own() says (the space's
/// own calls, where a peer of another runtime shares the rounds).
struct Medians {
  std::vector<double> wall;
  std::vector<double> gpu;
  int rounds = 0;
};
Medians timed_rounds(benchmark::State& state, const Exec& exec, const std::vector<std::function<void()>>& fs,
                     bool device_clock = false, const std::vector<bool>& waits = {},
                     const std::vector<std::function<void()>>& before = {});

/// An empty launch on exec and its fence: the floor of any call's time on the backend.
void empty_launch(const Exec& exec);

/// Sets GB/s (bytes per call / time) and elements/s, from the loop's time (timed_loop).
void set_rates(benchmark::State& state, std::size_t n, double bytes_per_call);
/// The same from a median of the rounds (timed_rounds), the time every ratio of the row uses.
void set_rates(benchmark::State& state, std::size_t n, double bytes_per_call, double seconds);

/// A View of n pseudo-random values, a pure function of (seed, index) so that every
/// benchmark of one (type, N) sees the same input whatever the backend's scheduling
/// (Kokkos' random pools hand out states in scheduling order): integers in [0, 8),
/// floating point in [0, 1).
template <class T>
Kokkos::View<T*, Device> random_view(const std::string& label, std::size_t n, std::uint64_t seed) {
  Kokkos::View<T*, Device> v(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), n);
  Kokkos::parallel_for(
      "kps::bench::random_view", Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(std::size_t i) {
        std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + i;  // splitmix64
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        v(i) = std::is_integral_v<T> ? T(z & 7) : T(double(z >> 11) * 0x1.0p-53);
      });
  Exec().fence();
  return v;
}

/// A host moves a byte in about 64 times a GPU's time (80 GB/s against 3 TB/s or more): the rounds
/// of a call of `bytes` on a host grow as a GPU's call of 64 times the bytes would.
inline constexpr double host_byte_cost = 64;

/// `r`'s rounds for calls of `bytes` each on Exec (rounds_for): more for short calls, on every
/// backend (a host's scans of 2^16 elements take microseconds, where one slow wake-up of a thread
/// moves a median of 15), by the time a call takes (host_byte_cost), not by its bytes alone.
inline int comparison_rounds(const Rounds& r, double bytes, std::size_t calls) {
  return rounds_for(r, kps::impl::is_host_space_v<Exec> ? bytes * host_byte_cost : bytes, calls);
}

/// Registers `fn` under `name` as a manual-time benchmark (GPU work is timed with fences).
benchmark::internal::Benchmark* add(const std::string& name, std::function<void(benchmark::State&)> fn);
/// The same for a benchmark timed by timed_rounds: `rounds` iterations (rounds_for).
benchmark::internal::Benchmark* add_rounds(const std::string& name, int rounds,
                                           std::function<void(benchmark::State&)> fn);

}  // namespace kps::bench

#define KPS_BENCH_CONCAT2(a, b) a##b
#define KPS_BENCH_CONCAT(a, b) KPS_BENCH_CONCAT2(a, b)
/// Registers a family's registrar at static-initialisation time.
#define KPS_BENCH_REGISTER(fn) \
  static const int KPS_BENCH_CONCAT(kps_bench_registrar_, __LINE__) = ::kps::bench::add_registrar(fn)
