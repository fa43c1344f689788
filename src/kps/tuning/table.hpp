// kps/tuning/table.hpp — a device's tuning table as data: the ReducePolicy the tuned reductions
// use, and the algorithm and single-pass knobs a scan uses, for an operator class, a value type
// and a size on one kind of hardware. Tables are written by the studies' sweeps (the
// reduction's `kps tune`), live in src/kps/tuning/tables/<device>-<backend>.table and are
// installed to share/kps/tables. Which table a device uses: kps/tuning/tuning.hpp.
//
// Format (a line format read without any dependency):
//
//   # comment: a line whose first non-blank character is '#'
//   kps-tuning-table 2                     first line that is not a comment or blank
//   device = NVIDIA H100 80GB HBM3         header "key = value" lines, before the first row:
//   backend = Cuda                           device, backend, concurrency (required; each may be
//   concurrency = 270336                     '*': any); compute_capability, compute_units,
//   compute_capability = 9.0                 memory_bytes (the hardware key of the nearest-table
//   compute_units = 132                      rule); sweep, command, date, kps_revision (provenance)
//   memory_bytes = 84974239744
//   # reduce CLASS TYPE N_MIN N_MAX TEAM ITEMS LEAGUE VECTOR [SCHEDULE]
//   reduce plus int32 0 99999 256 8 0 0     rows; '#' starts a trailing comment (a header value
//   reduce plus int32 100000 inf 256 16 1056 0  is taken whole, '#' included)
//   reduce builtin bytes1 0 inf 256 16 0 16
//   # scan CLASS TYPE N_MIN N_MAX ALGORITHM TEAM ITEMS LOAD DELAY POLL PREFETCH [STORE]
//   scan * * 0 262143 kokkos 0 64 staged 0 0 0
//   scan plus * 262144 inf single_pass 0 64 staged 2400 0 64
//   scan user bytes16 0 inf single_pass 1 4096 cached 0 0 0 streaming
//
// The older formats are read too: `kps-tuning-table 1` (rows without CLASS: the sums' rows, class
// plus) and `kps-reduce-table 1` (reduce rows without their kind either); a table of a format
// this kps does not know is an error naming it.
// A row applies to the operators of class CLASS (kps::OperatorClass: plus, the sums; builtin,
// kps' other operators; user, any other functor; '*': any) and the value type TYPE (a named type,
// kps/types.hpp: int8 ... uint64, float, double, half; a size key bytes1, bytes2, bytes4, bytes8,
// bytes16, bytes32, bytes64: any type of that size; '*': any type), and N_MIN <= N <= N_MAX
// ('inf': no upper bound); rows of one kind, class and type must not overlap. A lookup takes the
// first row that covers N among: the class's rows for the type's name, its size key, a named type
// of the same size and kind (an integer's for an integer, else a floating point type's), then '*';
// the same for the class `*`; then the same for the next cheaper class (user, then builtin, then
// plus): a row measured on sums serves an operator no sweep measured. Reduce rows: TEAM threads
// per team, ITEMS per thread, VECTOR the load width (0: automatic; 1, 2, 4, 8 or 16 elements); LEAGUE 0 is the seed's relation, league = ceil(N / (TEAM x ITEMS)); L > 0
// caps it: league = min(ceil(N / (TEAM x ITEMS)), L), every thread then loops; SCHEDULE, optional,
// static or dynamic: how a host backend's threads take the teams (ReducePolicy::dynamic_teams),
// static where left out. Scan rows: the
// algorithm `automatic` runs, and the single pass's knobs (kps::SinglePassPolicy: TEAM 0 is the
// largest default team that fits; LOAD direct, staged or cached; DELAY and POLL in ns; PREFETCH in
// tiles; STORE, optional, cached or streaming: how cached tiles write, cached where left out).
// Sizes no row covers use the rules (kps::fallback_reduce_policy, kps::impl::scan_rule).
// A malformed table is always an error (file:line: reason), never silently ignored.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kps/knobs.hpp"
#include "kps/operators.hpp"
#include "kps/scan/policy.hpp"
#include "kps/tuning/hardware.hpp"

