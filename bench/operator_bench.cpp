// bench/operator_bench.cpp — the operators-and-types part of the scan and reduction studies: the
// problems of bench/support/problems.hpp (sums of the types today's families leave out, maxima
// and minima of every named type, the segmented (flag, value) pair and a 16-byte sum; the same
// reductions; argmin and argmax), each timed in interleaved rounds with the peers of its problem
// (support/peers.hpp: OpPeer; the one-thread loop, OpenMP's declare reduction, oneTBB, the
// standard's parallel algorithms on host backends, CUB on CUDA), Kokkos' parallel_scan with the
// operator or parallel_reduce with its reducer, kps' own sum of the same value size, the copies
// (or a streaming read) of the same bytes and an empty launch:
//
//   scan/automatic/<op>/<type>/<N>    kps::exclusive_scan(exec, in, out, init, op): what `automatic`
//                                     runs (kps::impl::scan_tuned: the same kernels)
//   reduce/tuned/<op>/<type>/<N>      kps::reduce(exec, x, init, op), tuned policy
//   argmin/tuned/<type>/<N>, argmax/tuned/<type>/<N>   kps::argmin, kps::argmax
//
// Counters, all from the medians of the same rounds: GB/s (2 x N x sizeof(T) for a scan, N x
// sizeof(T) for a reduction), ratio_to_copy (the faster of Kokkos' deep_copy and, on a host, a copy
// with streaming stores) or ratio_to_read (kernels/stream_read.hpp), ratio_to_kokkos,
// ratio_to_<peer> (its time over kps'), ratio_to_sum (kps' own sum of the same value size: 1 means
// the operator costs kps nothing more), <call>_wall_us and launch_floor_us. Every result, the
// peers' too, is checked against a host fold in order (exact but for floating-point and the
// segmented pair's sums: the scans' tolerance); a peer's wrong result is the peer's
// (wrong_<peer>, no ratio), kps' fails the run. Each problem is in the JSON context's kps_problems.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/stream_copy.hpp"
#include "kernels/stream_read.hpp"
#include "kps/reduce.hpp"
#include "kps/scan.hpp"
#include "support/checks.hpp"
#include "support/common.hpp"
#include "support/peers.hpp"
#include "support/problems.hpp"

namespace kps::bench {
// Named (not anonymous): nvcc cannot launch kernels on lambdas of anonymous namespaces.
namespace operator_fixtures {

template <class T>
using DeviceView = Kokkos::View<T*, Device>;

/// Values a pure function of (seed, index) (random_view's generator): integers over their whole
/// range, floating point in [0, 1), segments that start with probability 1/128, pairs of doubles.
template <class T>
struct OpValue {
  std::uint64_t seed;
  KOKKOS_INLINE_FUNCTION T operator()(std::size_t i) const {
    std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + i;  // splitmix64
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const double u = double(z >> 11) * 0x1.0p-53;
    if constexpr (std::is_same_v<T, Segment>)
      return Segment{u, (z & 127) == 0 ? 1 : 0};
    else if constexpr (std::is_same_v<T, Double2>)
      return Double2{u, 1.0 - u};
    else if constexpr (std::is_integral_v<T>)
      return T(z);
    else
      return T(u);
  }
};

template <class T>
DeviceView<T> op_view(const std::string& label, std::size_t n, std::uint64_t seed) {
  DeviceView<T> v(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), n);
  const OpValue<T> value{seed};
  Kokkos::parallel_for(
      "kps::bench::op_view", Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(std::size_t i) { v(i) = value(i); });
  Exec().fence();
  return v;
}

/// The initial value of a problem's scan and reduction: the identity's neighbour where it has one
/// (not the identity itself: the initial value must count), else the identity.
template <class Op, class T>
T init_of() {
  if constexpr (std::is_same_v<Op, plus> && std::is_arithmetic_v<T>)
    return T(1);
  else
    return operator_traits<Op, T>::identity(Op{});
}

/// Whether a and b agree: bit for bit, or floating-point sums (and the segmented pair's) within
/// the scans' tolerance.
template <class Op, class T>
bool agree(const T& got, const T& want, std::size_t i) {
  if constexpr (std::is_same_v<T, Segment>)
    return got.head == want.head && scan_element_matches(got.value, want.value, i);
  else if constexpr (std::is_same_v<T, Double2>)
    return scan_element_matches(got.a, want.a, i) && scan_element_matches(got.b, want.b, i);
  else if constexpr (std::is_floating_point_v<T> && !operator_traits<Op, T>::exact)
    return scan_element_matches(got, want, i);
  else
    return std::memcmp(&got, &want, sizeof(T)) == 0;
}

/// Empty where out is the exclusive scan of in under op after init, else the first difference.
template <class Op, class T>
std::string check_scan(const std::vector<T>& in, const std::vector<T>& out, T init) {
  const Op op{};
  T acc = init;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (!agree<Op>(out[i], acc, i)) return "wrong result at index " + std::to_string(i) + " of " + std::to_string(in.size());
    acc = op(acc, in[i]);
  }
  return {};
}

