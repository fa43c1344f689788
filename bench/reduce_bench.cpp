// bench/reduce_bench.cpp — the reduction study's fixtures.
//
//   reduce/<variant>/<type>/<N>   tuned = kps::reduce_sum (lookup table or fallback rule);
//                                 peers: kokkos = Kokkos::parallel_reduce over a RangePolicy,
//                                 kokkos_kernels = KokkosBlas::sum, cub = cub::DeviceReduce::Sum
//   reduce_async/<variant>/<type>/<N>
//                                 the sum left in device memory, nothing waits for it: tuned =
//                                 kps::reduce_sum into a rank-0 View, kokkos = parallel_reduce
//                                 into one, cub = DeviceReduce::Sum (its own interface),
//                                 native = the tuned reduction's kernel and policy written as
//                                 a plain CUDA kernel (bench/cuda/native_kernels.hpp): what
//                                 Kokkos' TeamPolicy and parallel_reduce cost it
//   dot/<variant>/<type>/<N>      kps = kps::dot, kokkos_kernels = KokkosBlas::dot
//   reduce_copy/writeback/<type>/<N>
//                                 GPUs: the copy behind ratio_to_copy, and the time its
//                                 write-back of dirty cache lines costs the call after it
//   reduce_sweep/seed/<type>/<N>/team:T/items:I
//                                 the seed's sweep: kps::reduce_sum with team size T (its local
//                                 size), I items per thread (its load per thread) and the league
//                                 from its relation, ceil(N / (T * I)) teams (its work groups);
//                                 every (T, I) with N >= T * I (at least one full tile, so at
//                                 least I >= 2 elements per thread, the seed's minimum), and
//                                 per T the smallest I whose tile covers N: a league of one
//                                 team, which ends the reduction inside the team
//                                 (kps/reduce/kernel.hpp, SingleTeamReduceKernel; larger I
//                                 launch the same kernel)
//   reduce_sweep/capped/<type>/<N>/team:T/items:I/waves:W
//                                 the same with the league capped at W waves of teams
//                                 (W * concurrency / T), each thread looping over the data;
//                                 only where the cap binds (with the league given, I only
//                                 sets the vector width: capped points of I >= 16 / sizeof
//                                 launch the same kernel, a repeat measurement)
//
// A call that returns its value to the host (reduce/, dot/, and their peers) is timed to its
// return, an asynchronous one (reduce_async/, the copy, the read) to the end of a fence after
// it (common.hpp, timed_rounds).
// GB/s counts the bytes read once (N x sizeof(T), twice that for dot). The ratios come from
// medians of interleaved rounds that time the variant and its peers one after the other
// (common.hpp: 15 to 101 rounds, more for short calls; 5 to 31 for reduce_sweep points;
// counter `rounds`): ratio_to_copy, the read bandwidth over the read bandwidth implied by a
// device copy of the same bytes; ratio_to_read (sums), the time of a pure streaming read of the
// same bytes (kernels/stream_read.hpp) over this one's, and launch_floor_wall_us, an empty launch
// and its fence (on the OpenMP backend also openmp_floor_wall_us, an empty OpenMP region, the
// floor of the openmp peer's calls); on CUDA ratio_to_cub (sums), CUB's time over this one's, and ratio_to_cub_cccl,
// a newer CCCL's (KPS_CCCL_ROOT); and
// the targets' peers, each its time over this one's: ratio_to_kokkos (reduce/tuned,
// reduce_async/tuned: Kokkos' parallel_reduce), ratio_to_kokkos_kernels (dot/kps:
// KokkosBlas::dot), ratio_to_tuned (reduce_sweep points: kps::reduce_sum with the table of
// the run; reduce_async/native). The median wall times are counters too (wall_us,
// <peer>_wall_us); on CUDA also each call's GPU time from events (gpu_us, <peer>_gpu_us; not
// for reduce_sweep points): the difference is the host's share (launch, waking up after the
// fence). Every result, the peers' included, is checked against a host reference (exact for
// integers, compensated long double otherwise), computed once per (type, N).
#include <algorithm>
#include <map>
#include <thread>

