// kps/tuning/table.cpp — reading, checking and choosing the tuning tables (format and rules in
// table.hpp). Every malformed line is an error naming the file and line.
#include "kps/tuning/table.hpp"

#include "kps/types.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

// Where the installed tables go (configured install prefix) and where the source tree keeps
// them; set by src/CMakeLists.txt.
#ifndef KPS_TUNING_TABLE_INSTALL_DIR
#define KPS_TUNING_TABLE_INSTALL_DIR ""
#endif
#ifndef KPS_TUNING_TABLE_SOURCE_DIR
#define KPS_TUNING_TABLE_SOURCE_DIR ""
#endif

namespace kps {

namespace {

constexpr std::size_t kInf = std::numeric_limits<std::size_t>::max();

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// Lower case, runs of blanks collapsed: device names compare equal however they are spaced.
std::string normalized(const std::string& s) {
  std::string out;
  bool blank = false;
  for (char c : trim(s)) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      blank = true;
      continue;
    }
    if (blank && !out.empty()) out += ' ';
    blank = false;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::vector<std::string> split_blanks(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

struct Parser {
  const std::string& name;
  int line = 0;

  [[noreturn]] void error(const std::string& why) const {
    throw std::runtime_error(name + ":" + std::to_string(line) + ": " + why);
  }

  /// A non-negative decimal integer (or "inf" where allowed), with its field name in errors.
  std::size_t size(const std::string& text, const char* what, bool inf_ok = false) const {
    if (inf_ok && text == "inf") return kInf;
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
      error(std::string(what) + " '" + text + "' is not a non-negative integer" + (inf_ok ? " or 'inf'" : ""));
    errno = 0;
    const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
    if (errno == ERANGE || v >= kInf) error(std::string(what) + " '" + text + "' is too large");
    return static_cast<std::size_t>(v);
  }

  int count(const std::string& text, const char* what, int min) const {
    const std::size_t v = size(text, what);
    if (v > 2147483647u) error(std::string(what) + " '" + text + "' is too large");
    if (static_cast<long long>(v) < min)
      error(std::string(what) + " must be >= " + std::to_string(min) + ", not " + text);
    return static_cast<int>(v);
  }
};

bool is_size_key(const std::string& t) {
  for (std::size_t b : {1, 2, 4, 8, 16, 32, 64})
    if (t == impl::size_key(b)) return true;
  return false;
}

bool is_type(const std::string& t) { return t == "*" || find_named_type(t.c_str()) || is_size_key(t); }

std::string known_types() {
  std::string s;
  for (const NamedType& t : named_types) s += std::string(s.empty() ? "" : ", ") + t.name;
  return s + ", bytes1 ... bytes64 or *";
}

bool is_class(const std::string& c) { return c == "plus" || c == "builtin" || c == "user" || c == "*"; }

std::string describe(const Hardware& h) {
  return "'" + h.name + "' (" + h.backend + ", concurrency " + std::to_string(h.concurrency) + ")";
}

std::string describe(const TuningTable& t) {
  return "'" + t.device + "' (" + t.backend + ", concurrency " +
         (t.concurrency ? std::to_string(t.concurrency) : std::string("*")) + ")";
}

bool is_file(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

/// Rows of one kind and type must not overlap.
template <class Row>
void check_overlaps(const std::vector<Row>& rows, const char* kind, Parser& p) {
  std::vector<const Row*> sorted;
  for (const auto& r : rows) sorted.push_back(&r);
  std::stable_sort(sorted.begin(), sorted.end(), [](const Row* a, const Row* b) {
    return a->op_class != b->op_class ? a->op_class < b->op_class
           : a->type != b->type       ? a->type < b->type
                                      : a->n_min < b->n_min;
  });
  for (std::size_t i = 1; i < sorted.size(); ++i) {
    const Row &a = *sorted[i - 1], &b = *sorted[i];
    if (a.op_class == b.op_class && a.type == b.type && b.n_min <= a.n_max) {
      p.line = std::max(a.line, b.line);
      p.error(std::string(kind) + " rows for " + a.op_class + " " + a.type + " overlap: lines " +
              std::to_string(std::min(a.line, b.line)) + " and " + std::to_string(std::max(a.line, b.line)) +
              " both cover N = " + std::to_string(b.n_min));
    }
  }
}

/// The first row of class `op_class` covering n among: type `type`'s own, its size key's, a named
/// type's of the same size and kind, then '*' (table.hpp).
template <class Row>
const Row* find_in_class(const std::vector<Row>& rows, const std::string& op_class, std::string_view type,
                         std::size_t bytes, std::size_t n) {
  const NamedType* mine = find_named_type(std::string(type).c_str());
  const std::string size = impl::size_key(bytes);
  const Row *by_size = nullptr, *same_kind = nullptr, *any = nullptr;
  for (const auto& r : rows) {
    if (r.op_class != op_class || n < r.n_min || n > r.n_max) continue;
    if (r.type == type) return &r;
    if (r.type == size && !by_size) by_size = &r;
    if (r.type == "*" && !any) any = &r;
    if (!same_kind && mine && r.type != "*") {
      const NamedType* theirs = find_named_type(r.type.c_str());
      if (theirs && theirs->size == bytes && theirs->integer == mine->integer) same_kind = &r;
    }
  }
  return by_size ? by_size : same_kind ? same_kind : any;
}

template <class Row>
const Row* find_row(const std::vector<Row>& rows, OperatorClass op, std::string_view type, std::size_t bytes,
                    std::size_t n) {
  // The operator's class, then the cheaper ones: user, builtin, plus; each before its '*' rows.
  const OperatorClass chain[] = {OperatorClass::user, OperatorClass::builtin, OperatorClass::plus};
  bool started = false;
  for (OperatorClass c : chain) {
    if (c == op) started = true;
    if (!started) continue;
    if (const Row* r = find_in_class(rows, to_string(c), type, bytes, n)) return r;
    if (const Row* r = find_in_class(rows, "*", type, bytes, n)) return r;
  }
  return nullptr;
}

/// How far apart two GPUs of one compute capability are: SM count and memory, as ratios.
double distance(const TuningTable& t, const Hardware& h) {
  auto ratio = [](double a, double b) { return a > 0 && b > 0 ? std::abs(std::log(a / b)) : 1.0; };
  return ratio(t.compute_units, h.compute_units) + ratio(double(t.memory_bytes), double(h.memory_bytes));
}

}  // namespace

std::string tuning_table_slug(const Hardware& hw) {
  std::string out;
  for (char c : lower(hw.name + " " + hw.backend)) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      out += c;
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

TuningTable TuningTable::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open the tuning table (" + std::strerror(errno) + ")");
  return parse(in, path);
}

TuningTable TuningTable::parse(std::istream& in, const std::string& name) {
  TuningTable t;
  t.source = name;
  Parser p{name};
  int format = 0;  // 1: kps-reduce-table 1 (reduce rows without their kind), 2: kps-tuning-table 1, 3: kps-tuning-table 2
  std::map<std::string, int> header_lines;
  std::string raw;
  bool have_rows = false;
  while (std::getline(in, raw)) {
    ++p.line;
    const std::string text = trim(raw);
    if (text.empty() || text[0] == '#') continue;
    if (format == 0) {
      const auto f = split_blanks(text);
      if (f.size() == 2 && f[0] == "kps-tuning-table" && f[1] == "2")
        format = 3;
      else if (f.size() == 2 && f[0] == "kps-tuning-table" && f[1] == "1")
        format = 2;
      else if (f.size() == 2 && f[0] == "kps-reduce-table" && f[1] == "1")
        format = 1;
      else if (!f.empty() && (f[0] == "kps-tuning-table" || f[0] == "kps-reduce-table"))
        p.error("unsupported table format '" + text +
                "' (this kps reads 'kps-tuning-table 2', and 'kps-tuning-table 1' and 'kps-reduce-table 1' of earlier "
                "versions; re-make the table with `kps tune`)");
      else
        p.error("not a kps tuning table: the first line must be 'kps-tuning-table 2'");
      continue;
    }
    // A header line has a '=' before any '#' (a header value may hold '#'; a row's trailing
    // comment may hold '=').
    const std::string code = trim(text.substr(0, text.find('#')));
    const auto eq = code.find('=');
    if (eq != std::string::npos) {
      if (have_rows) p.error("header line after the first row (headers come first)");
      const std::string key = trim(text.substr(0, eq)), value = trim(text.substr(eq + 1));
      if (header_lines.count(key))
        p.error("header '" + key + "' given twice (first on line " + std::to_string(header_lines[key]) + ")");
      header_lines[key] = p.line;
      if (key == "device") {
        if (value.empty()) p.error("empty device name (use '*' for any device)");
        t.device = value;
      } else if (key == "backend") {
        if (value.empty()) p.error("empty backend");
        t.backend = value;
      } else if (key == "concurrency") {
        t.concurrency = value == "*" ? 0 : p.count(value, "concurrency", 1);
      } else if (key == "compute_units") {
        t.compute_units = p.count(value, "compute_units", 0);
      } else if (key == "compute_capability") {
        t.compute_capability = value;
      } else if (key == "memory_bytes") {
        t.memory_bytes = p.size(value, "memory_bytes");
      } else if (key == "sweep") {
        t.sweep = value;
      } else if (key == "command") {
        t.command = value;
      } else if (key == "date") {
        t.date = value;
      } else if (key == "kps_revision") {
        t.kps_revision = value;
      } else {
        p.error("unknown header '" + key +
                "' (known: device, backend, concurrency, compute_units, compute_capability, memory_bytes, sweep, "
                "command, date, kps_revision)");
      }
      continue;
    }
    have_rows = true;
    auto f = split_blanks(code);
    std::string kind = "reduce";
    if (format >= 2) {
      kind = f.empty() ? "" : f[0];
      if (kind != "reduce" && kind != "scan") p.error("a row starts with its kind, reduce or scan, not '" + kind + "'");
      f.erase(f.begin());
    }
    std::string op_class = "plus";  // the rows of formats 1 and 2 are the sums'
    if (format == 3) {
      op_class = f.empty() ? "" : f[0];
      if (!is_class(op_class))
        p.error("a " + kind + " row's second field is its operator class, plus, builtin, user or *, not '" + op_class + "'");
      f.erase(f.begin());
    }
    const auto range = [&](auto& r) {
      r.line = p.line;
      r.op_class = op_class;
      r.type = f[0];
      if (!is_type(r.type)) p.error("unknown value type '" + r.type + "' (" + known_types() + ")");
      r.n_min = p.size(f[1], "n_min");
      r.n_max = p.size(f[2], "n_max", true);
      if (r.n_max < r.n_min) p.error("n_max " + f[2] + " is smaller than n_min " + f[1]);
    };
    // The knobs' columns, read by their descriptions (kps/knobs.hpp); `skip` leading fields
    // (a scan row's algorithm) come before them.
    const auto knob_columns = [&](auto& r, std::size_t skip, const char* before) {
      std::size_t required = 0, all = 0;
      std::string columns = std::string(format == 3 ? "class " : "") + "type n_min n_max" + before;
      visit_knobs(r, [&](const Knob& k, auto&) {
        if (!k.in_table) return;
        ++all;
        if (!k.optional) ++required;
        columns += std::string(" ") + (k.optional ? "[" : "") + std::string(k.name) + (k.optional ? "]" : "");
      });
      const std::size_t fixed = 3 + skip, extra = format == 3 ? 1 : 0;
      if (f.size() < fixed + required || f.size() > fixed + all)
        p.error("a " + kind + " row has " + std::to_string(fixed + required + extra) +
                (all > required ? " or " + std::to_string(fixed + all + extra) : std::string()) + " fields (" + columns +
                "), this one has " + std::to_string(f.size() + extra));
      std::size_t i = fixed;
      visit_knobs(r, [&](const Knob& k, auto& member) {
        if (!k.in_table || i >= f.size()) return;
        const auto v = k.parse(f[i]);
        if (!v || !k.valid(*v)) p.error(std::string(k.name) + " must be " + k.expected() + ", not '" + f[i] + "'");
        impl::knob_set(k, member, *v);
        ++i;
      });
    };
    if (kind == "reduce") {
      ReduceRow r;
      knob_columns(r, 0, "");
      range(r);
      t.reduce_rows.push_back(r);
    } else {
      ScanRow r;
      knob_columns(r, 1, " algorithm");
      range(r);
      const auto alg = scan_algorithm_from_string(f[3]);
      if (!alg || *alg == ScanAlgorithm::automatic)
        p.error("unknown scan algorithm '" + f[3] + "' (kokkos, hillis_steele, blelloch, single_pass)");
      r.algorithm = *alg;
      t.scan_rows.push_back(r);
    }
  }
  const auto missing = [&](const std::string& why) { throw std::runtime_error(name + ": " + why); };
  if (format == 0) missing("empty file: not a kps tuning table (the first line must be 'kps-tuning-table 2')");
  t.format = format == 3 ? 2 : 1;
  for (const char* key : {"device", "backend", "concurrency"})
    if (!header_lines.count(key)) missing(std::string("the header has no '") + key + " = ...' line");
  if (!have_rows) missing("the table has no rows");
  check_overlaps(t.reduce_rows, "reduce", p);
  check_overlaps(t.scan_rows, "scan", p);
  return t;
}

const ReduceRow* TuningTable::find_reduce(OperatorClass op, std::string_view type, std::size_t bytes,
                                         std::size_t n) const {
  return find_row(reduce_rows, op, type, bytes, n);
}

const ScanRow* TuningTable::find_scan(OperatorClass op, std::string_view type, std::size_t bytes, std::size_t n) const {
  return find_row(scan_rows, op, type, bytes, n);
}

namespace {
std::size_t named_size(std::string_view type) {
  const NamedType* t = find_named_type(std::string(type).c_str());
  return t ? t->size : 0;
}
}  // namespace

const ReduceRow* TuningTable::find_reduce(std::string_view type, std::size_t n) const {
  return find_row(reduce_rows, OperatorClass::plus, type, named_size(type), n);
}

const ScanRow* TuningTable::find_scan(std::string_view type, std::size_t n) const {
  return find_row(scan_rows, OperatorClass::plus, type, named_size(type), n);
}

bool TuningTable::matches(const Hardware& h) const {
  return (device == "*" || normalized(device) == normalized(h.name)) &&
         (backend == "*" || lower(backend) == lower(h.backend)) && (concurrency == 0 || concurrency == h.concurrency);
}

TuningSelection select_tuning_table(const std::optional<std::string>& env, const std::vector<std::string>& dirs,
                                    const Hardware& hw) {
  const std::string rules = "the rules (kps::fallback_reduce_policy, kps::impl::scan_rule)";
  std::vector<std::string> search = dirs;
  bool explicit_dir = false;
  if (env) {
    const std::string value = trim(*env);
    if (value.empty() || value == "none") return {nullptr, "KPS_TUNING_TABLE=" + value + ": " + rules, false};
    std::error_code ec;
    if (std::filesystem::is_directory(value, ec)) {
      search = {value};
      explicit_dir = true;
    } else {
      auto t = std::make_shared<TuningTable>(TuningTable::load(value));  // throws: missing, malformed
      if (t->matches(hw)) return {t, "KPS_TUNING_TABLE=" + value, false};
      return {nullptr,
              "kps: warning: KPS_TUNING_TABLE=" + value + " was made on " + describe(*t) + ", not on this device " +
                  describe(hw) + "; kps uses " + rules +
                  " (re-tune here with `kps tune`, or write 'device = *' and 'concurrency = *' in the table to use it "
                  "anywhere)",
              true};
    }
  }
  const std::string file = tuning_table_slug(hw) + ".table";
  std::string foreign;
  for (const auto& dir : search) {
    if (dir.empty()) continue;
    const std::string path = (std::filesystem::path(dir) / file).string();
    if (!is_file(path)) continue;
    auto t = std::make_shared<TuningTable>(TuningTable::load(path));  // throws: malformed
    if (t->matches(hw)) return {t, path, false};
    foreign += " " + path + " is for " + describe(*t) + ";";
  }
  // The nearest table: a GPU of the same backend and compute capability.
  if (!hw.compute_capability.empty()) {
    std::shared_ptr<TuningTable> best;
    double best_distance = 0;
    for (const auto& dir : search) {
      std::error_code ec;
      if (dir.empty() || !std::filesystem::is_directory(dir, ec)) continue;
      std::vector<std::string> paths;
      for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
        if (entry.path().extension() == ".table") paths.push_back(entry.path().string());
      std::sort(paths.begin(), paths.end());
      for (const auto& path : paths) {
        auto t = std::make_shared<TuningTable>(TuningTable::load(path));  // throws: malformed
        if (t->device == "*" || lower(t->backend) != lower(hw.backend) || t->compute_capability != hw.compute_capability)
          continue;
        const double d = distance(*t, hw);
        if (!best || d < best_distance) best = t, best_distance = d;
      }
    }
    if (best)
      return {best, best->source + " (the nearest table: made on " + describe(*best) + ", compute capability " +
                        best->compute_capability + ", for " + describe(hw) + ")",
              false};
  }
  std::string where;
  for (const auto& dir : search)
    if (!dir.empty()) where += (where.empty() ? "" : ", ") + dir;
  return {nullptr,
          (explicit_dir ? "kps: warning: KPS_TUNING_TABLE: " : std::string()) + "no table " + file + " for " +
              describe(hw) + " in " + (where.empty() ? std::string("(no folder)") : where) + ";" + foreign +
              " kps uses " + rules,
          explicit_dir};
}

std::vector<std::string> tuning_table_dirs(const std::string& first) {
  std::vector<std::string> dirs;
  const std::string install(KPS_TUNING_TABLE_INSTALL_DIR), source(KPS_TUNING_TABLE_SOURCE_DIR);
  for (const std::string& d : {first, install, source})
    if (!d.empty() && std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
  return dirs;
}

}  // namespace kps

namespace kps::impl {

const TuningSelection* make_tuning_selection(const Hardware& hw, const char* first_dir) {
  // One selection per device and folder for the process: a second thread racing the first gets
  // the same object (selections are kept, never freed, so references stay valid).
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<TuningSelection>> made;
  const std::string key = hw.backend + "\n" + std::to_string(hw.device_id) + "\n" + (first_dir ? first_dir : "");
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = made[key];
  if (!slot) {
    const char* env = std::getenv("KPS_TUNING_TABLE");
    if (!env) env = std::getenv("KPS_REDUCE_TABLE");
    auto s = std::make_unique<TuningSelection>(
        select_tuning_table(env ? std::optional<std::string>(env) : std::nullopt,
                            tuning_table_dirs(first_dir ? first_dir : ""), hw));  // throws: nothing is kept
    if (s->warn) std::cerr << s->note << "\n";
    slot = std::move(s);
  }
  return slot.get();
}

}  // namespace kps::impl
