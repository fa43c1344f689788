// kps/reduce_table.cpp — reading, checking and choosing the reduction's lookup tables (format
// and rules in reduce_table.hpp). Every malformed line is an error naming the file and line.
#include "kps/reduce_table.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include <Kokkos_Core.hpp>

#include "kps/device.hpp"
#include "kps/execution_space.hpp"

// Where the installed tables go (configured install prefix) and where the source tree keeps
// them; set by src/CMakeLists.txt.
#ifndef KPS_REDUCE_TABLE_INSTALL_DIR
#define KPS_REDUCE_TABLE_INSTALL_DIR ""
#endif
#ifndef KPS_REDUCE_TABLE_SOURCE_DIR
#define KPS_REDUCE_TABLE_SOURCE_DIR ""
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

bool is_type(const std::string& t) {
  return t == "int32" || t == "int64" || t == "float" || t == "double" || t == "*";
}

std::string describe(const ReduceDevice& d) {
  return "'" + d.name + "' (" + d.backend + ", concurrency " + std::to_string(d.concurrency) + ")";
}

std::string describe(const ReduceTable& t) {
  return "'" + t.device + "' (" + t.backend + ", concurrency " +
         (t.concurrency ? std::to_string(t.concurrency) : std::string("*")) + ")";
}

bool is_file(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

}  // namespace

ReduceDevice current_reduce_device() {
  const DeviceInfo info = device_info();
  return {info.name, ExecutionSpace::name(), ExecutionSpace().concurrency()};
}

std::string reduce_table_slug(const ReduceDevice& device) {
  std::string out;
  for (char c : lower(device.name + " " + device.backend)) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      out += c;
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

ReduceTable ReduceTable::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open the reduction table (" + std::strerror(errno) + ")");
  return parse(in, path);
}

ReduceTable ReduceTable::parse(std::istream& in, const std::string& name) {
  ReduceTable t;
  t.source = name;
  Parser p{name};
  bool have_magic = false;
  std::map<std::string, int> header_lines;
  std::string raw;
  while (std::getline(in, raw)) {
    ++p.line;
    const std::string text = trim(raw);
    if (text.empty() || text[0] == '#') continue;
    if (!have_magic) {
      const auto f = split_blanks(text);
      if (f.empty() || f[0] != "kps-reduce-table")
        p.error("not a kps reduction table: the first line must be 'kps-reduce-table 1'");
      if (f.size() != 2 || f[1] != "1")
        p.error("unsupported table format '" + text + "' (this kps reads 'kps-reduce-table 1')");
      have_magic = true;
      continue;
    }
    // A header line has a '=' before any '#' (a header value may hold '#'; a row's trailing
    // comment may hold '=').
    const std::string code = trim(text.substr(0, text.find('#')));
    const auto eq = code.find('=');
    if (eq != std::string::npos) {
      if (!t.rows.empty()) p.error("header line after the first row (headers come first)");
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
                "' (known: device, backend, concurrency, compute_units, sweep, command, date, kps_revision)");
      }
      continue;
    }
    const auto f = split_blanks(code);
    if (f.size() != 7)
      p.error("a row has 7 fields (type n_min n_max team items league vector), this one has " +
              std::to_string(f.size()));
    ReduceTableRow r;
    r.line = p.line;
    r.type = f[0];
    if (!is_type(r.type)) p.error("unknown element type '" + r.type + "' (int32, int64, float, double or *)");
    r.n_min = p.size(f[1], "n_min");
    r.n_max = p.size(f[2], "n_max", true);
    if (r.n_max < r.n_min) p.error("n_max " + f[2] + " is smaller than n_min " + f[1]);
    r.team_size = p.count(f[3], "team size", 1);
    r.items_per_thread = p.count(f[4], "items per thread", 1);
    r.league = p.count(f[5], "league", 0);
    r.vector_width = p.count(f[6], "vector width", 0);
    if (r.vector_width != 0 && r.vector_width != 1 && r.vector_width != 2 && r.vector_width != 4)
      p.error("vector width must be 0 (automatic), 1, 2 or 4, not " + f[6]);
    t.rows.push_back(r);
  }
  const auto missing = [&](const std::string& why) { throw std::runtime_error(name + ": " + why); };
  if (!have_magic) missing("empty file: not a kps reduction table (the first line must be 'kps-reduce-table 1')");
  for (const char* key : {"device", "backend", "concurrency"})
    if (!header_lines.count(key)) missing(std::string("the header has no '") + key + " = ...' line");
  if (t.rows.empty()) missing("the table has no rows");
  // Rows of one type must not overlap.
  std::vector<const ReduceTableRow*> sorted;
  for (const auto& r : t.rows) sorted.push_back(&r);
  std::stable_sort(sorted.begin(), sorted.end(), [](const ReduceTableRow* a, const ReduceTableRow* b) {
    return a->type != b->type ? a->type < b->type : a->n_min < b->n_min;
  });
  for (std::size_t i = 1; i < sorted.size(); ++i) {
    const ReduceTableRow &a = *sorted[i - 1], &b = *sorted[i];
    if (a.type == b.type && b.n_min <= a.n_max) {
      p.line = std::max(a.line, b.line);
      p.error("rows for " + a.type + " overlap: lines " + std::to_string(std::min(a.line, b.line)) + " and " +
              std::to_string(std::max(a.line, b.line)) + " both cover N = " + std::to_string(b.n_min));
    }
  }
  return t;
}

