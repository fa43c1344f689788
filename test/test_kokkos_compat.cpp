// test/test_kokkos_compat.cpp — what kps takes from Kokkos beyond its stable API, checked against
// the Kokkos it is built with (every Kokkos of the support matrix runs it): the library's
// compatibility layer (kps/impl/kokkos_compat.hpp) and, on CUDA, the studies' reach into Kokkos'
// launch layer (bench/cuda/kokkos_launch.hpp).
#include <set>
#include <string>

#include "kps/impl/kokkos_compat.hpp"
#include "kps/scan.hpp"
#include "test_support.hpp"
#if defined(KOKKOS_ENABLE_CUDA)
#include "cuda/kokkos_launch.hpp"
#include "kernels/cos_loop.hpp"
#endif

namespace kps::test {
namespace compat_tests {

using namespace kps::bench;  // the study kernels (bench/kernels/)

TEST(KokkosCompat, VersionString) {
  const std::string v = impl::kokkos_version_string();
  EXPECT_EQ(v, std::to_string(KOKKOS_VERSION / 10000) + "." + std::to_string(KOKKOS_VERSION / 100 % 100) + "." +
                   (KOKKOS_VERSION % 100 < 10 ? "0" : "") + std::to_string(KOKKOS_VERSION % 100));
}

TEST(KokkosCompat, RelaxedLoadsAndStores) {
  std::uint64_t word = 0;
  impl::store_relaxed(&word, std::uint64_t(0x1234567890abcdefull));
  EXPECT_EQ(impl::load_relaxed(&word), 0x1234567890abcdefull);
}

TEST(KokkosCompat, HostPassMacro) {
  int ran = 0;
  KPS_IMPL_IF_ON_HOST(ran = 1;)
  EXPECT_EQ(ran, 1);
}

template <class Space>
struct FillIndex {  // a functor at namespace scope: no device lambda inside the generic lambda below
  Kokkos::View<int*, Space> v;
  KOKKOS_INLINE_FUNCTION void operator()(int i) const { v(i) = i; }
};

// Partitioned instances: distinct instance keys (own workspaces) on device backends with Kokkos 4
// (partition_space), copies of the instance elsewhere; each runs work.
TEST(KokkosCompat, PartitionedInstances) {
  for_each_exec([&](auto exec) {
    using Exec = decltype(exec);
    const auto instances = impl::partition(exec, 3);
    ASSERT_EQ(instances.size(), 3u);
    std::set<std::uint64_t> keys;
    for (const auto& e : instances) keys.insert(impl::instance_key(e));
#if KOKKOS_VERSION >= 40000
    if constexpr (!impl::is_host_space_v<Exec>) {
      EXPECT_EQ(keys.size(), 3u);
    }
#endif
    for (const auto& e : instances) {
      Kokkos::View<int*, typename Exec::memory_space> v("v", 100);
      Kokkos::parallel_for("kps::test::fill", Kokkos::RangePolicy<Exec>(e, 0, 100),
                           FillIndex<typename Exec::memory_space>{v});
      e.fence();
      EXPECT_EQ(to_host(v)[99], 99);
    }
  });
}

#if defined(KOKKOS_ENABLE_CUDA)
struct CountTeams {  // a team reduction (namespace scope: a kernel's functor type cannot be local)
  KOKKOS_INLINE_FUNCTION void operator()(const Kokkos::TeamPolicy<Kokkos::Cuda>::member_type&, int& c) const { c += 1; }
};

// The attributes and occupancy of the kernels Kokkos launches, through every signature this
// Kokkos has.
TEST(KokkosLaunch, AttributesAndOccupancyOfKokkosKernels) {
  if constexpr (std::is_same_v<ExecutionSpace, Kokkos::Cuda>) {
    using Policy = Kokkos::TeamPolicy<Kokkos::Cuda>;
    using Functor = kernels::CosLoop<Kokkos::Cuda, 1, CosMath::accurate>;
    using For = bench::cuda::TeamForLaunch<Functor, Policy>;
    const bench::KernelAttributes a = bench::cuda::launch_attributes<For>(Kokkos::Cuda());
    EXPECT_GT(a.registers, 0);
    EXPECT_GE(a.max_threads_per_block, 32);
    const int blocks = bench::cuda::launch_max_active_blocks<For>(128, 0);
    EXPECT_TRUE(blocks == -1 || blocks >= 1) << blocks;
#if KOKKOS_VERSION >= 40100
    const bench::KernelAttributes r =
        bench::cuda::launch_attributes<bench::cuda::TeamReduceLaunch<CountTeams, Policy, int>>(Kokkos::Cuda());
    EXPECT_GT(r.registers, 0);
#endif
  } else {
    GTEST_SKIP() << "kps runs on " << ExecutionSpace::name() << ", not on the GPU";
  }
}
#endif

}  // namespace compat_tests
}  // namespace kps::test
