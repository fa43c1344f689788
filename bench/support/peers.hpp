// bench/support/peers.hpp — the peers of kps' scans and sums: other implementations of the same
// operation that a study times beside kps', each a name and a call. Each backend folder provides
// its own (bench/cuda/peers.cpp: CUB, and a newer CCCL's; bench/host/: a one-thread loop, OpenMP,
// oneTBB), registered when the program starts; a study fixture asks for "the peers of this
// space" (scan_peers<T>(), sum_peers<T>()) and writes ratio_to_<name> for each, without naming a
// backend. A peer the build could not find is simply absent (peer_notes() says why, once, in the
// JSON context).
//
// Where a peer is timed: in the rounds of kps' own call (Placement::rounds), interleaved with it,
// so that every ratio is measured side by side; a backend folder places a peer of another
// threading runtime there only where neither runtime's idle threads spin on the cores the other
// needs while a call runs (bench/host/peers.hpp: host_placement; on the 16-core node oneTBB beside
// 16 spinning OpenMP threads ran at a fifth of its speed): each call first waits, untimed, for the
// other runtime's idle threads to sleep (ScanPeer::before, Peers::before_own). Elsewhere it is
// left out, saying why. Or alone (Placement::alone): in rounds of its own call, for a peer that
// cannot share the rounds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "support/execution_space.hpp"

namespace kps::bench {

using Exec = ExecutionSpace;

enum class Placement {
  rounds,  ///< timed in the rounds of kps' call: same runtime, or none
  alone,   ///< another runtime's: timed alone, in a process of its own
};

/// An exclusive scan: out[i] = in[0] + ... + in[i-1], asynchronous on exec like kps' scans
/// (a host peer returns when done).
template <class T>
struct ScanPeer {
  std::string name;  ///< the benchmark's variant (scan/<name>/<type>/<N>) and the counter ratio_to_<name>
  std::function<void(const Exec&, const T* in, T* out, std::size_t n)> exclusive;
  Placement placement = Placement::rounds;
  bool waits = false;  ///< returns only once its work is done (timed to its return: timed_rounds)
  /// Untimed, before each of its timed calls (after the cache flush): a peer of another threading
  /// runtime waits there for the benchmarks' space's idle threads to sleep (Peers::before_own).
  std::function<void()> before{};
};

/// A sum: the value returned to the host (`sum`: waits for it), and where the peer has one, the
/// value written to device memory without waiting (`sum_into`: reduce_async/<name>/...).
template <class T>
struct SumPeer {
  std::string name;
  std::function<T(const Exec&, const T* x, std::size_t n)> sum;
  std::function<void(const Exec&, const T* x, std::size_t n, T* result)> sum_into;
  Placement placement = Placement::rounds;
  /// Also timed in the rounds of the tuning sweep's points (reduce_sweep), where the sweep's
  /// points are compared with it: CUB's are; a host's one-thread loop, which takes 25 times a
  /// point's time at 2^24, is not.
  bool in_sweeps = false;
  std::function<void()> before{};  ///< as ScanPeer::before
};

/// A peer of one problem of the operators-and-types families (bench/support/problems.hpp:
/// a scan or a reduction under an operator of a value type), as its backend folder's provider
/// registers it for each problem of the lists it can build, its values behind void pointers: a
/// scan writes out = the exclusive scan of in after *init; a reduction *out = the reduction of in
/// after *init (argmin, argmax: *out a ValueIndex<T> of 64-bit index, no init).
struct OpPeer {
  std::string name;
  std::function<void(const Exec&, const void* in, void* out, std::size_t n, const void* init)> call;
  Placement placement = Placement::rounds;
  bool waits = true;  ///< returns once done (host peers; CUB's asynchronous calls say false)
  std::function<void()> before{};  ///< as ScanPeer::before
};

/// Every peer of the build, by element type, in the providers' order.
class Peers {
 public:
  /// The peers of problem `key` (problems.hpp: scan_key, reduce_key, arg_key).
  void add_op(const std::string& key, OpPeer p) { ops_[key].push_back(std::move(p)); }
  const std::vector<OpPeer>& op_peers(const std::string& key) const {
    static const std::vector<OpPeer> none;
    const auto it = ops_.find(key);
    return it == ops_.end() ? none : it->second;
  }
  /// The op peers' names and how many problems each has (the JSON context's kps_op_peers).
  std::map<std::string, int> op_peer_counts() const {
    std::map<std::string, int> counts;
    for (const auto& [key, list] : ops_)
      for (const auto& p : list) ++counts[p.name];
    return counts;
  }
  template <class T>
  void add(ScanPeer<T> p) {
    std::get<std::vector<ScanPeer<T>>>(scans_).push_back(std::move(p));
  }
  template <class T>
  void add(SumPeer<T> p) {
    std::get<std::vector<SumPeer<T>>>(sums_).push_back(std::move(p));
  }
  /// A line for the JSON context: a peer left out and why ("tbb: oneTBB not found at configure time").
  void note(const std::string& line) { notes_.push_back(line); }
  template <class T>
  const std::vector<ScanPeer<T>>& scans() const {
    return std::get<std::vector<ScanPeer<T>>>(scans_);
  }
  template <class T>
  const std::vector<SumPeer<T>>& sums() const {
    return std::get<std::vector<SumPeer<T>>>(sums_);
  }
  const std::vector<std::string>& notes() const { return notes_; }
  /// Untimed, before each timed call of the rounds that has no `before` of its own (kps' calls,
  /// the bounds, the peers of the space's own runtime): where a peer of another runtime shares
  /// the rounds, its provider sets this to wait for that runtime's idle workers to sleep, so
  /// that they spin on no core the call needs (and the peer's own `before` does the same for the
  /// space's threads). Empty: nothing to wait for.
  void set_before_own(std::function<void()> f) { before_own_ = std::move(f); }
  const std::function<void()>& before_own() const { return before_own_; }
  /// An empty call of the runtime a peer of the rounds runs on (`openmp_floor`: an empty OpenMP
  /// parallel region), timed in the sums' rounds beside launch_floor (Kokkos' empty launch): the
  /// floor of that peer's calls as launch_floor is kps'. At sizes where a call lasts a few
  /// microseconds the two floors differ by more than the work does.
  void add_floor(std::string name, std::function<void()> call) { floors_.push_back({std::move(name), std::move(call)}); }
  const std::vector<std::pair<std::string, std::function<void()>>>& floors() const { return floors_; }

