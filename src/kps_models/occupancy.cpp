// kps_models/occupancy.cpp — the occupancy model of kps_models/occupancy.hpp: the per-capability table and
// the per-resource arithmetic, each limit computed on its own and explained in words. Plain
// C++17 (no Kokkos, no CUDA) so the model and kps-occupancy build and run anywhere.
#include "kps_models/occupancy.hpp"

#include <algorithm>
#include <cstdio>
#include <initializer_list>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace kps::models {
namespace {

constexpr std::size_t KiB = 1024;

std::vector<std::size_t> kib(std::initializer_list<std::size_t> sizes) {
  std::vector<std::size_t> bytes;
  for (std::size_t s : sizes) bytes.push_back(s * KiB);
  return bytes;
}

// One row per capability. Numbers: CUDA C Programming Guide, "Technical Specifications per
// Compute Capability" (threads, warps, blocks, registers and shared memory per SM and per
// block); allocation units, carveouts and barriers as the toolkit's cuda_occupancy.h uses them.
std::vector<DeviceLimits> make_table() {
  std::vector<DeviceLimits> t;
  auto row = [&t](int major, int minor, const char* arch, const char* flagship, int sms, int threads_per_sm,
                  int blocks_per_sm, std::size_t smem_per_sm, std::size_t optin, std::vector<std::size_t> carveouts,
                  int barriers_per_sm) {
    DeviceLimits d;
    d.major = major;
    d.minor = minor;
    d.architecture = arch;
    d.flagship = flagship;
    d.flagship_sms = sms;
    d.max_threads_per_sm = threads_per_sm;
    d.max_warps_per_sm = threads_per_sm / d.warp_size;
    d.max_blocks_per_sm = blocks_per_sm;
    d.smem_per_sm = smem_per_sm;
    d.smem_per_block_optin = optin;
    // Ampere and later allocate shared memory in 128-byte units and the driver keeps 1 KB of
    // every block for itself; earlier GPUs allocate 256-byte units and reserve nothing.
    d.smem_allocation_unit = major >= 8 ? 128 : 256;
    d.smem_reserved_per_block = major >= 8 ? 1 * KiB : 0;
    d.smem_carveouts = std::move(carveouts);
    d.barriers_per_sm = barriers_per_sm;
    t.push_back(std::move(d));
  };
  row(6, 1, "Pascal", "GeForce GTX 1080 Ti", 28, 2048, 32, 96 * KiB, 48 * KiB, {}, 64);
  row(7, 0, "Volta", "Tesla V100", 80, 2048, 32, 96 * KiB, 96 * KiB, kib({0, 8, 16, 32, 64, 96}), 64);
  row(7, 5, "Turing", "GeForce RTX 2080 Ti", 68, 1024, 16, 64 * KiB, 64 * KiB, kib({32, 64}), 32);
  row(8, 0, "Ampere", "A100", 108, 2048, 32, 164 * KiB, 163 * KiB, kib({0, 8, 16, 32, 64, 100, 132, 164}), 64);
  row(8, 6, "Ampere", "GeForce RTX 3090", 82, 1536, 16, 100 * KiB, 99 * KiB, kib({0, 8, 16, 32, 64, 100}), 16);
  row(8, 9, "Ada Lovelace", "GeForce RTX 4090", 128, 1536, 24, 100 * KiB, 99 * KiB, kib({0, 8, 16, 32, 64, 100}), 24);
  row(9, 0, "Hopper", "H100 SXM5", 132, 2048, 32, 228 * KiB, 227 * KiB,
      kib({0, 8, 16, 32, 64, 100, 132, 164, 196, 228}), 64);
  return t;
}

int divide_round_up(int x, int y) { return (x + y - 1) / y; }
std::size_t round_up(std::size_t x, std::size_t unit) { return (x + unit - 1) / unit * unit; }

// The smallest supported carveout of at least `bytes`; the largest when none is that big.
std::size_t carveout_at_least(const DeviceLimits& d, std::size_t bytes) {
  for (std::size_t c : d.smem_carveouts)
    if (c >= bytes) return c;
  return d.smem_carveouts.back();
}

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", fraction * 100.0);
  return buf;
}

