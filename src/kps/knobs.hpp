// kps/knobs.hpp — every tuning knob of kps' algorithms, described once: its name, what it does,
// the values it takes. The policies (kps::ReducePolicy, kps::SinglePassPolicy) list their members
// against these descriptions in one visitor each (visit_knobs); from it come the policies'
// to_string, the tuning table's columns (kps/tuning/table.cpp reads a row's knobs in the visitor's
// order), kps-bench's sweep axes and benchmark names (team:256/items:16/...), the JSON fields a
// sweep's records carry (knob_team, ...) and the kps_knobs context that the Python tuner reads
// (bench/support/environment.cpp). A new knob is a member, a description and one visitor line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "kps/reduce/policy.hpp"
#include "kps/scan/policy.hpp"

namespace kps {

/// One knob. Its value, wherever it is written as a number (a benchmark argument, a JSON field), is
/// an integer; an enumerated knob (`names`) is written as the index of its name: the enumeration's
/// value minus `first` (TileLoad::direct is 1, `automatic` 0: first = 1, direct is 0).
struct Knob {
  std::string_view name;  ///< the table column's, benchmark argument's and JSON field's name
  std::string_view doc;   ///< one line: what it sets
  std::int64_t min = 0;   ///< the smallest value a table row may give (numbers)
  std::int64_t max = 2147483647;
  const std::string_view* names = nullptr;  ///< an enumerated knob's value names, else null
  int count = 0;                            ///< how many names
  int first = 0;                            ///< the enumeration value of names[0]
  bool in_table = true;                     ///< a column of the tuning table's rows
  /// A trailing column that a row may leave out; it then keeps the policy's default.
  bool optional = false;
  const std::int64_t* values = nullptr;  ///< the only values allowed (numbers), else null
  int n_values = 0;

  /// Whether v is a value the knob takes (in a table row).
  bool valid(std::int64_t v) const {
    if (names) return v >= 0 && v < count;
    if (v < min || v > max) return false;
    if (!values) return true;
    for (int i = 0; i < n_values; ++i)
      if (values[i] == v) return true;
    return false;
  }

