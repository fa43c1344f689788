// kps-occupancy — blocks per SM, limiters, occupancy and waves of a CUDA kernel launch from the
// portable model in kps_models/occupancy.hpp; no GPU, no Kokkos. Prints one JSON object on stdout;
// bad input gives one "kps-occupancy: error: ..." line on stderr and exit status 2.
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kps_models/occupancy.hpp"

namespace {

constexpr int exit_usage = 2;

const char* const usage = R"(usage: kps-occupancy --cc M.m --threads N --regs N [options]

Blocks per SM (occupancy), the resources that limit them, and the waves a grid takes, from
the kps occupancy model (the CUDA occupancy rules; no GPU needed). Prints one JSON object.

  --cc M.m              compute capability: 6.1, 7.0, 7.5, 8.0, 8.6, 8.9, 9.0 (or sm_90)
  --threads N           threads per block
  --regs N              registers per thread (ptxas -v, cudaFuncGetAttributes' numRegs)
  --smem BYTES          static shared memory per block, default 0; K or KB = 1024 bytes (36K)
  --dynamic-smem BYTES  dynamic shared memory per block, default 0
  --carveout PERCENT    preferred L1/shared carveout 0..100 (cc >= 7.0), default: none
  --blocks N            blocks in the grid: adds the waves
  --sms N               SMs of the GPU, default: the capability's flagship (28 for 6.1)
  --help                this text

example: kps-occupancy --cc 6.1 --sms 28 --threads 641 --blocks 29 --regs 48 --smem 0
)";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

long long parse_integer(const std::string& option, const std::string& text) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || std::isspace(static_cast<unsigned char>(text[0])))
    throw UsageError(option + " takes an integer (got '" + text + "')");
  if (errno == ERANGE) throw UsageError(option + " " + text + " is out of range");
  return v;
}

int parse_int(const std::string& option, const std::string& text) {
  const long long v = parse_integer(option, text);
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
    throw UsageError(option + " " + text + " is out of range");
  return static_cast<int>(v);
}

// Bytes with an optional suffix: 36864, 36K, 36KB, 36KiB (K = 1024 bytes), 512B.
std::size_t parse_bytes(const std::string& option, const std::string& text) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  std::string suffix = text.substr(digits);
  for (char& c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::size_t scale = 0;
  if (suffix.empty() || suffix == "B") scale = 1;
  if (suffix == "K" || suffix == "KB" || suffix == "KIB") scale = 1024;
  if (digits == 0 || scale == 0)
    throw UsageError(option + " takes a size in bytes, optionally with K or KB (1024 bytes): 36864, 36K (got '" +
                     text + "')");
  const long long v = parse_integer(option, text.substr(0, digits));
  if (static_cast<unsigned long long>(v) > std::numeric_limits<std::size_t>::max() / scale)
    throw UsageError(option + " " + text + " is out of range");
  return static_cast<std::size_t>(v) * scale;
}

/// A per-limit block count as JSON: null where the resource sets no limit.
nlohmann::ordered_json limit(int blocks) {
  return blocks == kps::models::unlimited_blocks ? nlohmann::ordered_json() : nlohmann::ordered_json(blocks);
}

struct Options {
  std::optional<std::string> cc;
  std::optional<int> threads, regs, sms, carveout;
  std::optional<long long> blocks;
  std::size_t smem = 0, dynamic_smem = 0;
  bool help = false;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      o.help = true;
      continue;
    }
    std::string value;
    bool has_value = false;
    if (const auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_value = true;
    }
    const bool known = arg == "--cc" || arg == "--threads" || arg == "--regs" || arg == "--smem" ||
                       arg == "--dynamic-smem" || arg == "--carveout" || arg == "--blocks" || arg == "--sms";
    if (!known) throw UsageError("unknown option '" + std::string(argv[i]) + "' (--help lists the options)");
    if (!has_value) {
      if (i + 1 >= argc) throw UsageError(arg + " needs a value");
      value = argv[++i];
    }
    if (arg == "--cc") o.cc = value;
    if (arg == "--threads") o.threads = parse_int(arg, value);
    if (arg == "--regs") o.regs = parse_int(arg, value);
    if (arg == "--smem") o.smem = parse_bytes(arg, value);
    if (arg == "--dynamic-smem") o.dynamic_smem = parse_bytes(arg, value);
    if (arg == "--carveout") o.carveout = parse_int(arg, value);
    if (arg == "--blocks") o.blocks = parse_integer(arg, value);
    if (arg == "--sms") o.sms = parse_int(arg, value);
  }
  return o;
}

