// bench/main.cpp — the one benchmark main of kps: checks that the backend can run here,
// initializes Kokkos and Google Benchmark, records the environment as benchmark context,
// registers every family for the sweep given by --kps_sizes / --kps_types, runs, and exits
// non-zero when a benchmark's result check failed or an option was wrong.
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <Kokkos_Core.hpp>

#include "support/common.hpp"
#include "support/knobs.hpp"
#include "support/peers.hpp"
#include "support/environment.hpp"
#include "kps/impl/kokkos_compat.hpp"
#include "kps/types.hpp"

namespace {

constexpr const char* usage =
    "kps-bench: the Google Benchmark fixtures of the kps studies. kps' own options:\n"
    "  --kps_sizes=LIST   sizes, e.g. 2^10..2^30:4,1000000 (default: 2^10..2^20:4 on the host,\n"
    "                     2^10..2^30:4 on a GPU)\n"
    "  --kps_types=LIST   value types among int8,int16,int32,int64,uint8,uint16,uint32,uint64,\n"
    "                     float,double (half where the backend has it) and bytes16 (the 16-byte\n"
    "                     user pairs); default: all. Today's sums and scans take int32, int64,\n"
    "                     float and double of them; the operators' families every type\n"
    "  --kps_operators=LIST  the operators' families to register: plus,min,max,segmented,argmin,\n"
    "                     argmax or all (default: none: the families of today's sums alone, so\n"
    "                     that a filter such as ^scan/ times what it timed before)\n"
    "  --kps_iterations=N loop length of the latency and occupancy kernels (default: 65536 on a\n"
    "                     GPU, 4096 on the host)\n"
    "  --kps_footprints=LIST  footprints in bytes of the memory-latency probe (memory_latency/chase/,\n"
    "                     and /loaded/: the same beside the space's copy),\n"
    "                     as --kps_sizes (default: 2^12..2^30:2 and 2^31 where the memory holds it)\n"
    "  --kps_cache_flush=on|off  read 4 x the last-level cache before each timed call of the\n"
    "                     interleaved rounds (default: on on a GPU, off on a host)\n"
    "  --kps_context      print the environment (device, backend, Kokkos) as JSON and exit\n"
    "  --kps_help         this text\n"
    "plus Kokkos options (--kokkos-help lists them) and Google Benchmark options (--benchmark_...,\n"
    "listed below by --help). A filter that matches no benchmark is an error (exit 2).\n";

bool take_flag(int& argc, char** argv, int i, const char* name, std::string& value) {
  const std::size_t len = std::strlen(name);
  if (std::strncmp(argv[i], name, len) != 0 || argv[i][len] != '=') return false;
  value = argv[i] + len + 1;
  for (int j = i; j < argc - 1; ++j) argv[j] = argv[j + 1];
  --argc;
  return true;
}

/// Google Benchmark's JSON file reporter, flushed after every benchmark: a kps-bench that is
/// stopped (Ctrl-C, a batch job's time limit) leaves each benchmark it completed in its
/// --benchmark_out file, where `kps run` finds and keeps them; the stream's buffer would hold
/// the last ones back.
class FlushingJsonReporter : public benchmark::JSONReporter {
 public:
  void ReportRuns(const std::vector<Run>& reports) override {
    benchmark::JSONReporter::ReportRuns(reports);
    GetOutputStream().flush();
  }
};

/// Whether argv asks for a JSON --benchmark_out file (Google Benchmark's default format).
bool json_file_output(int argc, char** argv) {
  bool out = false, json = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--benchmark_out=", 16) == 0) out = argv[i][16] != '\0';
    if (std::strncmp(argv[i], "--benchmark_out_format=", 23) == 0) json = std::strcmp(argv[i] + 23, "json") == 0;
  }
  return out && json;
}

/// kps' own flags, taken out of argv (Google Benchmark's stay).
struct KpsArgs {
  std::string sizes_text, types_text, operators_text, iterations_text, footprints_text, flush_text;
  bool have_sizes = false, context_only = false;
};

