// test/test_hard_inputs.cpp — inputs that only a GPU makes hard, each checked against a host
// reference, on all four element types:
//  - more than 2^31 elements (every index, tile id and offset past 32 bits): the scans and the sum;
//  - the single pass at the lowest occupancy, one team per SM (tiles far outnumber the resident
//    teams: every look-back depends on the order in which tiles are taken);
//  - 32 execution-space instances scanning at once (streams competing for SMs: forward progress).
// They run on kps' execution space where it is a GPU (a CUDA build on a GPU node) and are skipped,
// saying why, on host backends (the memory and the concurrency are the GPU's).
#include <cmath>
#include <string>
#include <vector>

#include "kps/reduce.hpp"
#include "kps/scan.hpp"
#include "kps/tuning/hardware.hpp"
#include "test_support.hpp"
#if defined(KOKKOS_ENABLE_CUDA)
#include "cuda/kokkos_launch.hpp"
#endif

namespace kps::test {
namespace hard_input_tests {

using Exec = ExecutionSpace;
using Space = Exec::memory_space;
constexpr bool on_gpu = !impl::is_host_space_v<Exec>;

/// Values 0..7 from (seed, index), made on the device (no host array of billions to fill).
template <class T>
Kokkos::View<T*, Space> device_values(std::size_t n, std::uint64_t seed) {
  Kokkos::View<T*, Space> v(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kps::test::in")), n);
  Kokkos::parallel_for(
      "kps::test::values", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, std::int64_t(n)),
      KOKKOS_LAMBDA(std::int64_t i) {
        std::uint64_t z = (seed + std::uint64_t(i)) * 0x9E3779B97F4A7C15ull;
        z ^= z >> 29;
        v(i) = T(z % 8);
      });
  Exec().fence();
  return v;
}

/// Compares a scan's output with `want` (the exclusive scan of its input, on the host;
/// support/checks.hpp: integers exactly, floating point within the rounding of the additions).
template <class T>
void expect_scan(const Kokkos::View<T*, Space>& out, const std::vector<T>& want) {
  const std::vector<T> got = to_host(out);
  std::size_t wrong = 0, first = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (!scan_element_matches(got[i], want[i], i) && wrong++ == 0) first = i;
  EXPECT_EQ(wrong, 0u) << "first wrong element: " << first << " of " << want.size();
}

template <class T>
void expect_exclusive_scan(const Kokkos::View<T*, Space>& in, const Kokkos::View<T*, Space>& out) {
  expect_scan(out, reference_scan(to_host(in), true));
}

template <class T>
class HardInputs : public ::testing::Test {};
using Types = ::testing::Types<std::int32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(HardInputs, Types);

TYPED_TEST(HardInputs, MoreThan2To31Elements) {
  using T = TypeParam;
  if constexpr (!on_gpu) {
    GTEST_SKIP() << "a GPU test: 2^31 elements on " << Exec::name() << " are the host's memory";
  } else {
    const std::size_t n = (std::size_t(1) << 31) + 4099;
    if (2.2 * n * sizeof(T) > double(hardware(Exec()).memory_bytes))
      GTEST_SKIP() << "the device's memory holds no input and output of " << n << " elements";
    auto in = device_values<T>(n, 31);
    Kokkos::View<T*, Space> out(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kps::test::out")), n);
    const std::vector<T> x = to_host(in);
    {
      const std::vector<T> want = reference_scan(x, true);
      for (ScanAlgorithm alg : {ScanAlgorithm::automatic, ScanAlgorithm::kokkos}) {  // automatic: the single pass
        SCOPED_TRACE(to_string(alg));
        Kokkos::deep_copy(out, T(-3));
        exclusive_scan(Exec(), in, out, alg);
        Exec().fence();
        expect_scan(out, want);
      }
    }
    // The sum: every element counted once past 32-bit indices.
    EXPECT_TRUE(sum_matches(reduce_sum(Exec(), in), reference_sum(x), n));
  }
}

TYPED_TEST(HardInputs, SinglePassAtOneTeamPerSM) {
  using T [[maybe_unused]] = TypeParam;
  if constexpr (!on_gpu) {
    GTEST_SKIP() << "a GPU test: one team per SM of " << Exec::name() << " is not a GPU's occupancy";
  } else {
#if defined(KOKKOS_ENABLE_CUDA)
    // Teams of 1024 threads of 8 items: the kernel's registers leave one team per SM (checked with
    // the runtime's occupancy calculator before the scans run). 4-byte types stage their tiles
    // (32 KiB of team scratch); 8-byte ones load directly, as a staged tile of 64 KiB exceeds
    // Kokkos' team scratch.
    constexpr bool staged = sizeof(T) == 4;
    ScanOptions o;
    o.single_pass = {1024, 8, staged ? TileLoad::staged : TileLoad::direct};
    ASSERT_TRUE((impl::single_pass_launchable<Exec, T>(Exec(), o.single_pass)));
    using Kernel = impl::SinglePassKernel<Kokkos::Cuda, T, 8, true, staged>;
    const std::size_t scratch = Kernel::scratch_bytes(1024, 32) + sizeof(double) * (32 + 2);
    const int per_sm =
        bench::cuda::launch_max_active_blocks<bench::cuda::TeamForLaunch<Kernel, Kokkos::TeamPolicy<Kokkos::Cuda>>>(1024, scratch);
    if (per_sm != -1) EXPECT_EQ(per_sm, 1) << "teams of this policy resident per SM";
    for (std::size_t n : {std::size_t(1) << 24, (std::size_t(1) << 26) + 77}) {
      SCOPED_TRACE("n=" + std::to_string(n));
      auto in = device_values<T>(n, 7);
      Kokkos::View<T*, Space> out("kps::test::out", n);
      exclusive_scan(Exec(), in, out, ScanAlgorithm::single_pass, o);
      Exec().fence();
      expect_exclusive_scan(in, out);
    }
#endif
  }
}

TYPED_TEST(HardInputs, ThirtyTwoInstancesAtOnce) {
  using T = TypeParam;
  if constexpr (!on_gpu) {
    GTEST_SKIP() << "a GPU test: instances of " << Exec::name() << " run in turn on the calling thread";
  } else {
    constexpr int streams = 32;
    const std::vector<Exec> instances = impl::partition(Exec(), streams);
    std::vector<Kokkos::View<T*, Space>> in, out;
    for (int k = 0; k < streams; ++k) {
      in.push_back(device_values<T>((std::size_t(1) << 22) + 1000 * std::size_t(k), 100 + k));
      out.emplace_back("kps::test::out", in.back().extent(0));
    }
    for (int rep = 0; rep < 2; ++rep)  // twice: the second finds every workspace made
      for (int k = 0; k < streams; ++k) exclusive_scan(instances[k], in[k], out[k], ScanAlgorithm::single_pass);
    for (const Exec& e : instances) e.fence();
    for (int k = 0; k < streams; ++k) {
      SCOPED_TRACE("instance " + std::to_string(k));
      expect_exclusive_scan(in[k], out[k]);
    }
  }
}

}  // namespace hard_input_tests
}  // namespace kps::test
