// A checkpointed run stopped in any stage (the solve, the receivers' rays, the listener grid's
// rays, the write) keeps a partial run that --resume finishes to the same bytes as a run never
// stopped; a damaged checkpoint is refused by its checksum and the partial run is kept.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "ardent/pipeline/simulate.h"
#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/scene_parser.h"
#include "test_support.h"

namespace ardent::test {
namespace {

namespace fs = std::filesystem;

// Raises the stop flag when a stage whose text starts with `at` begins (or, with "steps", at the
// first progress report of the solve).
struct StopAt : pipeline::SimulateObserver {
    std::string at;
    std::atomic<bool>* stop = nullptr;
    bool seen = false;
    void stage(const std::string& text) override {
        if (text.rfind(at, 0) == 0) raise();
    }
    void progress(size_t) override {
        if (at == "steps") raise();
    }
    void raise() {
        seen = true;
        stop->store(true);
    }
};

// A full-band box with a listener grid: every stage there is.
Scene full_band_scene(const ScratchDir& dir) {
    return load_scene(dir.write(
        "box.json", box_scene_json(R"({"max_frequency": 300, "duration": 0.25, "band": "full"},
        "listener_grid": {"spacing_m": 1.5})")));
}

pipeline::SimulateSettings checkpointed(const fs::path& out) {
    pipeline::SimulateSettings s;
    s.output = out;
    s.threads = 2;
    s.checkpoint_every = 40;
    return s;
}

// Every file of `a` but result.json (which holds measured times) has the same bytes in `b`.
void expect_same_files(const fs::path& a, const fs::path& b) {
    size_t files = 0;
    for (const auto& e : fs::recursive_directory_iterator(a)) {
        if (!e.is_regular_file() || e.path().filename() == "result.json") continue;
        const fs::path twin = b / fs::relative(e.path(), a);
        ASSERT_TRUE(fs::exists(twin)) << twin;
        EXPECT_TRUE(read_text(e.path()) == read_text(twin)) << e.path() << " differs";
        ++files;
    }
    EXPECT_GE(files, 3u);
}

TEST(ResumeAnywhere, AStopInEveryStageResumesToTheSameFiles) {
    ScratchDir dir;
    const Scene scene = full_band_scene(dir);
    pipeline::SimulateObserver quiet;
    pipeline::simulate(scene, checkpointed(dir / "whole"), quiet);
    const char* stages[] = {"steps", "Tracing rays from S1 ...",
                            "Tracing rays from S1 for the listener grid", "Writing S1"};
    for (size_t i = 0; i < std::size(stages); ++i) {
        const char* at = stages[i];
        SCOPED_TRACE(at);
        const fs::path out = dir / ("stopped-" + std::to_string(i));
        std::atomic<bool> stop{false};
        StopAt observer;
        observer.at = at;
        observer.stop = &stop;
        try {
            pipeline::simulate(scene, checkpointed(out), observer, &stop);
            ADD_FAILURE() << "simulate() returned after a stop request";
        } catch (const pipeline::Cancelled& e) {
            EXPECT_TRUE(fs::is_directory(e.kept())) << e.what();
        }
        EXPECT_TRUE(observer.seen);
        pipeline::SimulateSettings resume = checkpointed(out);
        resume.resume = true;
        pipeline::simulate(scene, resume, quiet);
        expect_same_files(dir / "whole", out);
    }
}

TEST(ResumeAnywhere, ADamagedCheckpointIsRefusedAndThePartialRunKept) {
    ScratchDir dir;
    const Scene scene =
        load_scene(dir.write("box.json", box_scene_json(R"({"max_frequency": 300, "duration": 0.2,
            "band": "wave"})")));
    const fs::path out = dir / "out";
    std::atomic<bool> stop{false};
    StopAt observer;
    observer.at = "steps";
    observer.stop = &stop;
    EXPECT_THROW(pipeline::simulate(scene, checkpointed(out), observer, &stop),
                 pipeline::Cancelled);
    const fs::path state = dir / "out.tmp-partial" / "checkpoint" / "0.state";
    ASSERT_TRUE(fs::exists(state));
    {
        std::fstream f(state, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(static_cast<std::streamoff>(fs::file_size(state) / 2));
        f.put('\x5a');
    }
    pipeline::SimulateSettings resume = checkpointed(out);
    resume.resume = true;
    pipeline::SimulateObserver quiet;
    try {
        pipeline::simulate(scene, resume, quiet);
        ADD_FAILURE() << "a damaged checkpoint was loaded";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("is damaged (its checksum does not match)"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_TRUE(fs::exists(state));
    // Cut short, too.
    fs::resize_file(state, fs::file_size(state) - 100);
    EXPECT_THROW(pipeline::simulate(scene, resume, quiet), InputError);
    EXPECT_TRUE(fs::is_directory(dir / "out.tmp-partial"));
}

}  // namespace
}  // namespace ardent::test
