// The CUDA FDTD backend against the CPU backend (spec section 6: CPU and CUDA agree to 1e-5
// relative): the same receivers and listener grid on a lossy box, an absorbing duct and the
// L-shaped room, the same energy from set_pressure() initial values, exact and cross-backend
// checkpoints, the memory estimate, and the CLI's exit code 3 for --solver fdtd --device cuda
// without a GPU. Tests that need a GPU skip themselves, with the reason, where none is present
// (CI).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "ardent/solvers/ard_cuda.h"
#include "ardent/solvers/fdtd_cuda.h"
#include "fdtd_validation.h"

namespace ardent::test {
namespace {

#define REQUIRE_GPU()                                        \
    do {                                                     \
        std::string why;                                     \
        if (!ard::cuda_available(&why)) GTEST_SKIP() << why; \
    } while (0)

double relative_l2(const std::vector<std::vector<double>>& a,
                   const std::vector<std::vector<double>>& b) {
    double diff = 0, ref = 0;
    EXPECT_EQ(a.size(), b.size());
    for (size_t r = 0; r < a.size() && r < b.size(); ++r) {
        EXPECT_EQ(a[r].size(), b[r].size());
        for (size_t i = 0; i < a[r].size() && i < b[r].size(); ++i) {
            diff += (a[r][i] - b[r][i]) * (a[r][i] - b[r][i]);
            ref += a[r][i] * a[r][i];
        }
    }
    return ref > 0 ? std::sqrt(diff / ref) : std::numeric_limits<double>::infinity();
}

std::vector<std::vector<double>> widen(const std::vector<std::vector<float>>& g) {
    std::vector<std::vector<double>> out;
    for (const auto& s : g)
        out.emplace_back(s.begin(), s.end());
    return out;
}

double cpu_vs_cuda(const Preprocessed& p, size_t steps, Precision precision, const char* what) {
    SolverOptions o;
    o.precision = precision;
    auto cpu = make_solver(p, o);
    auto gpu = fdtd::make_cuda_solver(p, o);
    cpu->advance(steps);
    // In two calls, so that a flush of the recorded samples between them is exercised.
    gpu->advance(steps / 3);
    gpu->advance(steps - steps / 3);
    double r = relative_l2(cpu->receivers(), gpu->receivers());
    const bool grid = !cpu->grid_signals().empty();
    if (grid) r = std::max(r, relative_l2(widen(cpu->grid_signals()), widen(gpu->grid_signals())));
    std::printf(
        "[ measured ] %s, %zu air cells, %zu steps%s: %s vs %s relative L2 %.3g; energy CUDA / "
        "CPU - 1 = %.3g\n",
        what, p.air.air_cells, steps, grid ? " (receivers and listener grid)" : "",
        cpu->name().c_str(), gpu->name().c_str(), r, gpu->field_energy() / cpu->field_energy() - 1);
    return r;
}

// A lossy box (three materials) with the source near a corner.
Preprocessed lossy_box(double f_max, int grid_every) {
    char buf[1024];
    std::snprintf(buf, sizeof buf, R"({"format": "ardent-scene/1", "name": "lossy box",
        "geometry": {"box": [2.3, 1.7, 1.3]},
        "materials": {"rigid": {"absorption": 0}, "soft": {"absorption": 0.6},
                      "mid": {"absorption": 0.2}},
        "surfaces": {"floor": "soft", "wall_x1": "mid", "*": "rigid"},
        "sources": [{"name": "S", "position": [0.31, 0.27, 0.22]}],
        "receivers": [{"name": "R1", "position": [1.9, 1.2, 0.9]},
                      {"name": "R2", "position": [0.5, 1.4, 1.1]}],
        "simulation": {"solver": "fdtd", "device": "cpu", "max_frequency": %.1f}})",
                  f_max);
    Scene scene = parse_scene(buf, "box.json");
    scene.listener_grid_every = grid_every;
    return preprocess(scene);
}

// Short enough for compute-sanitizer.
TEST(FdtdCuda, ShortRunAgreesWithCpu) {
    REQUIRE_GPU();
    EXPECT_LE(cpu_vs_cuda(lossy_box(300, 0), 60, Precision::Float32, "short run, lossy box"), 1e-5);
}

