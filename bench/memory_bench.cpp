// bench/memory_bench.cpp — the memory-latency probe (the scan study's bytes-in-flight model):
//   memory_latency/chase/<bytes>
// one thread following a chain of dependent loads over a footprint of <bytes> (--kps_footprints;
// --kps_sizes and --kps_types are the other families'), lines of 128 bytes in a
// random order within 2 MiB blocks (bench/kernels/pointer_chase.hpp). Each call follows 65536
// links on from where the previous call left the chain, and the chain's first lines were written
// first, so a footprint larger than the caches stays cold across calls. Counters: latency_ns (the
// median call's time per load), footprint_bytes, lines, steps. The chain's end after all the
// calls is checked against where the host says it must be: a wrong or skipped load fails the
// benchmark.
//   memory_latency/loaded/<bytes>
// the same chain while the space's other teams copy a buffer past the last-level cache (the
// latency a load sees behind a streaming memory: run_loaded), where the space runs two teams at
// once or more.
#include <algorithm>
#include <cstdint>
#include <vector>
#include <set>
#include <string>

#include "support/common.hpp"
#include "kernels/pointer_chase.hpp"

namespace kps::bench {
namespace memory_fixtures {

/// Loads per call: tens of milliseconds at a GPU's memory latency, milliseconds on a CPU.
constexpr std::int64_t chase_steps = 65536;

/// A footprint's chain on the space (bench/kernels/pointer_chase.hpp): its order (the host's),
/// its links, where it stands, and the loads followed so far, for both probes.
struct Chain {
  std::size_t bytes, lines;
  std::vector<std::uint64_t> order;
  Kokkos::View<std::uint64_t*, Exec::memory_space> links;
  Kokkos::View<std::uint64_t, Exec::memory_space> at{"kps::bench::chase_at"};
  std::uint64_t walked = 0;

  Chain(const Exec& exec, std::size_t footprint)
      : bytes(footprint), lines(footprint / chase_line_bytes), order(chase_order(lines, 0x6b7073 + footprint)),
        links(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kps::bench::chase"), footprint / sizeof(std::uint64_t)) {
    write_chase(exec, links, order);
    Kokkos::deep_copy(exec, at, order[0] * chase_line_words);
  }

  /// Empty where the chain stands where the host says it must after `walked` loads, else why not.
  std::string end_error(const std::string& name) const {
    std::uint64_t got = 0;
    Kokkos::deep_copy(got, at);
    const std::uint64_t want = order[walked % lines] * chase_line_words;
    if (got == want) return {};
    return name + ": the chain stopped at word " + std::to_string(got) + " after " + std::to_string(walked) +
           " loads; the host expects word " + std::to_string(want);
  }