/// The reference reduction: a left fold (exact for integers and extrema; floating-point sums are
/// not in the lists).
template <class Op, class T>
T fold(const std::vector<T>& x, T init) {
  const Op op{};
  T acc = init;
  for (const T& v : x) acc = op(acc, v);
  return acc;
}

/// kps' own sum of the same value size: the value type and operator of the `ratio_to_sum` call.
template <class T>
struct SumOf {
  using type = T;
  using op = plus;
};
template <>
struct SumOf<Segment> {
  using type = Double2;
  using op = PlusDouble2;
};
template <>
struct SumOf<Double2> {
  using type = Double2;
  using op = PlusDouble2;
};

/// Kokkos' parallel_scan of a problem (kps' Kokkos algorithm for it: the ordered functor).
template <class Op, class T>
void kokkos_op_scan(const Exec& exec, const T* in, T* out, std::size_t n, T init) {
  impl::kokkos_scan_problem<Exec, impl::ScanProblem<T, Op, const T*, T*, impl::InitValue<T>, true>>(
      exec, in, out, n, true, Op{}, impl::InitValue<T>{init});
}

/// The rounds of a comparison (support/rounds.hpp): as the scans' (scan_bench.cpp).
constexpr Rounds op_rounds{15, 101, double(1 << 28), false, double(1ull << 37)};

/// The calls of a comparison's rounds, their names and whether each returns once done.
struct Calls {
  std::vector<std::function<void()>> fs;
  std::vector<std::string> names;
  std::vector<bool> waits;
  std::vector<std::function<void()>> before;
  void add(std::string name, std::function<void()> f, bool w, std::function<void()> b = {}) {
    names.push_back(std::move(name));
    fs.push_back(std::move(f));
    waits.push_back(w);
    before.push_back(std::move(b));
  }
};

/// Sets the ratios of the rounds' medians: every call's wall time, kps' rate, ratio_to_<name> for
/// the peers (a wrong one: none), the copy bound (the fastest copy) and the sum's.
inline void report(benchmark::State& state, const Calls& c, const Medians& t, std::size_t n, double bytes,
                   const std::vector<std::string>& wrong) {
  set_rates(state, n, bytes, t.wall[0]);
  state.counters["rounds"] = static_cast<double>(t.rounds);
  double copy = 0, read = 0;
  for (std::size_t k = 1; k < c.names.size(); ++k) {
    const std::string& name = c.names[k];
    state.counters[name + "_wall_us"] = 1e6 * t.wall[k];
    if (name == "copy_kokkos" || name == "copy_streaming") copy = copy == 0 ? t.wall[k] : std::min(copy, t.wall[k]);
    if (name == "read") read = t.wall[k];
    if (name == "launch_floor") state.counters["launch_floor_us"] = 1e6 * t.wall[k];
    const bool bound = name.rfind("copy_", 0) == 0 || name == "read" || name == "launch_floor";
    if (!bound && std::find(wrong.begin(), wrong.end(), name) == wrong.end())
      state.counters["ratio_to_" + name] = t.wall[k] / t.wall[0];
  }
  if (copy > 0) state.counters["ratio_to_copy"] = copy / t.wall[0];
  if (read > 0) state.counters["ratio_to_read"] = read / t.wall[0];
}