 private:
  template <template <class> class P>
  using ByType = std::tuple<std::vector<P<std::int32_t>>, std::vector<P<std::int64_t>>, std::vector<P<float>>,
                            std::vector<P<double>>>;
  ByType<ScanPeer> scans_;
  ByType<SumPeer> sums_;
  std::vector<std::string> notes_;
  std::map<std::string, std::vector<OpPeer>> ops_;
  std::function<void()> before_own_;
  std::vector<std::pair<std::string, std::function<void()>>> floors_;
};

/// A backend folder's provider: adds the peers it has for Exec (none where they cannot run on it).
using PeerProvider = void (*)(Peers&);
/// Registers a provider at static-initialisation time; providers run in `rank` order (ties: in
/// the order they registered). Returns rank.
int add_peer_provider(int rank, PeerProvider provider);
/// Every provider's peers, collected once.
const Peers& peers();

template <class T>
const std::vector<ScanPeer<T>>& scan_peers() {
  return peers().scans<T>();
}
template <class T>
const std::vector<SumPeer<T>>& sum_peers() {
  return peers().sums<T>();
}

/// The peers' names of every type and how each is timed, and the providers' notes: the JSON
/// context's kps_peers and kps_peers_missing.
std::string peers_summary();
std::string peer_notes();
/// The operators-and-types families' peers: each peer's name and how many problems it has.
std::string op_peers_summary();

/// Exec's threading runtime: its Kokkos name in lower case ("openmp", "threads", "cuda"), "none" for Serial.
std::string exec_runtime();

}  // namespace kps::bench