const ReduceTableRow* ReduceTable::find(std::string_view type, std::size_t n) const {
  const ReduceTableRow* any = nullptr;
  for (const auto& r : rows) {
    if (n < r.n_min || n > r.n_max) continue;
    if (r.type == type) return &r;
    if (r.type == "*" && !any) any = &r;
  }
  return any;
}

bool ReduceTable::matches(const ReduceDevice& d) const {
  return (device == "*" || normalized(device) == normalized(d.name)) &&
         (backend == "*" || lower(backend) == lower(d.backend)) &&
         (concurrency == 0 || concurrency == d.concurrency);
}

ReduceTableSelection select_reduce_table(const std::optional<std::string>& env, const std::vector<std::string>& dirs,
                                         const ReduceDevice& device) {
  const std::string fallback = "the fallback rule (kps::fallback_reduce_policy)";
  std::vector<std::string> search = dirs;
  bool explicit_dir = false;
  if (env) {
    const std::string value = trim(*env);
    if (value.empty() || value == "none")
      return {nullptr, "KPS_REDUCE_TABLE=" + value + ": " + fallback, false};
    std::error_code ec;
    if (std::filesystem::is_directory(value, ec)) {
      search = {value};
      explicit_dir = true;
    } else {
      auto t = std::make_shared<ReduceTable>(ReduceTable::load(value));  // throws: missing, malformed
      if (t->matches(device)) return {t, "KPS_REDUCE_TABLE=" + value, false};
      return {nullptr,
              "kps: warning: KPS_REDUCE_TABLE=" + value + " was made on " + describe(*t) + ", not on this device " +
                  describe(device) + "; the tuned reduction uses " + fallback +
                  " (retune here with `tools/kps_run.py tune`, or write 'device = *' and 'concurrency = *' in the "
                  "table to use it anywhere)",
              true};
    }
  }
  const std::string file = reduce_table_slug(device) + ".table";
  std::string foreign;
  for (const auto& dir : search) {
    if (dir.empty()) continue;
    const std::string path = (std::filesystem::path(dir) / file).string();
    if (!is_file(path)) continue;
    auto t = std::make_shared<ReduceTable>(ReduceTable::load(path));  // throws: malformed
    if (t->matches(device)) return {t, path, false};
    foreign += " " + path + " is for " + describe(*t) + ";";
  }
  std::string where;
  for (const auto& dir : search)
    if (!dir.empty()) where += (where.empty() ? "" : ", ") + dir;
  return {nullptr,
          (explicit_dir ? "kps: warning: KPS_REDUCE_TABLE: " : std::string()) + "no table " + file + " for " +
              describe(device) + " in " + (where.empty() ? std::string("(no folder)") : where) + ";" + foreign +
              " the tuned reduction uses " + fallback,
          explicit_dir};
}

std::vector<std::string> reduce_table_dirs(const std::string& first) {
  std::vector<std::string> dirs;
  const std::string install(KPS_REDUCE_TABLE_INSTALL_DIR), source(KPS_REDUCE_TABLE_SOURCE_DIR);
  for (const std::string& d : {first, install, source})
    if (!d.empty() && std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
  return dirs;
}

const ReduceTableSelection& active_reduce_table(const char* first_dir) {
  // Every tuned call asks: after the first, one atomic load. The selection is never freed.
  static std::atomic<const ReduceTableSelection*> chosen{nullptr};
  static std::mutex mutex;
  if (const ReduceTableSelection* s = chosen.load(std::memory_order_acquire)) return *s;
  std::lock_guard<std::mutex> lock(mutex);
  if (!chosen.load(std::memory_order_relaxed)) {
    const char* env = std::getenv("KPS_REDUCE_TABLE");
    auto s = std::make_unique<ReduceTableSelection>(select_reduce_table(
        env ? std::optional<std::string>(env) : std::nullopt, reduce_table_dirs(first_dir ? first_dir : ""),
        current_reduce_device()));
    if (s->warn) std::cerr << s->note << "\n";
    chosen.store(s.release(), std::memory_order_release);
  }
  return *chosen.load(std::memory_order_relaxed);
}

}  // namespace kps
