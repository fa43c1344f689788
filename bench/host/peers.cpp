// bench/host/peers.cpp — the floor any parallel scan or sum on a CPU must beat: one thread, a
// plain loop (`serial_loop`; float totals in double, host/peers.hpp), on the calling thread, in
// the rounds of every host backend; where host peers are placed (host_placement); and the notes of
// the host peers the build left out (KPS_HOST_PEER_NOTES, from bench/CMakeLists.txt).
#include "host/peers.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace kps::bench::host {
namespace {

template <class T>
struct SerialLoopCalls {
  static constexpr const char* name = "serial_loop";
  static void scan(const T* in, T* out, std::size_t n) {
    Accumulator<T> acc = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const T x = in[i];
      out[i] = T(acc);
      acc += x;
    }
  }
  static T sum(const T* x, std::size_t n) {
    Accumulator<T> s = 0;
    for (std::size_t i = 0; i < n; ++i) s += x[i];
    return T(s);
  }
};

/// The one-thread loop of the operators-and-types problems: the operator element by element.
struct SerialLoopOps {
  template <class Op, class T>
  static void scan(const T* in, T* out, std::size_t n, T init) {
    const Op op{};
    T acc = init;
    for (std::size_t i = 0; i < n; ++i) {
      const T x = in[i];
      out[i] = acc;
      acc = op(acc, x);
    }
  }
  template <class Op, class T>
  static T reduce(const T* x, std::size_t n, T init) {
    const Op op{};
    T acc = init;
    for (std::size_t i = 0; i < n; ++i) acc = op(acc, x[i]);
    return acc;
  }
  template <bool Max, class T>
  static ValueIndex<T> arg(const T* x, std::size_t n) {
    if (n == 0) return {T{}, -1};
    ValueIndex<T> best{x[0], 0};
    for (std::size_t i = 1; i < n; ++i)
      if (Max ? best.value < x[i] : x[i] < best.value) best = {x[i], std::int64_t(i)};
    return best;
  }
};

}  // namespace

bool openmp_threads_sleep() {
  const char* wait = std::getenv("OMP_WAIT_POLICY");
  return wait && (std::string(wait) == "passive" || std::string(wait) == "PASSIVE");
}

std::optional<Placement> host_placement(const std::string& runtime, std::string& why) {
  const std::string mine = exec_runtime();
  if (runtime == "none" || runtime == mine) return Placement::rounds;
  if (mine == "none") {
    why = runtime + ": no comparison on Serial (its targets are the one-thread loop's)";
  } else if (mine == "openmp" && (openmp_threads_sleep() || can_wait_until_asleep())) {
    return Placement::rounds;
  } else if (mine == "openmp") {
    why = runtime + ": left out: OpenMP's idle threads would spin beside it (this system does not say which "
                    "threads run, to wait for them; OMP_WAIT_POLICY=passive lets them sleep)";
  } else {
    why = runtime + ": left out on " + mine + " (its idle threads never sleep; the OpenMP build's runs have it)";
  }
  return std::nullopt;
}

namespace {

[[maybe_unused]] const int registered = add_peer_provider(serial_loop_rank, [](Peers& all) {
  add_host_peer<SerialLoopCalls>(all, "serial_loop", "none");
  add_host_op_peers<SerialLoopOps>(all, "serial_loop", "none");
  if constexpr (kps::impl::is_host_space_v<Exec>)
    for (const char* note : {KPS_HOST_PEER_NOTES})
      if (*note) all.note(note);
});

}  // namespace
}  // namespace kps::bench::host
