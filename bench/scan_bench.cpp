// bench/scan_bench.cpp — the scan study's fixtures: scan/<algorithm>/<type>/<N> for every
// kps algorithm, and the peers measured in the same run: Kokkos' parallel_scan (the `kokkos`
// algorithm), Kokkos Kernels' prefix-sum utility, CUB DeviceScan on CUDA, and a
// device-to-device copy (copy/kokkos/<type>/<N>), and on CUDA a newer CCCL's CUB where the build
// has one (scan/cub_cccl/..., KPS_CCCL_ROOT). All are exclusive sums; each counts 2 x N x
// sizeof(T) bytes (read once, write once). Every result is checked after timing; the ratios
// (ratio_to_copy, _kokkos, _cub, _cub_cccl) and launch_floor_us, an empty launch and its fence,
// come from interleaved rounds of the same process (support/common.hpp).
// Also: the team scans against the tile size (scan_tile/...), the active warps of one tile
// (scan_warps/...) and many small scans at once on several instances (scan_streams/...), and the
// single pass's knobs: scan_sweep, scan_delay, scan_prefetch, scan_lookback, and scan_tune, the
// sweep `kps tune` writes the tuning table's scan rows from.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <KokkosKernels_SimpleUtils.hpp>

#include "support/checks.hpp"
#include "support/common.hpp"
#include "support/knobs.hpp"
#include "support/peers.hpp"
#include "support/native.hpp"
#include "kernels/stream_copy.hpp"
#include "kps/impl/kokkos_compat.hpp"
#include "kps/scan.hpp"