/// scan/automatic/<op>/<type>/<N>.
template <class Op, class T>
void run_op_scan(benchmark::State& state, std::size_t n) {
  const Exec exec;
  const std::string variant = std::string("scan/automatic/") + op_label<Op, T>() + "/" + type_label<T>();
  try {
    using S = typename SumOf<T>::type;
    const T init = init_of<Op, T>();
    const auto in = op_view<T>("kps::bench::in", n, 4242 + n);
    DeviceView<T> out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kps::bench::out"), n);
    DeviceView<T> dest(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kps::bench::dest"), n);
    // The sum's input and output: the problem's own where the sum is of the same type.
    DeviceView<S> sum_in, sum_out;
    if constexpr (std::is_same_v<S, T>) {
      sum_in = in;
      sum_out = dest;
    } else {
      sum_in = op_view<S>("kps::bench::sum_in", n, 4343 + n);
      sum_out = DeviceView<S>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kps::bench::sum_out"), n);
    }
    const std::vector<T> x = to_host(in);
    const auto kps_call = [&] {
      impl::scan_tuned<Exec, T>(exec, static_cast<const T*>(in.data()), out.data(), n, true, Op{}, impl::InitValue<T>{init});
    };
    const auto check = [&](const DeviceView<T>& v) { return check_scan<Op>(x, to_host(v), init); };
    kps_call();
    exec.fence();
    if (const std::string e = check(out); !e.empty()) return fail(state, variant + ": " + e);
    Calls c;
    c.add(variant, kps_call, false);
    c.add("copy_kokkos", [&] { Kokkos::deep_copy(exec, dest, in); }, false);
    if (impl::is_host_space_v<Exec>)
      c.add("copy_streaming", [&] { stream_copy(exec, in.data(), dest.data(), n); }, false);
    c.add("kokkos", [&] { kokkos_op_scan<Op>(exec, in.data(), dest.data(), n, init); }, false);
    // kps' own sum of the same value size, as a user calls it (today's sums: their own kernels).
    if constexpr (!std::is_same_v<T, Double2> && !(std::is_same_v<Op, plus> && std::is_same_v<S, T>)) {
      if constexpr (impl::classic_sum_v<S, typename SumOf<T>::op, const S*, S*, impl::NoInit>)
        c.add("sum", [&] { exclusive_scan(exec, sum_in, sum_out); }, false);
      else
        c.add("sum", [&] {
          impl::scan_tuned<Exec, S>(exec, static_cast<const S*>(sum_in.data()), sum_out.data(), n, true,
                                    typename SumOf<T>::op{}, impl::NoInit{});
        }, false);
    }
    c.add("launch_floor", [&] { empty_launch(exec); }, true);
    const std::vector<OpPeer>& peers = kps::bench::peers().op_peers(scan_key<Op, T>());
    for (const OpPeer& p : peers)
      if (p.placement == Placement::rounds)
        c.add(p.name, [&] { p.call(exec, in.data(), dest.data(), n, &init); }, p.waits, p.before);
    if (!c.before.empty() && std::none_of(c.before.begin(), c.before.end(), [](const auto& b) { return bool(b); }))
      c.before.clear();
    const Medians t = timed_rounds(state, exec, c.fs, false, c.waits, c.before);
    if (t.wall.empty()) return;
    if (const std::string e = (kps_call(), exec.fence(), check(out)); !e.empty())
      return fail(state, variant + " (after the timed calls): " + e);
    std::vector<std::string> wrong;
    // Kokkos' and every peer's result, from one more call of each.
    {
      kokkos_op_scan<Op>(exec, in.data(), dest.data(), n, init);
      exec.fence();
      if (const std::string e = check(dest); !e.empty() && !peer_wrong(state, "kokkos", e)) wrong.push_back("kokkos");
    }
    for (const OpPeer& p : peers) {
      if (p.placement != Placement::rounds) continue;
      p.call(exec, in.data(), dest.data(), n, &init);
      exec.fence();
      if (const std::string e = check(dest); !e.empty() && !peer_wrong(state, p.name, e)) wrong.push_back(p.name);
    }
    report(state, c, t, n, 2.0 * double(n) * sizeof(T), wrong);
  } catch (const std::exception& e) {
    fail(state, variant + ": " + e.what());
  }
}

/// Kokkos' parallel_reduce of a problem: its built-in reducer where it has one (Min, Max, Sum),
/// else kps' reducer of the operator.
template <class Op, class T>
T kokkos_op_reduce(const Exec& exec, const DeviceView<T>& x, T init) {
  T r{};
  const Op op{};
  if constexpr (std::is_same_v<Op, minimum> && std::is_arithmetic_v<T>)
    Kokkos::parallel_reduce("kps::bench::kokkos_min", Kokkos::RangePolicy<Exec>(exec, 0, x.extent(0)),
                            KOKKOS_LAMBDA(std::size_t i, T & m) { m = x(i) < m ? x(i) : m; }, Kokkos::Min<T>(r));
  else if constexpr (std::is_same_v<Op, maximum> && std::is_arithmetic_v<T>)
    Kokkos::parallel_reduce("kps::bench::kokkos_max", Kokkos::RangePolicy<Exec>(exec, 0, x.extent(0)),
                            KOKKOS_LAMBDA(std::size_t i, T & m) { m = m < x(i) ? x(i) : m; }, Kokkos::Max<T>(r));
  else
    Kokkos::parallel_reduce("kps::bench::kokkos_reduce", Kokkos::RangePolicy<Exec>(exec, 0, x.extent(0)),
                            KOKKOS_LAMBDA(std::size_t i, T & a) { a = op(a, x(i)); },
                            impl::OpReducer<T, Op, Kokkos::HostSpace>(r, op));
  return op(init, r);
}

/// reduce/tuned/<op>/<type>/<N>.
template <class Op, class T>
void run_op_reduce(benchmark::State& state, std::size_t n) {
  const Exec exec;
  const std::string variant = std::string("reduce/tuned/") + op_label<Op, T>() + "/" + type_label<T>();
  try {
    const T init = init_of<Op, T>();
    const auto x = op_view<T>("kps::bench::x", n, 5151 + n);
    DeviceView<T> dest(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kps::bench::dest"), n);
    Kokkos::View<int, Device> flag("kps::bench::read_flag");
    const T want = fold<Op>(to_host(x), init);
    T got{}, peer{};
    const auto kps_call = [&] { got = reduce(exec, x, init, Op{}); };
    kps_call();
    if (!agree<Op>(got, want, n)) return fail(state, variant + ": wrong result");
    Calls c;
    c.add(variant, kps_call, true);
    c.add("copy_kokkos", [&] { Kokkos::deep_copy(exec, dest, x); }, false);
    c.add("read", [&] { stream_read(exec, x.data(), n, flag.data()); }, false);
    c.add("kokkos", [&] { peer = kokkos_op_reduce<Op>(exec, x, init); }, true);
    if constexpr (!std::is_same_v<Op, plus>) c.add("sum", [&] { peer = reduce_sum(exec, x); }, true);
    c.add("launch_floor", [&] { empty_launch(exec); }, true);
    const std::vector<OpPeer>& peers = kps::bench::peers().op_peers(reduce_key<Op, T>());
    for (const OpPeer& p : peers)
      if (p.placement == Placement::rounds)
        c.add(p.name, [&] { p.call(exec, x.data(), &peer, n, &init); }, p.waits, p.before);
    if (std::none_of(c.before.begin(), c.before.end(), [](const auto& b) { return bool(b); })) c.before.clear();
    const Medians t = timed_rounds(state, exec, c.fs, false, c.waits, c.before);
    if (t.wall.empty()) return;
    kps_call();
    if (!agree<Op>(got, want, n)) return fail(state, variant + " (after the timed calls): wrong result");
    std::vector<std::string> wrong;
    if (!agree<Op>(kokkos_op_reduce<Op>(exec, x, init), want, n) && !peer_wrong(state, "kokkos", "wrong result"))
      wrong.push_back("kokkos");
    for (const OpPeer& p : peers) {
      if (p.placement != Placement::rounds) continue;
      p.call(exec, x.data(), &peer, n, &init);
      if (!agree<Op>(peer, want, n) && !peer_wrong(state, p.name, "wrong result")) wrong.push_back(p.name);
    }
    report(state, c, t, n, double(n) * sizeof(T), wrong);
    // A read's bytes over a copy's: the copy reads and writes.
    if (state.counters.count("copy_kokkos_wall_us"))
      state.counters["ratio_to_copy"] = state.counters["copy_kokkos_wall_us"] / (2.0 * 1e6 * t.wall[0]);
  } catch (const std::exception& e) {
    fail(state, variant + ": " + e.what());
  }
}

/// Kokkos' MinLoc / MaxLoc (the lowest index of equal values as Kokkos' reducers give it).
template <bool Max, class T>
ValueIndex<T> kokkos_arg(const Exec& exec, const DeviceView<T>& x) {
  using V = Kokkos::ValLocScalar<T, std::int64_t>;
  V r{};
  const std::int64_t n = std::int64_t(x.extent(0));
  if constexpr (Max)
    Kokkos::parallel_reduce("kps::bench::kokkos_maxloc", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
                            KOKKOS_LAMBDA(std::int64_t i, V & m) {
                              if (m.val < x(i) || (!(x(i) < m.val) && i < m.loc)) m = V{x(i), i};
                            },
                            Kokkos::MaxLoc<T, std::int64_t>(r));
  else
    Kokkos::parallel_reduce("kps::bench::kokkos_minloc", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
                            KOKKOS_LAMBDA(std::int64_t i, V & m) {
                              if (x(i) < m.val || (!(m.val < x(i)) && i < m.loc)) m = V{x(i), i};
                            },
                            Kokkos::MinLoc<T, std::int64_t>(r));
  return {r.val, r.loc};
}

/// argmin/tuned/<type>/<N>, argmax/tuned/<type>/<N>.
template <bool Max, class T>
void run_arg(benchmark::State& state, std::size_t n) {
  const Exec exec;
  const std::string variant = std::string(Max ? "argmax" : "argmin") + "/tuned/" + type_label<T>();
  try {
    // Values over a narrow range: many ties (the lowest index must win).
    auto x = op_view<T>("kps::bench::x", n, 6161 + n);
    if constexpr (std::is_integral_v<T>) {
      Kokkos::parallel_for("kps::bench::narrow", Kokkos::RangePolicy<Exec>(exec, 0, n),
                           KOKKOS_LAMBDA(std::size_t i) { x(i) = T(x(i) % 1000); });
      exec.fence();
    }
    DeviceView<T> dest(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kps::bench::dest"), n);
    Kokkos::View<int, Device> flag("kps::bench::read_flag");
    const std::vector<T> h = to_host(x);
    const auto at = Max ? std::max_element(h.begin(), h.end()) : std::min_element(h.begin(), h.end());
    const ValueIndex<T> want{*at, std::int64_t(at - h.begin())};
    const auto right = [&](const ValueIndex<T>& v) { return v.index == want.index && v.value == want.value; };
    ValueIndex<T> got{}, peer{};
    const auto kps_call = [&] { got = Max ? argmax(exec, x) : argmin(exec, x); };
    kps_call();
    if (!right(got)) return fail(state, variant + ": wrong result, index " + std::to_string(got.index));
    Calls c;
    c.add(variant, kps_call, true);
    c.add("copy_kokkos", [&] { Kokkos::deep_copy(exec, dest, x); }, false);
    c.add("read", [&] { stream_read(exec, x.data(), n, flag.data()); }, false);
    c.add("kokkos", [&] { peer = kokkos_arg<Max>(exec, x); }, true);
    c.add("launch_floor", [&] { empty_launch(exec); }, true);
    const std::vector<OpPeer>& peers = kps::bench::peers().op_peers(arg_key<T>(Max));
    for (const OpPeer& p : peers)
      if (p.placement == Placement::rounds)
        c.add(p.name, [&] { p.call(exec, x.data(), &peer, n, nullptr); }, p.waits, p.before);
    if (std::none_of(c.before.begin(), c.before.end(), [](const auto& b) { return bool(b); })) c.before.clear();
    const Medians t = timed_rounds(state, exec, c.fs, false, c.waits, c.before);
    if (t.wall.empty()) return;
    kps_call();
    if (!right(got)) return fail(state, variant + " (after the timed calls): wrong result");
    std::vector<std::string> wrong;
    if (!right(kokkos_arg<Max>(exec, x)) && !peer_wrong(state, "kokkos", "wrong index")) wrong.push_back("kokkos");
    for (const OpPeer& p : peers) {
      if (p.placement != Placement::rounds) continue;
      p.call(exec, x.data(), &peer, n, nullptr);
      if (!right(peer) && !peer_wrong(state, p.name, "wrong index " + std::to_string(peer.index))) wrong.push_back(p.name);
    }
    report(state, c, t, n, double(n) * sizeof(T), wrong);
    if (state.counters.count("copy_kokkos_wall_us"))
      state.counters["ratio_to_copy"] = state.counters["copy_kokkos_wall_us"] / (2.0 * 1e6 * t.wall[0]);
  } catch (const std::exception& e) {
    fail(state, variant + ": " + e.what());
  }
}

/// The rounds of a call of `bytes` (common.hpp: comparison_rounds), with the calls a family has.
inline int op_rounds_for(double bytes, std::size_t calls) { return comparison_rounds(op_rounds, bytes, calls); }

template <class Op, class T>
void register_scan(const Options& o) {
  if (!o.wants(type_label<T>()) || !o.wants_operator(op_label<Op, T>())) return;
  for (std::size_t n : o.sizes) {
    require_memory(o, scan_key<Op, T>(), n, 5 * n * sizeof(T));
    const std::size_t calls = 6 + kps::bench::peers().op_peers(scan_key<Op, T>()).size();
    add_rounds(std::string("scan/automatic/") + op_label<Op, T>() + "/" + type_label<T>() + "/" + std::to_string(n),
               op_rounds_for(2.0 * double(n) * sizeof(T), calls), [n](benchmark::State& s) { run_op_scan<Op, T>(s, n); });
  }
}

template <class Op, class T>
void register_reduce(const Options& o) {
  if (!o.wants(type_label<T>()) || !o.wants_operator(op_label<Op, T>())) return;
  for (std::size_t n : o.sizes) {
    require_memory(o, reduce_key<Op, T>(), n, 3 * n * sizeof(T));
    const std::size_t calls = 6 + kps::bench::peers().op_peers(reduce_key<Op, T>()).size();
    add_rounds(std::string("reduce/tuned/") + op_label<Op, T>() + "/" + type_label<T>() + "/" + std::to_string(n),
               op_rounds_for(double(n) * sizeof(T), calls), [n](benchmark::State& s) { run_op_reduce<Op, T>(s, n); });
  }
}

template <class T>
void register_args(const Options& o) {
  if (!o.wants(type_label<T>())) return;
  for (bool max : {false, true}) {
    if (!o.wants_operator(max ? "argmax" : "argmin")) continue;
    for (std::size_t n : o.sizes) {
      require_memory(o, arg_key<T>(max), n, 3 * n * sizeof(T));
      const std::size_t calls = 5 + kps::bench::peers().op_peers(arg_key<T>(max)).size();
      add_rounds(std::string(max ? "argmax" : "argmin") + "/tuned/" + type_label<T>() + "/" + std::to_string(n),
                 op_rounds_for(double(n) * sizeof(T), calls), [n, max](benchmark::State& s) {
                   if (max)
                     run_arg<true, T>(s, n);
                   else
                     run_arg<false, T>(s, n);
                 });
    }
  }
}

void register_operators(const Options& o) {
#define KPS_IMPL_SCAN(OP, T) register_scan<OP, T>(o);
#define KPS_IMPL_REDUCE(OP, T) register_reduce<OP, T>(o);
#define KPS_IMPL_ARG(T) register_args<T>(o);
  KPS_BENCH_SCANS(KPS_IMPL_SCAN)
  KPS_BENCH_REDUCTIONS(KPS_IMPL_REDUCE)
  KPS_BENCH_ARG_EXTREMA(KPS_IMPL_ARG)
#undef KPS_IMPL_SCAN
#undef KPS_IMPL_REDUCE
#undef KPS_IMPL_ARG
}

}  // namespace operator_fixtures
}  // namespace kps::bench

KPS_BENCH_REGISTER(kps::bench::operator_fixtures::register_operators);
