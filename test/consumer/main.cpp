// Uses kps from its installed package: an exclusive scan and a sum on the package's execution
// space (kps::ExecutionSpace: the KPS_EXECUTION_SPACE kps was configured with, a compile
// definition that kps::kps carries).
#include <cstdio>

#include <Kokkos_Core.hpp>
#include <kps/execution_space.hpp>
#include <kps/reduce.hpp>
#include <kps/scan.hpp>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  Kokkos::View<int*, kps::DeviceType> v("v", 1000);
  Kokkos::deep_copy(v, 1);
  const int sum = kps::reduce_sum(kps::ExecutionSpace(), v);
  kps::exclusive_scan(kps::ExecutionSpace(), v, v);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  const bool ok = sum == 1000 && h(999) == 999;
  std::printf("kps consumer (%s): sum=%d last=%d %s\n", kps::ExecutionSpace::name(), sum, int(h(999)),
              ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