  /// The name of value v of an enumerated knob, or v as a decimal number.
  std::string format(std::int64_t v) const {
    if (names && v >= 0 && v < count) return std::string(names[v]);
    return std::to_string(v);
  }
  /// The value of a table field (a name or a decimal number) or nullopt.
  std::optional<std::int64_t> parse(std::string_view text) const {
    if (names) {
      for (int i = 0; i < count; ++i)
        if (text == names[i]) return i;
      return std::nullopt;
    }
    if (text.empty() || text.size() > 12) return std::nullopt;
    std::int64_t v = 0;
    for (char c : text) {
      if (c < '0' || c > '9') return std::nullopt;
      v = v * 10 + (c - '0');
    }
    return v;
  }
  /// What a value must be, for messages: "direct, staged or cached", ">= 1".
  std::string expected() const {
    if (values) {
      std::string s;
      for (int i = 0; i < n_values; ++i)
        s += (i == 0 ? "" : i + 1 == n_values ? " or " : ", ") + std::to_string(values[i]);
      return s;
    }
    if (!names) return max < 2147483647 ? std::to_string(min) + ".." + std::to_string(max) : ">= " + std::to_string(min);
    std::string s;
    for (int i = 0; i < count; ++i) s += std::string(i == 0 ? "" : i + 1 == count ? " or " : ", ") + std::string(names[i]);
    return s;
  }
};

namespace knobs {

inline constexpr std::string_view load_names[] = {"direct", "staged", "cached"};
inline constexpr std::string_view store_names[] = {"cached", "streaming"};
inline constexpr std::string_view schedule_names[] = {"static", "dynamic"};
inline constexpr std::int64_t vector_values[] = {0, 1, 2, 4, 8, 16};

// The reduction's (kps::ReducePolicy).
inline constexpr Knob reduce_team{"team", "threads per team (the seed's LOCALSIZE)", 1};
inline constexpr Knob reduce_items{"items", "elements per thread of one pass over the data", 1};
inline constexpr Knob league{"league",
                             "teams; 0: enough to cover N once; L > 0: L teams (a table row: at most L), the threads loop",
                             0};
inline constexpr Knob vector{"vector", "elements per load: 0 (16-byte loads where aligned), 1, 2, 4, 8 or 16",
                             0, 16, nullptr, 0, 0, true, false, vector_values, 6};
inline constexpr Knob schedule{"schedule", "how a host backend's threads take the teams (ReducePolicy::dynamic_teams)",
                               0, 1, schedule_names, 2, 0, true, true};

// The single-pass scan's (kps::SinglePassPolicy).
inline constexpr Knob scan_team{"team", "threads per team; 0: the largest default team that fits", 0};
inline constexpr Knob scan_items{"items", "consecutive elements per thread (cached tiles: 64 to 2^24)", 1};
inline constexpr Knob load{"load", "how a tile moves between memory and registers (kps::TileLoad)", 0, 2,
                           load_names, 3, 1};
inline constexpr Knob delay{"delay", "ns the look-back sleeps before its first read (CUB's L2WriteLatency)", 0};
inline constexpr Knob poll{"poll", "ns it sleeps before reading unpublished predecessors again (CUB's Delay)", 0};
inline constexpr Knob prefetch{"prefetch", "tiles ahead whose input a team brings into L2", 0};
inline constexpr Knob lanes{"lanes", "vector lanes of each Kokkos thread; 0: the backend's", 0, 32, nullptr, 0, 0, false};
inline constexpr Knob store{"store", "how cached tiles write their output (kps::TileStore)", 0, 1, store_names, 2, 1,
                            true, true};

}  // namespace knobs

namespace impl {

/// A knob's member as the integer the Knob describes, and back.
template <class M>
std::int64_t knob_get(const Knob& k, const M& m) {
  if constexpr (std::is_enum_v<M>)
    return static_cast<std::int64_t>(m) - k.first;
  else
    return static_cast<std::int64_t>(m);
}

template <class M>
void knob_set(const Knob& k, M& m, std::int64_t v) {
  if constexpr (std::is_enum_v<M>)
    m = static_cast<M>(v + k.first);
  else if constexpr (std::is_same_v<M, bool>)
    m = v != 0;
  else
    m = static_cast<M>(v);
}

}  // namespace impl

/// f(const Knob&, member&) for each knob of the reduction, in the tuning table's column order.
template <class P, class F, std::enable_if_t<std::is_same_v<std::remove_const_t<P>, ReducePolicy>, int> = 0>
void visit_knobs(P& p, F&& f) {
  f(knobs::reduce_team, p.team_size);
  f(knobs::reduce_items, p.items_per_thread);
  f(knobs::league, p.league_size);
  f(knobs::vector, p.vector_width);
  f(knobs::schedule, p.dynamic_teams);
}

/// The same for the single-pass scan.
template <class P, class F, std::enable_if_t<std::is_same_v<std::remove_const_t<P>, SinglePassPolicy>, int> = 0>
void visit_knobs(P& p, F&& f) {
  f(knobs::scan_team, p.team_size);
  f(knobs::scan_items, p.items_per_thread);
  f(knobs::load, p.load);
  f(knobs::delay, p.look_back_delay_ns);
  f(knobs::poll, p.poll_delay_ns);
  f(knobs::prefetch, p.prefetch_tiles);
  f(knobs::lanes, p.lanes);
  f(knobs::store, p.store);
}

/// The family name the knobs are listed under in kps-bench's kps_knobs context.
inline const char* knob_family(const ReducePolicy&) { return "reduce"; }
inline const char* knob_family(const SinglePassPolicy&) { return "single_pass"; }

/// The value of the knob named `name`, or nullopt.
template <class P>
std::optional<std::int64_t> get_knob(const P& p, std::string_view name) {
  std::optional<std::int64_t> v;
  visit_knobs(p, [&](const Knob& k, const auto& m) {
    if (k.name == name) v = impl::knob_get(k, m);
  });
  return v;
}

/// Sets the knob named `name`; false where the policy has no such knob.
template <class P>
bool set_knob(P& p, std::string_view name, std::int64_t v) {
  bool found = false;
  visit_knobs(p, [&](const Knob& k, auto& m) {
    if (k.name == name) {
      impl::knob_set(k, m, v);
      found = true;
    }
  });
  return found;
}

/// "team=256 items=16 league=0 vector=0 schedule=static".
template <class P>
std::string knob_string(const P& p) {
  std::string s;
  visit_knobs(p, [&](const Knob& k, const auto& m) {
    const std::int64_t v = impl::knob_get(k, m);
    // Appended piece by piece: GCC 12's -Wrestrict misreads `const char* + std::string&&` (C++20).
    if (!s.empty()) s.push_back(' ');
    s.append(k.name);
    s.push_back('=');
    s.append(k.names && v < 0 ? std::string("automatic") : k.format(v));
  });
  return s;
}

inline std::string to_string(const ReducePolicy& p) { return knob_string(p); }
inline std::string to_string(const SinglePassPolicy& p) { return knob_string(p); }

}  // namespace kps
