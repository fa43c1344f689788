// kps/host/backend.hpp — the host backends' forms of kps' backend traits (kps/impl/backend.hpp),
// for every execution space that runs on the host (Serial, OpenMP, Threads), included by that
// header. Their bodies are host code; the device pass of a GPU build sees the generic forms' bodies.
//   BackendWait: pause(round) spins for spin_rounds polls (x86: the PAUSE hint, which lets a
//     hyperthread sibling run and saves the pipeline flush of a spin loop's exit), then yields the
//     core to the scheduler, so that a predecessor descheduled from a shared or oversubscribed core
//     gets it back instead of waiting out a time slice.
//   BackendStore: on x86-64 (SSE2, every x86-64 CPU), an element as a streaming store (MOVNTI; a
//     value of more than 8 bytes as several, eight 1-byte or four 2-byte values at once as one),
//     which the write-combining buffers gather into whole lines, written without reading them
//     first; drain() is SFENCE, which orders them before the thread's later stores.
//   BackendRangeScan: on x86-64, a float range scanned four elements to an SSE2 register (two
//     shifted adds give a register's own prefix), eight per step, the range's running total kept
//     as a register of four copies: one dependent add per eight elements, eleven adds and eight
//     shuffles per eight where the one-element loop spends three adds on each, the output
//     written a register at a time (MOVNTPS when streaming, the store itself: no move of each
//     element to an integer register for MOVNTI). float only: kps' float scan on the 2-core
//     development machine ran 1.43-1.80 x faster on one thread and 1.13-1.30 x on two with it, at
//     2^16..2^24 elements, all inside that machine's L3
//     (results/intel-xeon-2t-openmp/experiments/scan-float-range-vector), where a stand-alone copy
//     of the loop (not kept) with two-double and four-int32 registers was no faster than the
//     one-element loop: the integer adds are not the limit, and two doubles a register are too
//     few for the shuffles. And the integers' minimum and maximum (scan_minmax): 16 bytes a
//     register, its own prefix in log2(lanes) shifted compares (PALIGNR and PMINSD, PMAXUB, ...
//     of SSE4.1; 1-, 2- and 4-byte lanes), the running value a register of copies:
//     one dependent operation per 16 bytes, where the one-element loop spends a compare and a move
//     on each of two operations per element. Compiled for SSE4.2 beside the build's baseline
//     and run where the CPU has it (every x86-64 CPU since 2008-2011).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <thread>
#include <type_traits>

#if defined(__SSE2__) && !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
#include <emmintrin.h>
#define KPS_IMPL_HOST_SSE2 1
#endif

#include "kps/impl/kokkos_compat.hpp"
#include "kps/operators.hpp"

#if defined(KPS_IMPL_HOST_SSE2) && defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__) && \
    !defined(__HIP__)
#include <immintrin.h>
#define KPS_IMPL_HOST_MINMAX_SCAN 1
#endif

