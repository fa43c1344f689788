// bench/support/common.cpp — sweep options, registration and failure bookkeeping of the benchmarks.
#include "support/common.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kps/impl/kokkos_compat.hpp"
#include "support/native.hpp"
#include "support/peers.hpp"
#include "support/rounds.hpp"

namespace kps::bench {

namespace {
std::atomic<bool> failed{false};

std::vector<Registrar>& registry() {
  static std::vector<Registrar> r;
  return r;
}

std::size_t parse_one(const std::string& s) {
  const auto bad = [&](const char* why) {
    return std::invalid_argument("bad size '" + s + "': " + why +
                                 " (sizes are N, 2^k, N with K/M/G, or 2^a..2^b[:step])");
  };
  if (s.empty()) throw bad("empty");
  if (s[0] == '-') throw bad("sizes cannot be negative");
  if (s.size() > 2 && s[0] == '2' && s[1] == '^') {
    const std::string e = s.substr(2);
    if (e.empty() || e.find_first_not_of("0123456789") != std::string::npos) throw bad("not a number");
    const int k = std::stoi(e);
    if (k > 40) throw bad("too large");
    return std::size_t(1) << k;
  }
  std::size_t mult = 1;
  std::string digits = s;
  const char last = static_cast<char>(std::toupper(s.back()));
  if (last == 'K' || last == 'M' || last == 'G') {
    mult = last == 'K' ? 1000 : last == 'M' ? 1000000 : 1000000000;
    digits = s.substr(0, s.size() - 1);
  }
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) throw bad("not a number");
  if (digits.size() > 12) throw bad("too large");
  return std::stoull(digits) * mult;
}
}  // namespace

bool Options::wants(const std::string& type) const {
  return std::find(types.begin(), types.end(), type) != types.end();
}

bool Options::wants_operator(const std::string& op) const {
  return std::find(operators.begin(), operators.end(), op) != operators.end();
}

std::vector<std::size_t> parse_sizes(const std::string& text) {
  std::vector<std::size_t> sizes;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    const std::size_t dots = item.find("..");
    if (dots == std::string::npos) {
      sizes.push_back(parse_one(item));
    } else {
      std::string hi = item.substr(dots + 2);
      std::size_t step = 2;
      const std::size_t colon = hi.find(':');
      if (colon != std::string::npos) {
        step = parse_one(hi.substr(colon + 1));
        hi = hi.substr(0, colon);
        if (step < 2) throw std::invalid_argument("bad size range '" + item + "': the step factor must be >= 2");
      }
      const std::size_t a = parse_one(item.substr(0, dots)), b = parse_one(hi);
      if (a == 0 || a > b) throw std::invalid_argument("bad size range '" + item + "': need 0 < first <= last");
      for (std::size_t n = a; n <= b; n *= step) sizes.push_back(n);
    }
    start = comma + 1;
  }
  return sizes;
}

int add_registrar(Registrar r) {
  registry().push_back(r);
  return static_cast<int>(registry().size());
}

const std::vector<Registrar>& registrars() { return registry(); }

void require_memory(const Options& o, const std::string& name, std::size_t n, std::size_t bytes) {
  // Leave a tenth of the device for Kokkos, the runtime and the peers' temporary storage.
  if (o.memory_bytes && bytes > o.memory_bytes / 10 * 9)
    throw std::invalid_argument(name + ": N = " + std::to_string(n) + " needs " +
                                std::to_string(bytes >> 20) + " MiB but the device has " +
                                std::to_string(o.memory_bytes >> 20) + " MiB; use smaller --kps_sizes");
}

void fail(benchmark::State& state, const std::string& why) {
  failed = true;
  state.SkipWithError(why.c_str());
}

bool any_failure() { return failed; }

bool peer_wrong(benchmark::State& state, const std::string& peer, const std::string& why) {
  state.SetLabel("peer " + peer + " wrong: " + why);  // the last one; the counters name every one
  state.counters["wrong_" + peer] = 1;
  return false;
}

