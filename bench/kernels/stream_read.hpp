// bench/kernels/stream_read.hpp — a pure streaming read of a View: the read bandwidth a sum of the
// same bytes is measured against (the copy's read + write rate is not the limit of a read). Every
// thread adds its share of 16-byte vectors (the reduction's own loop and share, kps/reduce/kernel.hpp
// and its host form) into a register and writes nothing, but a flag that no input of finite
// values can set (so that no compiler drops the loads): no combine across threads, teams or
// launches. One wave of 256-thread teams, as CUB sizes a grid.
#pragma once

#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "kps/reduce/kernel.hpp"

namespace kps::bench {

template <class Exec, class T, int V>
struct StreamRead {
  using member_type = typename Kokkos::TeamPolicy<Exec>::member_type;
  impl::SumLoad<T> load;
  std::size_t n;
  std::size_t head;
  int* flag;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    T acc = T(0);
    // The reduction's own share of the backend (a grid stride on GPUs, a contiguous range per
    // thread on host backends: a stride of the league's threads there reads a line per team and
    // left the read at a quarter of the sum's speed on the 16-core node).
    impl::ReduceShare<Exec>::template add<V, std::size_t>(load, n, head, team.team_size(), team.league_size(),
                                                          team.league_rank(), team.team_rank(), acc);
    // Never true for finite inputs: a NaN (floating point), a sum below 0 of non-negative
    // integers; written, so the loads stay.
    if constexpr (std::is_floating_point_v<T>) {
      if (acc != acc) *flag = 1;
    } else {
      if (acc < T(0) && acc == T(-1)) *flag = 1;
    }
  }
};

/// Reads x[0, n) once on exec (asynchronous). `flag` is device memory of one int.
template <class Exec, class T>
void stream_read(const Exec& exec, const T* x, std::size_t n, int* flag) {
  const impl::SumLoad<T> load{x};
  const std::size_t head = impl::head_elements(x, n);
  constexpr int V = 16 / sizeof(T) > 4 ? 4 : int(16 / sizeof(T));
  const bool aligned = load.advanced(head).aligned(V * sizeof(T));
  const int team = impl::is_host_space_v<Exec> ? 1 : 256;
  const long long wave = exec.concurrency() / team;
  const long long needed = (static_cast<long long>(n) + team * 16 - 1) / (team * 16);
  const int league = static_cast<int>(needed < 1 ? 1 : (needed < wave ? needed : (wave < 1 ? 1 : wave)));
  const Kokkos::TeamPolicy<Exec> policy(exec, league, team);
  if (aligned)
    Kokkos::parallel_for("kps::bench::stream_read", policy, StreamRead<Exec, T, V>{load, n, head, flag});
  else
    Kokkos::parallel_for("kps::bench::stream_read", policy, StreamRead<Exec, T, 1>{load, n, head, flag});
}

}  // namespace kps::bench