TEST(FdtdCuda, LossyBoxWithListenerGridAgreesWithCpu) {
    REQUIRE_GPU();
    const Preprocessed p = lossy_box(600, 3);
    EXPECT_LE(cpu_vs_cuda(p, 1500, Precision::Float32, "lossy box"), 1e-5);
    EXPECT_LE(cpu_vs_cuda(p, 1500, Precision::Float64, "lossy box"), 1e-12);
}

TEST(FdtdCuda, AbsorbingDuctAgreesWithCpu) {
    REQUIRE_GPU();
    fdtd_validation::Duct d;
    d.length = 512;
    d.width = 3;
    d.receiver_x = 300;
    d.alpha = 0.7;
    const Preprocessed p = preprocess(parse_scene(fdtd_validation::duct_json(d), "duct.json"));
    EXPECT_LE(cpu_vs_cuda(p, 2000, Precision::Float32, "absorbing duct"), 1e-5);
}

TEST(FdtdCuda, LShapedRoomAgreesWithCpu) {
    REQUIRE_GPU();
    fdtd_validation::LRoomSetup s;
    s.ard_cells_per_metre = 3;  // f_max 309 Hz: 78 732 air cells
    Scene scene = fdtd_validation::lroom_scene(s, true);
    scene.listener_grid_every = 8;
    const Preprocessed p = preprocess(scene);
    EXPECT_LE(cpu_vs_cuda(p, 3000, Precision::Float32, "L-shaped room"), 1e-5);
}

TEST(FdtdCuda, InitialFieldEnergyMatchesCpu) {
    REQUIRE_GPU();
    const Preprocessed p = lossy_box(400, 0);
    SolverOptions o;
    o.precision = Precision::Float64;
    o.inject_source = false;
    auto cpu = make_solver(p, o);
    auto gpu = fdtd::make_cuda_solver(p, o);
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const Grid& g = p.air.grid;
    for (size_t i = 0; i < g.count(); ++i)
        if (p.air.air[i]) {
            const double v = u(rng);
            cpu->set_pressure(g.coords(i), v);
            gpu->set_pressure(g.coords(i), v);
        }
    EXPECT_NEAR(gpu->field_energy() / cpu->field_energy(), 1.0, 1e-12);
    cpu->advance(500);
    gpu->advance(500);
    const double ratio = gpu->field_energy() / cpu->field_energy();
    std::printf("[ measured ] energy after 500 steps, CUDA / CPU = %.15f\n", ratio);
    EXPECT_NEAR(ratio, 1.0, 1e-12);
    EXPECT_THROW(gpu->set_pressure({0, 0, 0}, 1.0), std::invalid_argument);
}

// pressure_plane(): the same planes as the CPU backend's, NaN at the same cells (the two round
// alike, as the receivers do: equal to 1e-5 relative).
double plane_difference(const Solver& a, const Solver& b, int axis, int index) {
    std::vector<float> pa, pb;
    a.pressure_plane(axis, index, pa);
    b.pressure_plane(axis, index, pb);
    EXPECT_EQ(pa.size(), pb.size());
    double diff = 0, ref = 0;
    for (size_t k = 0; k < pa.size() && k < pb.size(); ++k) {
        EXPECT_EQ(std::isnan(pa[k]), std::isnan(pb[k])) << "axis " << axis << " cell " << k;
        if (std::isnan(pa[k]) || std::isnan(pb[k])) continue;
        diff = std::max(diff, std::abs(static_cast<double>(pa[k]) - static_cast<double>(pb[k])));
        ref = std::max(ref, std::abs(static_cast<double>(pa[k])));
    }
    EXPECT_GT(ref, 0) << "axis " << axis;
    return ref > 0 ? diff / ref : std::numeric_limits<double>::infinity();
}

