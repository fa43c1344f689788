// An exclusive scan of doubles from an int 0: refused at compile time (no silent narrowing).
#include <kps/scan.hpp>
void f(Kokkos::View<double*, Kokkos::HostSpace> a) {
  kps::exclusive_scan(Kokkos::DefaultHostExecutionSpace(), a, a, 0, kps::plus{});
}
