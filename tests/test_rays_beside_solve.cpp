// The full band's rays traced beside a GPU solve (pipeline/src/full_band.h, RaysBesideSolve),
// checked on the CPU, where `simulate` never uses it: the same IRs as the geometric stage run in
// line, its progress and warnings delivered on the caller's thread in take(), a stop that ends the
// rays early, and an object dropped without take() (a failed solve) that does not hang.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "ardent/preprocess/preprocess.h"
#include "ardent/preprocess/scene_parser.h"
#include "full_band.h"
#include "test_support.h"

namespace ardent::test {
namespace {

// Counts what reaches the observer, and on which thread.
struct Recorder final : pipeline::SimulateObserver {
    std::thread::id thread;
    int begins = 0, ends = 0, stops = 0, off_thread = 0;
    size_t last_done = 0, rays = 0;
    void check() { off_thread += std::this_thread::get_id() != thread; }
    void geometric_begin(const std::string&, size_t n) override {
        check();
        ++begins;
        rays = n;
    }
    void geometric_progress(size_t done) override {
        check();
        last_done = done;
    }
    void geometric_end() override {
        check();
        ++ends;
    }
    void geometric_stopped() override {
        check();
        ++stops;
    }
};

Preprocessed room(const ScratchDir& dir) {
    const auto file = dir.write(
        "s.json", box_scene_json(R"({"max_frequency": 300, "duration": 0.4, "band": "full"},
          "listener_grid": {"every": 4})"));
    return preprocess(load_scene(file));
}

TEST(RaysBesideSolve, GivesTheInLineStagesIrsAndReportsOnTheCallersThread) {
    ScratchDir dir;
    const Preprocessed p = room(dir);
    pipeline::FullBand in_line(p, 2), beside_full(p, 2);
    pipeline::SimulateObserver quiet;
    const auto expected = in_line.run(0, quiet, nullptr);
    const auto expected_grid = in_line.grid(0, quiet, nullptr);
    ASSERT_TRUE(expected && expected_grid);

    Recorder rec;
    rec.thread = std::this_thread::get_id();
    pipeline::RaysBesideSolve beside(beside_full, 0, true);
    const auto got = beside.take(rec, nullptr);
    ASSERT_TRUE(got);
    ASSERT_TRUE(got->grid);
    EXPECT_EQ(got->receivers, *expected);  // bit for bit: same seeds, same thread count
    EXPECT_EQ(got->grid->energy, expected_grid->energy);
    std::printf("stages begun %d, ended %d, last progress %zu of %zu rays, %d calls off thread\n",
                rec.begins, rec.ends, rec.last_done, rec.rays, rec.off_thread);
    EXPECT_GE(rec.begins, 1);
    EXPECT_EQ(rec.ends, rec.begins);
    EXPECT_EQ(rec.stops, 0);
    EXPECT_EQ(rec.last_done, rec.rays);  // the last stage's rays, all of them
    EXPECT_EQ(rec.off_thread, 0);
    EXPECT_GE(beside.waited_s(), 0.0);
}

TEST(RaysBesideSolve, StopsWhenAskedAndCanBeDroppedUntaken) {
    ScratchDir dir;
    const Preprocessed p = room(dir);
    {
        pipeline::FullBand full(p, 2);
        std::atomic<bool> stop{true};
        Recorder rec;
        rec.thread = std::this_thread::get_id();
        pipeline::RaysBesideSolve beside(full, 0, true);
        EXPECT_FALSE(beside.take(rec, &stop));
    }
    // A solve that fails drops the object without take(): its destructor stops the rays.
    const auto t0 = std::chrono::steady_clock::now();
    {
        pipeline::FullBand full(p, 2);
        pipeline::RaysBesideSolve beside(full, 0, true);
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("dropped untaken after %.3f s\n", s);
    EXPECT_LT(s, 60);
}

}  // namespace
}  // namespace ardent::test
