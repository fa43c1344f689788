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
#include <cstdint>
#include <set>
#include <string>

#include "support/common.hpp"
#include "kernels/pointer_chase.hpp"

namespace kps::bench {
namespace memory_fixtures {

/// Loads per call: tens of milliseconds at a GPU's memory latency, milliseconds on a CPU.
constexpr std::int64_t chase_steps = 65536;

void run(benchmark::State& state, const std::string& name, std::size_t bytes) {
  const Exec exec;
  try {
    const std::size_t lines = bytes / chase_line_bytes;
    const std::vector<std::uint64_t> order = chase_order(lines, 0x6b7073 + bytes);
    const Kokkos::View<std::uint64_t*, Exec::memory_space> links(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "kps::bench::chase"), bytes / sizeof(std::uint64_t));
    write_chase(exec, links, order);
    const Kokkos::View<std::uint64_t, Exec::memory_space> at("kps::bench::chase_at");
    Kokkos::deep_copy(exec, at, order[0] * chase_line_words);
    const PointerChase<Exec> chase{links, at, chase_steps};
    std::uint64_t walked = 0;
    const auto call = [&] {
      Kokkos::parallel_for("kps::bench::pointer_chase", Kokkos::RangePolicy<Exec>(exec, 0, 1), chase);
      walked += chase_steps;
    };
    call();  // untimed: the code and the first block's translations
    const double median = timed_loop(state, exec, call);
    std::uint64_t got = 0;
    Kokkos::deep_copy(got, at);
    const std::uint64_t want = order[walked % lines] * chase_line_words;
    if (got != want)
      return fail(state, name + ": the chain stopped at word " + std::to_string(got) + " after " +
                             std::to_string(walked) + " loads; the host expects word " + std::to_string(want));
    state.counters["latency_ns"] = median * 1e9 / double(chase_steps);
    state.counters["footprint_bytes"] = double(bytes);
    state.counters["lines"] = double(lines);
    state.counters["steps"] = double(chase_steps);
  } catch (const std::exception& e) {
    fail(state, name + ": " + e.what());
  }
}

/// The memory a footprint's benchmark allocates: the chain and its order (a word per line).
std::size_t chase_bytes(std::size_t bytes) { return bytes + bytes / chase_line_words; }

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
}

}  // namespace memory_fixtures
KPS_BENCH_REGISTER(memory_fixtures::register_memory);
}  // namespace kps::bench