#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas1_sum.hpp>

#include "support/checks.hpp"
#include "support/native.hpp"
#include "kernels/stream_read.hpp"
#include "kps/reduce.hpp"
#include "support/common.hpp"
#include "support/knobs.hpp"
#include "support/peers.hpp"

namespace kps::bench {
// Named (not anonymous): nvcc cannot launch kernels on lambdas of anonymous namespaces.
namespace reduce_fixtures {

template <class T>
using DeviceView = Kokkos::View<T*, Device>;

/// The seed's sweep axes on this backend: team sizes (GPU: warps to a full block; host: a
/// few threads per team) and items per thread (>= 2, the seed's minimum load; powers of two on
/// a GPU, of four on the host, where a team's tile must be large to amortise its scheduling).
std::vector<int> sweep_team_sizes(bool host) {
  return host ? std::vector<int>{1, 2, 4} : std::vector<int>{64, 128, 256, 512, 1024};
}
std::vector<int> sweep_items(bool host) {
  return host ? std::vector<int>{2, 8, 32, 128, 512, 2048, 8192, 32768}
              : std::vector<int>{2, 4, 8, 16, 32, 64, 128, 256};
}
/// Waves of the capped variant: 1 (every team resident at once, CUB-like) and 4.
constexpr int sweep_waves[] = {1, 4};

/// The host reference of a sum (y empty) or dot product (support/checks.hpp), once per
/// (type, N, inputs) and process; the inputs of one (type, N) are the same in every benchmark
/// (fixed seeds).
template <class T>
long double reference(const DeviceView<T>& x, const DeviceView<T>& y) {
  static std::map<std::pair<std::size_t, bool>, long double> cache;
  const auto key = std::make_pair(x.extent(0), y.extent(0) > 0);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  const std::vector<T> hx = to_host(x);
  const std::vector<T> hy = key.second ? to_host(y) : std::vector<T>{};
  return cache.emplace(key, reference_sum(hx, key.second ? &hy : nullptr)).first->second;
}

/// How many interleaved rounds a comparison runs (bench/support/rounds.hpp): for the variants
/// the study compares, 15 to 101 (sums of less than 256 MiB get more: at 20 us a call, 15
/// rounds' median moves with one slow wake-up of the host; a host's reads of 2 GiB or more one
/// Latin square, scan_bench.cpp), plus as many event-timed rounds;
/// 5 to 31 wall-timed rounds for the points of the tuning sweep, whose table reads only each
/// point's own time (the sweep has ~1000 points on a GPU: with the full rounds its 2^24..2^30
/// double part alone ran past a 10-minute batch slot).
constexpr Rounds study_rounds{15, 101, double(1 << 28), true, double(1ull << 37)};
constexpr Rounds sweep_rounds{5, 31, double(1 << 27), false};
/// Whether a reduction's rounds are a tuning sweep point's (they time fewer peers: SumPeer::in_sweeps).
constexpr bool is_sweep(const Rounds& r) { return &r == &sweep_rounds; }

/// The space's sum peers that run in kps' rounds (support/peers.hpp), and their calls: a
/// synchronous comparison times `sum`, an asynchronous one `sum_into`, where the peer has one;
/// the tuning sweep's points (`sweep`) only those meant for them (SumPeer::in_sweeps).
template <class T, bool Async>
std::vector<SumPeer<T>> round_sum_peers(bool sweep = false) {
  std::vector<SumPeer<T>> in_rounds;
  for (const auto& p : sum_peers<T>())
    if (p.placement == Placement::rounds && (!Async || p.sum_into) && (!sweep || p.in_sweeps)) in_rounds.push_back(p);
  return in_rounds;
}

/// The calls in a reduction's rounds (run_reduction): the variant, a copy of the same bytes,
/// for sums the streaming read, the empty launch and the space's peers, then the variant's own.
template <class T, bool Async = false>
std::size_t reduction_calls(int inputs, std::size_t peers, bool sweep = false) {
  return 2 + (inputs == 1 ? 2 + round_sum_peers<T, Async>(sweep).size() + (sweep ? 0 : kps::bench::peers().floors().size()) : 0) +
         peers;
}
/// The rounds of a reduction of N elements of T (registration: add_rounds).
template <class T, bool Async = false>
int reduction_rounds(std::size_t n, int inputs, std::size_t peers, const Rounds& r = study_rounds) {
  return comparison_rounds(r, double(inputs) * double(n) * sizeof(T),
                           reduction_calls<T, Async>(inputs, peers, is_sweep(r)));
}

/// A call of a variant: returns the value (Async false) or writes it to the rank-0 View r.
template <class T, bool Async>
using ReductionCall =
    std::conditional_t<Async,
                       std::function<void(const DeviceView<T>&, const DeviceView<T>&, const Kokkos::View<T, Device>&)>,
                       std::function<T(const DeviceView<T>&, const DeviceView<T>&)>>;

/// A peer timed in the same rounds as the variant (a target's comparison measured side by
/// side): counters <name>_wall_us, <name>_gpu_us and ratio_to_<name> (its time over the
/// variant's: > 1 where the variant is faster). Its value is checked too.
template <class T, bool Async>
struct Peer {
  std::string name;
  ReductionCall<T, Async> call;
};

/// Kokkos' own reduction of x: parallel_reduce over a RangePolicy into `r`, a T& (Kokkos waits
/// for the value) or a rank-0 View (it does not).
template <class T, class Result>
void kokkos_sum(const DeviceView<T>& x, Result&& r) {
  Kokkos::parallel_reduce(
      "kps::bench::kokkos_reduce", Kokkos::RangePolicy<Exec>(Exec(), 0, x.extent(0)),
      KOKKOS_LAMBDA(std::size_t i, T & u) { u += x(i); }, r);
}

/// Checks `f`'s value, then times it in rounds (timed_rounds) with a copy, (sums) a streaming
/// read and the empty launch, (sums on CUDA) CUB and each of `peers`, and sets GB/s and the
/// ratios from the medians of those rounds. A synchronous variant's `f(x, y)` returns the
/// reduced value; an asynchronous one (Async) writes it to a rank-0 device View `r`
/// (`f(x, y, r)`), which is read back only after the timed calls, and its CUB peer is CUB's
/// own asynchronous form (result in device memory) in place of CUB plus a copy to the host.
template <class T, bool Async = false, class F>
void run_reduction(benchmark::State& state, std::size_t n, int inputs, const std::string& variant, F&& f,
                   const std::vector<Peer<T, Async>>& peers = {}, const Rounds& rounds = study_rounds,
                   bool alone = false) {
  const Exec exec;
  try {
    const auto x = random_view<T>("kps::bench::x", n, 777 + n);
    const auto y = inputs == 2 ? random_view<T>("kps::bench::y", n, 778 + n) : DeviceView<T>();
    Kokkos::View<T, Device> r("kps::bench::result");
    T result = T(0);
    const auto run = [&](const auto& g) {
      if constexpr (Async)
        g(x, y, r);
      else
        result = g(x, y);
    };
    const auto value = [&] {
      if constexpr (Async) {
        T h = T(0);
        Kokkos::deep_copy(h, r);
        return h;
      } else {
        return result;
      }
    };
    const long double want = reference(x, y);
    const auto call = [&] { run(f); };
    call();
    exec.fence();
    std::string error = compare_scalar(value(), want, n);
    if (!error.empty()) return fail(state, variant + ": " + error);
    if (alone) {  // a peer of another runtime (support/peers.hpp): rounds of its own call
      const Medians t = timed_rounds(state, exec, {call}, false, {!Async});
      if (t.wall.empty()) return;
      call();
      exec.fence();
      error = compare_scalar(value(), want, n);
      if (!error.empty()) return fail(state, variant + " (after the timed calls): " + error);
      set_rates(state, n, double(inputs) * n * sizeof(T), t.wall[0]);
      state.counters["rounds"] = static_cast<double>(t.rounds);
      return;
    }
    DeviceView<T> copy(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kps::bench::copy"), n);
    Kokkos::View<int, Device> flag("kps::bench::read_flag");
    std::vector<std::function<void()>> calls{call, [&] { Kokkos::deep_copy(exec, copy, x); }};
    std::vector<std::string> names{variant, "copy"};
    // The calls that return only once done (timed to their return, timed_rounds): the
    // synchronous form's variant, CUBs and peers, and the empty launch, which fences itself.
    std::vector<bool> waits{!Async, false};
    std::vector<std::function<void()>> before;  // a peer's own (SumPeer::before), else none
    if (inputs == 1) {
      // A pure streaming read of the same bytes, and the floor of any call (an empty launch).
      calls.push_back([&] { stream_read(exec, x.data(), n, flag.data()); });
      names.push_back("read");
      waits.push_back(false);
      calls.push_back([&] { empty_launch(exec); });
      names.push_back("launch_floor");
      waits.push_back(true);
    }
    // The space's peers (CUB on CUDA, a one-thread loop and OpenMP's on host backends), in the
    // forms the variant's: the value returned, or written to device memory without waiting.
    const std::vector<SumPeer<T>> space_peers =
        inputs == 1 ? round_sum_peers<T, Async>(is_sweep(rounds)) : std::vector<SumPeer<T>>{};
    for (const auto& p : space_peers) {
      if constexpr (Async)
        calls.push_back([&] { p.sum_into(exec, x.data(), n, r.data()); });
      else
        calls.push_back([&] { result = p.sum(exec, x.data(), n); });
      names.push_back(p.name);
      waits.push_back(!Async);
      before.resize(calls.size());
      before.back() = p.before;
    }
    // The floors of the space's peers' runtimes (Peers::add_floor: an empty OpenMP region), beside
    // launch_floor; not in the sweeps' rounds, which time kps' configurations alone.
    if (inputs == 1 && !is_sweep(rounds))
      for (const auto& [name, floor] : kps::bench::peers().floors()) {
        calls.push_back(floor);
        names.push_back(name);
        waits.push_back(true);
      }
    for (const auto& p : peers) {
      calls.push_back([&] { run(p.call); });
      names.push_back(p.name);
      waits.push_back(!Async);
    }
    if (calls.size() != reduction_calls<T, Async>(inputs, peers.size(), is_sweep(rounds)))
      return fail(state, variant + ": the rounds' calls differ from reduction_calls");
    if (!before.empty()) before.resize(calls.size());
    const Medians t = timed_rounds(state, exec, calls, rounds.device_clock, waits, before);
    benchmark::DoNotOptimize(result);
    if (t.wall.empty()) return;
    set_rates(state, n, double(inputs) * n * sizeof(T), t.wall[0]);
    // The variant's value again after the timed calls (a defect that shows only on repeated
    // calls must not time well and pass), and each peer's, from one more call of its own.
    call();
    exec.fence();
    error = compare_scalar(value(), want, n);
    if (!error.empty()) return fail(state, variant + " (after the timed calls): " + error);
    // A peer's wrong value takes its ratio away (peer_wrong), not the variant's result.
    std::vector<std::string> wrong;
    for (const auto& p : peers) {
      run(p.call);
      exec.fence();
      error = compare_scalar(value(), want, n);
      if (!error.empty() && !peer_wrong(state, p.name, error)) wrong.push_back(p.name);
    }
    // The space's peers' values too, each from one more call (a synchronous one's value is the
    // host variable it returned into, before any fence).
    for (std::size_t k = 0; k < space_peers.size(); ++k) {
      calls[4 + k]();
      exec.fence();
      error = compare_scalar(value(), want, n);
      if (!error.empty() && !peer_wrong(state, space_peers[k].name, error)) wrong.push_back(space_peers[k].name);
    }
    // read bandwidth of this variant over the read bandwidth implied by the copy (it reads and writes)
    state.counters["ratio_to_copy"] = (inputs * t.wall[1]) / (2.0 * t.wall[0]);
    // Where the device times its work (CUDA events): the GPU's share of each call, in us.
    if (!t.gpu.empty()) state.counters["gpu_us"] = 1e6 * t.gpu[0];
    state.counters["rounds"] = static_cast<double>(t.rounds);
    for (std::size_t k = 1; k < names.size(); ++k) {
      // the copy's ratio is above; a floor (launch_floor, a peer runtime's) is no peer, its wall
      // time says what it is
      const bool is_wrong = std::find(wrong.begin(), wrong.end(), names[k]) != wrong.end();
      const bool is_floor = names[k].size() >= 6 && names[k].compare(names[k].size() - 6, 6, "_floor") == 0;
      if (k > 1 && !is_floor && !is_wrong) state.counters["ratio_to_" + names[k]] = t.wall[k] / t.wall[0];
      state.counters[names[k] + "_wall_us"] = 1e6 * t.wall[k];
      if (!t.gpu.empty()) state.counters[names[k] + "_gpu_us"] = 1e6 * t.gpu[k];
    }
  } catch (const std::exception& e) {
    fail(state, variant + ": " + e.what());
  }
}

/// reduce_copy/writeback: the share of its own writes that the copy behind ratio_to_copy
/// leaves unpaid. The copy starts on a flushed cache and ends with its last writes still in
/// the last-level cache as dirty lines, written back while the next call runs. Rounds of
/// [copy], [copy, then a read] and [the read alone] time that deferred write-back:
/// writeback = t(copy, read) - t(copy) - t(read). The read must use the whole memory
/// bandwidth, or the write-back hides in what it leaves idle (the rounds' own flush, Kokkos'
/// parallel_reduce, reads at about 2.2 TB/s on an H100 and hid most of it): it is the tuned
/// kps::reduce_sum of 4x the cache into device memory. Counters <call>_wall_us (and _gpu_us
/// on CUDA) for copy, copy_read and read; writeback_wall_us, writeback_gpu_us; and
/// copy_with_writeback_GB/s, the copy's bytes over its time plus its write-back (GPU times
/// where there are events). GB/s is the copy's bytes moved (read and written) over its time.
template <class T>
void run_copy_writeback(benchmark::State& state, std::size_t n, std::size_t cache_bytes) {
  const Exec exec;
  try {
    const auto x = random_view<T>("kps::bench::x", n, 777 + n);
    const DeviceView<T> y(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kps::bench::copy"), n);
    const auto z = random_view<std::int64_t>("kps::bench::z", 4 * cache_bytes / sizeof(std::int64_t), 779);
    const Kokkos::View<std::int64_t, Device> sum("kps::bench::z_sum");
    const auto copy = [&] { Kokkos::deep_copy(exec, y, x); };
    const auto read = [&] { reduce_sum(exec, z, sum); };
    copy();
    std::size_t wrong = 0;
    Kokkos::parallel_reduce(
        "kps::bench::copy_check", Kokkos::RangePolicy<Exec>(exec, 0, n),
        KOKKOS_LAMBDA(std::size_t i, std::size_t & w) { w += x(i) != y(i) ? 1 : 0; }, wrong);
    if (wrong != 0) return fail(state, "copy: " + std::to_string(wrong) + " of " + std::to_string(n) + " differ");
    read();
    std::int64_t got = 0;
    Kokkos::deep_copy(got, sum);
    const std::string error = compare_scalar(got, reference(z, DeviceView<std::int64_t>()), z.extent(0));
    if (!error.empty()) return fail(state, "the read after the copy: " + error);
    const Medians t = timed_rounds(state, exec,
                                   {copy,
                                    [&] {
                                      copy();
                                      read();
                                    },
                                    read},
                                   study_rounds.device_clock);
    if (t.wall.empty()) return;
    set_rates(state, n, 2.0 * n * sizeof(T), t.wall[0]);
    const char* names[] = {"copy", "copy_read", "read"};
    const auto report = [&](const std::vector<double>& m, const std::string& clock) {
      for (int k = 0; k < 3; ++k) state.counters[std::string(names[k]) + "_" + clock + "_us"] = 1e6 * m[k];
      state.counters["writeback_" + clock + "_us"] = 1e6 * (m[1] - m[0] - m[2]);
    };
    report(t.wall, "wall");
    if (!t.gpu.empty()) report(t.gpu, "gpu");
    const std::vector<double>& m = t.gpu.empty() ? t.wall : t.gpu;
    state.counters["copy_with_writeback_GB/s"] = 2.0 * n * sizeof(T) / (m[1] - m[2]) / 1e9;
    state.counters["rounds"] = static_cast<double>(t.rounds);
  } catch (const std::exception& e) {
    fail(state, std::string("copy: ") + e.what());
  }
}

/// kps::reduce_sum with the tuned policy, as a peer.
template <class T>
Peer<T, false> tuned_peer() {
  return {"tuned", [](const DeviceView<T>& x, const DeviceView<T>&) { return reduce_sum(Exec(), x); }};
}

/// One point of the seed's sweep: kps::reduce_sum with an explicit policy; the counters say
/// the launch it made (team, items, league, load per thread = N / (team * league)).
template <class T>
void run_sweep_point(benchmark::State& state, std::size_t n, const ReducePolicy& policy, const std::string& variant) {
  try {
    const ReducePolicy used =
        impl::validate<Exec, T>(Exec(), policy, n, impl::SumLoad<T>{nullptr});  // league as it will run
    state.counters["team"] = used.team_size;
    state.counters["items"] = used.items_per_thread;
    state.counters["league"] = used.league_size;
    state.counters["load_per_thread"] = double(n) / (double(used.team_size) * used.league_size);
    record_knobs(state, used);
  } catch (const std::exception& e) {
    return fail(state, variant + ": " + e.what());
  }
  // The tuned call (the lookup table active in this run) in the same rounds: whether the
  // table's choice is within the target of each configuration, measured side by side.
  run_reduction<T>(
      state, n, 1, variant,
      [policy](const DeviceView<T>& x, const DeviceView<T>&) { return reduce_sum(Exec(), x, policy); },
      {tuned_peer<T>()}, sweep_rounds);
}

/// The sweep's points as two families with Google Benchmark's named arguments:
/// reduce_sweep/seed/<type>/<N>/team:T/items:I (one team per tile of T x I; per T, tiles up to
/// the first that covers N) and
/// reduce_sweep/capped/<type>/<N>/team:T/items:I/waves:W (the league capped at W waves of
/// resident teams, where that is fewer teams than tiles) and, on host backends,
/// reduce_sweep/dynamic/<type>/<N>/team:T/items:I (the seed's league, its teams taken by the
/// threads as they free up, where it has more teams than threads).
template <class T>
void register_sweep(const Options& o, std::size_t n, const std::string& suffix) {
  const int limit = impl::reduce_team_size_limit<Exec, T>(Exec());
  const std::size_t concurrency = static_cast<std::size_t>(Exec().concurrency());
  const auto capped_league = [concurrency](std::int64_t team, std::int64_t waves) {
    return std::max<std::size_t>(1, concurrency / std::size_t(team)) * std::size_t(waves);
  };
  std::vector<std::vector<std::int64_t>> seed, capped, dynamic;
  for (int team : sweep_team_sizes(o.host)) {
    if (team > limit) continue;
    for (int items : sweep_items(o.host)) {  // ascending
      const std::size_t tile = std::size_t(team) * items;
      seed.push_back({team, items});
      if (n <= tile) break;  // one team covers N: the league of one; larger tiles launch the same
      const std::size_t needed = (n + tile - 1) / tile;
      // Host backends: the seed's league with its teams taken dynamically, where it has more
      // teams than threads (ReducePolicy::dynamic_teams).
      if (o.host && needed > capped_league(team, 1)) dynamic.push_back({team, items});
      for (int waves : sweep_waves) {
        const std::size_t cap = capped_league(team, waves);
        if (needed <= cap || cap > 2147483647u) continue;
        capped.push_back({team, items, waves});
      }
    }
  }
  const int rounds = reduction_rounds<T>(n, 1, 1, sweep_rounds);
  if (!seed.empty()) {
    auto* b = add_rounds("reduce_sweep/seed" + suffix, rounds, [=](benchmark::State& s) {
      run_sweep_point<T>(s, n, ReducePolicy{int(s.range(0)), int(s.range(1)), 0, 0}, "seed");
    });
    b->ArgNames({axis(knobs::reduce_team), axis(knobs::reduce_items)});
    for (const auto& p : seed) b->Args(p);
  }
  if (!capped.empty()) {
    auto* b = add_rounds("reduce_sweep/capped" + suffix, rounds, [=](benchmark::State& s) {
      const int league = static_cast<int>(capped_league(s.range(0), s.range(2)));
      run_sweep_point<T>(s, n, ReducePolicy{int(s.range(0)), int(s.range(1)), league, 0}, "capped");
    });
    // waves: the league in waves of resident teams (league = waves x concurrency / team).
    b->ArgNames({axis(knobs::reduce_team), axis(knobs::reduce_items), "waves"});
    for (const auto& p : capped) b->Args(p);
  }
  if (!dynamic.empty()) {
    auto* b = add_rounds("reduce_sweep/dynamic" + suffix, rounds, [=](benchmark::State& s) {
      run_sweep_point<T>(s, n, ReducePolicy{int(s.range(0)), int(s.range(1)), 0, 0, true}, "dynamic");
    });
    b->ArgNames({axis(knobs::reduce_team), axis(knobs::reduce_items)});
    for (const auto& p : dynamic) b->Args(p);
  }
}

/// reduce/<peer> and reduce_async/<peer>: each peer of the space as a benchmark of its own.
template <class T>
void register_sum_peers(std::size_t n, const std::string& suffix) {
  // In kps' rounds with the same peers, or, a
  // peer of another runtime, alone (support/peers.hpp); reduce_async/<name> where it has that form.
  for (const auto& p : sum_peers<T>()) {
    const bool alone = p.placement == Placement::alone;
    const auto sum = p.sum;
    const int own = comparison_rounds(study_rounds, double(n) * sizeof(T), 1);  // alone: its own call's rounds
    add_rounds("reduce/" + p.name + suffix, alone ? own : reduction_rounds<T>(n, 1, 0),
               [=](benchmark::State& s) {
                 run_reduction<T>(
                     s, n, 1, p.name, [sum](const DeviceView<T>& x, const DeviceView<T>&) { return sum(Exec(), x.data(), x.extent(0)); },
                     {}, study_rounds, alone);
               });
    if (!p.sum_into) continue;
    const auto sum_into = p.sum_into;
    add_rounds("reduce_async/" + p.name + suffix, alone ? own : reduction_rounds<T, true>(n, 1, 0), [=](benchmark::State& s) {
      run_reduction<T, true>(
          s, n, 1, p.name,
          [sum_into](const DeviceView<T>& x, const DeviceView<T>&, const Kokkos::View<T, Device>& r) {
            sum_into(Exec(), x.data(), x.extent(0), r.data());
          },
          {}, study_rounds, alone);
    });
  }
}

template <class T>
void register_type(const Options& o, std::size_t n) {
  const std::string suffix = std::string("/") + type_name<T>() + "/" + std::to_string(n);
  require_memory(o, "reduce" + suffix, n, 3 * n * sizeof(T));
  // The targets' peers (Kokkos' parallel_reduce for the sums, KokkosBlas::dot for kps::dot)
  // are also timed in the rounds of the kps variant: ratio_to_kokkos, ratio_to_kokkos_kernels.
  using R = Kokkos::View<T, Device>;
  const Peer<T, false> kokkos{"kokkos", [](const DeviceView<T>& x, const DeviceView<T>&) {
                                T r = T(0);
                                kokkos_sum(x, r);
                                return r;
                              }};
  const Peer<T, true> kokkos_async{
      "kokkos", [](const DeviceView<T>& x, const DeviceView<T>&, const R& r) { kokkos_sum(x, r); }};
  add_rounds("reduce/tuned" + suffix, reduction_rounds<T>(n, 1, 1), [=](benchmark::State& s) {
    run_reduction<T>(
        s, n, 1, "tuned", [](const DeviceView<T>& x, const DeviceView<T>&) { return reduce_sum(Exec(), x); },
        {kokkos});
  });
  add_rounds("reduce/kokkos" + suffix, reduction_rounds<T>(n, 1, 0), [=](benchmark::State& s) { run_reduction<T>(s, n, 1, "kokkos", kokkos.call); });
  add_rounds("reduce/kokkos_kernels" + suffix, reduction_rounds<T>(n, 1, 0), [=](benchmark::State& s) {
    run_reduction<T>(s, n, 1, "kokkos_kernels", [](const DeviceView<T>& x, const DeviceView<T>&) {
      Kokkos::View<T, Kokkos::HostSpace> r("kps::bench::kk_sum");
      KokkosBlas::sum(r, x);
      return r();
    });
  });
  register_sum_peers<T>(n, suffix);
  // The same sums with the result left in device memory (no wait, no copy to the host):
  // kps::reduce_sum into a rank-0 View, Kokkos' parallel_reduce into one, CUB's own form.
  const Peer<T, true> tuned_async{
      "tuned", [](const DeviceView<T>& x, const DeviceView<T>&, const R& r) { reduce_sum(Exec(), x, r); }};
  add_rounds("reduce_async/tuned" + suffix, reduction_rounds<T, true>(n, 1, 1),
      [=](benchmark::State& s) { run_reduction<T, true>(s, n, 1, "tuned", tuned_async.call, {kokkos_async}); });
  add_rounds("reduce_async/kokkos" + suffix, reduction_rounds<T, true>(n, 1, 0),
      [=](benchmark::State& s) { run_reduction<T, true>(s, n, 1, "kokkos", kokkos_async.call); });
  if (Native<Exec>::has_kernels)
    add_rounds("reduce_async/native" + suffix, reduction_rounds<T, true>(n, 1, 1), [=](benchmark::State& s) {
      run_reduction<T, true>(s, n, 1, "native", [](const DeviceView<T>& x, const DeviceView<T>&, const R& r) {
        const std::size_t len = x.extent(0);
        const ReducePolicy p = impl::validate<Exec, T>(Exec(), tuned_reduce_policy<T>(Exec(), len), len,
                                                       impl::SumLoad<T>{x.data()});
        Native<Exec>::reduce(Exec(), x.data(), len, p, r.data());
      }, {tuned_async});
    });
  const Peer<T, false> blas_dot{"kokkos_kernels",
                                [](const DeviceView<T>& x, const DeviceView<T>& y) { return KokkosBlas::dot(x, y); }};
  add_rounds("dot/kps" + suffix, reduction_rounds<T>(n, 2, 1), [=](benchmark::State& s) {
    run_reduction<T>(
        s, n, 2, "kps", [](const DeviceView<T>& x, const DeviceView<T>& y) { return dot(Exec(), x, y); }, {blas_dot});
  });
  add_rounds("dot/kokkos_kernels" + suffix, reduction_rounds<T>(n, 2, 0),
      [=](benchmark::State& s) { run_reduction<T>(s, n, 2, "kokkos_kernels", blas_dot.call); });
  // Only where the rounds flush a cache (GPUs): on a host the flush does nothing to time.
  if (const std::size_t l2 = o.device.l2_bytes; !o.host && l2 > 0)
    add_rounds("reduce_copy/writeback" + suffix, comparison_rounds(study_rounds, 2.0 * double(n) * sizeof(T), 3), [=](benchmark::State& s) { run_copy_writeback<T>(s, n, l2); });
  register_sweep<T>(o, n, suffix);
}

void register_reductions(const Options& o) {
  // The tuning table reduce/tuned and dot/kps use (every result's context names it, as
  // kps_tuning_table): a malformed one stops the run here with its file and line.
  tuning_table(Exec());
  for_each_size_and_type(o, [&](auto t, std::size_t n) { register_type<decltype(t)>(o, n); });
}

}  // namespace reduce_fixtures
}  // namespace kps::bench

KPS_BENCH_REGISTER(kps::bench::reduce_fixtures::register_reductions);
