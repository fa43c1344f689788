// bench/kernels/stream_copy.hpp — a copy of a View with streaming stores where the backend has them
// (kps/impl/backend.hpp: BackendStore; x86 hosts): the copy bound of a scan that writes the same
// way. Kokkos' deep_copy (copy/kokkos) writes through the cache on a host, where each output line
// is read before it is written (a third of the traffic more), and a scan with streaming stores
// ran at 1.1-1.3 x its speed on the 16-core node: no bound. One team of one thread per unit of
// the backend's concurrency, each copying its contiguous range and draining its stores; on a GPU
// the same code is an ordinary copy.
#pragma once

#include <cstddef>

#include <Kokkos_Core.hpp>

#include "kps/impl/backend.hpp"

namespace kps::bench {

template <class Exec, class T>
struct StreamCopy {
  using member_type = typename Kokkos::TeamPolicy<Exec>::member_type;
  const T* in;
  T* out;
  std::size_t n;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const std::size_t parts = std::size_t(team.league_size()) * std::size_t(team.team_size());
    const std::size_t part = std::size_t(team.league_rank()) * std::size_t(team.team_size()) + std::size_t(team.team_rank());
    const std::size_t begin = n * part / parts, end = n * (part + 1) / parts;
    for (std::size_t i = begin; i < end; ++i) impl::BackendStore<Exec>::element(out + i, in[i]);
    impl::BackendStore<Exec>::drain();
  }
};

/// out[0, n) = in[0, n) on exec (asynchronous).
template <class Exec, class T>
void stream_copy(const Exec& exec, const T* in, T* out, std::size_t n) {
  const bool host = impl::is_host_space_v<Exec>;
  const int team = host ? 1 : 256;
  const long long threads = exec.concurrency();
  const long long needed = (static_cast<long long>(n) + team - 1) / team;
  const long long league = threads / team < needed ? (threads / team < 1 ? 1 : threads / team) : (needed < 1 ? 1 : needed);
  Kokkos::parallel_for("kps::bench::stream_copy", Kokkos::TeamPolicy<Exec>(exec, static_cast<int>(league), team),
                       StreamCopy<Exec, T>{in, out, n});
}

}  // namespace kps::bench
