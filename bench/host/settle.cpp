// bench/host/settle.cpp — waiting, untimed, for one runtime's idle threads to sleep before a
// call of another runtime is timed (support/peers.hpp: ScanPeer::before, Peers::before_own).
// OpenMP's idle threads spin for a while after each parallel region (libgomp: GOMP_SPINCOUNT
// iterations, unless OMP_WAIT_POLICY=passive), and oneTBB's workers look for work for a while
// after theirs: a call of the other runtime timed meanwhile shares its cores with them (on the
// 16-core node, oneTBB beside 16 spinning OpenMP threads ran at a fifth of its speed). With
// OMP_WAIT_POLICY=passive nothing spins, but then every OpenMP call pays for waking its threads
// (tens of microseconds under gVisor, four times the time of a sum of 2^20 int32): a user's
// repeated calls find them awake. So each call runs as it would among its own kind: the
// benchmarks' space's calls once oneTBB's workers sleep and an empty region of the space's own has
// woken its threads (the wait may outlast their spin); oneTBB's once the space's threads sleep.
// The host study runs shorten libgomp's spin (GOMP_SPINCOUNT; KMP_BLOCKTIME for LLVM's runtime,
// studies/*/study.json) so that the untimed waits stay short.
// Linux: a thread's state is the third field of /proc/self/task/<tid>/stat.
#include <dirent.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include <Kokkos_Core.hpp>

#include "host/peers.hpp"

namespace kps::bench::host {
namespace {

long this_tid() { return static_cast<long>(::syscall(SYS_gettid)); }

/// f() once on each of the benchmarks' space's threads: one parallel region, an index per thread.
template <class F>
void on_each_space_thread(const char* label, const F& f) {
  if constexpr (kps::impl::is_host_space_v<Exec>) {
    const Exec exec;
    Kokkos::parallel_for(label, Kokkos::RangePolicy<Exec, Kokkos::Schedule<Kokkos::Static>>(exec, 0, exec.concurrency()),
                         [&](int) { f(); });
    exec.fence();
  }
}

/// The ids of the benchmarks' space's threads, asked once.
const std::set<long>& space_tids() {
  static const std::set<long> tids = [] {
    std::set<long> s;
    std::mutex m;
    on_each_space_thread("kps::bench::space_tids", [&] {
      const long t = this_tid();
      const std::lock_guard<std::mutex> lock(m);
      s.insert(t);
    });
    return s;
  }();
  return tids;
}

/// Whether thread `tid` of this process runs (or is runnable) now; false where unreadable (gone).
bool running(long tid) {
  std::ifstream f("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string line;
  if (!std::getline(f, line)) return false;
  const std::size_t paren = line.rfind(')');  // the name may hold spaces and parentheses
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'R';
}

/// The process's threads but the caller: those of the space (`space`) or the others.
std::vector<long> threads_of(bool space) {
  std::vector<long> out;
  DIR* d = ::opendir("/proc/self/task");
  if (!d) return out;
  const long me = this_tid();
  const std::set<long>& mine = space_tids();
  while (const dirent* e = ::readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    const long tid = std::stol(e->d_name);
    if (tid != me && (mine.count(tid) > 0) == space) out.push_back(tid);
  }
  ::closedir(d);
  return out;
}

}  // namespace

bool can_wait_until_asleep() {
  static const bool can = [] {
    DIR* d = ::opendir("/proc/self/task");
    if (!d) return false;
    ::closedir(d);
    return running(this_tid());  // the caller runs: the states read true
  }();
  return can;
}

void wait_until_asleep(bool space) {
  using clock = std::chrono::steady_clock;
  // Longer than any runtime's spin (libgomp's default GOMP_SPINCOUNT spins some milliseconds):
  // past it the call runs anyway (a thread that never sleeps, such as a busy one of another process).
  const auto limit = clock::now() + std::chrono::milliseconds(200);
  for (;;) {
    bool any = false;
    for (const long tid : threads_of(space))
      if (running(tid)) {
        any = true;
        break;
      }
    if (!any || clock::now() > limit) return;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

void wake_space() { on_each_space_thread("kps::bench::wake_space", [] {}); }

}  // namespace kps::bench::host
