// test/main.cpp — GoogleTest main with Kokkos initialized once for all tests.
#include <filesystem>
#include <iostream>
#include <string>

#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include "support/execution_space.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (::testing::GTEST_FLAG(list_tests)) return RUN_ALL_TESTS();  // test discovery: no Kokkos needed
  const std::string why = kps::bench::preflight();
  if (!why.empty()) {
    std::cerr << std::filesystem::path(argv[0]).filename().string() << ": " << why << "\n";
    return 3;
  }
  Kokkos::ScopeGuard kokkos(argc, argv);
  return RUN_ALL_TESTS();
}