namespace {
double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

/// Whether the rounds flush the last-level cache before each timed call (--kps_cache_flush; unset:
/// on a GPU, not on a host).
std::optional<bool>& cache_flush_setting() {
  static std::optional<bool> on;
  return on;
}

/// Reads 4x the device's last-level cache between the timed calls of the interleaved rounds
/// (untimed), so that every call starts with the cache full of clean, unrelated lines. Without
/// it a call pays for its predecessor's writes: a copy leaves up to a cache of dirty lines
/// to be written back while the next call runs. Measured on an H100 (L2 50 MB) in rounds of
/// [variant, copy, CUB] with CUB itself as the variant: the CUB call timed after the copy came
/// out 8.5 % slower than the same call timed first in the round at 2^26 int32, 2-4 % at 2^28,
/// 0.4-1 % at 2^30, a ratio to CUB that flattered every variant (studies/reduce/README.md). By
/// default GPU backends only: on a host the studies time calls on data the caches hold as a
/// caller's loop would leave it; `--kps_cache_flush=on` flushes there too (a node whose L3 holds
/// part of the data, where what the rounds ran before decides how much).
class CacheFlush {
 public:
  CacheFlush() {
    if (!cache_flush_setting().value_or(!kps::impl::is_host_space_v<Exec>)) return;
    const std::size_t bytes = 4 * device_info().l2_bytes;
    if (bytes == 0) return;
    buffer_ = Kokkos::View<std::int64_t*, Device>("kps::bench::cache_flush", bytes / sizeof(std::int64_t));
    sum_ = Kokkos::View<std::int64_t, Device>("kps::bench::cache_flush_sum");
  }
  std::size_t bytes() const { return buffer_.extent(0) * sizeof(std::int64_t); }
  void operator()(const Exec& exec) const {
    if (buffer_.extent(0) == 0) return;
    const auto b = buffer_;
    Kokkos::parallel_reduce(
        "kps::bench::cache_flush", Kokkos::RangePolicy<Exec>(exec, 0, b.extent(0)),
        KOKKOS_LAMBDA(std::size_t i, std::int64_t & s) { s += b(i); }, sum_);
    exec.fence();
  }

 private:
  Kokkos::View<std::int64_t*, Device> buffer_;
  Kokkos::View<std::int64_t, Device> sum_;
};

/// The process's flush buffer, made on first use and released when Kokkos finalizes (a View
/// must not outlive Kokkos).
const CacheFlush& cache_flush() {
  static std::unique_ptr<CacheFlush> flush;
  if (!flush) {
    flush = std::make_unique<CacheFlush>();
    Kokkos::push_finalize_hook([] { flush.reset(); });
  }
  return *flush;
}

/// The calls' device times where the backend has a device clock (Native<E>::EventTimer), in rounds
/// of their own: recording events costs the host time, and after a call that waits for its
/// result the stop event takes one more round trip, which the wall times must not include.
/// Empty elsewhere.
template <class E = Exec, class Flush, class Settle>
std::vector<double> device_times(const E& exec, const std::vector<std::function<void()>>& fs, std::size_t rounds,
                                 const Flush& flush, const Settle& settle) {
  std::vector<double> medians;
  if constexpr (Native<E>::has_event_timer) {
    typename Native<E>::EventTimer events;
    std::vector<std::vector<double>> gpu(fs.size());
    for (std::size_t i = 0; i < rounds; ++i)
      for (std::size_t j = 0; j < fs.size(); ++j) {
        const std::size_t k = round_order(j, i, fs.size());
        exec.fence();
        flush(exec);
        settle(k);
        events.start(exec);
        fs[k]();
        events.stop(exec);
        gpu[k].push_back(events.seconds());
      }
    for (const auto& g : gpu) medians.push_back(median(g));
  } else {
    (void)exec, (void)fs, (void)rounds, (void)flush, (void)settle;
  }
  return medians;
}

}  // namespace

void set_cache_flush(bool on) { cache_flush_setting() = on; }