int run(int argc, char** argv) {
  const Options o = parse(argc, argv);
  if (o.help) {
    std::cout << usage;
    return 0;
  }
  if (!o.cc) throw UsageError("--cc is required (--help for usage)");
  if (!o.threads) throw UsageError("--threads is required (--help for usage)");
  if (!o.regs) throw UsageError("--regs is required (--help for usage)");
  const kps::models::DeviceLimits& device = kps::models::limits_for(*o.cc);
  const int sms = o.sms.value_or(device.flagship_sms);
  if (sms < 1) throw UsageError("--sms must be at least 1 (got " + std::to_string(sms) + ")");

  kps::models::KernelResources kernel;
  kernel.threads_per_block = *o.threads;
  kernel.registers_per_thread = *o.regs;
  kernel.static_smem = o.smem;
  kernel.dynamic_smem = o.dynamic_smem;
  kernel.carveout_percent = o.carveout.value_or(-1);
  if (o.carveout && *o.carveout < 0)
    throw UsageError("--carveout is a percentage 0..100 (got " + std::to_string(*o.carveout) + ")");
  const kps::models::OccupancyResult r = kps::models::occupancy(device, kernel);

  using json = nlohmann::ordered_json;
  std::string explanation = r.explanation;
  json waves, per_wave;  // null without --blocks
  if (o.blocks) {
    waves = kps::models::waves(r, *o.blocks, sms);
    per_wave = static_cast<long long>(sms) * r.blocks_per_sm;
    explanation += " Waves: " + kps::models::explain_waves(r, *o.blocks, sms);
  }
  json j;
  j["capability"] = r.capability;
  j["architecture"] = device.architecture;
  j["sms"] = sms;
  j["threads_per_block"] = kernel.threads_per_block;
  j["registers_per_thread"] = kernel.registers_per_thread;
  j["static_smem"] = kernel.static_smem;
  j["dynamic_smem"] = kernel.dynamic_smem;
  j["carveout_percent"] = o.carveout ? json(*o.carveout) : json();
  j["warps_per_block"] = r.warps_per_block;
  j["registers_per_warp"] = r.registers_per_warp;
  j["registers_per_block"] = r.registers_per_block;
  j["register_warps_per_sm"] = r.register_warps_per_sm;
  j["smem_per_block"] = r.smem_per_block;
  j["smem_capacity"] = r.smem_capacity;
  j["smem_carveout"] = r.smem_carveout;
  j["blocks_per_sm_by"] = {{"threads", limit(r.by_threads)},
                           {"warps", limit(r.by_warps)},
                           {"blocks", limit(r.by_blocks)},
                           {"registers", limit(r.by_registers)},
                           {"shared_memory", limit(r.by_shared_memory)}};
  j["blocks_per_sm"] = r.blocks_per_sm;
  j["limiters"] = r.limiters;
  j["active_warps"] = r.active_warps;
  j["max_warps"] = r.max_warps;
  j["occupancy"] = r.occupancy;
  j["blocks"] = o.blocks ? json(*o.blocks) : json();
  j["blocks_per_wave"] = per_wave;
  j["waves"] = waves;
  j["explanation"] = explanation;
  std::cout << j.dump(2) << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {  // UsageError and the model's std::invalid_argument alike
    std::cerr << "kps-occupancy: error: " << e.what() << "\n";
    return exit_usage;
  }
}
