// kps/reduce_table.hpp — the reduction's lookup table as data: which ReducePolicy the tuned
// kps::reduce_sum / kps::dot use for an element type and size on one device. Tables are
// written by the reduction study's sweep (`tools/kps_run.py tune`), live in
// studies/reduce/tables/<device>-<backend>.table and are installed to share/kps/tables.
//
// Format (format version 1), a line format read without any dependency:
//
//   # comment: a line whose first non-blank character is '#'
//   kps-reduce-table 1                     first line that is not a comment or blank
//   device = NVIDIA H100 80GB HBM3         header "key = value" lines, before the first row:
//   backend = Cuda                           device, backend, concurrency (required; each may
//   concurrency = 270336                     be '*': any), compute_units,
//   compute_units = 132                      sweep, command, date, kps_revision (optional)
//   sweep = ...
//   # type   n_min  n_max  team  items  league  vector    rows; '#' starts a trailing comment
//                                          (a header value is taken whole, '#' included)
//   int32    0      99999  256   8      0       0
//   int32    100000 inf    256   16     1056    0
//
// A row applies to element type `type` (int32, int64, float, double, or '*': any type without
// a row of its own for that size) and n_min <= N <= n_max ('inf': no upper bound). `team` is
// the team size, `items` the items per thread, `vector` the vector width (0: automatic).
// `league` 0 means the seed's relation, league = ceil(N / (team * items)): every thread adds
// about `items` elements; league L > 0 caps the league at L teams (each thread then loops,
// stepping by the league's threads), league = min(ceil(N / (team * items)), L). Rows of one type must not
// overlap. Sizes no row covers use the fallback rule (kps::fallback_reduce_policy).
//
// Which table the tuned reduction uses (once per process, thread-safe; see
// kps::active_reduce_table):
// - KPS_REDUCE_TABLE unset: <dir>/<slug>.table in the package's table folders (that of the
//   kps package the calling code was built against: the source tree's studies/reduce/tables
//   from a build tree, <prefix>/share/kps/tables once installed; then the configured install
//   folder and the source tree), where slug is the device
//   name and backend in lower case with runs of other characters replaced by '-'
//   ("nvidia-h100-80gb-hbm3-cuda"). No such file: the fallback rule. A file found there that
//   was made on another device (a different concurrency): the fallback rule.
// - KPS_REDUCE_TABLE=none (or empty): the fallback rule.
// - KPS_REDUCE_TABLE=FILE: that table. A missing or malformed file is an error
//   (std::runtime_error from the first tuned call); a table of another device is not used:
//   one warning on stderr, then the fallback rule (write `device = *`, `concurrency = *` to use
//   a table on any device of its backend).
// - KPS_REDUCE_TABLE=DIR: that folder is searched instead of the package's.
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

namespace kps {

/// One row of a table: the knobs for one element type and range of N.
struct ReduceTableRow {
  std::string type;  ///< "int32", "int64", "float", "double" or "*"
  std::size_t n_min = 0;
  std::size_t n_max = std::numeric_limits<std::size_t>::max();  ///< inclusive; max() is "inf"
  int team_size = 0;
  int items_per_thread = 0;
  int league = 0;        ///< 0: ceil(N / (team * items)); L > 0: at most L teams
  int vector_width = 0;  ///< 0 (automatic), 1, 2 or 4
  int line = 0;          ///< line in the file, for messages
};

/// What a table must match to be used: the device kps::ExecutionSpace runs on.
struct ReduceDevice {
  std::string name;     ///< kps::DeviceInfo::name
  std::string backend;  ///< Kokkos' name of the execution space ("Cuda", "OpenMP", ...)
  int concurrency = 0;  ///< Kokkos' concurrency of the execution space
};

/// The device of kps::ExecutionSpace (kps/execution_space.hpp; Kokkos must be initialized).
ReduceDevice current_reduce_device();

/// "nvidia-h100-80gb-hbm3-cuda": the file name (without ".table") of a device's table.
std::string reduce_table_slug(const ReduceDevice& device);

class ReduceTable {
 public:
  /// Reads a table file; throws std::runtime_error "PATH: cannot open ..." or
  /// "PATH:LINE: reason" on malformed content.
  static ReduceTable load(const std::string& path);
  /// Parses a table from a stream; `name` is used in messages.
  static ReduceTable parse(std::istream& in, const std::string& name);

  /// The row for element type `type` and size n (a row of the type first, then '*'), or null.
  const ReduceTableRow* find(std::string_view type, std::size_t n) const;
  /// True when this table was made for `device`: name (without regard to case or spacing),
  /// backend and concurrency equal, or '*'.
  bool matches(const ReduceDevice& device) const;

  std::string source;        ///< path (or name) it was read from
  std::string device;        ///< header: device name or "*"
  std::string backend;       ///< header: Kokkos backend
  int concurrency = 0;       ///< header: Kokkos concurrency, 0 for '*'
  int compute_units = 0;     ///< header: SMs or hardware threads (informative)
  std::string sweep, command, date, kps_revision;  ///< header: provenance (informative)
  std::vector<ReduceTableRow> rows;
};

/// The table the tuned reduction uses, or none (fallback rule) and why.
struct ReduceTableSelection {
  std::shared_ptr<const ReduceTable> table;  ///< null: the fallback rule
  std::string note;  ///< where the table came from, or why there is none
  bool warn = false; ///< the note is a warning for the user (a foreign table was given)
};

/// Chooses a table as described at the top of this file, without caching or printing.
/// `env`: the value of KPS_REDUCE_TABLE (nullopt: unset); `dirs`: folders searched when unset.
/// Throws std::runtime_error on an explicit missing file or a malformed table.
ReduceTableSelection select_reduce_table(const std::optional<std::string>& env, const std::vector<std::string>& dirs,
                                         const ReduceDevice& device);

/// The package's table folders, in search order: `first` (if not empty: the folder the
/// including project's kps package points at), the configured install folder, the source tree.
std::vector<std::string> reduce_table_dirs(const std::string& first = {});

/// The selection for this process (kps::ExecutionSpace), made once on first use
/// from KPS_REDUCE_TABLE and reduce_table_dirs(first_dir); prints its warning once on stderr.
/// Thread-safe; an error (missing explicit file, malformed table) is thrown on every call.
/// After the first call it costs one atomic load (it is on every tuned call's path: no string
/// is made, as the table's find).
const ReduceTableSelection& active_reduce_table(const char* first_dir = "");

}  // namespace kps
