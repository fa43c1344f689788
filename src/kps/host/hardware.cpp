// kps/host/hardware.cpp — the description of a host execution space's hardware (Serial, OpenMP,
// Threads): the CPU model, hardware threads, memory and clock from /proc on Linux.
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
  return h;
}

}  // namespace kps::impl