namespace kps::impl {

/// Polls a host thread spins before it yields: about a microsecond, longer than a running
/// predecessor takes to publish once its tile is read, far shorter than a scheduler's time slice.
inline constexpr unsigned spin_rounds = 64;

template <class Exec>
struct BackendWait<Exec, std::enable_if_t<is_host_space_v<Exec>>> {
  KOKKOS_INLINE_FUNCTION static void sleep(unsigned /*ns*/) {}
  KOKKOS_INLINE_FUNCTION static void pause(unsigned round) {
    if (round < spin_rounds) {
#if defined(KPS_IMPL_HOST_SSE2)
      _mm_pause();
#endif
    } else {
      KPS_IMPL_IF_ON_HOST(std::this_thread::yield();)
    }
  }
};

template <class Exec>
struct BackendStore<Exec, std::enable_if_t<is_host_space_v<Exec>>> {
#if defined(KPS_IMPL_HOST_SSE2) && defined(__x86_64__)
  static constexpr bool streaming = true;
  /// A value of 4 or 8 bytes as one MOVNTI, a larger one whose size is a multiple of 4 (8) bytes as
  /// one per 4 (8) bytes, where it is aligned to that; any other as an ordinary store.
  template <class T>
  KOKKOS_INLINE_FUNCTION static void element(T* dst, T v) {
    if constexpr (sizeof(T) == 4) {
      int bits;
      std::memcpy(&bits, &v, 4);
      _mm_stream_si32(reinterpret_cast<int*>(dst), bits);
    } else if constexpr (sizeof(T) == 8) {
      long long bits;
      std::memcpy(&bits, &v, 8);
      _mm_stream_si64(reinterpret_cast<long long*>(dst), bits);
    } else if constexpr (sizeof(T) % 8 == 0 && alignof(T) >= 8) {
      long long bits[sizeof(T) / 8];
      std::memcpy(bits, &v, sizeof(T));
      for (std::size_t k = 0; k < sizeof(T) / 8; ++k) _mm_stream_si64(reinterpret_cast<long long*>(dst) + k, bits[k]);
    } else if constexpr (sizeof(T) % 4 == 0 && alignof(T) >= 4) {
      int bits[sizeof(T) / 4];
      std::memcpy(bits, &v, sizeof(T));
      for (std::size_t k = 0; k < sizeof(T) / 4; ++k) _mm_stream_si32(reinterpret_cast<int*>(dst) + k, bits[k]);
    } else {
      *dst = v;
    }
  }
  /// B values of 1 or 2 bytes (8 or 16 bytes together): MOVNTI of 8 bytes each where dst is aligned.
  template <class T, std::size_t B>
  static constexpr bool blocks = sizeof(T) < 4 && (B * sizeof(T)) % 8 == 0;
  template <std::size_t B, class T, class F>
  KOKKOS_INLINE_FUNCTION static void block(T* dst, const T (&v)[B], const F& f) {
    T w[B];
    for (std::size_t k = 0; k < B; ++k) w[k] = f(v[k]);
    if (reinterpret_cast<std::uintptr_t>(dst) % 8 == 0) {
      long long bits[B * sizeof(T) / 8];
      std::memcpy(bits, w, sizeof w);
      for (std::size_t k = 0; k < B * sizeof(T) / 8; ++k) _mm_stream_si64(reinterpret_cast<long long*>(dst) + k, bits[k]);
    } else {
      for (std::size_t k = 0; k < B; ++k) dst[k] = w[k];
    }
  }
  KOKKOS_INLINE_FUNCTION static void drain() { _mm_sfence(); }
#else
  static constexpr bool streaming = false;
  template <class T>
  KOKKOS_INLINE_FUNCTION static void element(T* dst, T v) {
    *dst = v;
  }
  template <class T, std::size_t B>
  static constexpr bool blocks = false;
  template <std::size_t B, class T, class F>
  KOKKOS_INLINE_FUNCTION static void block(T* dst, const T (&v)[B], const F& f) {
    for (std::size_t k = 0; k < B; ++k) dst[k] = f(v[k]);
  }
  KOKKOS_INLINE_FUNCTION static void drain() {}
#endif
};

#if defined(KPS_IMPL_HOST_SSE2) && defined(__x86_64__)
// Elsewhere (no SSE2 host pass, another architecture) the generic BackendRangeScan serves: no
// vector form.
template <class Exec>
struct BackendRangeScan<Exec, std::enable_if_t<is_host_space_v<Exec>>> {
  template <class T>
  static constexpr bool vector = std::is_same_v<T, float>;