/// Takes kps' flags out of argv; an exit status where the program is done (help) or the
/// arguments are bad, else nothing.
std::optional<int> take_kps_args(int& argc, char** argv, KpsArgs& a) {
  for (int i = 1; i < argc;) {
    std::string v;
    if (std::strcmp(argv[i], "--kps_help") == 0) {
      std::cout << usage;
      return 0;
    }
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      // kps' options, then Google Benchmark's own help (it prints it and exits).
      std::cout << usage << "\nGoogle Benchmark's options:\n";
      std::cout.flush();
      int help_argc = 2;
      char* help_argv[] = {argv[0], const_cast<char*>("--help"), nullptr};
      benchmark::Initialize(&help_argc, help_argv);
      return 0;
    }
    if (std::strcmp(argv[i], "--kps_context") == 0) {
      a.context_only = true;
      for (int j = i; j < argc - 1; ++j) argv[j] = argv[j + 1];
      --argc;
    } else if (take_flag(argc, argv, i, "--kps_sizes", v)) {
      a.sizes_text = v;
      a.have_sizes = true;
    } else if (take_flag(argc, argv, i, "--kps_types", v)) {
      a.types_text = v;
    } else if (take_flag(argc, argv, i, "--kps_operators", v)) {
      a.operators_text = v;
    } else if (take_flag(argc, argv, i, "--kps_iterations", v)) {
      a.iterations_text = v;
    } else if (take_flag(argc, argv, i, "--kps_footprints", v)) {
      a.footprints_text = v;
    } else if (take_flag(argc, argv, i, "--kps_cache_flush", v)) {
      if (v != "on" && v != "off") {
        std::cerr << "kps-bench: --kps_cache_flush=" << v << ": on or off\n";
        return 2;
      }
      a.flush_text = v;
    } else if (std::strncmp(argv[i], "--kps_", 6) == 0) {
      std::cerr << "kps-bench: unknown option " << argv[i] << " (kps-bench --help lists the options)\n";
      return 2;
    } else {
      ++i;
    }
  }
  return std::nullopt;
}