TEST(FdtdCuda, PressurePlaneMatchesCpu) {
    REQUIRE_GPU();
    const Preprocessed p = lossy_box(400, 0);
    const Index3 s = p.air.sources[0].cell;
    SolverOptions o;
    o.inject_source = false;
    auto cpu = make_solver(p, o);
    auto gpu = fdtd::make_cuda_solver(p, o);
    for (Index3 c : {s, Index3{s[0] + 3, s[1] + 2, s[2]}}) {
        cpu->set_pressure(c, 1.0);
        gpu->set_pressure(c, 1.0);
    }
    for (int axis = 0; axis < 3; ++axis)
        EXPECT_EQ(plane_difference(*cpu, *gpu, axis, s[static_cast<size_t>(axis)]), 0.0);
    SolverOptions driven;
    cpu = make_solver(p, driven);
    gpu = fdtd::make_cuda_solver(p, driven);
    for (size_t steps : {60, 400}) {
        cpu->advance(steps - cpu->steps_done());
        gpu->advance(steps - gpu->steps_done());
        for (int axis = 0; axis < 3; ++axis) {
            const double d = plane_difference(*cpu, *gpu, axis, s[static_cast<size_t>(axis)]);
            std::printf("[ measured ] step %zu, axis %d: max |CUDA - CPU| / max |CPU| = %.3g\n",
                        steps, axis, d);
            EXPECT_LE(d, 1e-5);
        }
        // Another plane, then the first again: the cached cell maps are swapped correctly.
        EXPECT_LE(plane_difference(*cpu, *gpu, 2, 2), 1e-5);
        EXPECT_LE(plane_difference(*cpu, *gpu, 2, s[2]), 1e-5);
    }
    std::vector<float> plane;
    EXPECT_THROW(gpu->pressure_plane(0, -1, plane), std::invalid_argument);
}

TEST(FdtdCuda, CheckpointsResumeExactlyAndAcrossBackends) {
    REQUIRE_GPU();
    const Preprocessed p = lossy_box(400, 4);
    SolverOptions o;
    auto whole = fdtd::make_cuda_solver(p, o);
    whole->advance(700);
    auto first = fdtd::make_cuda_solver(p, o);
    first->advance(310);
    std::stringstream state;
    first->save_state(state);
    auto second = fdtd::make_cuda_solver(p, o);
    second->load_state(state);
    second->advance(390);
    EXPECT_EQ(whole->receivers(), second->receivers());
    EXPECT_EQ(whole->grid_signals(), second->grid_signals());

    // The CPU backend resumes a CUDA checkpoint (one format).
    auto cpu_whole = make_solver(p, o);
    cpu_whole->advance(700);
    std::stringstream again;
    first->save_state(again);
    auto cpu = make_solver(p, o);
    cpu->load_state(again);
    cpu->advance(390);
    EXPECT_LE(relative_l2(cpu_whole->receivers(), cpu->receivers()), 1e-5);
}

TEST(FdtdCuda, MemoryEstimateIsWhatIsAllocated) {
    REQUIRE_GPU();
    const Preprocessed p = lossy_box(500, 2);
    for (Precision precision : {Precision::Float32, Precision::Float64}) {
        SolverOptions o;
        o.precision = precision;
        auto gpu = fdtd::make_cuda_solver(p, o);
        EXPECT_EQ(gpu->memory_bytes(), fdtd::cuda_memory_bytes(p, o));
    }
}

TEST(FdtdCuda, AutoPicksTheGpu) {
    REQUIRE_GPU();
    Scene scene = lossy_box(300, 0).scene;
    scene.simulation.device = "auto";
    EXPECT_EQ(make_solver(preprocess(scene), SolverOptions{})->name(), "fdtd-cuda-float32");
}

TEST(FdtdCuda, DeviceCudaWithoutAGpuExitsWithCode3) {
    if (ard::cuda_available()) GTEST_SKIP() << "a CUDA device is present";
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("ardent-fdtd-cuda-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const std::string err = (dir / "err.txt").string();
    const std::string cmd = std::string(ARDENT_CLI) + " simulate " + ARDENT_SOURCE_DIR +
                            "/data/scenes/shoebox.json --max-frequency 100 --duration 0.05 "
                            "--solver fdtd --device cuda -o " +
                            (dir / "out.ardent").string() + " --quiet > /dev/null 2> " + err;
    const int status = std::system(cmd.c_str());
    std::ifstream in(err);
    const std::string message((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
    std::filesystem::remove_all(dir);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 3) << message;
    EXPECT_NE(message.find("cuda"), std::string::npos) << message;
}

}  // namespace
}  // namespace ardent::test
