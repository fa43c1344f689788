// test/execution_space/test_execution_space.cpp — kps runs on the execution space it was
// configured for (KPS_EXECUTION_SPACE), and says so: the environment every result carries
// names that space, its concurrency and its device, whatever Kokkos' default is.
#include <cctype>
#include <string>
#include <type_traits>

#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include "kps/device.hpp"
#include "kps/execution_space.hpp"

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
  EXPECT_STREQ(kps::ExecutionSpace::name(), configured) << "KPS_EXECUTION_SPACE=" << option;
  if (same_ignoring_case(option, "Default"))
    EXPECT_TRUE((std::is_same_v<kps::ExecutionSpace, Kokkos::DefaultExecutionSpace>));
  else
    EXPECT_TRUE(same_ignoring_case(kps::ExecutionSpace::name(), option)) << "KPS_EXECUTION_SPACE=" << option;
#if defined(KPS_EXECUTION_SPACE_SERIAL)
  static_assert(std::is_same_v<kps::ExecutionSpace, Kokkos::Serial>);
  EXPECT_EQ(kps::ExecutionSpace().concurrency(), 1);
#endif
}

// Views of kps::DeviceType run View-driven operations (Kokkos Kernels' peers) on the space.
TEST(ExecutionSpace, DeviceTypeViewsRunOnIt) {
  using V = Kokkos::View<int*, kps::DeviceType>;
  static_assert(std::is_same_v<V::execution_space, kps::ExecutionSpace>);
  static_assert(std::is_same_v<V::memory_space, kps::ExecutionSpace::memory_space>);
}

TEST(ExecutionSpace, EnvironmentDescribesIt) {
  auto env = kps::environment();
  const std::string name = kps::ExecutionSpace::name();
  EXPECT_EQ(env["backend"], name);
  EXPECT_EQ(env["kps_execution_space"], name);
  EXPECT_EQ(env["kokkos_default_execution_space"], Kokkos::DefaultExecutionSpace::name());
  EXPECT_EQ(env["kokkos_concurrency"], std::to_string(kps::ExecutionSpace().concurrency()));
  EXPECT_EQ(kps::device_info().backend, name);
}

}  // namespace
