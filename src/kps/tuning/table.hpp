// kps/tuning/table.hpp — a device's tuning table as data: the ReducePolicy the tuned
// kps::reduce_sum / kps::dot use, and the algorithm and single-pass knobs a scan uses, for an
// element type and size on one kind of hardware. Tables are written by the studies' sweeps (the
// reduction's `kps tune`), live in src/kps/tuning/tables/<device>-<backend>.table and are
// installed to share/kps/tables. Which table a device uses: kps/tuning/tuning.hpp.
//
// Format (a line format read without any dependency):
//
//   # comment: a line whose first non-blank character is '#'
//   kps-tuning-table 1                     first line that is not a comment or blank
//   device = NVIDIA H100 80GB HBM3         header "key = value" lines, before the first row:
//   backend = Cuda                           device, backend, concurrency (required; each may be
//   concurrency = 270336                     '*': any); compute_capability, compute_units,
//   compute_capability = 9.0                 memory_bytes (the hardware key of the nearest-table
//   compute_units = 132                      rule); sweep, command, date, kps_revision (provenance)
//   memory_bytes = 84974239744
//   # reduce TYPE N_MIN N_MAX TEAM ITEMS LEAGUE VECTOR [SCHEDULE]
//   reduce int32 0 99999 256 8 0 0          rows; '#' starts a trailing comment (a header value
//   reduce int32 100000 inf 256 16 1056 0    is taken whole, '#' included)
//   # scan TYPE N_MIN N_MAX ALGORITHM TEAM ITEMS LOAD DELAY POLL PREFETCH [STORE]
//   scan * 0 262143 kokkos 0 64 staged 0 0 0
//   scan * 262144 inf single_pass 0 64 staged 2400 0 64
//   scan * 0 inf single_pass 1 16384 cached 0 0 0 streaming
//
// The older `kps-reduce-table 1` (rows without the leading `reduce`) is read too.
// A row applies to element type TYPE (int32, int64, float, double, or '*': any type without a row
// of its own for that size) and N_MIN <= N <= N_MAX ('inf': no upper bound); rows of one kind and
// type must not overlap. Reduce rows: TEAM threads per team, ITEMS per thread, VECTOR the load
// width (0: automatic); LEAGUE 0 is the seed's relation, league = ceil(N / (TEAM x ITEMS)); L > 0
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

#include "kps/scan/policy.hpp"
#include "kps/tuning/hardware.hpp"

namespace kps {

/// A reduce row: the knobs of the reduction for one element type and range of N.
struct ReduceRow {
  std::string type;  ///< "int32", "int64", "float", "double" or "*"
  std::size_t n_min = 0;
  std::size_t n_max = std::numeric_limits<std::size_t>::max();  ///< inclusive; max() is "inf"
  int team_size = 0;
  int items_per_thread = 0;
  int league = 0;        ///< 0: ceil(N / (team * items)); L > 0: at most L teams
  int vector_width = 0;  ///< 0 (automatic), 1, 2 or 4
  bool dynamic_teams = false;  ///< SCHEDULE dynamic (an 8th field; static where absent)
  int line = 0;          ///< line in the file, for messages
};

/// A scan row: what a scan of one element type and range of N runs by default.
struct ScanRow {
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

class TuningTable {
 public:
  /// Reads a table file; std::runtime_error "PATH: cannot open ..." or "PATH:LINE: reason".
  static TuningTable load(const std::string& path);
  /// Parses a table from a stream; `name` is used in messages.
  static TuningTable parse(std::istream& in, const std::string& name);

  /// The row for element type `type` and size n (a row of the type first, then '*'), or null.
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
  std::vector<ReduceRow> reduce_rows;
  std::vector<ScanRow> scan_rows;
};

/// The table a device uses, or none (the rules), and why.
struct TuningSelection {
  std::shared_ptr<const TuningTable> table;  ///< null: the rules
  std::string note;   ///< where the table came from (the nearest one: which device made it), or why there is none
  bool warn = false;  ///< the note is a warning for the user (a table given by KPS_TUNING_TABLE was not used)
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