std::string cache_flush_note() {
  const std::size_t bytes = cache_flush().bytes();
  if (bytes == 0) return "off";
  return "on: " + std::to_string(bytes) + " bytes (4 x the last-level cache) read before each timed call";
}

double median_seconds(const Exec& exec, const std::function<void()>& f, int reps) {
  const CacheFlush& flush = cache_flush();
  f();  // warm-up
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    exec.fence();
    flush(exec);
    Kokkos::Timer timer;
    f();
    exec.fence();
    t.push_back(timer.seconds());
  }
  return median(t);
}

Medians timed_rounds(benchmark::State& state, const Exec& exec, const std::vector<std::function<void()>>& fs,
                     bool device_clock, const std::vector<bool>& waits,
                     const std::vector<std::function<void()>>& before) {
  if (!waits.empty() && waits.size() != fs.size())
    throw std::invalid_argument("timed_rounds: waits names " + std::to_string(waits.size()) + " calls of " +
                                std::to_string(fs.size()));
  if (!before.empty() && before.size() != fs.size())
    throw std::invalid_argument("timed_rounds: before names " + std::to_string(before.size()) + " calls of " +
                                std::to_string(fs.size()));
  const std::function<void()>& own = peers().before_own();
  const auto settle = [&](std::size_t k) {
    if (!before.empty() && before[k])
      before[k]();
    else if (own)
      own();
  };
  std::vector<std::vector<double>> wall(fs.size());
  const CacheFlush& flush = cache_flush();
  for (const auto& f : fs) f();  // warm-up
  // Rounds in whole Williams designs (add_rounds): rounds that rotate one fixed order have each
  // call always follow the same one: in the H100's tuning verification the tuned call, which
  // followed CUB's, read a median 1.027 x the time of the sweep point that ran the very same
  // configuration (results/h100-cuda/experiments/reduce-table-verification-rounds).
  std::size_t round = 0;
  for (auto _ : state) {
    for (std::size_t j = 0; j < fs.size(); ++j) {
      const std::size_t k = round_order(j, round, fs.size());
      exec.fence();
      flush(exec);
      settle(k);
      Kokkos::Timer timer;
      fs[k]();
      if (waits.empty() || !waits[k]) exec.fence();
      wall[k].push_back(timer.seconds());
    }
    state.SetIterationTime(wall[0].back());
    ++round;
  }
  Medians m;
  m.rounds = static_cast<int>(round);
  if (round == 0) return m;
  for (std::size_t k = 0; k < fs.size(); ++k) m.wall.push_back(median(wall[k]));
  if (device_clock) m.gpu = device_times(exec, fs, round, flush, settle);
  return m;
}

void empty_launch(const Exec& exec) {
  Kokkos::parallel_for("kps::bench::empty_launch", Kokkos::RangePolicy<Exec>(exec, 0, 1), KOKKOS_LAMBDA(int){});
  exec.fence();
}

void set_rates(benchmark::State& state, std::size_t n, double bytes_per_call, double seconds) {
  state.counters["GB/s"] = seconds > 0 ? bytes_per_call / seconds / 1e9 : 0.0;
  state.counters["elements/s"] = seconds > 0 ? static_cast<double>(n) / seconds : 0.0;
  state.counters["N"] = static_cast<double>(n);
  state.counters["wall_us"] = 1e6 * seconds;
}

void set_rates(benchmark::State& state, std::size_t n, double bytes_per_call) {
  state.counters["GB/s"] = benchmark::Counter(bytes_per_call / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["elements/s"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["N"] = static_cast<double>(n);
}

benchmark::internal::Benchmark* add(const std::string& name, std::function<void(benchmark::State&)> fn) {
  return benchmark::RegisterBenchmark(name.c_str(), [fn](benchmark::State& s) { fn(s); })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
}

benchmark::internal::Benchmark* add_rounds(const std::string& name, int rounds,
                                           std::function<void(benchmark::State&)> fn) {
  return add(name, std::move(fn))->Iterations(rounds);
}

}  // namespace kps::bench
