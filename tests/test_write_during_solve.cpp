// Each source's files written while the next source solves (pipeline::simulate,
// SimulateSettings::write_during_solve; on its own only in GPU runs, forced here on the CPU): the
// same results directory as writes in line, bit for bit, with every file and the ISO 3382 rows
// in source order; the write's progress reaches the observer on the run's thread; a stop during
// the next solve leaves nothing behind.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "ardent/auralize/audio_io.h"
#include "ardent/auralize/ir_grid.h"
#include "ardent/pipeline/simulate.h"
#include "ardent/preprocess/scene_parser.h"
#include "test_support.h"

namespace ardent::test {
namespace {

namespace fs = std::filesystem;

// Two sources, two receivers, a listener grid, both halves of a full-band run.
Scene two_sources(const ScratchDir& dir, const std::string& band) {
    std::string text = box_scene_json(R"({"max_frequency": 300, "duration": 0.3, "band": ")" +
                                      band + R"("}, "listener_grid": {"every": 4})");
    const auto replace = [&](const std::string& from, const std::string& to) {
        text.replace(text.find(from), from.size(), to);
    };
    replace(R"([{"name": "S1", "position": [1.5, 1.2, 1.4]}])",
            R"([{"name": "S1", "position": [1.5, 1.2, 1.4]},
                {"name": "S2", "position": [4.6, 2.9, 1.1]}])");
    replace(R"([{"name": "R1", "position": [4.2, 2.5, 1.6]}])",
            R"([{"name": "R1", "position": [4.2, 2.5, 1.6]},
                {"name": "R2", "position": [2.2, 3.1, 1.2]}])");
    return load_scene(dir.write(band + ".json", text));
}

// What reaches the observer, and from which thread.
struct Recorder final : pipeline::SimulateObserver {
    std::thread::id thread = std::this_thread::get_id();
    std::vector<std::string> events;
    size_t irs = 0, last_done = 0, off_thread = 0;
    std::atomic<bool>* stop_in_second_solve = nullptr;
    std::function<void()> before_first_solve;
    bool hold_second_solve = false;
    std::chrono::milliseconds hold_second_solve_for{2000};
    void check() { off_thread += std::this_thread::get_id() != thread; }
    void source_begin(const std::string& name, size_t, size_t, size_t, size_t) override {
        check();
        if (events.empty() && before_first_solve) before_first_solve();
        events.push_back("solve " + name);
    }
    void progress(size_t) override {
        check();
        if (stop_in_second_solve && events.back() == "solve S2") stop_in_second_solve->store(true);
        if (hold_second_solve && events.back() == "solve S2") {
            // Long enough for the first source's write to reach its first file.
            std::this_thread::sleep_for(hold_second_solve_for);
            hold_second_solve = false;
        }
    }
    void source_end() override {
        check();
        events.push_back("solved");
    }
    void source_stopped() override {
        check();
        events.push_back("stopped");
    }
    void write_begin(const std::string& source, size_t n) override {
        check();
        events.push_back("write " + source);
        irs = n;
        last_done = 0;
    }
    void write_progress(size_t done) override {
        check();
        last_done = done;
    }
    void write_end() override {
        check();
        events.push_back("written " + std::to_string(last_done) + "/" + std::to_string(irs));
    }
};

// Every file's content: WAV samples (their headers hold libsndfile's PEAK chunk, stamped with the
// time) and each listener-grid point's IRs with the grid's geometric part.
std::map<std::string, std::vector<float>> contents(const fs::path& root) {
    std::map<std::string, std::vector<float>> out;
    for (const auto& e : fs::recursive_directory_iterator(root)) {
        if (!e.is_regular_file() || e.path().filename() == "result.json") continue;
        std::vector<float>& v = out[fs::relative(e.path(), root).string()];
        if (e.path().extension() == ".wav") {
            v = audio::read_audio(e.path()).samples;
            continue;
        }
        const auralize::IrGrid grid(e.path());
        for (size_t i = 0; i < grid.size(); ++i) {
            const auto ir = grid.ir(i);
            v.insert(v.end(), ir.begin(), ir.end());
            for (const auto& g : grid.gradient(i))
                v.insert(v.end(), g.begin(), g.end());
        }
        if (const auralize::GridGeometric* geo = grid.geometric()) {
            v.insert(v.end(), geo->energy.begin(), geo->energy.end());
            v.insert(v.end(), geo->flux.begin(), geo->flux.end());
            v.insert(v.end(), geo->path_factor.begin(), geo->path_factor.end());
        }
    }
    return out;
}

nlohmann::json acoustics(const fs::path& dir) {
    std::ifstream in(dir / "result.json");
    return nlohmann::json::parse(in).at("acoustics");
}

class WriteDuringSolve : public ::testing::TestWithParam<const char*> {};

