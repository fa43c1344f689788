# kps: Spack recipe of the kps performance studies, kept in the kps repository itself.
#
#   spack repo add <kps checkout or git URL>        # this folder's spack-repo-index.yaml
#   spack install kps +cuda cuda_arch=90             # a GPU node (Hopper)
#   spack install kps +rocm amdgpu_target=gfx90a    # an AMD GPU node (MI200)
#   spack install kps +threads ~openmp               # Kokkos::Threads as the host backend
#   spack install --test=root kps                    # and run the test suite while building
#   spack test run kps                               # build a program against the install, run it
#
# Sources: the git repository this recipe belongs to (a checkout, or the clone spack makes of a
# git URL given to `spack repo add`): kps@main is its branch main, kps@<version> its tag
# v<version>. `spack dev-build kps@main` (or `spack develop`) builds a working tree instead.
import os

from spack_repo.builtin.build_systems.cmake import CMakePackage
from spack_repo.builtin.build_systems.cuda import CudaPackage
from spack_repo.builtin.build_systems.rocm import ROCmPackage

from spack.package import *


def _repository_url():
    """file:// URL of the git repository holding this file (spack_repo/kps/packages/kps/)."""
    top = os.path.abspath(os.path.join(os.path.dirname(__file__), *[os.pardir] * 4))
    return "file://" + top