  /// out[0, count) = the scan of in[0, count) after `offset`; returns offset plus their sum (the
  /// contract of cached_scan). The running total and each register's own prefix are added first
  /// and `offset` last, as cached_scan does, so small elements are not lost against a large
  /// prefix. `in` may equal `out`: a step reads its eight elements before it writes them.
  template <bool Exclusive, bool Streaming, class T>
  KOKKOS_INLINE_FUNCTION static T scan(const T* in, T* out, std::size_t count, T offset) {
    static_assert(std::is_same_v<T, float>, "BackendRangeScan: float only");
    float total = 0.0f;  // the running total, kept apart from offset
    std::size_t i = 0;
    // Streaming stores need 16-byte aligned addresses: up to three elements one at a time first.
    const std::size_t head = Streaming ? ((16 - (reinterpret_cast<std::uintptr_t>(out) & 15)) & 15) / sizeof(float) : 0;
    one_by_one<Exclusive, Streaming>(in, out, i, head < count ? head : count, offset, total);
    const __m128 off = _mm_set1_ps(offset);
    __m128 acc = _mm_set1_ps(total);  // in every lane
    for (; i + 8 <= count; i += 8) {
      const __m128 a = _mm_loadu_ps(in + i), b = _mm_loadu_ps(in + i + 4);
      const __m128 sa = inclusive(a), sb = inclusive(b);
      const __m128 ta = last(sa), tb = last(sb);
      const __m128 la = Exclusive ? shift1(sa) : sa;
      const __m128 lb = Exclusive ? shift1(sb) : sb;
      // The eight elements' own prefix, then the running total, then the offset (cached_scan's order).
      put<Streaming>(out + i, _mm_add_ps(_mm_add_ps(acc, la), off));
      put<Streaming>(out + i + 4, _mm_add_ps(_mm_add_ps(acc, _mm_add_ps(ta, lb)), off));
      acc = _mm_add_ps(acc, _mm_add_ps(ta, tb));
    }
    total = _mm_cvtss_f32(acc);
    one_by_one<Exclusive, Streaming>(in, out, i, count, offset, total);
    if constexpr (Streaming) _mm_sfence();
    return offset + total;
  }

 private:
  /// Elements [i, end) one at a time (a misaligned head, the tail); i ends at end.
  template <bool Exclusive, bool Streaming>
  KOKKOS_INLINE_FUNCTION static void one_by_one(const float* in, float* out, std::size_t& i, std::size_t end,
                                                float offset, float& total) {
    for (; i < end; ++i) {
      const float x = in[i];
      const float v = offset + (Exclusive ? total : float(total + x));
      if constexpr (Streaming)
        BackendStore<Exec>::element(out + i, v);
      else
        out[i] = v;
      total += x;
    }
  }
  /// x moved up one lane, zero in lane 0.
  KOKKOS_INLINE_FUNCTION static __m128 shift1(__m128 x) {
    return _mm_castsi128_ps(_mm_slli_si128(_mm_castps_si128(x), 4));
  }
  KOKKOS_INLINE_FUNCTION static __m128 shift2(__m128 x) {
    return _mm_castsi128_ps(_mm_slli_si128(_mm_castps_si128(x), 8));
  }
  /// The register's own inclusive prefix: two shifted adds.
  KOKKOS_INLINE_FUNCTION static __m128 inclusive(__m128 x) {
    x = _mm_add_ps(x, shift1(x));
    return _mm_add_ps(x, shift2(x));
  }
  /// Lane 3 in every lane.
  KOKKOS_INLINE_FUNCTION static __m128 last(__m128 x) {
    return _mm_shuffle_ps(x, x, _MM_SHUFFLE(3, 3, 3, 3));
  }
  template <bool Streaming>
  KOKKOS_INLINE_FUNCTION static void put(float* p, __m128 v) {
    if constexpr (Streaming)
      _mm_stream_ps(p, v);
    else
      _mm_storeu_ps(p, v);
  }

 public:
#if defined(KPS_IMPL_HOST_MINMAX_SCAN)
  /// Whether scan_minmax serves T and op: kps::minimum and kps::maximum of 1-, 2- and 4-byte
  /// integers; minmax_usable(): whether this CPU runs it (SSE4.2). Not 8-byte ones: two lanes a
  /// register, and the running value's compare (PCMPGTQ, 3 cycles) and blend a chain of 4 cycles
  /// per 16 bytes (the one-element blocks: one dependent operation per 8 elements); on the 2-core
  /// development machine int64 ran at 0.54-0.74 of its sum with it (2^18 and 2^24, two threads).
  template <class T, class Op>
  static constexpr bool minmax = std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                                 (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4) &&
                                 (std::is_same_v<Op, minimum> || std::is_same_v<Op, maximum>);
  static bool minmax_usable() {
    static const bool has = __builtin_cpu_supports("sse4.2");
    return has;
  }