TEST_P(WriteDuringSolve, WritesWhatTheInLineWriteWrites) {
    ScratchDir dir;
    const Scene scene = two_sources(dir, GetParam());
    pipeline::SimulateSettings settings;
    settings.threads = 2;
    Recorder in_line, beside;
    settings.output = dir / "in-line.ardent";
    settings.write_during_solve = pipeline::WriteDuringSolve::Never;
    pipeline::simulate(scene, settings, in_line, nullptr);
    settings.output = dir / "beside.ardent";
    settings.write_during_solve = pipeline::WriteDuringSolve::Always;
    pipeline::simulate(scene, settings, beside, nullptr);

    const auto a = contents(dir / "in-line.ardent"), b = contents(dir / "beside.ardent");
    std::printf("band %s: %zu files each\n", GetParam(), a.size());
    EXPECT_EQ(a.size(), 2u * 2u * 2u + 2u);  // IR and AmbiX per pair, a grid file per source
    for (const auto& [name, values] : a) {
        ASSERT_TRUE(b.count(name)) << name;
        EXPECT_FALSE(values.empty()) << name;
        EXPECT_TRUE(b.at(name) == values) << name << " differs";  // bit for bit
    }
    EXPECT_EQ(b.size(), a.size());
    EXPECT_EQ(acoustics(dir / "beside.ardent"), acoustics(dir / "in-line.ardent"));

    const std::string irs = std::to_string(in_line.irs);
    const std::vector<std::string> order_in_line = {
        "solve S1", "solved", "write S1", "written " + irs + "/" + irs,
        "solve S2", "solved", "write S2", "written " + irs + "/" + irs};
    // S1's write runs during S2's solve; the observer hears of it once S2's write is due.
    const std::vector<std::string> order_beside = {"solve S1", "solved",
                                                   "solve S2", "solved",
                                                   "write S1", "written " + irs + "/" + irs,
                                                   "write S2", "written " + irs + "/" + irs};
    EXPECT_EQ(in_line.events, order_in_line);
    EXPECT_EQ(beside.events, order_beside);
    EXPECT_EQ(beside.off_thread, 0u);
}

INSTANTIATE_TEST_SUITE_P(Bands, WriteDuringSolve, ::testing::Values("wave", "full"));

// A run into dir/out.ardent whose writes all run beside the next solve.
pipeline::SimulateSettings writing_beside(const ScratchDir& dir) {
    pipeline::SimulateSettings settings;
    settings.threads = 2;
    settings.output = dir / "out.ardent";
    settings.write_during_solve = pipeline::WriteDuringSolve::Always;
    return settings;
}

TEST(WriteDuringSolveStop, AStopDuringTheNextSolveLeavesNothingBehind) {
    ScratchDir dir;
    const Scene scene = two_sources(dir, "wave");
    const pipeline::SimulateSettings settings = writing_beside(dir);
    std::atomic<bool> stop{false};
    Recorder rec;
    rec.stop_in_second_solve = &stop;
    EXPECT_THROW(pipeline::simulate(scene, settings, rec, &stop), pipeline::Cancelled);
    EXPECT_EQ(rec.off_thread, 0u);
    EXPECT_EQ(dir.listing(), "wave.json\n");
}

// A write that fails on its thread (the run's ir/ folder made a file before S1's IRs are due, as
// a full disk or a removed folder would fail it) fails the run, naming the file, during the next
// solve (held here until the write has had time to fail), and leaves nothing behind: neither the
// results directory nor its temporary one.
TEST(WriteDuringSolveFailure, AWriteThatFailsBesideTheNextSolveFailsTheRun) {
    ScratchDir dir;
    const Scene scene = two_sources(dir, "wave");
    const pipeline::SimulateSettings settings = writing_beside(dir);
    Recorder rec;
    rec.hold_second_solve = true;
    size_t blocked = 0;
    rec.before_first_solve = [&] {
        for (const auto& e : fs::directory_iterator(dir.path()))
            if (e.is_directory() && fs::is_directory(e.path() / "ir")) {
                fs::remove_all(e.path() / "ir");
                std::ofstream(e.path() / "ir") << "in the way\n";
                ++blocked;
            }
    };
    try {
        pipeline::simulate(scene, settings, rec, nullptr);
        ADD_FAILURE() << "the run succeeded";
    } catch (const std::exception& e) {
        std::printf("%s\n", e.what());
        EXPECT_NE(std::string(e.what()).find("S1"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(".wav"), std::string::npos) << e.what();
    }
    EXPECT_EQ(blocked, 1u);
    EXPECT_EQ(rec.events, (std::vector<std::string>{"solve S1", "solved", "solve S2", "stopped"}));
    EXPECT_EQ(rec.off_thread, 0u);
    EXPECT_EQ(dir.listing(), "wave.json\n");
}

// In a write in line, the receivers' files and the grid's are written side by side (on threads of
// their own): either failing fails the run, naming its file, once the other has stopped, and
// leaves nothing behind; the observer hears only from the run's thread.
class WriteInLineFailure : public ::testing::TestWithParam<const char*> {};

TEST_P(WriteInLineFailure, EitherPartFailingFailsTheRun) {
    const std::string folder = GetParam();
    ScratchDir dir;
    const Scene scene = two_sources(dir, "wave");
    pipeline::SimulateSettings settings;
    settings.threads = 2;
    settings.output = dir / "out.ardent";
    settings.write_during_solve = pipeline::WriteDuringSolve::Never;
    Recorder rec;
    size_t blocked = 0;
    rec.before_first_solve = [&] {
        for (const auto& e : fs::directory_iterator(dir.path()))
            if (e.is_directory() && fs::is_directory(e.path() / folder)) {
                fs::remove_all(e.path() / folder);
                std::ofstream(e.path() / folder) << "in the way\n";
                ++blocked;
            }
    };
    try {
        pipeline::simulate(scene, settings, rec, nullptr);
        ADD_FAILURE() << "the run succeeded";
    } catch (const std::exception& e) {
        std::printf("%s blocked: %s\n", folder.c_str(), e.what());
        const std::string file = folder == "ir" ? ".wav" : ".h5";
        EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("S1"), std::string::npos) << e.what();
    }
    EXPECT_EQ(blocked, 1u);
    EXPECT_EQ(rec.off_thread, 0u);
    EXPECT_EQ(dir.listing(), "wave.json\n");
}

INSTANTIATE_TEST_SUITE_P(Parts, WriteInLineFailure, ::testing::Values("ir", "grid"));

}  // namespace
}  // namespace ardent::test