class Kps(CMakePackage, CudaPackage, ROCmPackage):
    """Portable performance studies of GPU scans, reductions and compute-bound latency kernels,
    written once against Kokkos (parallel_scan, parallel_reduce, TeamPolicy) and measured with
    Google Benchmark against CUB, Kokkos and Kokkos Kernels on any Kokkos backend (CUDA, HIP,
    OpenMP, Threads, Serial). Installs the kps::kps library (scan and reduce), kps-bench, kps-occupancy and the
    `kps` command that runs the studies and renders their reports."""

    homepage = _repository_url()
    git = _repository_url()

    version("main", branch="main")
    version("0.1.0", tag="v0.1.0")

    # Kokkos backends: kps runs on every backend of the Kokkos it is built with; these variants
    # ask Kokkos for them (as arborx and cabana do).
    variant("openmp", default=True, description="Kokkos with the OpenMP backend")
    variant("serial", default=True, description="Kokkos with the Serial backend")
    variant("threads", default=False, description="Kokkos with the Threads backend, kps' host space (instead of OpenMP)")
    variant("tests", default=False, description="Build the test suite (GoogleTest) with the package")
    variant("plots", default=True, description="Python with matplotlib for the reports' plots")
    variant("tbb", default=False, description="oneTBB as a CPU peer of the scans and sums (kps-bench)")

    depends_on("cxx", type="build")
    depends_on("cmake@3.22:", type="build")
    # CUDA as a CMake language with C++20 (Kokkos 5) needs CMake 3.25.2 (Kokkos' own requirement).
    depends_on("cmake@3.25.2:", type="build", when="^kokkos@5: +cmake_lang")

    depends_on("kokkos@3.4.01:")
    depends_on("kokkos+openmp", when="+openmp ~threads")
    # A Kokkos has one host parallel backend: +threads asks Kokkos for Threads instead of OpenMP.
    depends_on("kokkos+threads~openmp", when="+threads")
    depends_on("kokkos+serial", when="+serial")
    depends_on("kokkos-kernels")
    # CUDA: Kokkos with nvcc_wrapper (its recipe's condition for +cuda with GCC) and the same
    # architecture; extended lambdas are a variant up to Kokkos 4 and always on from Kokkos 5.
    for _arch in CudaPackage.cuda_arch_values:
        depends_on(f"kokkos+cuda+wrapper cuda_arch={_arch}", when=f"+cuda cuda_arch={_arch}")
    depends_on("kokkos+cuda_lambda", when="+cuda ^kokkos@:4")
    depends_on("kokkos~cuda", when="~cuda")
    # HIP: Kokkos with ROCm for the same (single) AMD GPU target, compiled with hipcc.
    for _target in ROCmPackage.amdgpu_targets:
        depends_on(f"kokkos+rocm amdgpu_target={_target}", when=f"+rocm amdgpu_target={_target}")
    depends_on("kokkos~rocm", when="~rocm")
    depends_on("hip", when="+rocm")
    conflicts("+rocm", when="amdgpu_target=none", msg="kps +rocm needs amdgpu_target (gfx90a for MI200)")
    conflicts("+cuda", when="+rocm", msg="a Kokkos has one GPU backend: kps +cuda or +rocm")
    conflicts("+cuda", when="cuda_arch=none", msg="kps +cuda needs cuda_arch (90 for Hopper)")
    # Kokkos 4.7.0 and older predate CUDA 13 (Kokkos' recipe refuses the pair too).
    conflicts("^cuda@13:", when="+cuda ^kokkos@:4.7.0")

    depends_on("benchmark@1.6:")
    depends_on("nlohmann-json@3.9:", type="build")
    depends_on("googletest@1.10:", type=("build", "test"), when="+tests")
    depends_on("googletest@1.10:", type="test")
    # The `kps` command: the kps Python package (python/pyproject.toml), installed by pip and packed
    # into one zip application by the CMake build (python/CMakeLists.txt); it runs with this python.
    depends_on("python@3.9:", type=("build", "run"))
    depends_on("py-pip", type="build")
    depends_on("py-setuptools@61:", type="build")
    depends_on("py-wheel", type="build", when="^py-setuptools@:70.0")
    depends_on("py-matplotlib", type="run", when="+plots")
    depends_on("tbb", when="+tbb")  # intel-oneapi-tbb or intel-tbb

    def cmake_args(self):
        spec = self.spec
        args = [
            # Warnings are kps' development contract, not its users': a newer compiler's new
            # warning must not break an install.
            self.define("KPS_WARNINGS_AS_ERRORS", False),
            self.define("KPS_ENABLE_TESTS", self.run_tests or spec.satisfies("+tests")),
            self.define("KPS_ENABLE_BENCHMARKS", True),
            self.define("Kokkos_ROOT", spec["kokkos"].prefix),
            self.define("Python3_EXECUTABLE", spec["python"].command.path),
        ]
        if spec.satisfies("+cuda"):
            args.append(self.define("CMAKE_CXX_COMPILER", self["kokkos"].kokkos_cxx))
            args.append(self.define("CMAKE_CUDA_ARCHITECTURES", spec.variants["cuda_arch"].value))
        if spec.satisfies("+rocm"):
            args.append(self.define("CMAKE_CXX_COMPILER", spec["hip"].hipcc))
            args.append(self.define("KPS_REQUIRE_HIP", True))
        if spec.satisfies("+threads"):
            args.append(self.define("KPS_EXECUTION_SPACE", "Threads"))
        return args

    # `spack test run kps`: the consumer program of test/consumer built against the install.
    test_requires_compiler = True

    @run_after("install")
    def cache_consumer(self):
        cache_extra_test_sources(self, [join_path("test", "consumer")])

    def test_consumer(self):
        """build a program that uses kps::kps (find_package(kps)) against the install and run it"""
        kokkos = self.spec["kokkos"]
        # The compiler kps was built with (nvcc_wrapper with CUDA; a test has no CXX in its environment).
        cxx = self["kokkos"].kokkos_cxx if self.spec.satisfies("+cuda") else self["cxx"].cxx
        cmake = which(self.spec["cmake"].prefix.bin.cmake)
        with working_dir(join_path(self.test_suite.current_test_cache_dir, "test", "consumer")):
            cmake(
                ".",
                self.define("CMAKE_PREFIX_PATH", ";".join([str(self.prefix), str(kokkos.prefix)])),
                self.define("CMAKE_CXX_COMPILER", cxx),
                self.define("CMAKE_BUILD_TYPE", "Release"),
            )
            cmake("--build", ".")
            consumer = which(join_path(".", "kps_consumer"))
            out = consumer(output=str.split, error=str.split)
            assert "ok" in out, out

    def test_kps_command(self):
        """the installed kps command answers --help"""
        kps = which(self.prefix.bin.kps)
        out = kps("--help", output=str.split, error=str.split)
        assert "run" in out, out