std::string plural(long long n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

std::string DeviceLimits::capability() const { return std::to_string(major) + "." + std::to_string(minor); }

const std::vector<DeviceLimits>& known_devices() {
  static const std::vector<DeviceLimits> table = make_table();
  return table;
}

std::string known_capabilities() {
  std::string s;
  for (const DeviceLimits& d : known_devices()) s += (s.empty() ? "" : ", ") + d.capability();
  return s;
}

const DeviceLimits& limits_for(int major, int minor) {
  for (const DeviceLimits& d : known_devices())
    if (d.major == major && d.minor == minor) return d;
  throw std::invalid_argument("unknown compute capability " + std::to_string(major) + "." + std::to_string(minor) +
                              "; known: " + known_capabilities());
}

const DeviceLimits& limits_for(const std::string& capability) {
  std::string s = capability;
  if (s.rfind("sm_", 0) == 0 && s.size() == 5) s = s.substr(3, 1) + "." + s.substr(4, 1);
  if (s.size() == 3 && s[0] >= '1' && s[0] <= '9' && s[1] == '.' && s[2] >= '0' && s[2] <= '9') {
    for (const DeviceLimits& d : known_devices())
      if (d.major == s[0] - '0' && d.minor == s[2] - '0') return d;
  }
  throw std::invalid_argument("unknown compute capability '" + capability + "'; known: " + known_capabilities());
}

std::string format_bytes(std::size_t bytes) {
  if (bytes != 0 && bytes % KiB == 0) return std::to_string(bytes / KiB) + " KB";
  return std::to_string(bytes) + " B";
}

OccupancyResult occupancy(const DeviceLimits& d, const KernelResources& k) {
  const std::string cc = "cc " + d.capability();
  // Inputs a block could never have, then blocks no SM of this capability can launch.
  if (k.threads_per_block < 1)
    throw std::invalid_argument("threads per block must be at least 1 (got " + std::to_string(k.threads_per_block) +
                                ")");
  if (k.registers_per_thread < 1)
    throw std::invalid_argument("registers per thread must be at least 1 (got " +
                                std::to_string(k.registers_per_thread) + ")");
  if (k.carveout_percent < -1 || k.carveout_percent > 100)
    throw std::invalid_argument("the shared memory carveout preference is a percentage 0..100, or -1 for none (got " +
                                std::to_string(k.carveout_percent) + ")");
  if (k.threads_per_block > d.max_threads_per_block)
    throw std::invalid_argument("a block of " + std::to_string(k.threads_per_block) + " threads cannot launch: " + cc +
                                " allows at most " + std::to_string(d.max_threads_per_block) + " threads per block");
  if (k.registers_per_thread > d.max_registers_per_thread)
    throw std::invalid_argument(std::to_string(k.registers_per_thread) + " registers per thread cannot launch: " + cc +
                                " allows at most " + std::to_string(d.max_registers_per_thread) +
                                " registers per thread");
  if (k.static_smem > d.smem_per_block)
    throw std::invalid_argument("static shared memory of " + format_bytes(k.static_smem) + " cannot compile: a kernel" +
                                " declares at most " + format_bytes(d.smem_per_block) +
                                " statically; more must be dynamic shared memory (opt-in up to " +
                                format_bytes(d.smem_per_block_optin) + " per block on " + cc + ")");
  if (k.dynamic_smem > d.smem_per_block_optin || k.static_smem + k.dynamic_smem > d.smem_per_block_optin)
    throw std::invalid_argument("a block with " + format_bytes(k.static_smem + k.dynamic_smem) +
                                " of shared memory cannot launch: " + cc + " allows at most " +
                                format_bytes(d.smem_per_block_optin) + " per block" +
                                (d.smem_per_block_optin > d.smem_per_block ? " (with opt-in)" : ""));

  OccupancyResult r;
  r.capability = d.capability();
  r.threads_per_block = k.threads_per_block;
  r.max_warps = d.max_warps_per_sm;
  std::ostringstream why;
  why << cc << " (" << d.architecture << "): a block of " << plural(k.threads_per_block, "thread", "threads") << " is ";

  // Threads and warps: warp slots are granted whole, so 641 threads take 21 warps.
  const int warps = divide_round_up(divide_round_up(k.threads_per_block, d.warp_size), d.warp_allocation_granularity) *
                    d.warp_allocation_granularity;
  r.warps_per_block = warps;
  r.by_threads = d.max_threads_per_sm / k.threads_per_block;
  r.by_warps = d.max_warps_per_sm / warps;
  r.by_blocks = d.max_blocks_per_sm;
  why << plural(warps, "warp", "warps") << " (" << k.threads_per_block << "/" << d.warp_size << " rounded up)."
      << " Threads: " << d.max_threads_per_sm << " per SM / " << k.threads_per_block << " = " << plural(r.by_threads, "block", "blocks")
      << ". Warps: " << d.max_warps_per_sm << " per SM / " << warps << " = " << plural(r.by_warps, "block", "blocks")
      << ". Blocks: at most " << d.max_blocks_per_sm << " per SM.";

  // Registers: per warp, rounded up to the allocation unit, from one sub-partition's file.
  const int per_warp_used = k.registers_per_thread * d.warp_size;
  const int per_warp = static_cast<int>(round_up(static_cast<std::size_t>(per_warp_used),
                                                 static_cast<std::size_t>(d.register_allocation_unit)));
  const int per_sub_partition = d.registers_per_sm / d.sub_partitions;
  const int warps_per_sub_partition = per_sub_partition / per_warp;
  r.registers_per_warp = per_warp;
  r.registers_per_block = per_warp * warps;
  r.register_warps_per_sm = warps_per_sub_partition * d.sub_partitions;
  // The launch check counts a block's warps in whole rounds over the sub-partitions.
  const int block_check = per_warp * divide_round_up(warps, d.sub_partitions) * d.sub_partitions;
  r.by_registers = block_check > d.registers_per_block ? 0 : r.register_warps_per_sm / warps;
  why << " Registers: " << k.registers_per_thread << " per thread x " << d.warp_size << " = " << per_warp_used
      << " per warp";
  if (per_warp != per_warp_used)
    why << ", allocated in units of " << d.register_allocation_unit << " -> " << per_warp;
  else
    why << " (a multiple of the " << d.register_allocation_unit << "-register allocation unit)";
  why << "; each of the " << d.sub_partitions << " sub-partitions has " << d.registers_per_sm << "/" << d.sub_partitions
      << " = " << per_sub_partition << " registers -> " << plural(warps_per_sub_partition, "warp", "warps")
      << " per sub-partition (" << per_sub_partition << "/" << per_warp << ") -> " << r.register_warps_per_sm
      << " warps per SM -> " << r.register_warps_per_sm << "/" << warps << " = "
      << plural(r.by_registers, "block", "blocks");
  const int pooled_warps = d.registers_per_sm / per_warp;
  if (pooled_warps / warps != r.by_registers && block_check <= d.registers_per_block)
    why << " (one pool of " << d.registers_per_sm << " registers would hold " << pooled_warps << " warps = "
        << plural(pooled_warps / warps, "block", "blocks") << ", but a warp's registers come from one sub-partition, "
        << "so " << per_sub_partition - warps_per_sub_partition * per_warp << " registers of each stay unused)";
  if (block_check > d.registers_per_block)
    why << "; a block's warps (" << warps << ", counted in rounds of " << d.sub_partitions << ") would need "
        << block_check << " registers, over the " << d.registers_per_block << " a block may have";
  why << ".";

  // Shared memory: static + dynamic + reserved, rounded up, against the carveout's capacity.
  const std::size_t used = k.static_smem + k.dynamic_smem;
  r.smem_per_block = round_up(used + d.smem_reserved_per_block, d.smem_allocation_unit);
  const bool configurable = !d.smem_carveouts.empty();
  bool preference_overridden = false;
  if (!configurable) {
    r.smem_capacity = d.smem_per_sm;
  } else if (k.carveout_percent < 0) {
    r.smem_capacity = d.smem_carveouts.back();
  } else {
    const std::size_t preferred =
        carveout_at_least(d, static_cast<std::size_t>(k.carveout_percent) * d.smem_per_sm / 100);
    preference_overridden = preferred < r.smem_per_block;
    r.smem_capacity = preference_overridden ? carveout_at_least(d, r.smem_per_block) : preferred;
  }
  r.by_shared_memory =
      r.smem_per_block == 0 ? unlimited_blocks : static_cast<int>(r.smem_capacity / r.smem_per_block);
  why << " Shared memory: ";
  if (r.smem_per_block == 0) {
    why << "none -> no limit.";
  } else {
    why << format_bytes(used);
    if (d.smem_reserved_per_block != 0)
      why << " + " << format_bytes(d.smem_reserved_per_block) << " reserved by the driver";
    why << " per block";
    if (r.smem_per_block != used + d.smem_reserved_per_block)
      why << ", allocated in units of " << d.smem_allocation_unit << " B -> " << format_bytes(r.smem_per_block);
    why << "; " << format_bytes(r.smem_capacity) << " per SM";
    const std::string preference = std::to_string(k.carveout_percent) + "% preference";
    if (configurable && k.carveout_percent < 0) why << " (the largest carveout; no preference set)";
    if (configurable && k.carveout_percent >= 0 && !preference_overridden)
      why << " (the carveout a " << preference << " rounds up to)";
    if (preference_overridden)
      why << " (a " << preference << " holds no block: the smallest carveout that holds one)";
    why << " / " << format_bytes(r.smem_per_block) << " = " << plural(r.by_shared_memory, "block", "blocks") << ".";
  }

  r.blocks_per_sm = std::min({r.by_threads, r.by_warps, r.by_blocks, r.by_registers, r.by_shared_memory});
  const std::pair<const char*, int> limits[] = {{"threads", r.by_threads},
                                                {"warps", r.by_warps},
                                                {"blocks", r.by_blocks},
                                                {"registers", r.by_registers},
                                                {"shared_memory", r.by_shared_memory}};
  for (const auto& [name, blocks] : limits)
    if (blocks == r.blocks_per_sm) r.limiters.emplace_back(name);
  std::string limited_by;
  for (const std::string& l : r.limiters) limited_by += (limited_by.empty() ? "" : ", ") + l;
  if (r.blocks_per_sm == 0)
    throw std::invalid_argument("a block of " + std::to_string(k.threads_per_block) + " threads with " +
                                std::to_string(k.registers_per_thread) + " registers per thread and " +
                                format_bytes(used) + " of shared memory cannot launch: not one fits an SM (" +
                                limited_by + "). " + why.str());
  r.active_warps = r.blocks_per_sm * warps;
  r.occupancy = static_cast<double>(r.active_warps) / d.max_warps_per_sm;
  if (!configurable)
    r.smem_carveout = d.smem_per_sm;
  else if (k.carveout_percent < 0)  // the driver is free to pick the smallest that holds them all
    r.smem_carveout = carveout_at_least(d, r.smem_per_block * static_cast<std::size_t>(r.blocks_per_sm));
  else
    r.smem_carveout = r.smem_capacity;

  why << " Result: " << plural(r.blocks_per_sm, "block", "blocks") << " per SM (limited by " << limited_by << "): "
      << r.active_warps << " of " << d.max_warps_per_sm << " warps active, occupancy " << percent(r.occupancy) << ".";
  r.explanation = why.str();
  return r;
}

long long waves(const OccupancyResult& r, long long blocks, int sms) {
  if (blocks < 1) throw std::invalid_argument("a grid has at least 1 block (got " + std::to_string(blocks) + ")");
  if (sms < 1) throw std::invalid_argument("a GPU has at least 1 SM (got " + std::to_string(sms) + ")");
  if (r.blocks_per_sm < 1) throw std::invalid_argument("the occupancy result holds no block per SM");
  const long long per_wave = static_cast<long long>(sms) * r.blocks_per_sm;
  return (blocks + per_wave - 1) / per_wave;
}

namespace {

// The most dynamic shared memory a block of k may have under a launch limit of `max_dynamic`:
// static and dynamic together stay within the device's per-block limit.
std::size_t dynamic_cap(const DeviceLimits& d, const KernelResources& k, std::size_t max_dynamic) {
  if (max_dynamic > d.smem_per_block_optin)
    throw std::invalid_argument("a block may ask for at most " + format_bytes(d.smem_per_block_optin) +
                                " of dynamic shared memory on cc " + d.capability() + ", not " +
                                format_bytes(max_dynamic));
  return std::min(max_dynamic, d.smem_per_block_optin - std::min(k.static_smem, d.smem_per_block_optin));
}

}  // namespace

int fewest_blocks_by_shared_memory(const DeviceLimits& d, const KernelResources& k, std::size_t max_dynamic) {
  KernelResources most = k;
  most.dynamic_smem = std::max(k.dynamic_smem, dynamic_cap(d, k, max_dynamic));
  return occupancy(d, most).blocks_per_sm;
}

std::size_t scratch_bytes_for_blocks(const DeviceLimits& d, const KernelResources& k, int blocks,
                                     std::size_t max_dynamic) {
  if (blocks < 1) throw std::invalid_argument("blocks per SM must be at least 1 (got " + std::to_string(blocks) + ")");
  if (k.dynamic_smem > max_dynamic)
    throw std::invalid_argument("the kernel's own " + format_bytes(k.dynamic_smem) +
                                " of dynamic shared memory is over the launch's limit of " + format_bytes(max_dynamic));
  const OccupancyResult natural = occupancy(d, k);
  if (natural.blocks_per_sm == blocks) return 0;
  if (natural.blocks_per_sm < blocks) {
    std::string limited_by;
    for (const std::string& l : natural.limiters) limited_by += (limited_by.empty() ? "" : ", ") + l;
    throw std::invalid_argument("no shared memory gives " + std::to_string(blocks) + " blocks per SM: the kernel " +
                                "holds at most " + std::to_string(natural.blocks_per_sm) + " (limited by " +
                                limited_by + ")");
  }
  const int fewest = fewest_blocks_by_shared_memory(d, k, max_dynamic);
  if (fewest > blocks)
    throw std::invalid_argument("no shared memory gives " + std::to_string(blocks) + " blocks per SM: blocks of at " +
                                "most " + format_bytes(max_dynamic) + " of dynamic shared memory leave at least " +
                                std::to_string(fewest) + " per SM on cc " + d.capability());
  // Allocations A (multiples of the unit) with floor(C / A) == blocks: C / (blocks + 1) < A <= C / blocks.
  const std::size_t capacity = natural.smem_capacity, unit = d.smem_allocation_unit;
  const std::size_t lo = round_up(capacity / static_cast<std::size_t>(blocks + 1) + 1, unit);
  const std::size_t hi = capacity / static_cast<std::size_t>(blocks) / unit * unit;
  if (lo > hi)
    throw std::invalid_argument("no block size in units of " + std::to_string(unit) + " B gives exactly " +
                                std::to_string(blocks) + " blocks in " + format_bytes(capacity));
  const std::size_t middle = lo + (hi - lo) / unit / 2 * unit;
  const std::size_t own = k.static_smem + k.dynamic_smem + d.smem_reserved_per_block;
  // own <= middle: the kernel's own allocation holds more than `blocks` (checked above).
  const std::size_t extra = std::min(middle - own, dynamic_cap(d, k, max_dynamic) - k.dynamic_smem);
  KernelResources check = k;
  check.dynamic_smem += extra;
  const OccupancyResult r = occupancy(d, check);
  if (r.blocks_per_sm != blocks)  // the arithmetic above and the model disagree: a bug, not an input
    throw std::logic_error("scratch_bytes_for_blocks: " + std::to_string(extra) + " bytes give " +
                           std::to_string(r.blocks_per_sm) + " blocks per SM, not " + std::to_string(blocks));
  return extra;
}

std::string explain_waves(const OccupancyResult& r, long long blocks, int sms) {
  const long long n = waves(r, blocks, sms);
  const long long per_wave = static_cast<long long>(sms) * r.blocks_per_sm;
  return plural(blocks, "block", "blocks") + " on " + plural(sms, "SM", "SMs") + " x " +
         plural(r.blocks_per_sm, "block", "blocks") + " per SM = " + std::to_string(per_wave) + " per wave -> " +
         plural(n, "wave", "waves") + " (" + std::to_string(blocks) + "/" + std::to_string(per_wave) +
         " rounded up).";
}

}  // namespace kps::models