namespace kps::bench {
// Named (not anonymous): nvcc cannot launch kernels on lambdas of anonymous namespaces.
namespace scan_fixtures {

/// The reference of the last (type, N) checked: consecutive benchmarks share it.
template <class T>
const std::vector<T>& cached_reference(const Kokkos::View<T*, Device>& in) {
  static std::size_t n = ~std::size_t(0);
  static std::vector<T> ref;
  if (n != in.extent(0)) {
    ref = reference_scan(to_host(in), true);
    n = in.extent(0);
  }
  return ref;
}

/// A host copy of a scan's output for its check, into one buffer per type that stays allocated:
/// a fresh 4 GiB vector per check (2^30 int32) spent seconds faulting its pages in, twice per
/// point of the tuning sweep's hundreds.
template <class T>
const std::vector<T>& output_on_host(const Kokkos::View<T*, Device>& out) {
  static std::vector<T> host;
  host.resize(out.extent(0));
  Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(host.data(), host.size());
  Kokkos::deep_copy(h, out);
  return host;
}

template <class T>
void poison(const Kokkos::View<T*, Device>& v) {
  Kokkos::deep_copy(v, std::is_integral_v<T> ? T(-7) : T(NAN));
}

template <class T>
using DeviceView = Kokkos::View<T*, Device>;

/// The rounds of a scan comparison: 15, up to 101 for scans that move less than 256 MiB; one
/// Latin square for calls of a host's 2 GiB or more (comparison_rounds: 128 GiB a GPU would move
/// in their time), the calls of a second and more.
constexpr Rounds scan_rounds{15, 101, double(1 << 28), false, double(1ull << 37)};
/// The calls of its rounds besides the peers': the variant, the copy, Kokkos' scan, the empty launch.
constexpr std::size_t scan_own_calls = 4;

/// The peers of T's scans that run in kps' rounds (support/peers.hpp).
template <class T>
std::vector<ScanPeer<T>> round_peers() {
  std::vector<ScanPeer<T>> in_rounds;
  for (const auto& p : scan_peers<T>())
    if (p.placement == Placement::rounds) in_rounds.push_back(p);
  return in_rounds;
}

template <class T>
int rounds_of_scan(std::size_t n, std::size_t calls = scan_own_calls + round_peers<T>().size()) {
  return comparison_rounds(scan_rounds, 2.0 * double(n) * sizeof(T), calls);
}

/// Whether a scan variant is kps' own (a wrong result fails the run) rather than a peer's: Kokkos'
/// scan, Kokkos Kernels', a CPU or CUDA peer, whose wrong result is the peer's own, marked
/// wrong_<variant> with no rate, as a peer's in the rounds is (Kokkos' OpenMP scan adds each
/// thread's share in float, which stops growing at 2^24: float from 2^26 on 16 threads).
inline bool own_variant(const std::string& variant) {
  for (ScanAlgorithm a : {ScanAlgorithm::automatic, ScanAlgorithm::single_pass, ScanAlgorithm::blelloch,
                          ScanAlgorithm::hillis_steele})
    if (variant == to_string(a)) return true;
  return variant == "deterministic";
}

/// Runs one scan variant: checks it, then times it in rounds with its peers (timed_rounds): a
/// device copy (ratio_to_copy), Kokkos' parallel_scan (ratio_to_kokkos: what `automatic` must
/// never fall below), the floor of any call (launch_floor_us: an empty launch and its fence,
/// what a launch-bound size cannot beat) and the space's peers that run in its rounds
/// (ratio_to_<name>: CUB and a newer CCCL's on CUDA, a one-thread loop and OpenMP's on host
/// backends), each checked too. GB/s and every ratio come from the medians of the same rounds.
/// Without `peers` (the tuning sweep's hundreds of points, and a peer of another runtime, timed
/// alone) the rounds time the variant alone.
template <class T>
using ScanCall = std::function<void(const DeviceView<T>&, const DeviceView<T>&)>;

template <class T>
void run_scan(benchmark::State& state, std::size_t n, const std::string& variant, const ScanCall<T>& scan,
              bool in_place, bool peers = true, bool waits = false,
              const std::vector<std::pair<std::string, ScanCall<T>>>& extra = {}) {
  const Exec exec;
  try {
    auto in = random_view<T>("kps::bench::in", n, 1234 + n);
    DeviceView<T> out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kps::bench::out"), n);
    // A check on poisoned output (in place: on a fresh copy of the input), before the timed calls
    // and again after them: a defect that shows only on repeated calls (state a call leaves in
    // the reused workspace) must not time well and pass.
    const auto check = [&](const std::function<void(const DeviceView<T>&, const DeviceView<T>&)>& f, bool f_in_place) {
      poison(out);
      if (f_in_place) Kokkos::deep_copy(out, in);
      f(f_in_place ? out : in, out);
      exec.fence();
      return compare(output_on_host(out), cached_reference(in));
    };
    // A peer timed as the variant (scan/kokkos, scan_tune/kokkos, scan/<peer>) is timed even where
    // its result is wrong, and marked so (no rate): the run goes on, as with a peer in the rounds.
    bool variant_right = true;
    const auto wrong = [&](const std::string& when, const std::string& error) {
      if (own_variant(variant)) {
        fail(state, variant + when + ": " + error);
        return false;
      }
      variant_right = peer_wrong(state, variant, error);
      return true;
    };
    if (const std::string error = check(scan, in_place); !error.empty() && !wrong("", error)) return;

    // Every call of the rounds writes the variant's output, so that none finds its output warmer
    // in a cache than the others do (host backends flush nothing between calls; a peer that wrote a
    // buffer of its own right after the copy had written it found its lines in cache). In place,
    // the variant's output is its next input: the others write a buffer of their own.
    DeviceView<T> dest = in_place ? DeviceView<T>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kps::bench::copy"), n)
                                  : out;
    std::vector<std::function<void()>> calls{[&] { scan(in_place ? out : in, out); }};
    std::vector<bool> call_waits{waits};
    std::vector<std::function<void()>> call_before(1);
    const std::vector<ScanPeer<T>> others = peers ? round_peers<T>() : std::vector<ScanPeer<T>>{};
    if (peers) {
      calls.push_back([&] { Kokkos::deep_copy(exec, dest, in); });
      calls.push_back([&] { exclusive_scan(exec, in, dest, ScanAlgorithm::kokkos); });
      calls.push_back([&] { empty_launch(exec); });  // fences itself: timed to its return
      call_waits.insert(call_waits.end(), {false, false, true});
      call_before.resize(calls.size());
      for (const auto& p : others) {
        calls.push_back([&] { p.exclusive(exec, in.data(), dest.data(), n); });
        call_waits.push_back(p.waits);
        call_before.push_back(p.before);
      }
      // kps' other forms of the same scan (the default beside the deterministic one).
      for (const auto& [name, call] : extra) {
        calls.push_back([&, call = call] { call(in, dest); });
        call_waits.push_back(false);
        call_before.push_back({});
      }
    }
    const Medians t = timed_rounds(state, exec, calls, false, call_waits, call_before);
    if (t.wall.empty()) return;
    if (variant_right)
      if (const std::string error = check(scan, in_place); !error.empty() && !wrong(" (after the timed calls)", error))
        return;
    // Each peer's result too, from one more call of its own: a wrong one has no ratio (peer_wrong);
    // Kokkos' scan of the rounds likewise.
    bool kokkos_right = true;
    if (peers)
      if (const std::string error = check([&](const DeviceView<T>& a, const DeviceView<T>& b) {
            exclusive_scan(exec, a, b, ScanAlgorithm::kokkos);
          }, false);
          !error.empty())
        kokkos_right = peer_wrong(state, "kokkos", error);
    std::vector<bool> right(others.size(), true);
    for (std::size_t k = 0; k < others.size(); ++k) {
      const auto& p = others[k];
      const std::string error =
          check([&](const DeviceView<T>& a, const DeviceView<T>& b) { p.exclusive(exec, a.data(), b.data(), n); }, false);
      if (!error.empty()) right[k] = peer_wrong(state, p.name, error);
    }
    if (variant_right) set_rates(state, n, 2.0 * n * sizeof(T), t.wall[0]);
    state.counters["rounds"] = static_cast<double>(t.rounds);
    if (!peers || !variant_right) return;
    state.counters["ratio_to_copy"] = t.wall[1] / t.wall[0];
    if (kokkos_right) state.counters["ratio_to_kokkos"] = t.wall[2] / t.wall[0];
    state.counters["launch_floor_us"] = t.wall[3] * 1e6;
    for (std::size_t k = 0; k < others.size(); ++k)
      if (right[k]) state.counters["ratio_to_" + others[k].name] = t.wall[scan_own_calls + k] / t.wall[0];
    for (std::size_t k = 0; k < extra.size(); ++k) {
      const std::size_t at = scan_own_calls + others.size() + k;
      state.counters["ratio_to_" + extra[k].first] = t.wall[at] / t.wall[0];
      state.counters[extra[k].first + "_wall_us"] = 1e6 * t.wall[at];
    }
  } catch (const std::exception& e) {
    fail(state, variant + ": " + e.what());
  }
}

/// Registers one scan comparison under `name` (run_scan, in the rounds of its size).
template <class T>
void add_scan(const std::string& name, std::size_t n, const std::string& variant,
              std::function<void(const DeviceView<T>&, const DeviceView<T>&)> scan, bool in_place = false) {
  add_rounds(name, rounds_of_scan<T>(n),
             [=](benchmark::State& s) { run_scan<T>(s, n, variant, scan, in_place); });
}

/// scan_lookback/single_pass/<type>/<N>[/team:T/items:I/load:L]: one probed single-pass scan,
/// checked, and the look-back's statistics over all tiles as counters
/// (kps::impl::SinglePassKernel::probe): the depth reached (how many
/// predecessors back the nearest inclusive prefix was), the rounds spent waiting for
/// unpublished predecessors, the windows read, and clock ticks (cycles on GPUs, ns on host
/// backends): start to aggregate, aggregate to inclusive prefix (the look-back), start to tile
/// id, tile id to the team's totals, and the first window read. Means, medians, 90th
/// percentiles and maxima.
template <class T>
void run_lookback(benchmark::State& state, std::size_t n, SinglePassPolicy policy) {
  const Exec exec;
  try {
    auto in = random_view<T>("kps::bench::in", n, 1234 + n);
    DeviceView<T> out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kps::bench::out"), n);
    const std::size_t tile = kps::impl::single_pass_tile_elements<Exec, T>(exec, policy, n);
    const std::size_t tiles = (n + tile - 1) / tile;
    constexpr int words_per_tile = kps::impl::single_pass_probe_words;
    Kokkos::View<std::uint64_t*, Device> probe("kps::bench::probe", words_per_tile * tiles);
    kps::impl::Workspace<Exec> ws;
    timed_loop(state, exec, [&] {
      kps::impl::single_pass_scan(exec, in.data(), out.data(), n, true, policy, ws,
                                  kps::impl::LookBackProbe<Exec>{probe.data()});
    });
    exec.fence();
    const std::string error = compare(to_host(out), cached_reference(in));
    if (!error.empty()) return fail(state, "single_pass (probed): " + error);
    set_rates(state, n, 2.0 * n * sizeof(T));
    const auto words = to_host(probe);
    const char* names[words_per_tile] = {"depth",        "waits",         "ticks_to_aggregate", "ticks_lookback",
                                         "ticks_tile_id", "ticks_totals", "ticks_first_read",   "windows"};
    for (int k = 0; k < words_per_tile; ++k) {
      std::vector<double> v(tiles);
      for (std::size_t t = 0; t < tiles; ++t) v[t] = double(words[words_per_tile * t + k]);
      double sum = 0;
      for (double x : v) sum += x;
      std::sort(v.begin(), v.end());
      const std::string name = names[k];
      state.counters[name + "_mean"] = sum / double(tiles);
      state.counters[name + "_p50"] = v[tiles / 2];
      state.counters[name + "_p90"] = v[std::min(tiles - 1, tiles * 9 / 10)];
      state.counters[name + "_max"] = v.back();
    }
    state.counters["tiles"] = double(tiles);
    state.counters["tile_elements"] = double(tile);
  } catch (const std::exception& e) {
    fail(state, std::string("single_pass (probed): ") + e.what());
  }
}

/// Registers one single-pass scan with an explicit policy (the sweeps' points).
template <class T>
void add_single_pass(const std::string& name, std::size_t n, const SinglePassPolicy& policy) {
  ScanOptions opt;
  opt.single_pass = policy;
  add_scan<T>(name, n, "single_pass", [opt](const DeviceView<T>& in, const DeviceView<T>& out) {
    exclusive_scan(Exec(), in, out, ScanAlgorithm::single_pass, opt);
  });
}

/// Registers the single-pass scan at the points of a sweep as one family, <family>/<axis>:<value>/...
/// (Google Benchmark's arguments and their names), with the policy `policy_of` makes of a point;
/// timed with its peers, or alone (`peers` false: rounds of its own call only).
template <class T>
void add_single_pass_points(const std::string& family, std::size_t n, const SinglePassPolicy& base,
                            const std::vector<std::string>& axes, const std::vector<SinglePassPolicy>& points,
                            bool peers = true) {
  if (points.empty()) return;
  const int rounds = peers ? rounds_of_scan<T>(n) : rounds_of_scan<T>(n, 1);
  auto* b = add_rounds(family, rounds, [=](benchmark::State& s) {
    ScanOptions opt;
    opt.single_pass = knob_point(base, axes, s);
    record_knobs(s, opt.single_pass);
    run_scan<T>(s, n, "single_pass", [opt](const DeviceView<T>& in, const DeviceView<T>& out) {
      exclusive_scan(Exec(), in, out, ScanAlgorithm::single_pass, opt);
    }, false, peers);
  });
  add_knob_points(b, axes, points);
}

/// scan/<algorithm>, scan/kokkos_kernels and scan/<peer>: every scan compared in kps' rounds.
template <class T>
void register_comparisons(const Options&, std::size_t n, const std::string& suffix) {
  for (ScanAlgorithm alg : {ScanAlgorithm::single_pass, ScanAlgorithm::automatic, ScanAlgorithm::kokkos,
                            ScanAlgorithm::blelloch, ScanAlgorithm::hillis_steele}) {
    add_scan<T>("scan/" + std::string(to_string(alg)) + suffix, n, to_string(alg),
                [alg](const DeviceView<T>& in, const DeviceView<T>& out) { exclusive_scan(Exec(), in, out, alg); });
  }
  // scan/deterministic/<type>/<N> (floating point): `automatic` with ScanOptions::deterministic,
  // timed with the same peers and, in the same rounds, the default form (ratio_to_default: what the
  // guarantee costs).
  if constexpr (std::is_floating_point_v<T>) {
    const ScanCall<T> automatic = [](const DeviceView<T>& in, const DeviceView<T>& out) {
      exclusive_scan(Exec(), in, out);
    };
    add_rounds("scan/deterministic" + suffix, rounds_of_scan<T>(n, scan_own_calls + round_peers<T>().size() + 1),
               [=](benchmark::State& s) {
                 run_scan<T>(s, n, "deterministic", [](const DeviceView<T>& in, const DeviceView<T>& out) {
                   ScanOptions o;
                   o.deterministic = true;
                   exclusive_scan(Exec(), in, out, ScanAlgorithm::automatic, o);
                 }, false, true, false, {{"default", automatic}});
               });
  }
  // Kokkos Kernels' utility scans an offsets array in place (Kokkos Kernels 3.4 accumulates
  // in size_t, so only integer types there).
  if (KOKKOS_VERSION >= 40000 || std::is_integral_v<T>)
    add_scan<T>(
        "scan/kokkos_kernels" + suffix, n, "kokkos_kernels",
        [](const DeviceView<T>&, const DeviceView<T>& out) {
#if KOKKOS_VERSION >= 40000
          KokkosKernels::Impl::kk_exclusive_parallel_prefix_sum(Exec(), out.extent(0), out);
#else
          KokkosKernels::Impl::kk_exclusive_parallel_prefix_sum<DeviceView<T>, Exec>(out.extent(0), out);
#endif
        },
        true);
  // Each peer of the space as a benchmark of its own: in kps' rounds with the same peers, or, a
  // peer of another runtime, alone (support/peers.hpp).
  for (const auto& p : scan_peers<T>()) {
    const bool alone = p.placement == Placement::alone;
    const auto call = p.exclusive;
    add_rounds("scan/" + p.name + suffix, alone ? rounds_of_scan<T>(n, 1) : rounds_of_scan<T>(n),
               [=](benchmark::State& s) {
                 run_scan<T>(s, n, p.name, [call](const DeviceView<T>& in, const DeviceView<T>& out) {
                   call(Exec(), in.data(), out.data(), in.extent(0));
                 }, false, !alone, p.waits);
               });
  }
}

/// scan_sweep, scan_lookback and scan_delay: the single pass's tile shapes, loads and look-back sleeps.
template <class T>
void register_knob_sweeps(const Options& o, std::size_t n, const std::string& suffix) {
  // The single-pass scan's knobs (scan_sweep/single_pass/<type>/<N>/team:T/items:I/load:L),
  // on GPUs, and the same configurations' look-back probed (scan_lookback/...). Staged tiles
  // above 32 KiB are left out: they exceed the 48 KiB of team scratch a GPU gives one team
  // once Kokkos' own share is counted.
  add("scan_lookback/single_pass" + suffix, [=](benchmark::State& s) { run_lookback<T>(s, n, {}); });
  if (!o.host)
    for (TileLoad load : {TileLoad::direct, TileLoad::staged})
      for (int team : {128, 256, 512})
        for (int items : {8, 16, 24, 32, 48, 64}) {
          if (load == TileLoad::staged && std::size_t(team) * items * sizeof(T) > 32768) continue;
          // Nor are configurations the backend cannot launch (e.g. 512 x 32 for 8-byte types on an
          // H100: the kernel's registers allow 384 threads).
          const SinglePassPolicy policy{team, items, load};
          if (!kps::impl::single_pass_launchable<Exec, T>(Exec(), policy)) continue;
          const std::string config = suffix + "/team:" + std::to_string(team) + "/items:" + std::to_string(items) +
                                     (load == TileLoad::staged ? "/load:staged" : "/load:direct");
          add_single_pass<T>("scan_sweep/single_pass" + config, n, policy);
          add("scan_lookback/single_pass" + config, [=](benchmark::State& s) { run_lookback<T>(s, n, policy); });
        }
  // The look-back's delays (scan_delay/single_pass/<type>/<N>/team:T/items:I/delay:D/poll:P,
  // GPUs): the sleep after publishing the aggregate before the first read and the sleep between
  // polls of unpublished predecessors (SinglePassPolicy::look_back_delay_ns / poll_delay_ns), on
  // staged tiles of 16 to 32 KiB (the sweep's optima are among them); polls at the default tiles.
  if (!o.host) {
    const std::vector<std::pair<int, int>> configs =
        sizeof(T) <= 4 ? std::vector<std::pair<int, int>>{{256, 32}, {128, 64}, {128, 32}, {256, 16}}
                       : std::vector<std::pair<int, int>>{{128, 32}, {256, 16}, {128, 24}, {128, 16}};
    const SinglePassPolicy base{0, 0, TileLoad::staged};
    std::vector<SinglePassPolicy> points;
    for (auto [team, items] : configs)
      for (int delay : {0, 600, 1200, 2400, 3600})
        for (int poll : {0, 600}) {
          if (poll > 0 && (team != configs[0].first || items != configs[0].second)) continue;
          const SinglePassPolicy p{team, items, TileLoad::staged, delay, poll};
          if (kps::impl::single_pass_launchable<Exec, T>(Exec(), p)) points.push_back(p);
        }
    add_single_pass_points<T>("scan_delay/single_pass" + suffix, n, base,
                              {axis(knobs::scan_team), axis(knobs::scan_items), axis(knobs::delay), axis(knobs::poll)},
                              points);
  }
}

/// scan_tune: the tuning's sweep (GPUs: staged tiles; host backends: cached tiles) and its verification.
template <class T>
void register_tuning_sweep(const Options& o, std::size_t n, const std::string& suffix) {
  // `kps tune`'s scan sweep, the table's scan rows (GPUs): scan_tune/single_pass/<type>/<N>/team:T/
  // items:I/delay:D/poll:P/prefetch:F on staged tiles of 16 to 40 KiB (the shapes of the H100's
  // mid-size sweeps' optima and their neighbours; for 8-byte types also 160 x 32 and 224 x 16,
  // the best at 2^21..2^23 in results/h100-cuda/experiments/scan-packed-status), the look-back's
  // sleeps as the table's rows use them (none, 600 or 2400 ns before the first read, or 600 ns
  // between polls) and no or a 64-tile L2 prefetch (evict-first stores of staged tiles, tried and
  // gained nothing on the H200: results/h200-cuda/experiments/scan-evict-first-stores);
  // scan_tune/kokkos/<type>/<N>, Kokkos' scan,
  // which the table picks where it is faster; and scan_tune/automatic/<type>/<N>, the table's
  // choice, which its verification compares with the optimum. Each point is timed alone, in rounds of its own call (the sweep
  // has hundreds).
  if (!o.host) {
    const std::vector<std::pair<int, int>> shapes =
        sizeof(T) <= 4 ? std::vector<std::pair<int, int>>{{128, 32}, {256, 32}, {128, 64}, {256, 16}, {512, 16}}
                       : std::vector<std::pair<int, int>>{{128, 16}, {256, 16}, {128, 32}, {160, 32}, {224, 16}};
    const SinglePassPolicy base{0, 0, TileLoad::staged};
    std::vector<SinglePassPolicy> points;
    for (auto [team, items] : shapes)
      for (auto [delay, poll] : {std::pair{0, 0}, std::pair{600, 0}, std::pair{2400, 0}, std::pair{0, 600}})
        for (int ahead : {0, 64}) {
          SinglePassPolicy policy{team, items, TileLoad::staged, delay, poll};
          policy.prefetch_tiles = ahead;
          if (kps::impl::single_pass_launchable<Exec, T>(Exec(), policy)) points.push_back(policy);
        }
    add_single_pass_points<T>("scan_tune/single_pass" + suffix, n, base,
                              {axis(knobs::scan_team), axis(knobs::scan_items), axis(knobs::delay), axis(knobs::poll),
                               axis(knobs::prefetch)},
                              points, false);
  }
  // On host backends, the same sweep of the single pass on cached tiles
  // (scan_tune/single_pass/<type>/<N>/team:1/items:I/store:S): one thread per team, tiles of 16 KiB
  // to 1 MiB per thread (a core's L1 to past its L2), ordinary (S = 0) or streaming (S = 1) stores.
  if (o.host) {
    const SinglePassPolicy base{1, 0, TileLoad::cached};
    std::vector<SinglePassPolicy> points;
    for (int bytes : {16 << 10, 64 << 10, 256 << 10, 1 << 20})
      for (TileStore store : {TileStore::cached, TileStore::streaming}) {
        SinglePassPolicy p{1, bytes / int(sizeof(T)), TileLoad::cached};
        p.store = store;
        points.push_back(p);
      }
    // And one tile of 2^24 elements: up to there one team, a single pass (a plain loop), where
    // the threads do not pay for the second pass (a machine of two cores).
    SinglePassPolicy one{1, 1 << 24, TileLoad::cached};
    one.store = TileStore::cached;
    points.push_back(one);
    add_single_pass_points<T>("scan_tune/single_pass" + suffix, n, base,
                              {axis(knobs::scan_team), axis(knobs::scan_items), axis(knobs::store)}, points, false);
  }
  // Kokkos' scan and `automatic` (what the table makes of the size: the verification's) alike.
  for (ScanAlgorithm alg : {ScanAlgorithm::kokkos, ScanAlgorithm::automatic})
    add_rounds("scan_tune/" + std::string(to_string(alg)) + suffix, rounds_of_scan<T>(n, 1), [=](benchmark::State& s) {
      run_scan<T>(s, n, to_string(alg), [alg](const DeviceView<T>& in, const DeviceView<T>& out) {
        exclusive_scan(Exec(), in, out, alg);
      }, false, false);
    });
}

/// scan_prefetch and the copies: the L2 prefetch's distance and the scans' bandwidth bound.
template <class T>
void register_bounds(const Options& o, std::size_t n, const std::string& suffix) {
  // L2 prefetch of the tile a later team takes (scan_prefetch/single_pass/<type>/<N>/team:T/
  // items:I/prefetch:P, GPUs; SinglePassPolicy::prefetch_tiles), at the default delays.
  if (!o.host) {
    const std::vector<std::pair<int, int>> configs =
        sizeof(T) <= 4 ? std::vector<std::pair<int, int>>{{256, 32}, {128, 64}}
                       : std::vector<std::pair<int, int>>{{128, 32}, {256, 16}};
    const SinglePassPolicy base{0, 0, TileLoad::staged};
    std::vector<SinglePassPolicy> points;
    for (auto [team, items] : configs)
      for (int ahead : {0, 33, 66, 132, 264, 528, 792}) {
        SinglePassPolicy policy{team, items, TileLoad::staged};
        policy.prefetch_tiles = ahead;
        if (kps::impl::single_pass_launchable<Exec, T>(Exec(), policy)) points.push_back(policy);
      }
    add_single_pass_points<T>("scan_prefetch/single_pass" + suffix, n, base,
                              {axis(knobs::scan_team), axis(knobs::scan_items), axis(knobs::prefetch)}, points);
  }
  // The copies behind the scans' bandwidth bound: Kokkos' deep_copy (copy/kokkos), and on host
  // backends one with streaming stores (copy/streaming, kernels/stream_copy.hpp), as the cached
  // tiles write where the table says so.
  const auto copy = [n](const std::string& name, auto call) {
    add_rounds(name, comparison_rounds(scan_rounds, 2.0 * double(n) * sizeof(T), 1), [=](benchmark::State& s) {
      const Exec exec;
      auto in = random_view<T>("kps::bench::in", n, 99);
      DeviceView<T> out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kps::bench::out"), n);
      // Timed as the scans are (rounds of one call, each after a cache flush; the median).
      const Medians t = timed_rounds(s, exec, {[&] { call(exec, in, out); }});
      exec.fence();
      const std::string error = compare(to_host(out), to_host(in));
      if (!error.empty()) return fail(s, "copy: " + error);
      if (t.wall.empty()) return;
      set_rates(s, n, 2.0 * n * sizeof(T), t.wall[0]);
      s.counters["rounds"] = static_cast<double>(t.rounds);
    });
  };
  copy("copy/kokkos" + suffix, [](const Exec& e, const DeviceView<T>& in, const DeviceView<T>& out) {
    Kokkos::deep_copy(e, out, in);
  });
  if (o.host)
    copy("copy/streaming" + suffix, [](const Exec& e, const DeviceView<T>& in, const DeviceView<T>& out) {
      stream_copy(e, in.data(), out.data(), in.extent(0));
    });
}

template <class T>
void register_type(const Options& o, std::size_t n) {
  const std::string suffix = std::string("/") + type_name<T>() + "/" + std::to_string(n);
  require_memory(o, "scan" + suffix, n, 4 * n * sizeof(T));
  register_comparisons<T>(o, n, suffix);
  register_knob_sweeps<T>(o, n, suffix);
  register_tuning_sweep<T>(o, n, suffix);
  register_bounds<T>(o, n, suffix);
}

void register_scans(const Options& o) {
  for_each_size_and_type(o, [&](auto t, std::size_t n) { register_type<decltype(t)>(o, n); });
}

/// scan_warps/<alg>/tile:<n>: one tile scanned by one team of one thread per lane, the active
/// warps of every step counted by the GPU (Native<Exec>::WarpCount, bench/cuda/warp_count.hpp) and checked against the
/// analytic count (kps::team_scan_active_warp_iterations; the seed's 289 and 71 at n = 1024).
/// Counters: measured and analytic active warp-iterations, steps, and the tile's scan time.
template <class E = Exec>
void run_warps(benchmark::State& state, TeamScanAlgorithm alg, int tile) {
  if constexpr (Native<E>::has_warp_count) {
    try {
      const Exec exec;
      const int steps = team_scan_steps(alg, tile);
      auto in = random_view<std::int32_t>("kps::bench::in", tile, 55);
      DeviceView<std::int32_t> out("kps::bench::out", tile);
      Kokkos::View<int*, Exec::memory_space> counts("kps::bench::warp_counts", steps);
      using Count = typename Native<E>::WarpCount;
      using Kernel = kps::impl::TileScanKernel<E, std::int32_t, Count>;
      const Kernel k{in.data(), out.data(), nullptr, std::size_t(tile), tile, alg, false,
                     Count{counts.data()}};
      timed_loop(state, exec, [&] {
        Kokkos::deep_copy(exec, counts, 0);
        kps::impl::launch_tile_scan(exec, k, 1, "kps::bench::scan_warps");
      });
      exec.fence();
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), counts);
      long measured = 0;
      for (int s = 0; s < steps; ++s) measured += h(s);
      const long analytic = team_scan_active_warp_iterations(alg, tile, 32);
      const std::string error = compare(to_host(out), reference_scan(to_host(in), false));
      if (!error.empty()) return fail(state, std::string(to_string(alg)) + ": " + error);
      state.counters["measured_active_warp_iterations"] = static_cast<double>(measured);
      state.counters["analytic_active_warp_iterations"] = static_cast<double>(analytic);
      state.counters["steps"] = steps;
      if (measured != analytic)
        return fail(state, std::string(to_string(alg)) + ": the GPU counted " + std::to_string(measured) +
                               " active warp-iterations, the analytic count is " + std::to_string(analytic));
      return;
    } catch (const std::exception& e) {
      return fail(state, e.what());
    }
  }
  (void)alg, (void)tile;
  fail(state, "no hardware count of active warps on this backend");
}

