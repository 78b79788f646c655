// pipeline::simulate(), the run both front ends share: the observer sees the stages, each
// source's steps and live pressure slices through the source normal to the up axis; a stop
// request ends in Cancelled with nothing left behind; the results are those `ardent simulate`
// writes (the CLI's own tests cover the files).
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "ardent/pipeline/simulate.h"
#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/preprocess.h"
#include "ardent/preprocess/scene_parser.h"
#include "test_support.h"

namespace ardent::test {
namespace {

namespace fs = std::filesystem;

struct Recorder : pipeline::SimulateObserver {
    std::vector<std::string> stages;
    std::vector<std::string> sources;
    size_t total = 0, last = 0, begins = 0, ends = 0, stops = 0, progress_calls = 0;
    bool monotonic = true;
    std::vector<pipeline::PressureSlice> slices;
    std::atomic<bool>* stop_after_first = nullptr;

    void stage(const std::string& text) override { stages.push_back(text); }
    void source_begin(const std::string& name, size_t index, size_t count, size_t total_steps,
                      size_t steps_done) override {
        sources.push_back(name + " " + std::to_string(index) + "/" + std::to_string(count));
        total = total_steps;
        last = steps_done;
        ++begins;
    }
    void progress(size_t steps_done) override {
        monotonic = monotonic && steps_done >= last;
        last = steps_done;
        ++progress_calls;
        if (stop_after_first) stop_after_first->store(true);
    }
    void source_end() override { ++ends; }
    void source_stopped() override { ++stops; }
    bool want_slice() override { return true; }
    void slice(const pipeline::PressureSlice& s) override { slices.push_back(s); }
};

Scene box_scene(const ScratchDir& dir) {
    return load_scene(
        dir.write("box.json", box_scene_json(R"({"max_frequency": 300, "duration": 0.2})")));
}

TEST(Pipeline, ReportsStagesProgressAndSlicesThroughTheSource) {
    ScratchDir dir;
    const Scene scene = box_scene(dir);
    pipeline::SimulateSettings settings;
    settings.output = dir / "out.ardent";
    settings.threads = 1;
    Recorder rec;
    const pipeline::SimulateResult r = pipeline::simulate(scene, settings, rec);

    EXPECT_EQ(r.directory, settings.output);
    EXPECT_TRUE(fs::is_regular_file(settings.output / "result.json"));
    ASSERT_EQ(r.ir_files.size(), 1u);
    EXPECT_TRUE(fs::is_regular_file(settings.output / r.ir_files[0]));
    EXPECT_TRUE(r.grid_files.empty());
    EXPECT_GT(r.seconds, 0);

    // A full-band run (the default) traces rays between the solve and the write.
    ASSERT_GE(rec.stages.size(), 3u);
    EXPECT_EQ(rec.stages[0], "Preprocessing " + scene.display_name() + " ...");
    EXPECT_EQ(rec.stages[1], "Tracing rays from S1 ...");
    EXPECT_EQ(rec.stages[2], "Writing S1 ...");
    ASSERT_EQ(rec.sources.size(), 1u);
    EXPECT_EQ(rec.sources[0], "S1 0/1");
    EXPECT_EQ(rec.ends, 1u);
    EXPECT_EQ(rec.stops, 0u);
    EXPECT_TRUE(rec.monotonic);
    EXPECT_EQ(rec.last, rec.total);

    // Every chunk offered a slice (the observer always wants one).
    ASSERT_GE(rec.slices.size(), 1u);
    EXPECT_EQ(rec.slices.size(), rec.progress_calls);
    const Preprocessed p = preprocess(scene);
    const Grid& g = p.air.grid;
    const Index3 src = p.air.sources[0].cell;
    size_t previous = 0;
    for (const pipeline::PressureSlice& s : rec.slices) {
        EXPECT_EQ(s.axis, 2);  // the box's up axis is z
        EXPECT_EQ(s.index, src[2]);
        EXPECT_EQ(s.width, g.dims[0]);
        EXPECT_EQ(s.height, g.dims[1]);
        ASSERT_EQ(s.values.size(), static_cast<size_t>(s.width) * static_cast<size_t>(s.height));
        EXPECT_DOUBLE_EQ(s.cell_size, g.h);
        const Vec3 o = g.centre({0, 0, src[2]});
        EXPECT_DOUBLE_EQ(s.origin.x, o.x);
        EXPECT_DOUBLE_EQ(s.origin.y, o.y);
        EXPECT_DOUBLE_EQ(s.origin.z, o.z);
        EXPECT_EQ(s.source, "S1");
        EXPECT_GT(s.step, previous);
        previous = s.step;
        EXPECT_GT(s.time_s, 0);
        const size_t at_source = static_cast<size_t>(src[1]) * static_cast<size_t>(s.width) +
                                 static_cast<size_t>(src[0]);
        EXPECT_FALSE(std::isnan(s.values[at_source]));
        EXPECT_TRUE(std::isnan(s.values[0]));  // the corner cell is wall
    }
    // The slices move: the field is not silent once the source fired.
    double peak = 0;
    for (float v : rec.slices.back().values)
        if (!std::isnan(v)) peak = std::max(peak, std::abs(static_cast<double>(v)));
    EXPECT_GT(peak, 0);
}

TEST(Pipeline, StopLeavesNothingBehind) {
    ScratchDir dir;
    const Scene scene = box_scene(dir);
    pipeline::SimulateSettings settings;
    settings.output = dir / "out.ardent";
    settings.threads = 1;
    std::atomic<bool> stop{false};
    Recorder rec;
    rec.stop_after_first = &stop;
    try {
        pipeline::simulate(scene, settings, rec, &stop);
        FAIL() << "simulate() returned after a stop request";
    } catch (const pipeline::Cancelled& e) {
        EXPECT_TRUE(e.kept().empty());
        EXPECT_STREQ(e.what(), "interrupted; nothing was written");
    }
    EXPECT_EQ(rec.stops, 1u);
    EXPECT_EQ(rec.ends, 0u);
    EXPECT_EQ(dir.listing(), "box.json\n");
}

TEST(Pipeline, StopKeepsACheckpointedRunForResume) {
    ScratchDir dir;
    const Scene scene = box_scene(dir);
    pipeline::SimulateSettings settings;
    settings.output = dir / "out.ardent";
    settings.threads = 1;
    settings.checkpoint_every = 50;
    std::atomic<bool> stop{false};
    Recorder rec;
    rec.stop_after_first = &stop;
    try {
        pipeline::simulate(scene, settings, rec, &stop);
        FAIL() << "simulate() returned after a stop request";
    } catch (const pipeline::Cancelled& e) {
        EXPECT_EQ(e.kept(), dir / "out.ardent.tmp-partial");
        EXPECT_TRUE(fs::is_directory(e.kept()));
    }
    settings.resume = true;
    Recorder again;
    const pipeline::SimulateResult r = pipeline::simulate(scene, settings, again);
    EXPECT_TRUE(fs::is_regular_file(r.directory / "result.json"));
    EXPECT_FALSE(fs::exists(dir / "out.ardent.tmp-partial"));
    ASSERT_EQ(again.begins, 1u);
}

TEST(Pipeline, RefusesAnExistingOutputAndAMissingOne) {
    ScratchDir dir;
    const Scene scene = box_scene(dir);
    pipeline::SimulateSettings settings;
    Recorder rec;
    EXPECT_THROW(pipeline::simulate(scene, settings, rec), InputError);
    settings.output = dir / "taken";
    fs::create_directories(settings.output);
    EXPECT_THROW(pipeline::simulate(scene, settings, rec), InputError);
    EXPECT_TRUE(rec.stages.empty());
}

}  // namespace
}  // namespace ardent::test
