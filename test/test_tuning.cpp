// test/test_tuning.cpp — the tuning tables (kps/tuning/table.hpp): valid tables in both formats,
// lookups across range boundaries, each kind of malformed table (file, line, reason), the
// selection rules (KPS_TUNING_TABLE, the folders, the nearest table of a GPU of the same compute
// capability, the rules last), scan rows as the scan's defaults, and the table this process uses.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "kps/reduce.hpp"
#include "kps/scan.hpp"
#include "kps/tuning/table.hpp"
#include "test_support.hpp"

namespace kps::test {
namespace tuning_tests {

/// A device as a table sees it.
Hardware device(const std::string& name, const std::string& backend, int concurrency, const std::string& cc = "",
                int sms = 0, std::size_t memory = 0) {
  Hardware h;
  h.name = name;
  h.backend = backend;
  h.concurrency = concurrency;
  h.compute_capability = cc;
  h.compute_units = sms;
  h.memory_bytes = memory;
  return h;
}


constexpr const char* valid_table =
    "# a comment\n"
    "\n"
    "kps-reduce-table 1\n"
    "device = Test GPU 9000\n"
    "backend = Cuda\n"
    "concurrency = 1024\n"
    "compute_units = 4\n"
    "sweep = canned # with a hash in a value\n"
    "command = none\n"
    "date = 2025-01-01\n"
    "kps_revision = abc\n"
    "# type n_min n_max team items league vector\n"
    "int32   0      999    64   2  0   0   # small = tiny\n"
    "int32   1000   99999  128  8  0   4\n"
    "int32   100000 inf    256  16 32  0\n"
    "*       0      inf    32   4  0   1\n"
    "double  10     20     512  2  0   2\n";

TuningTable parse(const std::string& text, const std::string& name = "t.table") {
  std::istringstream in(text);
  return TuningTable::parse(in, name);
}

TEST(TuningTable, ParsesHeaderAndRows) {
  const TuningTable t = parse(valid_table);
  EXPECT_EQ(t.device, "Test GPU 9000");
  EXPECT_EQ(t.backend, "Cuda");
  EXPECT_EQ(t.concurrency, 1024);
  EXPECT_EQ(t.compute_units, 4);
  EXPECT_EQ(t.sweep, "canned # with a hash in a value");
  EXPECT_EQ(t.kps_revision, "abc");
  ASSERT_EQ(t.reduce_rows.size(), 5u);
  EXPECT_EQ(t.reduce_rows[0].line, 13);
  EXPECT_EQ(t.reduce_rows[2].n_max, std::numeric_limits<std::size_t>::max());
  EXPECT_EQ(t.reduce_rows[2].league, 32);
  EXPECT_EQ(t.reduce_rows[1].vector_width, 4);
}

TEST(TuningTable, LookupAcrossRangeBoundaries) {
  const TuningTable t = parse(valid_table);
  const auto team = [&](const char* type, std::size_t n) {
    const ReduceRow* r = t.find_reduce(type, n);
    return r ? r->team_size : -1;
  };
  EXPECT_EQ(team("int32", 0), 64);
  EXPECT_EQ(team("int32", 999), 64);
  EXPECT_EQ(team("int32", 1000), 128);
  EXPECT_EQ(team("int32", 99999), 128);
  EXPECT_EQ(team("int32", 100000), 256);
  EXPECT_EQ(team("int32", std::size_t(1) << 40), 256);
  EXPECT_EQ(team("double", 9), 32);   // '*' where double has no row
  EXPECT_EQ(team("double", 10), 512);
  EXPECT_EQ(team("double", 20), 512);
  EXPECT_EQ(team("double", 21), 32);
  EXPECT_EQ(team("float", 5), 32);
  const TuningTable no_any = parse("kps-reduce-table 1\ndevice = d\nbackend = b\nconcurrency = 1\nint64 5 6 1 2 0 0\n");
  EXPECT_EQ(no_any.find_reduce("int64", 4), nullptr);  // a gap: the fallback rule
  EXPECT_NE(no_any.find_reduce("int64", 6), nullptr);
  EXPECT_EQ(no_any.find_reduce("int64", 7), nullptr);
  EXPECT_EQ(no_any.find_reduce("int32", 5), nullptr);
}

// Each kind of malformed table: the message names the file, the line and the reason.
TEST(TuningTable, MalformedTablesNameLineAndReason) {
  const std::string head = "kps-reduce-table 1\ndevice = d\nbackend = b\nconcurrency = 4\n";  // lines 1-4
  const struct {
    std::string text, where, why;
  } cases[] = {
      {"", "t.table: ", "empty file"},
      {"# only a comment\n", "t.table: ", "empty file"},
      {"device = d\n", "t.table:1: ", "the first line must be 'kps-tuning-table 2'"},
      {"kps-tuning-table 3\n", "t.table:1: ", "re-make the table with `kps tune`"},
      {"kps-reduce-table 2\n", "t.table:1: ", "unsupported table format"},
      {"\n\nkps-reduce-table\n", "t.table:3: ", "unsupported table format"},
      {head + "colour = blue\n", "t.table:5: ", "unknown header 'colour'"},
      {head + "device = e\n", "t.table:5: ", "given twice (first on line 2)"},
      {head + "concurrency2 = 4\n", "t.table:5: ", "unknown header"},
      {"kps-reduce-table 1\ndevice = d\nbackend = b\nconcurrency = many\n", "t.table:4: ",
       "concurrency 'many' is not a non-negative integer"},
      {head + "int32 0 10 64 2 0 0\ndate = x\n", "t.table:6: ", "header line after the first row"},
      {head + "int32 0 10 64 2 0\n", "t.table:5: ", "7 or 8 fields"},
      {head + "int32 0 10 64 2 0 0 static 9\n", "t.table:5: ", "7 or 8 fields"},
      {head + "int32 0 10 64 2 0 0 9\n", "t.table:5: ", "schedule must be static or dynamic, not '9'"},
      {head + "int12 0 10 64 2 0 0\n", "t.table:5: ", "unknown value type 'int12' (int8, int16"},
      {head + "int32 -1 10 64 2 0 0\n", "t.table:5: ", "n_min '-1' is not a non-negative integer"},
      {head + "int32 0 1e3 64 2 0 0\n", "t.table:5: ", "n_max '1e3' is not a non-negative integer or 'inf'"},
      {head + "int32 inf 10 64 2 0 0\n", "t.table:5: ", "n_min 'inf'"},
      {head + "int32 20 10 64 2 0 0\n", "t.table:5: ", "n_max 10 is smaller than n_min 20"},
      {head + "int32 0 10 0 2 0 0\n", "t.table:5: ", "team must be >= 1, not '0'"},
      {head + "int32 0 10 64 0 0 0\n", "t.table:5: ", "items must be >= 1, not '0'"},
      {head + "int32 0 10 64 2 -3 0\n", "t.table:5: ", "league must be >= 0, not '-3'"},
      {head + "int32 0 10 64 2 0 3\n", "t.table:5: ", "vector must be 0, 1, 2, 4, 8 or 16, not '3'"},
      {head + "int32 0 10 99999999999 2 0 0\n", "t.table:5: ", "team must be >= 1, not '99999999999'"},
      {head + "int32 0 99999999999999999999999 64 2 0 0\n", "t.table:5: ", "too large"},
      {head + "int32 0 10 64 2 0 0\nfloat 0 10 64 2 0 0\nint32 10 20 64 2 0 0\n", "t.table:7: ",
       "rows for plus int32 overlap: lines 5 and 7 both cover N = 10"},
      {head, "t.table: ", "no rows"},
      {"kps-reduce-table 1\nbackend = b\nconcurrency = 4\nint32 0 1 1 2 0 0\n", "t.table: ", "no 'device = ...'"},
      {"kps-reduce-table 1\ndevice = d\nconcurrency = 4\nint32 0 1 1 2 0 0\n", "t.table: ", "no 'backend = ...'"},
      {"kps-reduce-table 1\ndevice = d\nbackend = b\nint32 0 1 1 2 0 0\n", "t.table: ", "no 'concurrency = ...'"},
      {"kps-reduce-table 1\ndevice =\nbackend = b\nconcurrency = 4\nint32 0 1 1 2 0 0\n", "t.table:2: ",
       "empty device name"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    try {
      parse(c.text);
      ADD_FAILURE() << "no error";
    } catch (const std::runtime_error& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.rfind(c.where, 0), 0u) << msg;
      EXPECT_NE(msg.find(c.why), std::string::npos) << msg;
    }
  }
}

TEST(TuningTable, Slug) {
  EXPECT_EQ(tuning_table_slug(device("NVIDIA H100 80GB HBM3", "Cuda", 270336)), "nvidia-h100-80gb-hbm3-cuda");
  EXPECT_EQ(tuning_table_slug(device("  Intel(R) Xeon(R) Processor ", "OpenMP", 2)), "intel-r-xeon-r-processor-openmp");
}

/// A scratch folder for table files, removed at the end of the test.
struct TableDir {
  std::filesystem::path dir;
  TableDir() {
    dir = std::filesystem::path(::testing::TempDir()) /
          ("kps-tuning-table-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~TableDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const auto path = (dir / name).string();
    std::ofstream(path) << text;
    return path;
  }
};

std::string table_for(const Hardware& d, const std::string& row = "* 0 inf 64 2 0 0\n") {
  return "kps-reduce-table 1\ndevice = " + d.name + "\nbackend = " + d.backend +
         "\nconcurrency = " + std::to_string(d.concurrency) + "\n" + row;
}

TEST(TuningTableSelection, ExplicitFile) {
  const TableDir tmp;
  const Hardware here = device("Test GPU 9000", "Cuda", 1024);
  const std::string own = tmp.write("own.table", table_for(here));
  auto s = select_tuning_table(own, {}, here);
  ASSERT_TRUE(s.table);
  EXPECT_FALSE(s.warn);
  EXPECT_EQ(s.table->reduce_rows.size(), 1u);
  // Device names compare without case or spacing differences.
  s = select_tuning_table(tmp.write("spaced.table", table_for(device("test  gpu 9000", "CUDA", 1024))), {}, here);
  EXPECT_TRUE(s.table);
  // A foreign device (name, backend or concurrency): a warning and the rules.
  for (const Hardware& other : {device("Other GPU", "Cuda", 1024), device("Test GPU 9000", "HIP", 1024),
                                device("Test GPU 9000", "Cuda", 2048)}) {
    s = select_tuning_table(tmp.write("foreign.table", table_for(other)), {}, here);
    EXPECT_FALSE(s.table);
    EXPECT_TRUE(s.warn);
    EXPECT_NE(s.note.find("warning"), std::string::npos) << s.note;
    EXPECT_NE(s.note.find("the rules"), std::string::npos) << s.note;
  }
  // 'device = *' and 'concurrency = *': any device of the backend.
  s = select_tuning_table(
      tmp.write("any.table", "kps-reduce-table 1\ndevice = *\nbackend = Cuda\nconcurrency = *\n* 0 inf 1 2 0 0\n"), {},
      here);
  EXPECT_TRUE(s.table);
  // Missing or malformed explicit files are errors naming the file.
  EXPECT_THROW(select_tuning_table((tmp.dir / "missing.table").string(), {}, here), std::runtime_error);
  try {
    select_tuning_table((tmp.dir / "missing.table").string(), {}, here);
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("missing.table: cannot open"), std::string::npos) << e.what();
  }
  const std::string bad = tmp.write("bad.table", table_for(here, "int32 0 10 64 2 0 7\n"));
  try {
    select_tuning_table(bad, {}, here);
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.table:5: vector must be"), std::string::npos) << e.what();
  }
}

TEST(TuningTableSelection, NoneAndFolders) {
  const TableDir tmp;
  const Hardware here = device("Test GPU 9000", "Cuda", 1024);
  const std::string slug = tuning_table_slug(here) + ".table";
  // KPS_TUNING_TABLE=none or empty: the rules, quietly.
  for (const char* v : {"none", "", "  "}) {
    const auto s = select_tuning_table(std::string(v), {tmp.dir.string()}, here);
    EXPECT_FALSE(s.table);
    EXPECT_FALSE(s.warn);
  }
  // Unset, nothing in the folders: the rules, quietly.
  auto s = select_tuning_table(std::nullopt, {(tmp.dir / "nowhere").string(), tmp.dir.string()}, here);
  EXPECT_FALSE(s.table);
  EXPECT_FALSE(s.warn);
  EXPECT_NE(s.note.find(slug), std::string::npos) << s.note;
  // A folder given in KPS_TUNING_TABLE with no table for this device: a warning.
  s = select_tuning_table(tmp.dir.string(), {}, here);
  EXPECT_FALSE(s.table);
  EXPECT_TRUE(s.warn);
  // The device's file in the second folder is found; the first folder wins when it has one.
  const TableDir second;
  std::filesystem::create_directories(second.dir / "b");
  std::ofstream((second.dir / "b" / slug).string()) << table_for(here, "* 0 inf 128 2 0 0\n");
  s = select_tuning_table(std::nullopt, {tmp.dir.string(), (second.dir / "b").string()}, here);
  ASSERT_TRUE(s.table);
  EXPECT_EQ(s.table->reduce_rows[0].team_size, 128);
  tmp.write(slug, table_for(here, "* 0 inf 256 2 0 0\n"));
  s = select_tuning_table(std::nullopt, {tmp.dir.string(), (second.dir / "b").string()}, here);
  ASSERT_TRUE(s.table);
  EXPECT_EQ(s.table->reduce_rows[0].team_size, 256);
  s = select_tuning_table(tmp.dir.string(), {(second.dir / "b").string()}, here);  // KPS_TUNING_TABLE=DIR
  ASSERT_TRUE(s.table);
  EXPECT_EQ(s.table->reduce_rows[0].team_size, 256);
  // A file of this name made on another device (here: another concurrency): skipped quietly.
  tmp.write(slug, table_for(device(here.name, here.backend, 4096)));
  s = select_tuning_table(std::nullopt, {tmp.dir.string(), (second.dir / "b").string()}, here);
  ASSERT_TRUE(s.table);
  EXPECT_EQ(s.table->reduce_rows[0].team_size, 128);
  // A malformed file there is an error, not silently skipped.
  tmp.write(slug, "kps-reduce-table 1\ndevice = x\n");
  EXPECT_THROW(select_tuning_table(std::nullopt, {tmp.dir.string()}, here), std::runtime_error);
}

// Every committed table parses, and the active selection for this process does not throw.
TEST(TuningTableSelection, CommittedTablesParse) {
#ifdef KPS_TUNING_TABLE_DIR
  std::error_code ec;
  int count = 0;
  for (const auto& e : std::filesystem::directory_iterator(KPS_TUNING_TABLE_DIR, ec))
    if (e.path().extension() == ".table") {
      SCOPED_TRACE(e.path().string());
      EXPECT_NO_THROW(TuningTable::load(e.path().string()));
      ++count;
    }
  std::cout << "[ tuning  ] " << count << " committed tables in " << KPS_TUNING_TABLE_DIR << "\n";
#endif
  const ExecutionSpace space;
  const auto& s = tuning_table(space);
  std::cout << "[ tuning  ] this device: " << s.note << "\n";
}

// The selection this process made from its environment, as ctest sets it up
// (test/CMakeLists.txt: kps.reduce.table.*): KPS_TEST_REDUCE_TABLE_EXPECT is "table" (the
// tuned reduction must use KPS_TUNING_TABLE's rows) or "fallback-warning" (a foreign table:
// warned about, not used). Unset: nothing to check beyond a consistent tuned policy.
TEST(TuningTableSelection, ActiveProcessTable) {
  using Exec = ExecutionSpace;
  const char* expect = std::getenv("KPS_TEST_REDUCE_TABLE_EXPECT");
  const Exec exec;
  const TuningSelection& s = tuning_table(exec);
  for (std::size_t n : {std::size_t(0), std::size_t(1000), std::size_t(1) << 20}) {
    const ReducePolicy p = tuned_reduce_policy<double>(Exec(), n);
    const ReduceRow* row = s.find_reduce("double", n);
    const ReducePolicy want = row ? impl::policy_from_row(*row, n) : fallback_reduce_policy(Exec(), n);
    EXPECT_EQ(to_string(p), to_string(want)) << "n=" << n;
  }
  if (!expect) return;
  if (std::string(expect) == "table") {
    ASSERT_TRUE(s.table) << s.note;
    EXPECT_FALSE(s.warn);
  } else {
    EXPECT_FALSE(s.table);
    EXPECT_TRUE(s.warn);
    EXPECT_NE(s.note.find("warning"), std::string::npos) << s.note;
  }
}

// The tuning format: reduce and scan rows, each kind checked on its own.
constexpr const char* tuning_table_text =
    "kps-tuning-table 1\n"
    "device = Test GPU 9000\n"
    "backend = Cuda\n"
    "concurrency = 1024\n"
    "compute_capability = 9.0\n"
    "compute_units = 4\n"
    "memory_bytes = 8000000000\n"
    "reduce int32 0 inf 64 2 0 0\n"
    "reduce int64 0 inf 1 32768 0 0 dynamic\n"
    "scan * 0 262143 kokkos 0 64 staged 0 0 0\n"
    "scan * 262144 inf single_pass 128 32 direct 2400 100 64   # the defaults of large scans\n"
    "scan double 0 inf single_pass 0 16 staged 0 0 0\n"
    "scan int64 0 inf single_pass 1 8192 cached 0 0 0 streaming\n";

TEST(TuningTable, ParsesScanAndReduceRows) {
  const TuningTable t = parse(tuning_table_text);
  EXPECT_EQ(t.compute_capability, "9.0");
  EXPECT_EQ(t.memory_bytes, 8000000000u);
  ASSERT_EQ(t.reduce_rows.size(), 2u);
  EXPECT_FALSE(t.find_reduce("int32", 5)->dynamic_teams);  // a row of 7 fields
  EXPECT_TRUE(t.find_reduce("int64", 5)->dynamic_teams);
  EXPECT_TRUE(impl::policy_from_row(*t.find_reduce("int64", 5), 1 << 20).dynamic_teams);
  ASSERT_EQ(t.scan_rows.size(), 4u);
  const ScanRow* small = t.find_scan("int32", 1000);
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(small->algorithm, ScanAlgorithm::kokkos);
  const ScanRow* large = t.find_scan("float", std::size_t(1) << 20);
  ASSERT_NE(large, nullptr);
  EXPECT_EQ(large->line, 11);
  const impl::ScanTuning tuned = impl::scan_tuning_of(*large);
  EXPECT_EQ(tuned.algorithm, ScanAlgorithm::single_pass);
  EXPECT_EQ(tuned.single_pass.team_size, 128);
  EXPECT_EQ(tuned.single_pass.items_per_thread, 32);
  EXPECT_EQ(tuned.single_pass.load, TileLoad::direct);
  EXPECT_EQ(tuned.single_pass.look_back_delay_ns, 2400);
  EXPECT_EQ(tuned.single_pass.poll_delay_ns, 100);
  EXPECT_EQ(tuned.single_pass.prefetch_tiles, 64);
  EXPECT_EQ(tuned.single_pass.store, TileStore::cached);  // a row of 10 fields
  EXPECT_EQ(t.find_scan("double", 5)->items_per_thread, 16);  // its own row before '*'
  const impl::ScanTuning cached = impl::scan_tuning_of(*t.find_scan("int64", 5));
  EXPECT_EQ(cached.single_pass.load, TileLoad::cached);
  EXPECT_EQ(cached.single_pass.items_per_thread, 8192);
  EXPECT_EQ(cached.single_pass.store, TileStore::streaming);
  EXPECT_EQ(t.find_reduce("double", 5), nullptr);
  EXPECT_EQ(t.format, 1);  // rows of sums
  EXPECT_EQ(t.reduce_rows[0].op_class, "plus");
}

// Format 2: rows keyed by operator class and value type (a name, a size key, '*'); a lookup takes
// the type's own row, its size key's, a named type's of its size and kind, '*', then the same for
// class '*' and then for the next cheaper class (user, builtin, plus).
TEST(TuningTable, OperatorClassesAndValueSizes) {
  const TuningTable t = parse(std::string(
      "kps-tuning-table 2\ndevice = d\nbackend = b\nconcurrency = 4\n"
      "reduce plus int32 0 inf 1 8 0 0\n"
      "reduce builtin bytes1 0 inf 2 16 0 0\n"
      "reduce builtin int32 0 inf 3 16 0 0\n"
      "reduce user * 0 inf 4 32 0 0\n"
      "reduce * * 0 100 8 64 0 0\n"
      "scan builtin * 0 inf single_pass 1 2048 cached 0 0 0\n"));
  EXPECT_EQ(t.format, 2);
  const auto team = [&](OperatorClass c, const char* type, std::size_t bytes, std::size_t n) {
    const ReduceRow* r = t.find_reduce(c, type, bytes, n);
    return r ? r->team_size : 0;
  };
  EXPECT_EQ(team(OperatorClass::plus, "int32", 4, 1000), 1);
  EXPECT_EQ(team(OperatorClass::plus, "uint32", 4, 1000), 1);     // a named integer of its size
  EXPECT_EQ(team(OperatorClass::plus, "float", 4, 1000), 0);      // not an integer's: the rule
  EXPECT_EQ(team(OperatorClass::plus, "float", 4, 50), 8);        // class '*' covers n <= 100
  EXPECT_EQ(team(OperatorClass::builtin, "int8", 1, 1000), 2);    // the size key
  EXPECT_EQ(team(OperatorClass::builtin, "int32", 4, 1000), 3);   // its own row
  EXPECT_EQ(team(OperatorClass::builtin, "int64", 8, 50), 8);     // class '*' before plus
  EXPECT_EQ(team(OperatorClass::builtin, "int64", 8, 1000), 0);   // none: the rule
  EXPECT_EQ(team(OperatorClass::user, "bytes16", 16, 1000), 4);   // '*' of its class
  const ScanRow* s = t.find_scan(OperatorClass::user, "bytes16", 16, 1000);
  ASSERT_NE(s, nullptr);  // user: none of its own, builtin's '*'
  EXPECT_EQ(s->items_per_thread, 2048);
  EXPECT_EQ(t.find_scan(OperatorClass::plus, "int32", 4, 1000), nullptr);
  for (const char* bad : {"reduce sums int32 0 inf 1 8 0 0\n", "reduce plus int32 0 inf 1 8 0\n"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(parse(std::string("kps-tuning-table 2\ndevice = d\nbackend = b\nconcurrency = 4\n") + bad),
                 std::runtime_error);
  }
}

// Each knob is described once (kps/knobs.hpp): a policy's members by name, its to_string, and the
// table's columns (a row's knobs in the same order, parsed by the same descriptions) agree.
TEST(Knobs, OneDescriptionForPoliciesRowsAndNames) {
  SinglePassPolicy p;
  EXPECT_TRUE(set_knob(p, "team", 256));
  EXPECT_TRUE(set_knob(p, "items", 32));
  EXPECT_TRUE(set_knob(p, "load", 1));   // the index of "staged" in its names
  EXPECT_TRUE(set_knob(p, "store", 1));  // "streaming"
  EXPECT_FALSE(set_knob(p, "colour", 1));
  EXPECT_EQ(p.team_size, 256);
  EXPECT_EQ(p.items_per_thread, 32);
  EXPECT_EQ(p.load, TileLoad::staged);
  EXPECT_EQ(p.store, TileStore::streaming);
  EXPECT_EQ(get_knob(p, "store"), 1);
  EXPECT_EQ(get_knob(p, "delay"), -1);  // the tuning's
  EXPECT_EQ(to_string(p), "team=256 items=32 load=staged delay=-1 poll=-1 prefetch=-1 lanes=0 store=streaming");
  ReducePolicy r{64, 8, 0, 4, true};
  EXPECT_EQ(to_string(r), "team=64 items=8 league=0 vector=4 schedule=dynamic");
  // The rows' columns are the policies' table knobs, in order (lanes is no column).
  const SinglePassPolicy sp{};
  const ScanRow sr{};
  const ReducePolicy rp{};
  const ReduceRow rr{};
  std::vector<std::string> policy_columns, row_columns;
  visit_knobs(sp, [&](const Knob& k, const auto&) {
    if (k.in_table) policy_columns.emplace_back(k.name);
  });
  visit_knobs(sr, [&](const Knob& k, const auto&) { row_columns.emplace_back(k.name); });
  EXPECT_EQ(policy_columns, row_columns);
  policy_columns.clear();
  row_columns.clear();
  visit_knobs(rp, [&](const Knob& k, const auto&) { policy_columns.emplace_back(k.name); });
  visit_knobs(rr, [&](const Knob& k, const auto&) { row_columns.emplace_back(k.name); });
  EXPECT_EQ(policy_columns, row_columns);
  // A row's field is read by its knob's description: names for the enumerated ones.
  const TuningTable t = [] {
    std::istringstream in("kps-tuning-table 2\ndevice = d\nbackend = b\nconcurrency = 4\n"
                          "scan plus int32 0 inf single_pass 1 4096 cached 0 0 0 streaming\n"
                          "reduce * * 0 inf 2 8 16 4 dynamic\n");
    return TuningTable::parse(in, "t.table");
  }();
  EXPECT_EQ(t.scan_rows.at(0).load, TileLoad::cached);
  EXPECT_EQ(t.scan_rows.at(0).store, TileStore::streaming);
  EXPECT_EQ(t.reduce_rows.at(0).league, 16);
  EXPECT_TRUE(t.reduce_rows.at(0).dynamic_teams);
}

TEST(TuningTable, MalformedScanRowsNameLineAndReason) {
  const std::string head = "kps-tuning-table 1\ndevice = d\nbackend = b\nconcurrency = 4\n";  // lines 1-4
  const struct {
    std::string text, why;
  } cases[] = {
      {head + "int32 0 10 64 2 0 0\n", "a row starts with its kind, reduce or scan"},
      {head + "scan int32 0 10 single_pass 0 16 staged 0 0\n", "a scan row has 10 or 11 fields"},
      {head + "scan int32 0 10 single_pass 1 16384 cached 0 0 0 streaming extra\n", "a scan row has 10 or 11 fields"},
      {head + "scan int32 0 10 single_pass 1 16384 cached 0 0 0 sideways\n", "store must be cached or streaming"},
      {head + "scan int32 0 10 fastest 0 16 staged 0 0 0\n", "unknown scan algorithm 'fastest'"},
      {head + "scan int32 0 10 automatic 0 16 staged 0 0 0\n", "unknown scan algorithm 'automatic'"},
      {head + "scan int32 0 10 single_pass 0 16 sideways 0 0 0\n", "load must be direct, staged or cached"},
      {head + "scan int32 0 10 single_pass 0 0 staged 0 0 0\n", "items must be >= 1, not '0'"},
      {head + "scan int32 0 10 single_pass 0 16 staged -1 0 0\n", "delay must be >= 0, not '-1'"},
      {head + "scan int32 0 10 kokkos 0 16 staged 0 0 0\nscan int32 5 20 kokkos 0 16 staged 0 0 0\n",
       "scan rows for plus int32 overlap"},
      {head + "reduce int32 0 10 64 2 0\n", "a reduce row has 7 or 8 fields"},
      {head + "reduce int32 0 10 64 2 0 0 sideways\n", "schedule must be static or dynamic"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    try {
      parse(c.text);
      ADD_FAILURE() << "no error";
    } catch (const std::runtime_error& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.rfind("t.table:", 0), 0u) << msg;
      EXPECT_NE(msg.find(c.why), std::string::npos) << msg;
    }
  }
}

// A GPU without a table of its own takes the nearest table of its backend and compute capability
// (the closest SM count and memory); a CPU, or a GPU of another capability, the rules.
TEST(TuningTableSelection, NearestTableOfTheSameComputeCapability) {
  const TableDir tmp;
  const auto gpu = [](const std::string& name, const std::string& cc, int sms, std::size_t mem, int team) {
    return "kps-tuning-table 1\ndevice = " + name + "\nbackend = Cuda\nconcurrency = " + std::to_string(sms * 2048) +
           "\ncompute_capability = " + cc + "\ncompute_units = " + std::to_string(sms) +
           "\nmemory_bytes = " + std::to_string(mem) + "\nreduce * 0 inf " + std::to_string(team) + " 2 0 0\n";
  };
  tmp.write("nvidia-h100-80gb-hbm3-cuda.table", gpu("NVIDIA H100 80GB HBM3", "9.0", 132, 85000000000ull, 100));
  tmp.write("nvidia-gh100-small-cuda.table", gpu("NVIDIA GH100 small", "9.0", 60, 40000000000ull, 200));
  tmp.write("nvidia-a100-cuda.table", gpu("NVIDIA A100", "8.0", 108, 80000000000ull, 300));
  const auto pick = [&](const Hardware& hw) { return select_tuning_table(std::nullopt, {tmp.dir.string()}, hw); };
  // The H200: 132 SMs, 141 GB: the H100's table.
  auto s = pick(device("NVIDIA H200", "Cuda", 270336, "9.0", 132, 150000000000ull));
  ASSERT_TRUE(s.table) << s.note;
  EXPECT_EQ(s.table->reduce_rows[0].team_size, 100);
  EXPECT_NE(s.note.find("nearest table"), std::string::npos) << s.note;
  EXPECT_NE(s.note.find("NVIDIA H100 80GB HBM3"), std::string::npos) << s.note;
  EXPECT_FALSE(s.warn);
  // An H100 PCIe (114 SMs, 80 GB): the H100 SXM's, not the 60-SM part's.
  s = pick(device("NVIDIA H100 PCIe", "Cuda", 233472, "9.0", 114, 85000000000ull));
  ASSERT_TRUE(s.table);
  EXPECT_EQ(s.table->reduce_rows[0].team_size, 100);
  // A small part of the same capability: the nearest is the small table.
  s = pick(device("NVIDIA H100 NVL small", "Cuda", 100000, "9.0", 58, 40000000000ull));
  ASSERT_TRUE(s.table);
  EXPECT_EQ(s.table->reduce_rows[0].team_size, 200);
  // Another capability, or a CPU: the rules.
  EXPECT_FALSE(pick(device("NVIDIA L4", "Cuda", 120000, "8.9", 58, 24000000000ull)).table);
  EXPECT_FALSE(pick(device("Some CPU", "OpenMP", 16)).table);
  // The device's own table always wins over a nearer one.
  s = pick(device("NVIDIA A100", "Cuda", 108 * 2048, "8.0", 108, 80000000000ull));
  ASSERT_TRUE(s.table);
  EXPECT_EQ(s.table->reduce_rows[0].team_size, 300);
  EXPECT_EQ(s.note.find("nearest"), std::string::npos) << s.note;
}

}  // namespace tuning_tests
}  // namespace kps::test
