// bench/support/knobs.hpp — kps-bench's sweeps over the knobs of kps/knobs.hpp: a sweep names its
// axes by the knobs' names (the benchmark names' team:256/items:16), makes each point's policy from
// its arguments through the same descriptions, and records every knob of the policy it ran as a
// JSON field knob_<name> (the enumerated ones as their index; the context's kps_knobs says which
// name each index is: environment.cpp).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "kps/knobs.hpp"

namespace kps::bench {

/// The axes (knob names) and each point's values along them, as Google Benchmark's named arguments.
template <class P>
void add_knob_points(benchmark::internal::Benchmark* b, const std::vector<std::string>& axes,
                     const std::vector<P>& points) {
  b->ArgNames(axes);
  for (const P& p : points) {
    std::vector<std::int64_t> args;
    for (const std::string& a : axes) {
      const auto v = get_knob(p, a);
      if (!v) throw std::logic_error("kps-bench: no knob '" + a + "' in " + knob_family(p));
      args.push_back(*v);
    }
    b->Args(args);
  }
}

/// `base` with the knobs named by `axes` set from the benchmark's arguments.
template <class P>
P knob_point(P base, const std::vector<std::string>& axes, const benchmark::State& s) {
  for (std::size_t i = 0; i < axes.size(); ++i) set_knob(base, axes[i], s.range(static_cast<int>(i)));
  return base;
}

/// Every knob of `p` as a field of the benchmark's JSON record: knob_team, knob_items, ...
template <class P>
void record_knobs(benchmark::State& s, const P& p) {
  visit_knobs(p, [&](const Knob& k, const auto& member) {
    s.counters["knob_" + std::string(k.name)] = double(impl::knob_get(k, member));
  });
}

/// The knob's name as a benchmark axis.
inline std::string axis(const Knob& k) { return std::string(k.name); }

}  // namespace kps::bench

namespace kps::bench {

/// The kps_knobs context: each family's knobs in order, an enumerated one with its names in index
/// order: "reduce:team,items,league,vector,schedule=static|dynamic;single_pass:team,...".
inline std::string knobs_summary() {
  std::string out;
  const auto family = [&](const auto& policy) {
    std::string s;
    visit_knobs(policy, [&](const Knob& k, const auto&) {
      if (!s.empty()) s.push_back(',');
      s.append(k.name);
      for (int i = 0; i < k.count; ++i) s.append(i == 0 ? "=" : "|").append(k.names[i]);
    });
    if (!out.empty()) out.push_back(';');
    out.append(knob_family(policy)).append(":").append(s);
  };
  family(ReducePolicy{});
  family(SinglePassPolicy{});
  return out;
}

}  // namespace kps::bench
