// test/execution_space/test_execution_space.cpp — kps runs on the execution space it was
// configured for (KPS_EXECUTION_SPACE), and says so: the environment every result carries
// names that space, its concurrency and its device, whatever Kokkos' default is.
#include <cctype>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <KokkosBlas1_dot.hpp>

#include "support/environment.hpp"
#include "support/execution_space.hpp"

namespace {

// Set by test/execution_space/CMakeLists.txt: the option as given, and the space CMake chose.
constexpr const char* option = KPS_TEST_EXECUTION_SPACE_OPTION;
constexpr const char* configured = KPS_TEST_EXECUTION_SPACE_NAME;

bool same_ignoring_case(std::string a, std::string b) {
  for (auto* s : {&a, &b})
    for (char& c : *s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return a == b;
}

TEST(ExecutionSpace, IsTheConfiguredOne) {
  EXPECT_STREQ(kps::bench::ExecutionSpace::name(), configured) << "KPS_EXECUTION_SPACE=" << option;
  if (same_ignoring_case(option, "Default"))
    EXPECT_TRUE((std::is_same_v<kps::bench::ExecutionSpace, Kokkos::DefaultExecutionSpace>));
  else
    EXPECT_TRUE(same_ignoring_case(kps::bench::ExecutionSpace::name(), option)) << "KPS_EXECUTION_SPACE=" << option;
#if defined(KPS_EXECUTION_SPACE_SERIAL)
  static_assert(std::is_same_v<kps::bench::ExecutionSpace, Kokkos::Serial>);
  EXPECT_EQ(kps::bench::ExecutionSpace().concurrency(), 1);
#endif
}

// Views of kps::bench::DeviceType run View-driven operations (Kokkos Kernels' peers) on the space: the
// reduction KokkosBlas::dot launches is seen by Kokkos Tools' begin-reduce hook with the device id
// of kps::bench::ExecutionSpace (in a Serial build of a Kokkos whose default is OpenMP, not OpenMP's).
std::vector<std::uint32_t> reduce_devices;
void record_reduce(const char*, const std::uint32_t device, std::uint64_t* id) {
  reduce_devices.push_back(device);
  *id = 0;
}

TEST(ExecutionSpace, DeviceTypeViewsRunOnIt) {
  using V = Kokkos::View<double*, kps::bench::DeviceType>;
  static_assert(std::is_same_v<V::execution_space, kps::bench::ExecutionSpace>);
  V x("x", 1000), y("y", 1000);
  Kokkos::deep_copy(x, 2.0);
  Kokkos::deep_copy(y, 3.0);
  reduce_devices.clear();
  Kokkos::Tools::Experimental::set_begin_parallel_reduce_callback(record_reduce);
  const double d = KokkosBlas::dot(x, y);
  Kokkos::Tools::Experimental::set_begin_parallel_reduce_callback(nullptr);
  EXPECT_EQ(d, 6000.0);
  ASSERT_FALSE(reduce_devices.empty()) << "KokkosBlas::dot launched no reduction Kokkos Tools saw";
  const std::uint32_t want = Kokkos::Tools::Experimental::device_id(kps::bench::ExecutionSpace());
  for (std::uint32_t got : reduce_devices) EXPECT_EQ(got, want) << "a reduction ran on another execution space";
}

TEST(ExecutionSpace, EnvironmentDescribesIt) {
  auto env = kps::bench::environment();
  const std::string name = kps::bench::ExecutionSpace::name();
  EXPECT_EQ(env["backend"], name);
  EXPECT_EQ(env["kps_execution_space"], name);
  EXPECT_EQ(env["kokkos_default_execution_space"], Kokkos::DefaultExecutionSpace::name());
  EXPECT_EQ(env["kokkos_concurrency"], std::to_string(kps::bench::ExecutionSpace().concurrency()));
  EXPECT_EQ(kps::bench::device_info().backend, name);
}

}  // namespace