  /// The probes' common counters: the median call's time per load, the footprint, its lines, the loads per call.
  void set_counters(benchmark::State& state, double median_seconds) const {
    state.counters["latency_ns"] = median_seconds * 1e9 / double(chase_steps);
    state.counters["footprint_bytes"] = double(bytes);
    state.counters["lines"] = double(lines);
    state.counters["steps"] = double(chase_steps);
  }
};

void run(benchmark::State& state, const std::string& name, std::size_t bytes) {
  const Exec exec;
  try {
    Chain chain(exec, bytes);
    const PointerChase<Exec> chase{chain.links, chain.at, chase_steps};
    const auto call = [&] {
      Kokkos::parallel_for("kps::bench::pointer_chase", Kokkos::RangePolicy<Exec>(exec, 0, 1), chase);
      chain.walked += chase_steps;
    };
    call();  // untimed: the code and the first block's translations
    const double median = timed_loop(state, exec, call);
    if (const std::string error = chain.end_error(name); !error.empty()) return fail(state, error);
    chain.set_counters(state, median);
  } catch (const std::exception& e) {
    fail(state, name + ": " + e.what());
  }
}

/// The memory a footprint's benchmark allocates: the chain and its order (a word per line).
std::size_t chase_bytes(std::size_t bytes) { return bytes + bytes / chase_line_words; }

/// The loaded probe's copy: two buffers of doubles, each 4 x the last-level cache (STREAM's rule;
/// 1 GiB where the cache is unknown), at least 64 MiB.
std::size_t loaded_copy_bytes(const Options& o) {
  const std::size_t llc = o.device.l2_bytes ? o.device.l2_bytes : std::size_t(256) << 20;
  return std::max<std::size_t>(std::size_t(64) << 20, 4 * llc) / sizeof(double) * sizeof(double);
}

/// memory_latency/loaded/<bytes>: the chain (as memory_latency/chase) while the rest of the space
/// copies (LoadedChase): a team of one thread per hardware thread on a host, teams of 256 on a
/// device, as many as run at once (Kokkos' concurrency), team 0 following the chain. The chain's
/// time is its own (its thread's clock, converted with the rate clock_tic_rate measures before the
/// calls and after them), not the call's. Counters: latency_ns (the median call's chain time per
/// load), call_latency_ns (the median call's time per load, launch and copy tail included),
/// copy_GBps (the copy's read + write while the chains ran: the load they saw), copy_teams,
/// clock_ghz (the clock's rate), unloaded_calls (calls in which no team copied while the chain
/// ran: the space, or a machine whose cores other processes hold, did not run them beside it;
/// such a run is no loaded latency, and the report leaves it out). Where the space's clock does
/// not advance, latency_ns is the call's and clock_ghz 0.
void run_loaded(benchmark::State& state, const std::string& name, std::size_t bytes, const Options& o) {
  const Exec exec;
  try {
    Chain chain(exec, bytes);
    const std::size_t copy_n = loaded_copy_bytes(o) / sizeof(double);
    const Kokkos::View<double*, Exec::memory_space> src("kps::bench::loaded_src", copy_n);
    const Kokkos::View<double*, Exec::memory_space> dst("kps::bench::loaded_dst", copy_n);
    Kokkos::deep_copy(exec, src, 1.0);
    const int team = o.host ? 1 : 256;
    const int league = std::max(2, o.device.concurrency / team);
    using Space = Exec::memory_space;
    LoadedChase<Exec> chase{chain.links,
                            chain.at,
                            src,
                            dst,
                            Kokkos::View<int*, Space>("kps::bench::loaded_flags", 2),
                            Kokkos::View<unsigned long long, Space>("kps::bench::loaded_during"),
                            Kokkos::View<std::uint64_t*, Space>("kps::bench::loaded_ticks", 2),
                            chase_steps};
    const auto call = [&] {
      Kokkos::deep_copy(exec, chase.flags, 0);
      Kokkos::parallel_for("kps::bench::loaded_chase", Kokkos::TeamPolicy<Exec>(exec, league, team), chase);
      chain.walked += chase_steps;
    };
    // After a call: the chain's ticks and the elements copied while it ran (the counters reset).
    const auto read_call = [&](std::uint64_t& ticks, unsigned long long& during) {
      std::uint64_t t[2] = {0, 0};
      Kokkos::deep_copy(Kokkos::View<std::uint64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(t, 2),
                        chase.ticks);
      Kokkos::deep_copy(during, chase.during);
      Kokkos::deep_copy(exec, chase.during, 0ull);
      exec.fence();
      ticks = t[1] - t[0];
    };
    const std::uint64_t calibration_ticks = std::uint64_t(1) << 25;  // about 10-30 ms at 1-3 GHz
    const double rate_before = clock_tic_rate(exec, calibration_ticks);
    call();  // untimed: the code, the first block's translations, the copy's first touch
    exec.fence();
    std::uint64_t ticks = 0;
    unsigned long long during = 0;
    read_call(ticks, during);
    std::vector<double> call_times;
    std::vector<std::uint64_t> chain_ticks;
    unsigned long long copied = 0;
    int unloaded_calls = 0;
    for (auto _ : state) {
      exec.fence();
      Kokkos::Timer timer;
      call();
      exec.fence();
      call_times.push_back(timer.seconds());
      state.SetIterationTime(call_times.back());
      state.PauseTiming();
      read_call(ticks, during);
      chain_ticks.push_back(ticks);
      unloaded_calls += during == 0;
      copied += during;
      state.ResumeTiming();
    }
    if (call_times.empty()) return;
    const double rate_after = clock_tic_rate(exec, calibration_ticks);
    const double rate = rate_before > 0 && rate_after > 0 ? 0.5 * (rate_before + rate_after) : 0.0;
    const auto median_of = [](auto v) {
      std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
      return v[v.size() / 2];
    };
    const double call_median = median_of(call_times);
    double chain_total = 0;
    for (std::size_t i = 0; i < chain_ticks.size(); ++i)
      chain_total += rate > 0 ? double(chain_ticks[i]) / rate : call_times[i];
    const double chain_median = rate > 0 ? double(median_of(chain_ticks)) / rate : call_median;
    if (const std::string error = chain.end_error(name); !error.empty()) return fail(state, error);
    // The copy's check: every element it wrote is the source's.
    double wrong = 0;
    Kokkos::parallel_reduce("kps::bench::loaded_check", Kokkos::RangePolicy<Exec>(exec, 0, copy_n),
                            KOKKOS_LAMBDA(std::size_t i, double& w) { w += (dst(i) != 0.0 && dst(i) != src(i)); }, wrong);
    if (wrong != 0) return fail(state, name + ": the copy beside the chain wrote wrong values");
    chain.set_counters(state, chain_median);
    state.counters["call_latency_ns"] = call_median * 1e9 / double(chase_steps);
    state.counters["copy_GBps"] = chain_total > 0 ? double(copied) * 2 * sizeof(double) / chain_total / 1e9 : 0.0;
    state.counters["copy_teams"] = double(league - 1);
    state.counters["clock_ghz"] = rate / 1e9;
    state.counters["unloaded_calls"] = double(unloaded_calls);
  } catch (const std::exception& e) {
    fail(state, name + ": " + e.what());
  }
}

void register_memory(const Options& o) {
  const std::set<std::size_t> footprints(o.footprints.begin(), o.footprints.end());
  for (std::size_t bytes : footprints) {
    const std::string name = "memory_latency/chase/" + std::to_string(bytes);
    if (bytes < 2 * chase_line_bytes || bytes % chase_line_bytes != 0)
      throw std::invalid_argument(name + ": a footprint is a multiple of " + std::to_string(chase_line_bytes) +
                                  " bytes, at least two lines (--kps_footprints)");
    if (!o.footprints_given && o.memory_bytes && chase_bytes(bytes) > o.memory_bytes / 10 * 9) continue;
    require_memory(o, name, bytes, chase_bytes(bytes));
    add(name, [name, bytes](benchmark::State& s) { run(s, name, bytes); });
  }
  // Under load where the space runs two teams at once or more (not on Serial).
  if (o.device.concurrency / (o.host ? 1 : 256) < 2) return;
  for (std::size_t bytes : footprints) {
    const std::string name = "memory_latency/loaded/" + std::to_string(bytes);
    const std::size_t need = chase_bytes(bytes) + 2 * loaded_copy_bytes(o);
    if (!o.footprints_given && o.memory_bytes && need > o.memory_bytes / 10 * 9) continue;
    require_memory(o, name, bytes, need);
    add(name, [name, bytes, o](benchmark::State& s) { run_loaded(s, name, bytes, o); });
  }
}

}  // namespace memory_fixtures
KPS_BENCH_REGISTER(memory_fixtures::register_memory);
}  // namespace kps::bench