/// The sweep's options from kps' flags and the device (Kokkos initialized); throws
/// std::invalid_argument with a one-line reason for a bad value.
kps::bench::Options make_options(const KpsArgs& a) {
  kps::bench::Options options;
  const kps::Hardware device = kps::bench::device_info();
  options.memory_bytes = device.memory_bytes;
  options.host = kps::impl::is_host_space_v<kps::bench::Exec>;
  options.device = device;
  options.iterations = options.host ? 4096 : 65536;
  if (!a.iterations_text.empty()) {
    std::size_t used = 0;
    long long it = -1;
    try {
      it = std::stoll(a.iterations_text, &used);
    } catch (const std::exception&) {
    }
    if (used != a.iterations_text.size() || it < 1 || it > (1ll << 40))
      throw std::invalid_argument("--kps_iterations must be an integer from 1 to 2^40, not '" + a.iterations_text + "'");
    options.iterations = it;
  }
  options.sizes = kps::bench::parse_sizes(a.have_sizes ? a.sizes_text : (options.host ? "2^10..2^20:4" : "2^10..2^30:4"));
  if (!a.footprints_text.empty()) {
    options.footprints = kps::bench::parse_sizes(a.footprints_text);
    options.footprints_given = true;
  } else {
    options.footprints = kps::bench::parse_sizes("2^12..2^30:2,2^31");
  }
  // The named types (kps/types.hpp, the one list) and the user pairs' size key.
  std::vector<std::string> known;
  for (const kps::NamedType& t : kps::named_types) known.push_back(t.name);
  known.push_back("bytes16");
  const auto list = [](const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= text.size()) {
      const std::size_t comma = std::min(text.find(',', start), text.size());
      out.push_back(text.substr(start, comma - start));
      start = comma + 1;
    }
    return out;
  };
  const auto joined = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  options.types = a.types_text.empty() ? known : list(a.types_text);
  for (const std::string& t : options.types)
    if (std::find(known.begin(), known.end(), t) == known.end())
      throw std::invalid_argument("unknown element type '" + t + "' (" + joined(known) + ")");
  if (!a.operators_text.empty()) {
    options.operators = list(a.operators_text);
    if (options.operators == std::vector<std::string>{"all"}) options.operators = kps::bench::bench_operators();
    for (const std::string& op : options.operators)
      if (std::find(kps::bench::bench_operators().begin(), kps::bench::bench_operators().end(), op) ==
          kps::bench::bench_operators().end())
        throw std::invalid_argument("unknown operator '" + op + "' (" + joined(kps::bench::bench_operators()) + ")");
  }
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  KpsArgs args;
  if (const std::optional<int> done = take_kps_args(argc, argv, args)) return *done;

  const std::string why = kps::bench::preflight();
  if (!why.empty()) {
    std::cerr << "kps-bench: " << why << "\n";
    return 3;
  }

  // Kokkos refuses some settings by throwing (a Kokkos::Threads built with hwloc: more threads
  // than cores): one line and exit 3, as the preflight's refusals.
  std::optional<Kokkos::ScopeGuard> kokkos;
  try {
    kokkos.emplace(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "kps-bench: Kokkos did not start: " << e.what() << "\n";
    return 3;
  }
  if (args.context_only) {
    const nlohmann::ordered_json context(kps::bench::environment());  // keys sorted (a std::map)
    std::cout << context.dump(2) << "\n";
    return 0;
  }
  if (!args.flush_text.empty()) kps::bench::set_cache_flush(args.flush_text == "on");
  const bool flush_file = json_file_output(argc, argv);  // before Initialize takes its flags out of argv
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;

  try {
    const kps::bench::Options options = make_options(args);
    for (auto r : kps::bench::registrars()) r(options);
  } catch (const std::exception& e) {
    std::cerr << "kps-bench: " << e.what() << "\n";
    return 2;
  }

  for (const auto& [key, value] : kps::bench::environment()) benchmark::AddCustomContext(key, value);
  // The peers this build times, and those it left out and why (said once here, and in the JSON).
  benchmark::AddCustomContext("kps_peers", kps::bench::peers_summary());
  benchmark::AddCustomContext("kps_op_peers", kps::bench::op_peers_summary());
  // The knobs the sweeps' axes and knob_<name> fields name (kps/knobs.hpp).
  benchmark::AddCustomContext("kps_knobs", kps::bench::knobs_summary());
  // The value types (name:bytes) and operators this kps-bench names: what the reports read.
  {
    // Appended piece by piece: GCC 12's -Wrestrict (C++20) warns on `"," + std::string` here.
    std::string types;
    for (const kps::NamedType& t : kps::named_types) {
      if (!types.empty()) types.push_back(',');
      types.append(t.name).append(":").append(std::to_string(t.size));
    }
    types.append(",bytes16:16");
    benchmark::AddCustomContext("kps_types", types);
    std::string ops;
    for (const std::string& op : kps::bench::bench_operators()) {
      if (!ops.empty()) ops.push_back(',');
      ops.append(op);
    }
    benchmark::AddCustomContext("kps_operators", ops);
  }
  benchmark::AddCustomContext("kps_cache_flush", kps::bench::cache_flush_note());
  if (const std::string notes = kps::bench::peer_notes(); !notes.empty()) {
    benchmark::AddCustomContext("kps_peers_notes", notes);
    std::cerr << "kps-bench: peers: " << notes << "\n";
  }
  FlushingJsonReporter file_reporter;
  const std::size_t ran =
      flush_file ? benchmark::RunSpecifiedBenchmarks(nullptr, &file_reporter) : benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (ran == 0) {
    std::cerr << "kps-bench: no benchmark matches --benchmark_filter (sizes " << (args.have_sizes ? args.sizes_text : "default")
              << ", types " << args.types_text << "; --benchmark_list_tests lists the names)\n";
    return 2;
  }
  if (kps::bench::any_failure()) {
    std::cerr << "kps-bench: at least one benchmark's result check FAILED (see error_message in the output)\n";
    return 1;
  }
  return 0;
}