/// scan_tile/<alg>/int32/<N>/tile:<n>: the device-wide scans on a team algorithm against the
/// tile size (the seed's question: time per algorithm as the scanned block grows).
void register_tiles(const Options& o) {
  for (TeamScanAlgorithm alg : {TeamScanAlgorithm::hillis_steele, TeamScanAlgorithm::blelloch}) {
    if (!o.host)
      add(std::string("scan_warps/") + to_string(alg), [alg](benchmark::State& s) { run_warps(s, alg, int(s.range(0))); })
          ->ArgName("tile")
          ->RangeMultiplier(2)
          ->Range(64, 1024);
    if (!o.wants("int32")) continue;
    const ScanAlgorithm a =
        alg == TeamScanAlgorithm::hillis_steele ? ScanAlgorithm::hillis_steele : ScanAlgorithm::blelloch;
    for (std::size_t n : o.sizes)
      add_rounds(std::string("scan_tile/") + to_string(alg) + "/int32/" + std::to_string(n),
                 rounds_of_scan<std::int32_t>(n),
                 [a, n](benchmark::State& s) {
                   ScanOptions opt;
                   opt.tile.tile = int(s.range(0));
                   run_scan<std::int32_t>(s, n, to_string(a), [a, opt](const DeviceView<std::int32_t>& in,
                                                                       const DeviceView<std::int32_t>& out) {
                     exclusive_scan(Exec(), in, out, a, opt);
                   }, false);
                 })
          ->ArgName("tile")
          ->RangeMultiplier(2)
          ->Range(64, 1024);
  }
}

