// kps/host/hardware.cpp — the description of a host execution space's hardware (Serial, OpenMP,
// Threads): the CPU model, hardware threads, memory and clock from /proc, the last-level cache from
// /sys on Linux (zero where unknown).
#include <cstddef>
#include <fstream>
#include <string>
#include <thread>

#include "kps/tuning/hardware.hpp"

namespace kps::impl {

namespace {
std::string proc_field(const char* file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line))
    if (line.compare(0, key.size(), key) == 0) {
      const auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      const auto start = line.find_first_not_of(" \t", colon + 1);
      return start == std::string::npos ? "" : line.substr(start);
    }
  return "";
}
/// "36864K" (sysfs' cache size) in bytes; 0 where unreadable.
std::size_t cache_bytes(const std::string& text) {
  std::size_t value = 0, at = 0;
  while (at < text.size() && text[at] >= '0' && text[at] <= '9') value = value * 10 + std::size_t(text[at++] - '0');
  if (at < text.size() && (text[at] == 'K' || text[at] == 'k')) value <<= 10;
  else if (at < text.size() && (text[at] == 'M' || text[at] == 'm')) value <<= 20;
  return value;
}

/// The size of CPU 0's highest cache level (one instance of it: the L3 its cores share), 0 where unknown.
std::size_t last_level_cache_bytes() {
  int best_level = 0;
  std::size_t bytes = 0;
  for (int index = 0; index < 16; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream level_file(dir + "level"), size_file(dir + "size");
    int level = 0;
    std::string size;
    if (!(level_file >> level) || !(size_file >> size)) continue;
    if (level >= best_level) {
      best_level = level;
      bytes = cache_bytes(size);
    }
  }
  return bytes;
}
}  // namespace

Hardware host_hardware(const std::string& backend, int concurrency) {
  Hardware h;
  h.backend = backend;
  h.concurrency = concurrency;
  h.name = proc_field("/proc/cpuinfo", "model name");
  if (h.name.empty()) h.name = "unknown CPU";
  h.compute_units = static_cast<int>(std::thread::hardware_concurrency());
  const std::string mem = proc_field("/proc/meminfo", "MemTotal");  // "24576000 kB"
  if (!mem.empty()) h.memory_bytes = std::stoull(mem) * 1024ull;
  const std::string mhz = proc_field("/proc/cpuinfo", "cpu MHz");
  if (!mhz.empty()) h.clock_mhz = std::stod(mhz);
  h.l2_bytes = last_level_cache_bytes();
  return h;
}

}  // namespace kps::impl