  /// out[0, count) = the scan of in[0, count) under op after `offset`; returns op(offset, their
  /// reduction) (cached_scan's contract: an exact operator, so `offset` joins the running value at
  /// once). `in` may equal `out`: each register is read before it is written.
  template <bool Exclusive, bool Streaming, class T, class Op>
  __attribute__((target("sse4.2"), noinline)) static T scan_minmax(const T* in, T* out, std::size_t count, T offset,
                                                                    const Op& op) {
    typedef T Lanes __attribute__((vector_size(16)));
    constexpr std::size_t L = 16 / sizeof(T);
    T run = offset;
    std::size_t i = 0;
    const std::size_t head = Streaming ? ((16 - (reinterpret_cast<std::uintptr_t>(out) & 15)) & 15) / sizeof(T) : 0;
    for (const std::size_t end = head < count ? head : count; i < end; ++i) run = one<Exclusive, Streaming>(in, out, i, run, op);
    const Lanes id = Lanes{} + operator_traits<Op, T>::identity(op);
    Lanes acc = Lanes{} + run;
    for (; i + L <= count; i += L) {
      Lanes x;
      std::memcpy(&x, in + i, 16);
      Lanes inc = lanes_op<Op>(x, shift_in<sizeof(T)>(x, id));
      if constexpr (L > 2) inc = lanes_op<Op>(inc, shift_in<2 * sizeof(T)>(inc, id));
      if constexpr (L > 4) inc = lanes_op<Op>(inc, shift_in<4 * sizeof(T)>(inc, id));
      if constexpr (L > 8) inc = lanes_op<Op>(inc, shift_in<8 * sizeof(T)>(inc, id));
      const Lanes o = lanes_op<Op>(acc, Exclusive ? shift_in<sizeof(T)>(inc, id) : inc);
      if constexpr (Streaming)
        _mm_stream_si128(reinterpret_cast<__m128i*>(out + i), (__m128i)o);
      else
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), (__m128i)o);
      acc = lanes_op<Op>(acc, last_lane<T>(inc));
    }
    run = acc[0];
    for (; i < count; ++i) run = one<Exclusive, Streaming>(in, out, i, run, op);
    if constexpr (Streaming) _mm_sfence();
    return run;
  }

 private:
  /// One element: out[i] from the running value, which it returns joined with in[i].
  template <bool Exclusive, bool Streaming, class T, class Op>
  KOKKOS_INLINE_FUNCTION static T one(const T* in, T* out, std::size_t i, T run, const Op& op) {
    const T next = op(run, in[i]);
    if constexpr (Streaming)
      BackendStore<Exec>::element(out + i, Exclusive ? run : next);
    else
      out[i] = Exclusive ? run : next;
    return next;
  }
  /// op on two registers of lanes (the operators' own comparison and choice).
  template <class Op, class Lanes>
  __attribute__((target("sse4.2"), always_inline)) static inline Lanes lanes_op(Lanes a, Lanes b) {
    if constexpr (std::is_same_v<Op, minimum>)
      return b < a ? b : a;
    else
      return a < b ? b : a;
  }
  /// x moved up Bytes bytes (whole lanes), the identity's lanes shifted in below.
  template <int Bytes, class Lanes>
  __attribute__((target("sse4.2"), always_inline)) static inline Lanes shift_in(Lanes x, Lanes id) {
    return (Lanes)_mm_alignr_epi8((__m128i)x, (__m128i)id, 16 - Bytes);
  }
  /// The register's last lane in every lane.
  template <class T, class Lanes>
  __attribute__((target("sse4.2"), always_inline)) static inline Lanes last_lane(Lanes x) {
    if constexpr (sizeof(T) == 4)
      return (Lanes)_mm_shuffle_epi32((__m128i)x, 0xFF);
    else if constexpr (sizeof(T) == 2)
      return (Lanes)_mm_shuffle_epi8((__m128i)x, _mm_set1_epi16(0x0F0E));
    else
      return (Lanes)_mm_shuffle_epi8((__m128i)x, _mm_set1_epi8(15));
  }
#else
  template <class T, class Op>
  static constexpr bool minmax = false;
#endif
};
#endif

}  // namespace kps::impl