/// Scans of one scan_streams iteration: enough that 32 instances get two each.
constexpr int streams_scans = 64;

/// The instances of one stream count (kps::impl::partition: a stream each on CUDA with Kokkos
/// 4), made once per process so that stream creation stays out of every timing and each
/// instance keeps its workspace; released when Kokkos finalizes.
const std::vector<Exec>& stream_instances(int streams) {
  static std::map<int, std::vector<Exec>>* made = nullptr;
  if (!made) {
    made = new std::map<int, std::vector<Exec>>;
    Kokkos::push_finalize_hook([] {
      delete made;
      made = nullptr;
    });
  }
  std::vector<Exec>& instances = (*made)[streams];
  if (instances.empty()) instances = kps::impl::partition(Exec(), streams);
  return instances;
}

/// Host references of the scans of the last N run: scan k's input is random_view's with seed
/// streams_seed + k, a pure function of (k, index), so consecutive benchmarks share them.
constexpr std::uint64_t streams_seed = 4321;
const std::vector<std::vector<std::int32_t>>& streams_references(const std::vector<DeviceView<std::int32_t>>& in) {
  static std::size_t n = ~std::size_t(0);
  static std::vector<std::vector<std::int32_t>> refs;
  if (n != in.at(0).extent(0)) {
    refs.clear();
    for (const auto& v : in) refs.push_back(reference_scan(to_host(v), true));
    n = in[0].extent(0);
  }
  return refs;
}

