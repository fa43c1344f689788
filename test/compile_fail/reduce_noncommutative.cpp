// A reduction under an operator that says it is not commutative: refused at compile time.
#include <kps/reduce.hpp>
struct First {
  static constexpr bool commutative = false;
  KOKKOS_FUNCTION int operator()(const int& a, const int&) const { return a; }
  KOKKOS_FUNCTION static int identity() { return 0; }
};
int f(Kokkos::View<int*, Kokkos::HostSpace> a) {
  return kps::reduce(Kokkos::DefaultHostExecutionSpace(), a, 0, First{});
}
