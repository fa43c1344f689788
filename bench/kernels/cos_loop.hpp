// bench/kernels/cos_loop.hpp — the compute-bound kernel of the latency-hiding study (seed 001): every
// thread of a TeamPolicy(league, team_size) runs `iterations` steps of
//     f = cos(2 f);  c += int(f + 1)
// on `chains` independent (f, c) pairs at once (instruction-level parallelism: 1, 2 or 4
// chains). A step's cos depends on the previous one, so one chain is a dependent chain whose
// latency, not the issue rate, sets the time until enough warps (or chains) share a
// scheduler. Every thread stores its sum of c, so no thread's loop can be dropped, and the
// sums are checked: all equal and equal to one thread run alone (kps::bench::cos_chain_reference).
//
// CosMath::accurate is the backend's single-precision cos (cosf on CUDA: range reduction and
// a polynomial); CosMath::fast is the backend's hardware approximation where it has one
// (__cosf on CUDA, one special-function instruction) and does not exist elsewhere
// (kps::bench::has_fast_cos<Exec>).
#pragma once

#include <stdexcept>
#include <string>

#include <Kokkos_Core.hpp>

#include "kps/impl/backend.hpp"
#include "kps_models/latency_model.hpp"

namespace kps::bench {

using models::Saturation;  // the latency model's (kps_models/latency_model.hpp)

/// Which cos the loop calls.
enum class CosMath {
  accurate,  ///< the backend's cosf (full single precision, many instructions)
  fast,      ///< the backend's hardware approximation (CUDA __cosf); only where it exists
};

inline const char* to_string(CosMath m) { return m == CosMath::fast ? "fast_cosf" : "cosf"; }

/// How the loop saturates on a GPU (kps_models/latency_model.hpp): cosf is bound by the issue port
/// (38 instructions per iteration on sm_90, ~25 short dependent steps: a smooth knee);
/// __cosf by the special-function pipe (MUFU.COS + F2I, 8 cycles per warp each, behind one
/// long MUFU latency: a sharp knee). Read from the SASS (studies/latency/README.md).
inline Saturation expected_saturation(CosMath m) { return m == CosMath::fast ? Saturation::bound : Saturation::queueing; }

/// True when Exec has a fast hardware cos distinct from the accurate one.
template <class Exec>
inline constexpr bool has_fast_cos = impl::BackendMath<Exec>::has_fast_cos;

/// One launch of the cos loop.
struct CosLoopConfig {
  int league = 1;            ///< teams (blocks)
  int team_size = 32;        ///< threads per team
  long long iterations = 0;  ///< steps of every chain
  int chains = 1;            ///< independent chains per thread: 1, 2 or 4
  CosMath math = CosMath::accurate;
};

namespace kernels {

/// The chains' starting values: chain 0 starts at 0 as in the seed; the others elsewhere in
/// [0, 1) so that the chains are independent and the compiler cannot merge them.
KOKKOS_INLINE_FUNCTION float cos_chain_start(int chain) { return 0.25f * static_cast<float>(chain); }

template <class Exec, int Chains, CosMath Math>
struct CosLoop {
  Kokkos::View<int*, typename Exec::memory_space> out;  // one sum per thread
  long long iterations;

  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    float f[Chains];
    int c[Chains];
    for (int k = 0; k < Chains; ++k) {
      f[k] = cos_chain_start(k);
      c[k] = 0;
    }
    for (long long i = 0; i < iterations; ++i) {
      for (int k = 0; k < Chains; ++k) {
        f[k] = Math == CosMath::fast ? kps::impl::BackendMath<Exec>::fast_cos(f[k] * 2.0f) : kps::impl::BackendMath<Exec>::cos(f[k] * 2.0f);
        c[k] += static_cast<int>(f[k] + 1.0f);
      }
    }
    int sum = 0;
    for (int k = 0; k < Chains; ++k) sum += c[k];
    out(static_cast<std::size_t>(team.league_rank()) * team.team_size() + team.team_rank()) = sum;
  }
};

template <class Exec, int Chains, CosMath Math>
void cos_loop_launch(const Exec& exec, const CosLoopConfig& cfg, const Kokkos::View<int*, typename Exec::memory_space>& out) {
  Kokkos::parallel_for("kps::cos_loop", Kokkos::TeamPolicy<Exec>(exec, cfg.league, cfg.team_size),
                       CosLoop<Exec, Chains, Math>{out, cfg.iterations});
}

template <class Exec, int Chains>
void cos_loop_math(const Exec& exec, const CosLoopConfig& cfg, const Kokkos::View<int*, typename Exec::memory_space>& out) {
  if (cfg.math == CosMath::fast) {
    if constexpr (has_fast_cos<Exec>) {
      cos_loop_launch<Exec, Chains, CosMath::fast>(exec, cfg, out);
      return;
    }
    throw std::invalid_argument(std::string("kps::cos_loop: the ") + Exec::name() + " backend has no fast cos");
  }
  cos_loop_launch<Exec, Chains, CosMath::accurate>(exec, cfg, out);
}

}  // namespace kernels

/// Threads a launch of cfg writes sums for (league x team_size).
inline std::size_t cos_loop_threads(const CosLoopConfig& cfg) {
  return static_cast<std::size_t>(cfg.league) * static_cast<std::size_t>(cfg.team_size);
}

/// Launches the cos loop on exec (asynchronous); out(t) receives thread t's sum of c over its
/// chains, t = league_rank x team_size + team_rank. Throws std::invalid_argument for a bad
/// configuration (league or team size < 1, team size past the backend's limit, iterations
/// < 0, chains not 1, 2 or 4, fast math where the backend has none, out too small).
template <class Exec>
void cos_loop(const Exec& exec, const CosLoopConfig& cfg, const Kokkos::View<int*, typename Exec::memory_space>& out) {
  if (cfg.league < 1 || cfg.team_size < 1 || cfg.iterations < 0)
    throw std::invalid_argument("kps::cos_loop: league and team size must be >= 1 and iterations >= 0");
  const int team_max = Kokkos::TeamPolicy<Exec>(exec, 1, 1).team_size_max(
      kernels::CosLoop<Exec, 1, CosMath::accurate>{out, 0}, Kokkos::ParallelForTag{});
  if (cfg.team_size > team_max)
    throw std::invalid_argument("kps::cos_loop: team size " + std::to_string(cfg.team_size) + " is over the " +
                                Exec::name() + " backend's limit of " + std::to_string(team_max));
  if (out.extent(0) < cos_loop_threads(cfg))
    throw std::invalid_argument("kps::cos_loop: out holds " + std::to_string(out.extent(0)) + " sums, the launch writes " +
                                std::to_string(cos_loop_threads(cfg)));
  switch (cfg.chains) {
    case 1: kernels::cos_loop_math<Exec, 1>(exec, cfg, out); break;
    case 2: kernels::cos_loop_math<Exec, 2>(exec, cfg, out); break;
    case 4: kernels::cos_loop_math<Exec, 4>(exec, cfg, out); break;
    default: throw std::invalid_argument("kps::cos_loop: chains must be 1, 2 or 4, not " + std::to_string(cfg.chains));
  }
}

/// What one thread of the loop computes, run on exec by a single thread (the reference the
/// kernels are checked against: the same math on the same device, so the same bits).
template <class Exec>
int cos_chain_reference(const Exec& exec, long long iterations, int chains, CosMath math) {
  Kokkos::View<int*, typename Exec::memory_space> out("kps::cos_chain_reference", 1);
  cos_loop(exec, CosLoopConfig{1, 1, iterations, chains, math}, out);
  exec.fence();
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out)(0);
}

}  // namespace kps::bench