namespace kps {

/// A reduce row: the knobs of the reduction for one operator class, value type and range of N.
struct ReduceRow {
  std::string op_class = "plus";  ///< "plus", "builtin", "user" or "*" (format 1 rows: "plus")
  std::string type;  ///< a named type ("int32"), a size key ("bytes16") or "*"
  std::size_t n_min = 0;
  std::size_t n_max = std::numeric_limits<std::size_t>::max();  ///< inclusive; max() is "inf"
  int team_size = 0;
  int items_per_thread = 0;
  int league = 0;        ///< 0: ceil(N / (team * items)); L > 0: at most L teams
  int vector_width = 0;  ///< 0 (automatic), 1, 2, 4, 8 or 16
  bool dynamic_teams = false;  ///< SCHEDULE dynamic (an 8th field; static where absent)
  int line = 0;          ///< line in the file, for messages
};

/// A scan row: what a scan of one operator class, value type and range of N runs by default.
struct ScanRow {
  std::string op_class = "plus";
  std::string type;
  std::size_t n_min = 0;
  std::size_t n_max = std::numeric_limits<std::size_t>::max();
  ScanAlgorithm algorithm = ScanAlgorithm::single_pass;  ///< what `automatic` runs (never automatic itself)
  int team_size = 0;
  int items_per_thread = 0;
  TileLoad load = TileLoad::staged;  ///< direct, staged or cached
  int look_back_delay_ns = 0;
  int poll_delay_ns = 0;
  int prefetch_tiles = 0;
  TileStore store = TileStore::cached;  ///< cached or streaming (an 11th field; cached where absent)
  int line = 0;
};

/// A row's knobs, the table's columns after N_MAX (and a scan row's ALGORITHM), in their order: the
/// descriptions of kps/knobs.hpp, which the parser reads them by.
template <class R, class F, std::enable_if_t<std::is_same_v<std::remove_const_t<R>, ReduceRow>, int> = 0>
void visit_knobs(R& r, F&& f) {
  f(knobs::reduce_team, r.team_size);
  f(knobs::reduce_items, r.items_per_thread);
  f(knobs::league, r.league);
  f(knobs::vector, r.vector_width);
  f(knobs::schedule, r.dynamic_teams);
}

template <class R, class F, std::enable_if_t<std::is_same_v<std::remove_const_t<R>, ScanRow>, int> = 0>
void visit_knobs(R& r, F&& f) {
  f(knobs::scan_team, r.team_size);
  f(knobs::scan_items, r.items_per_thread);
  f(knobs::load, r.load);
  f(knobs::delay, r.look_back_delay_ns);
  f(knobs::poll, r.poll_delay_ns);
  f(knobs::prefetch, r.prefetch_tiles);
  f(knobs::store, r.store);
}

class TuningTable {
 public:
  /// Reads a table file; std::runtime_error "PATH: cannot open ..." or "PATH:LINE: reason".
  static TuningTable load(const std::string& path);
  /// Parses a table from a stream; `name` is used in messages.
  static TuningTable parse(std::istream& in, const std::string& name);

  /// The row for operator class `op`, a value type named `type` of `bytes` bytes and size n (the
  /// lookup order in the file comment), or null.
  const ReduceRow* find_reduce(OperatorClass op, std::string_view type, std::size_t bytes, std::size_t n) const;
  const ScanRow* find_scan(OperatorClass op, std::string_view type, std::size_t bytes, std::size_t n) const;
  /// The same for a sum of the named type `type`.
  const ReduceRow* find_reduce(std::string_view type, std::size_t n) const;
  const ScanRow* find_scan(std::string_view type, std::size_t n) const;
  /// True when this table was made for `hw`: name (without regard to case or spacing), backend
  /// and concurrency equal, or '*'.
  bool matches(const Hardware& hw) const;

  std::string source;            ///< path (or name) it was read from
  std::string device;            ///< header: device name or "*"
  std::string backend;           ///< header: Kokkos backend
  int concurrency = 0;           ///< header: Kokkos concurrency, 0 for '*'
  int compute_units = 0;         ///< header: SMs or hardware threads
  std::string compute_capability;  ///< header: "9.0" (GPUs), empty where not given
  std::size_t memory_bytes = 0;  ///< header: device memory, 0 where not given
  std::string sweep, command, date, kps_revision;  ///< header: provenance (informative)
  int format = 2;  ///< 2: kps-tuning-table 2; 1: kps-tuning-table 1 or kps-reduce-table 1 (rows of sums)
  std::vector<ReduceRow> reduce_rows;
  std::vector<ScanRow> scan_rows;
};

/// The table a device uses, or none (the rules), and why.
struct TuningSelection {
  std::shared_ptr<const TuningTable> table;  ///< null: the rules
  std::string note;   ///< where the table came from (the nearest one: which device made it), or why there is none
  bool warn = false;  ///< the note is a warning for the user (a table given by KPS_TUNING_TABLE was not used)
  const ReduceRow* find_reduce(OperatorClass op, std::string_view type, std::size_t bytes, std::size_t n) const {
    return table ? table->find_reduce(op, type, bytes, n) : nullptr;
  }
  const ScanRow* find_scan(OperatorClass op, std::string_view type, std::size_t bytes, std::size_t n) const {
    return table ? table->find_scan(op, type, bytes, n) : nullptr;
  }
  const ReduceRow* find_reduce(std::string_view type, std::size_t n) const {
    return table ? table->find_reduce(type, n) : nullptr;
  }
  const ScanRow* find_scan(std::string_view type, std::size_t n) const {
    return table ? table->find_scan(type, n) : nullptr;
  }
};

/// "nvidia-h100-80gb-hbm3-cuda": the file name (without ".table") of a device's table.
std::string tuning_table_slug(const Hardware& hw);

/// Chooses the table for `hw`, without caching or printing:
/// - `env` (KPS_TUNING_TABLE; nullopt: unset) "none" or empty: the rules; a FILE: that table (a
///   missing or malformed file is an error; a table of another device is not used: a warning,
///   then the rules; write `device = *`, `concurrency = *` to use one anywhere); a DIR: that
///   folder searched instead of `dirs`.
/// - the folders: <slug>.table made for this hardware; else, on a GPU, the nearest table: the
///   same backend and compute capability, the closest number of SMs and memory (an H200 takes an
///   H100's table, an H100 PCIe an H100 SXM's); else the rules.
/// std::runtime_error on an explicit missing file or a malformed table.
TuningSelection select_tuning_table(const std::optional<std::string>& env, const std::vector<std::string>& dirs,
                                    const Hardware& hw);

/// The package's table folders, in search order: `first` (if not empty: the folder the
/// including project's kps package points at), the configured install folder, the source tree.
std::vector<std::string> tuning_table_dirs(const std::string& first = {});

}  // namespace kps
