// A distributed ARD run (`mpirun -n N ardent simulate ... --distributed`) against the same run in
// one process, through the files both write: every bundled scene with 1, 2, 3 and 4 ranks on the
// CPU backend, the IR WAVs and the listener grid within 1e-6 (float32) and 1e-12 (float64)
// relative L2, and what each rank did (result.json "distributed"); sources spread over ranks
// (--distributed=sources) against one process too; a checkpointed run stopped and resumed. Then the
// refusals: FDTD over partitions, and a
// launch of several processes without --distributed. Skips with the reason in a build without MPI.
#include <hdf5.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ardent/auralize/audio_io.h"
#include "signal_tools.h"
#include "test_support.h"

using ardent::test::ScratchDir;
namespace fs = std::filesystem;

namespace {

#ifdef ARDENT_MPIEXEC
constexpr const char* kMpiexec = ARDENT_MPIEXEC;
#else
constexpr const char* kMpiexec = nullptr;
#endif

#define SKIP_WITHOUT_MPI()                                                                 \
    if (!kMpiexec)                                                                         \
    GTEST_SKIP() << "this build has no MPI (install libopenmpi-dev and openmpi-bin, then " \
                    "reconfigure): distributed runs cannot be tested"

struct MpiRun {
    int exit_code = -1;
    std::string err;
};

// `ardent simulate` in `ranks` processes (0: without the launcher), in `dir`, with FFTW wisdom
// kept in dir/cache: the reference run measures the plans and the distributed runs reuse them,
// so both transform alike (plans measured anew may round differently, in any process).
MpiRun simulate(const fs::path& dir, int ranks, const std::string& args) {
    std::string cmd =
        "cd '" + dir.string() + "' && XDG_CACHE_HOME='" + (dir / "cache").string() + "' ";
    if (ranks > 0) {
        cmd += std::string("'") + kMpiexec + "' -n " + std::to_string(ranks) +
               " --oversubscribe -x XDG_CACHE_HOME ";
        if (geteuid() == 0) cmd += "--allow-run-as-root ";
    }
    cmd += std::string("'") + ARDENT_CLI + "' simulate " + args + " --threads 1 --quiet 2>'" +
           (dir / "err").string() + "'";
    const int status = std::system(cmd.c_str());
    MpiRun r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::ifstream in(dir / "err");
    r.err.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return r;
}

nlohmann::json read_json(const fs::path& p) {
    std::ifstream in(p);
    return nlohmann::json::parse(in);
}

// A bundled scene as JSON, its mesh path made absolute so that a copy runs from anywhere.
nlohmann::json bundled_scene(const std::string& name) {
    const fs::path dir = fs::path(ARDENT_SOURCE_DIR) / "data" / "scenes";
    nlohmann::json s = read_json(dir / (name + ".json"));
    if (s["geometry"].contains("mesh"))
        s["geometry"]["mesh"] = (dir / s["geometry"]["mesh"].get<std::string>()).string();
    return s;
}

std::vector<double> grid_irs(const fs::path& file) {
    std::vector<double> out;
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return out;
    const hid_t d = H5Dopen2(f, "ir", H5P_DEFAULT);
    if (d >= 0) {
        const hid_t space = H5Dget_space(d);
        std::vector<float> v(static_cast<size_t>(H5Sget_simple_extent_npoints(space)));
        H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
        out.assign(v.begin(), v.end());
        H5Sclose(space);
        H5Dclose(d);
    }
    H5Fclose(f);
    return out;
}

std::vector<double> wav(const fs::path& p) {
    const auto a = ardent::audio::read_audio(p);
    return {a.samples.begin(), a.samples.end()};
}

// The largest relative L2 difference over every IR WAV and grid file of two results directories.
double worst_difference(const fs::path& a, const fs::path& b, const nlohmann::json& files) {
    double worst = 0;
    for (const auto& f : files["ir"]) {
        const auto x = wav(a / f.get<std::string>()), y = wav(b / f.get<std::string>());
        EXPECT_EQ(x.size(), y.size()) << f;
        if (x.size() != y.size()) return 1;
        worst = std::max(worst, ardent::test::relative_l2(y, x));
    }
    for (const auto& f : files["grid"]) {
        const auto x = grid_irs(a / f.get<std::string>()), y = grid_irs(b / f.get<std::string>());
        EXPECT_FALSE(x.empty()) << f;
        EXPECT_EQ(x.size(), y.size()) << f;
        if (x.empty() || x.size() != y.size()) return 1;
        worst = std::max(worst, ardent::test::relative_l2(y, x));
    }
    return worst;
}

// A bundled scene at a frequency where it has several partitions, short, the wave band only
// (the geometric part above the crossover runs on rank 0 and is not distributed).
struct Case {
    const char* scene;
    int max_frequency;
};

class DistributedScene : public ::testing::TestWithParam<Case> {};

TEST_P(DistributedScene, EqualsOneProcessWithOneToFourRanks) {
    SKIP_WITHOUT_MPI();
    const Case c = GetParam();
    ScratchDir dir;
    // The scene's own band setting is overridden through a copy: only the wave band here.
    nlohmann::json s = bundled_scene(c.scene);
    s["simulation"]["band"] = "wave";
    const fs::path wave_scene = dir.write("scene.json", s.dump());
    const std::string args = "'" + wave_scene.string() + "' --max-frequency " +
                             std::to_string(c.max_frequency) + " --duration 0.05";
    // Every run reads the FFT plans one run measured: a run that measures its own may choose
    // other algorithms for some partitions' transforms than one that reads them back, and differ
    // by rounding (the Musikverein at 200 Hz: 4.3e-6, 2026-11-27).
    ASSERT_EQ(simulate(dir.path(), 0, args + " -o warm").exit_code, 0);
    const MpiRun ref = simulate(dir.path(), 0, args + " -o ref");
    ASSERT_EQ(ref.exit_code, 0) << ref.err;
    const nlohmann::json ref_result = read_json(dir / "ref" / "result.json");
    const auto air_cells = ref_result["statistics"]["air_cells"].get<long long>();
    const auto partitions = ref_result["statistics"]["partitions"].get<long long>();
    for (int ranks = 1; ranks <= 4; ++ranks) {
        const std::string out = "r" + std::to_string(ranks);
        const MpiRun r = simulate(dir.path(), ranks, args + " -o " + out + " --distributed");
        ASSERT_EQ(r.exit_code, 0) << c.scene << ", " << ranks << " ranks: " << r.err;
        const nlohmann::json result = read_json(dir / out / "result.json");
        const double worst = worst_difference(dir / "ref", dir / out, ref_result["files"]);
        std::printf("%s at %d Hz (%lld partitions), %d ranks: worst relative L2 %.3g\n", c.scene,
                    c.max_frequency, partitions, ranks, worst);
        EXPECT_LE(worst, 1e-6) << c.scene << ", " << ranks << " ranks";
        EXPECT_EQ(result["settings"]["ranks"], ranks);
        if (ranks == 1) {
            EXPECT_FALSE(result.contains("distributed"));
            continue;
        }
        const auto& d = result["distributed"];
        long long cells = 0, parts = 0;
        for (int k = 0; k < ranks; ++k) {
            cells += d["cells"][k].get<long long>();
            parts += d["partitions"][k].get<long long>();
            // A rank with partitions reads its neighbours' cells (every bundled room is one
            // connected volume); a rank without any has nothing to do.
            if (d["partitions"][k].get<long long>() > 0 && partitions > 1) {
                EXPECT_GT(d["halo_cells"][k].get<long long>(), 0) << "rank " << k;
            }
        }
        EXPECT_EQ(cells, air_cells);
        EXPECT_EQ(parts, partitions);
    }
}

INSTANTIATE_TEST_SUITE_P(Bundled, DistributedScene,
                         ::testing::Values(Case{"shoebox", 400}, Case{"lshape", 400},
                                           Case{"two-rooms", 300}, Case{"living-room", 400},
                                           Case{"studio", 400}, Case{"inria-musis", 400},
                                           Case{"ctk-church", 250}, Case{"musikverein", 200}),
                         [](const auto& param_info) {
                             std::string n = param_info.param.scene;
                             std::replace(n.begin(), n.end(), '-', '_');
                             return n;
                         });

TEST(Distributed, Float64AgreesToRoundOff) {
    SKIP_WITHOUT_MPI();
    ScratchDir dir;
    nlohmann::json s = bundled_scene("living-room");
    s["simulation"]["band"] = "wave";
    const fs::path scene = dir.write("scene.json", s.dump());
    const std::string args =
        "'" + scene.string() + "' --max-frequency 400 --duration 0.1 --precision float64";
    ASSERT_EQ(simulate(dir.path(), 0, args + " -o ref").exit_code, 0);
    const MpiRun r = simulate(dir.path(), 3, args + " -o r3 --distributed");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const double worst =
        worst_difference(dir / "ref", dir / "r3", read_json(dir / "ref" / "result.json")["files"]);
    std::printf("living room, float64, 3 ranks: worst relative L2 %.3g\n", worst);
    EXPECT_LE(worst, 1e-12);
}

// Many-source bakes: each rank solves whole sources (no exchange), rank 0 writes; the full band
// (rays traced on rank 0) and the listener grid included.
TEST(Distributed, SourcesOverRanksEqualOneProcess) {
    SKIP_WITHOUT_MPI();
    ScratchDir dir;
    nlohmann::json s = bundled_scene("living-room");
    s["listener_grid"] = {{"every", 4}};
    s["geometric"] = {{"rays", 2000}};
    const fs::path scene = dir.write("scene.json", s.dump());
    const std::string args = "'" + scene.string() + "' --max-frequency 300 --duration 0.05";
    ASSERT_EQ(simulate(dir.path(), 0, args + " -o ref").exit_code, 0);
    const nlohmann::json ref = read_json(dir / "ref" / "result.json");
    ASSERT_GE(ref["sources"].size(), 2u);
    ASSERT_EQ(ref["band"]["mode"], "full");
    for (int ranks : {2, 3}) {
        const std::string out = "s" + std::to_string(ranks);
        const MpiRun r =
            simulate(dir.path(), ranks, args + " -o " + out + " --distributed=sources");
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const double worst = worst_difference(dir / "ref", dir / out, ref["files"]);
        std::printf("living room, 2 sources over %d ranks: worst relative L2 %.3g\n", ranks, worst);
        EXPECT_LE(worst, 1e-6);
        const nlohmann::json result = read_json(dir / out / "result.json");
        EXPECT_EQ(result["distributed"]["mode"], "sources");
        size_t k = 0;
        for (const auto& src : ref["sources"])
            EXPECT_EQ(result["distributed"]["sources"][src["name"].get<std::string>()],
                      static_cast<int>(k++ % static_cast<size_t>(ranks)));
    }
}

// Checkpoints per rank: a run over 2 ranks stopped (SIGINT to mpirun, which passes it on) after
// its first checkpoint resumes with --resume to the one-process run's files; a resume with
// another rank count is refused.
TEST(Distributed, CheckpointedRunResumesToTheSameFiles) {
    SKIP_WITHOUT_MPI();
    ScratchDir dir;
    nlohmann::json s = bundled_scene("living-room");
    s["simulation"]["band"] = "wave";
    const fs::path scene = dir.write("scene.json", s.dump());
    const std::string args = "'" + scene.string() + "' --max-frequency 400 --duration 2";
    ASSERT_EQ(simulate(dir.path(), 0, args + " -o ref").exit_code, 0);
    // In the background: stopped once the first checkpoint is on disk.
    std::string cmd =
        "cd '" + dir.path().string() + "' && XDG_CACHE_HOME='" + (dir / "cache").string() +
        "' exec '" + kMpiexec + "' -n 2 --oversubscribe -x XDG_CACHE_HOME " +
        (geteuid() == 0 ? "--allow-run-as-root " : "") + "'" + ARDENT_CLI + "' simulate " + args +
        " -o out --distributed --threads 1 --quiet --checkpoint-every 200 "
        "2>'" +
        (dir / "err").string() + "'";
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    const fs::path state = dir / "out.tmp-partial" / "checkpoint" / "state.json";
    bool saved = false;
    // A minute for 200 steps; longer in a sanitized build, several times slower.
    const int polls = 1200 * ARDENT_TEST_TIMEOUT_SCALE;
    for (int i = 0; i < polls && !saved; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (fs::exists(state)) {
            try {
                saved = read_json(state)["current"].is_object();
            } catch (const nlohmann::json::exception&) {
            }
        }
    }
    kill(pid, SIGINT);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(saved) << "no checkpoint within " << polls / 20 << " s";
    ASSERT_TRUE(fs::is_directory(dir / "out.tmp-partial"));
    ASSERT_FALSE(fs::exists(dir / "out"));
    const nlohmann::json current = read_json(state)["current"];
    std::printf("stopped; checkpoint at step %zu of source %zu\n", current["steps"].get<size_t>(),
                current["source"].get<size_t>());

    const MpiRun wrong = simulate(dir.path(), 3, args + " -o out --distributed --resume");
    EXPECT_EQ(wrong.exit_code, 2);
    EXPECT_NE(wrong.err.find("checkpointed by 2 ranks"), std::string::npos) << wrong.err;
    const MpiRun r = simulate(dir.path(), 2, args + " -o out --distributed --resume");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_FALSE(fs::exists(dir / "out.tmp-partial"));
    const double worst =
        worst_difference(dir / "ref", dir / "out", read_json(dir / "ref" / "result.json")["files"]);
    std::printf("resumed over 2 ranks: worst relative L2 %.3g\n", worst);
    EXPECT_LE(worst, 1e-6);
}

TEST(Distributed, FdtdIsRefusedAndNothingIsWritten) {
    SKIP_WITHOUT_MPI();
    ScratchDir dir;
    const std::string scene = (fs::path(ARDENT_SOURCE_DIR) / "data/scenes/lshape.json").string();
    const MpiRun r = simulate(dir.path(), 2,
                              "'" + scene +
                                  "' --solver fdtd --max-frequency 300 --duration 0.02 "
                                  "-o out --distributed");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("a distributed run needs the ARD solver"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "out"));
    for (const auto& e : fs::directory_iterator(dir.path()))
        EXPECT_EQ(e.path().filename().string().find("out.tmp"), std::string::npos) << e.path();
}

TEST(Distributed, SeveralProcessesWithoutTheFlagAreRefused) {
    SKIP_WITHOUT_MPI();
    ScratchDir dir;
    const std::string scene = (fs::path(ARDENT_SOURCE_DIR) / "data/scenes/lshape.json").string();
    const MpiRun r =
        simulate(dir.path(), 2, "'" + scene + "' --max-frequency 300 --duration 0.02 -o out");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.err.find("add --distributed"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "out"));
}

}  // namespace
