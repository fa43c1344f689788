// A scan of a value type with a copy constructor of its own: refused at compile time.
#include <kps/scan.hpp>
struct Counted {
  int v = 0;
  Counted() = default;
  Counted(const Counted& o) : v(o.v + 1) {}
  KOKKOS_FUNCTION Counted operator+(const Counted& o) const { return Counted(); }
};
void f(Kokkos::View<Counted*, Kokkos::HostSpace> a) {
  kps::inclusive_scan(Kokkos::DefaultHostExecutionSpace(), a, a, kps::plus{});
}
