// bench/occupancy_bench.cpp — the occupancy study's fixtures (seeds 004 and 003): kernels whose
// every block spins a fixed time, so a launch takes (waves x that time) and the waves show
// how many blocks an SM held at once.
//   occupancy/cuda/regs:<R>/threads:<T>/blocks:<B>/smem:<S>  native spin (kps/cuda), R
//       registers per thread fixed with __maxnreg__ (free: the compiler's count), S bytes of
//       dynamic shared memory per block;
//   occupancy/kokkos/threads:<T>/blocks:<B>/smem:<S>         portable spin (bench/kernels/spin.hpp),
//       S bytes of team scratch.
// B and S are written relative to the device (sm = its SM count, K = 1024 bytes) so that names
// compare across devices. Counters: measured_waves = time / (the same kernel's one-block
// time), predicted_waves and predicted blocks per SM from the occupancy model with the
// kernel's registers and shared memory as cudaFuncGetAttributes reports them, the runtime's
// cudaOccupancyMaxActiveBlocksPerMultiprocessor where it applies, and the limiters.
// On host backends the portable spin runs a few points without model claims.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "support/common.hpp"
#include "support/native.hpp"
#include "kps_models/occupancy.hpp"
#include "kernels/spin.hpp"

namespace kps::bench {
namespace occupancy_fixtures {

using namespace kps::models;  // the occupancy and latency models (kps_models/)

using Ticks = Kokkos::View<long long*, Exec::memory_space>;
using SpinFunctor = kernels::SpinTeams<Exec, Kokkos::LaunchBounds<0, 0>>;

/// The portable register-pressure variants: `live` values kept live across the spin, with and
/// without Kokkos::LaunchBounds<MaxThreads, MinBlocks>.
constexpr int live_values = 60;
enum class Bounds { none, b1024x1, b512x2, b256x4, b256x8 };
const std::vector<Bounds> all_bounds{Bounds::none, Bounds::b1024x1, Bounds::b512x2, Bounds::b256x4, Bounds::b256x8};
const char* to_string(Bounds b) {
  switch (b) {
    case Bounds::b1024x1: return "1024x1";
    case Bounds::b512x2: return "512x2";
    case Bounds::b256x4: return "256x4";
    case Bounds::b256x8: return "256x8";
    default: return "none";
  }
}

/// A type as a value, for generic lambdas (no functor object, whose View member g++ 12 fails
/// to construct in a value-initialized temporary against Kokkos 5's View).
template <class T>
struct Type {
  using type = T;
};

/// Calls f(Type<functor type>) for a bounds variant.
template <class F>
auto with_bounds(Bounds b, F&& f) {
  switch (b) {
    case Bounds::b1024x1: return f(Type<kernels::SpinTeams<Exec, Kokkos::LaunchBounds<1024, 1>, live_values>>{});
    case Bounds::b512x2: return f(Type<kernels::SpinTeams<Exec, Kokkos::LaunchBounds<512, 2>, live_values>>{});
    case Bounds::b256x4: return f(Type<kernels::SpinTeams<Exec, Kokkos::LaunchBounds<256, 4>, live_values>>{});
    case Bounds::b256x8: return f(Type<kernels::SpinTeams<Exec, Kokkos::LaunchBounds<256, 8>, live_values>>{});
    default: return f(Type<kernels::SpinTeams<Exec, Kokkos::LaunchBounds<0, 0>, live_values>>{});
  }
}

template <class Functor>
struct BoundsOf;
template <class E, unsigned T, unsigned B, int L>
struct BoundsOf<kernels::SpinTeams<E, Kokkos::LaunchBounds<T, B>, L>> {
  static constexpr unsigned max_threads = T, min_blocks = B;
  static constexpr int live = L;
};

constexpr long long gpu_spin_cycles = 1ll << 21;  // about 1 ms at Hopper's 1.98 GHz
constexpr long long host_spin_ns = 1ll << 20;     // about 1 ms

/// A launch: native (registers >= 0) or portable (registers < 0).
struct Launch {
  int registers;  // -1: the portable Kokkos spin
  int threads;
  long long blocks;
  std::size_t smem;
  bool pressure = false;        // portable: live values with `bounds`
  Bounds bounds = Bounds::none;
  int desired = 0;              // portable: Kokkos::Experimental::DesiredOccupancy percent (0: none)
  bool native() const { return registers >= 0; }
  auto key() const { return std::make_tuple(registers, threads, smem, pressure, static_cast<int>(bounds), desired); }
};

long long spin_ticks(const Options& o) { return o.host ? host_spin_ns : gpu_spin_cycles; }

void launch(const Options& o, const Launch& l, const Ticks& out) {
  const SpinConfig cfg{static_cast<int>(l.blocks), l.threads, spin_ticks(o), l.smem, l.desired};
  if (!l.native() && l.pressure)
    return with_bounds(l.bounds, [&](auto type) {
      using B = BoundsOf<typename decltype(type)::type>;
      spin_teams<B::max_threads, B::min_blocks, B::live>(Exec(), cfg, out);
    });
  if (!l.native()) return spin_teams(Exec(), cfg, out);
  Native<Exec>::spin(Exec(), l.registers, static_cast<int>(l.blocks), l.threads, spin_ticks(o), l.smem, out.data());
}

/// The one-block time of a kernel (median of 7), the unit of measured waves.
double one_block_seconds(const Options& o, const Launch& l) {
  static std::map<decltype(l.key()), double> cache;
  const auto key = l.key();
  const auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  Ticks out("kps::bench::occupancy::one_block", 1);
  Launch one = l;
  one.blocks = 1;
  return cache[key] = median_seconds(Exec(), [&] { launch(o, one, out); }, 7);
}

/// What Kokkos 4.6 requests for DesiredOccupancy{percent} (Kokkos_Cuda_KernelLaunch.hpp,
/// configure_shmem_preference): the blocks that give that share of the SM's threads (capped by
/// registers), dynamic shared memory padded so that those blocks ask for at least 8 KB
/// together, and a carveout of that many bytes in 8 KB steps, in percent of the SM's shared
/// memory. It counts neither the 1 KB the driver reserves per block nor the allocation unit.
void kokkos_desired_occupancy_request(const DeviceLimits& d, KernelResources& k, int percent) {
  const std::size_t block = static_cast<std::size_t>(k.threads_per_block);
  const std::size_t regs = 8 * ((static_cast<std::size_t>(k.registers_per_thread) + 7) / 8);
  std::size_t by_regs = static_cast<std::size_t>(d.registers_per_sm) / (regs * block);
  const std::size_t threads_desired = (static_cast<std::size_t>(d.max_threads_per_sm) * percent / 100 + 31) / 32 * 32;
  std::size_t blocks = static_cast<std::size_t>((threads_desired + block * 0.8) / block);
  blocks = std::max<std::size_t>(1, std::min(by_regs, blocks));
  std::size_t per_block = k.dynamic_smem + k.static_smem;
  constexpr std::size_t min_per_sm = 8192;
  if (percent < 100 && per_block * blocks < min_per_sm) {
    per_block = min_per_sm / blocks;
    k.dynamic_smem = per_block - k.static_smem;
  }
  const std::size_t carveout =
      per_block == 0 ? 0 : 100 * ((blocks * per_block + min_per_sm - 1) / min_per_sm * min_per_sm) / d.smem_per_sm;
  k.carveout_percent = static_cast<int>(std::min<std::size_t>(carveout, 100));
}

/// What the model needs of the kernel: registers and static shared memory (where the backend
/// says: Native<Exec>::has_attributes), and what Kokkos adds for a desired occupancy.
KernelResources resources(const Options& o, const Launch& l) {
  KernelResources k{l.threads, 0, 0, l.smem};
  if (!Native<Exec>::has_attributes) return k;
  KernelAttributes a;
  if (l.native())
    a = Native<Exec>::spin_attributes(l.registers);
  else if (l.pressure)
    a = with_bounds(l.bounds, [](auto type) {
      using F = typename decltype(type)::type;
      return Native<Exec>::team_for_attributes<F, typename F::Policy>();
    });
  else
    a = Native<Exec>::team_for_attributes<SpinFunctor, SpinFunctor::Policy>();
  k.registers_per_thread = a.registers;
  k.static_smem = a.static_smem;
  if (l.desired > 0) kokkos_desired_occupancy_request(limits_for(o.device.compute_capability), k, l.desired);
  return k;
}

void run(benchmark::State& state, const Options& o, const Launch& l) {
  const Exec exec;
  try {
    Ticks out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kps::bench::occupancy::out"), l.blocks);
    launch(o, l, out);  // warm-up
    const double measured = timed_loop(state, exec, [&] { launch(o, l, out); });
    auto spun = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    for (long long b = 0; b < l.blocks; ++b)
      if (spun(b) < spin_ticks(o))
        return fail(state, "block " + std::to_string(b) + " spun " + std::to_string(spun(b)) + " ticks, fewer than " +
                               std::to_string(spin_ticks(o)));
    const double unit = one_block_seconds(o, l);
    state.counters["threads_per_block"] = l.threads;
    state.counters["blocks"] = static_cast<double>(l.blocks);
    state.counters["smem_bytes"] = static_cast<double>(l.smem);
    state.counters["measured_ms"] = measured * 1e3;
    state.counters["one_block_ms"] = unit * 1e3;
    state.counters["measured_waves"] = measured / unit;
    if (o.host) return;  // the model describes GPUs

    const KernelResources k = resources(o, l);
    const DeviceLimits& limits = limits_for(o.device.compute_capability);
    const OccupancyResult r = occupancy(limits, k);
    state.counters["registers"] = k.registers_per_thread;
    state.counters["static_smem_bytes"] = static_cast<double>(k.static_smem);
    state.counters["dynamic_smem_bytes"] = static_cast<double>(k.dynamic_smem);
    if (k.carveout_percent >= 0) state.counters["carveout_percent"] = k.carveout_percent;
    state.counters["predicted_blocks_per_sm"] = r.blocks_per_sm;
    state.counters["predicted_waves"] = static_cast<double>(waves(r, l.blocks, o.device.compute_units));
    state.counters["occupancy"] = r.occupancy;
    for (const std::string& limiter : r.limiters) state.counters["limiter_" + limiter] = 1;
    if (l.native())
      state.counters["runtime_blocks_per_sm"] = Native<Exec>::spin_max_active_blocks(l.registers, l.threads, l.smem);
  } catch (const std::exception& e) {
    fail(state, e.what());
  }
}

std::string smem_name(std::size_t bytes) {
  return bytes % 1024 == 0 ? std::to_string(bytes / 1024) + "K" : std::to_string(bytes);
}

std::string blocks_name(long long blocks, int sms) {
  if (blocks == 1) return "1";
  for (long long k = 1; k <= 8; ++k)
    for (long long d = -1; d <= 1; ++d)
      if (blocks == k * sms + d)
        return (k == 1 ? std::string() : std::to_string(k)) + "sm" + (d < 0 ? "-1" : d > 0 ? "+1" : "");
  return std::to_string(blocks);
}

/// The native spin's register variants (Native<Exec>: none where the backend has no native spin).
std::vector<int> register_variants() { return Native<Exec>::spin_register_variants(); }

/// Whether a launch can run at all (the sweeps skip what the backend refuses: more team
/// scratch than Kokkos allows, more threads than a register-heavy kernel can launch).
bool launchable(const Launch& l) {
  if (l.native()) {  // a register cap this build offers (nvcc before 12.4: none)
    const std::vector<int> offered = register_variants();
    if (std::find(offered.begin(), offered.end(), l.registers) == offered.end()) return false;
  }
  if (!l.native() && l.pressure)
    return with_bounds(l.bounds, [&](auto type) {
      using F = typename decltype(type)::type;
      F functor;  // not const: a const object of a class without a user-provided constructor needs an initializer
      return l.threads <= typename F::Policy(1, 1).team_size_max(functor, Kokkos::ParallelForTag{});
    });
  if (!l.native()) return l.smem <= static_cast<std::size_t>(SpinFunctor::Policy::scratch_size_max(0));
  return l.threads <= Native<Exec>::spin_attributes(l.registers).max_threads_per_block;
}

void register_occupancy(const Options& o) {
  const int S = o.device.compute_units;
  std::vector<Launch> launches;
  auto both = [&](int regs, int t, long long b, std::size_t smem) {
    launches.push_back({regs, t, b, smem});
    launches.push_back({-1, t, b, smem});
  };
  if (o.host) {
    for (long long b : {1ll, static_cast<long long>(S), S + 1ll, 2ll * S}) launches.push_back({-1, 1, b, 0});
  } else {
    constexpr std::size_t K = 1024;
    // The seed's register table on this device (48 registers per thread).
    for (auto [b, t] : std::vector<std::pair<long long, int>>{{1, 1024}, {S, 1024}, {S + 1, 1024}, {S + 1, 641},
                                                              {S + 1, 640}, {2 * S, 640}, {2 * S + 1, 640}, {2 * S + 1, 417},
                                                              {2 * S + 1, 416}, {3 * S, 416}, {3 * S + 1, 416}})
      launches.push_back({48, t, b, 0});
    // The seed's shared-memory table: 100 KB per block, two fit in 228 KB, three do not.
    for (auto [b, t] : std::vector<std::pair<long long, int>>{{1, 1024}, {2 * S, 1024}, {2 * S + 1, 1024}, {2 * S + 1, 1}})
      both(0, t, b, 100 * K);
    // Threads at the register and warp steps: 2 and 3 blocks per SM, 48 registers.
    for (int t = 32; t <= 1024; t += 32) {
      launches.push_back({48, t, 2ll * S, 0});
      launches.push_back({48, t, 3ll * S, 0});
    }
    // Blocks across the wave boundaries of 640-thread blocks (2 per SM at 48 registers).
    for (long long b : {2ll * S - 1, 2ll * S, 2ll * S + 1, 4ll * S - 1, 4ll * S, 4ll * S + 1})
      launches.push_back({48, 640, b, 0});
    // Shared memory at the block-count steps, 3 x SMs blocks of one warp: the 1 KB the
    // driver reserves per block decides 75 KB (3 per SM) against 76 KB (2 per SM).
    for (std::size_t s = 4 * K; s <= 116 * K; s += 4 * K) both(0, 32, 3ll * S, s);
    for (std::size_t s : {75 * K + 128, 75 * K + 1, 113 * K, 113 * K + 128}) both(0, 32, 3ll * S, s);
    // Team scratch stays under Kokkos' limit (about 40 KB): 6 x SMs blocks see the step from
    // 6 to 5 blocks per SM (228 KB / 6 = 38 KB per block, the reserved 1 KB included).
    for (std::size_t s = 20 * K; s <= 40 * K; s += 2 * K) both(0, 32, 6ll * S, s);
    // Kokkos' levers. LaunchBounds: live values that need about 66 registers, capped by the
    // bounds; DesiredOccupancy: 256-thread teams, the league growing one team per SM at a
    // time, so the first league that takes two waves tells the blocks per SM Kokkos got.
    for (Bounds b : all_bounds)
      for (int t : {256, 512, 1024}) {
        Launch l{-1, t, 2ll * S, 0};
        l.pressure = true;
        l.bounds = b;
        launches.push_back(l);
      }
    for (int desired : {25, 50, 75, 100})
      for (long long k = 1; k <= 8; ++k) {
        Launch l{-1, 256, k * S, 0};
        l.desired = desired;
        launches.push_back(l);
      }
    // Register variants at the thread steps of one wave of 2 blocks per SM.
    for (int regs : register_variants())
      for (int t : {256, 384, 512, 640, 768, 1024}) launches.push_back({regs, t, 2ll * S, 0});
  }
  std::set<std::string> seen;  // the sweeps share points; each runs once
  for (const Launch& l : launches) {
    if (!launchable(l)) continue;
    const std::string kokkos_variant =
        l.pressure ? std::string("bounds:") + to_string(l.bounds) + "/"
                   : (l.desired ? "desired:" + std::to_string(l.desired) + "/" : std::string());
    const std::string name = std::string("occupancy/") +
                             (l.native() ? "cuda/regs:" + (l.registers ? std::to_string(l.registers) : std::string("free")) + "/"
                                         : "kokkos/" + kokkos_variant) +
                             "threads:" + std::to_string(l.threads) + "/blocks:" + blocks_name(l.blocks, S) +
                             "/smem:" + smem_name(l.smem);
    if (!seen.insert(name).second) continue;
    add(name, [o, l](benchmark::State& s) { run(s, o, l); })->Unit(benchmark::kMillisecond);
  }
}

}  // namespace occupancy_fixtures
KPS_BENCH_REGISTER(occupancy_fixtures::register_occupancy);
}  // namespace kps::bench