/// scan_streams/<alg>/int32/<N>/streams:<S>: the seed's claim that idle SMs can be filled by
/// other work. An iteration dispatches streams_scans independent exclusive scans of N elements
/// (each its own input and output), scan k on instance k % S, and fences them all; the rates
/// count all the scans together (elements/s = K N / time, GB/s = 2 K N 4 bytes / time).
/// One host thread dispatches every scan, so at small N the launch rate bounds the throughput.
void run_streams(benchmark::State& state, std::size_t n, ScanAlgorithm alg, int streams) {
  using T = std::int32_t;
  try {
    const std::vector<Exec>& instances = stream_instances(streams);
    std::vector<DeviceView<T>> in, out;
    for (int k = 0; k < streams_scans; ++k) {
      in.push_back(random_view<T>("kps::bench::in", n, streams_seed + k));
      out.emplace_back(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kps::bench::out"), n);
    }
    auto scans = [&] {
      for (int k = 0; k < streams_scans; ++k) exclusive_scan(instances[k % streams], in[k], out[k], alg);
      // Every instance at once: one device-wide synchronisation instead of S host round trips.
      Kokkos::fence();
    };
    timed_loop(state, Exec(), scans);
    for (const auto& o : out) poison(o);
    scans();
    const auto& refs = streams_references(in);
    for (int k = 0; k < streams_scans; ++k) {
      const std::string error = compare(to_host(out[k]), refs[k]);
      if (!error.empty())
        return fail(state, std::string(to_string(alg)) + ": scan " + std::to_string(k) + " on instance " +
                               std::to_string(k % streams) + " of " + std::to_string(streams) + ": " + error);
    }
    set_rates(state, std::size_t(streams_scans) * n, 2.0 * streams_scans * n * sizeof(T));
    state.counters["N"] = static_cast<double>(n);
    state.counters["scans"] = streams_scans;
    state.counters["streams"] = streams;
  } catch (const std::exception& e) {
    fail(state, std::string(to_string(alg)) + ": " + e.what());
  }
}

void register_streams(const Options& o) {
  if (!o.wants("int32")) return;
  for (std::size_t n : o.sizes) {
    // Sizes whose scans do not fit in device memory are left out: the family is about scans
    // too small to fill the device (the study runs it up to 2^16), and the default sweep
    // reaches 2^30.
    if (o.memory_bytes && 2 * streams_scans * n * sizeof(std::int32_t) > o.memory_bytes / 10 * 9) continue;
    for (ScanAlgorithm alg : {ScanAlgorithm::hillis_steele, ScanAlgorithm::blelloch, ScanAlgorithm::single_pass,
                              ScanAlgorithm::kokkos})
      add(std::string("scan_streams/") + to_string(alg) + "/int32/" + std::to_string(n),
          [n, alg](benchmark::State& s) { run_streams(s, n, alg, int(s.range(0))); })
          ->ArgName("streams")
          ->RangeMultiplier(2)
          ->Range(1, 32);
  }
}

}  // namespace scan_fixtures
}  // namespace kps::bench

KPS_BENCH_REGISTER(kps::bench::scan_fixtures::register_scans);
KPS_BENCH_REGISTER(kps::bench::scan_fixtures::register_tiles);
KPS_BENCH_REGISTER(kps::bench::scan_fixtures::register_streams);
