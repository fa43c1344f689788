// bench/host/peers.cpp — the floor any parallel scan or sum on a CPU must beat: one thread, a
// plain loop (`serial_loop`; float totals in double, host/peers.hpp), on the calling thread, in
// the rounds of every host backend. Also the
// notes of the host peers the build left out (KPS_HOST_PEER_NOTES, from bench/CMakeLists.txt).
#include "host/peers.hpp"

#include <cstddef>
#include <cstdint>

namespace kps::bench::host {
namespace {

template <class T>
void add_peers(Peers& all) {
  all.add(ScanPeer<T>{"serial_loop",
                      [](const Exec&, const T* in, T* out, std::size_t n) {
                        Accumulator<T> acc = 0;
                        for (std::size_t i = 0; i < n; ++i) {
                          const T x = in[i];
                          out[i] = T(acc);
                          acc += x;
                        }
                      },
                      Placement::rounds, true});
  all.add(SumPeer<T>{"serial_loop",
                     [](const Exec&, const T* x, std::size_t n) {
                       Accumulator<T> s = 0;
                       for (std::size_t i = 0; i < n; ++i) s += x[i];
                       return T(s);
                     },
                     {},
                     Placement::rounds});
}

[[maybe_unused]] const int registered = add_peer_provider(serial_loop_rank, [](Peers& all) {
  if constexpr (kps::impl::is_host_space_v<Exec>) {
    add_peers<std::int32_t>(all);
    add_peers<std::int64_t>(all);
    add_peers<float>(all);
    add_peers<double>(all);
    for (const char* note : {KPS_HOST_PEER_NOTES})
      if (*note) all.note(note);
  }
});

}  // namespace
}  // namespace kps::bench::host
