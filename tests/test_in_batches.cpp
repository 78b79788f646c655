// The pipeline's batch runners (pipeline/src/in_batches.h), which the receivers' and the
// listener grid's writes use: every item done once, after() called in order on the calling thread
// with each batch complete, and an error in an item or in after() rethrown once the workers have
// joined, with no later batch passed on.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "in_batches.h"

namespace ardent::test {
namespace {

struct Case {
    size_t n, workers, batch;
};

class InBatches : public testing::TestWithParam<Case> {};

TEST_P(InBatches, OverlappedPassesEveryBatchInOrderOnceItsItemsAreDone) {
    const Case c = GetParam();
    std::vector<std::atomic<int>> done(c.n);
    std::vector<std::pair<size_t, size_t>> passed;
    const auto caller = std::this_thread::get_id();
    bool all_done = true, on_caller = true;
    pipeline::in_batches_overlapped(
        c.n, c.workers, c.batch, [&](size_t i) { ++done[i]; },
        [&](size_t begin, size_t end) {
            on_caller = on_caller && std::this_thread::get_id() == caller;
            for (size_t i = begin; i < end; ++i)
                all_done = all_done && done[i] == 1;
            passed.emplace_back(begin, end);
        });
    EXPECT_TRUE(all_done);
    EXPECT_TRUE(on_caller);
    for (size_t i = 0; i < c.n; ++i)
        EXPECT_EQ(done[i], 1) << i;
    size_t next = 0;
    for (const auto& [begin, end] : passed) {
        EXPECT_EQ(begin, next);
        EXPECT_EQ(end, std::min(begin + c.batch, c.n));
        next = end;
    }
    EXPECT_EQ(next, c.n);
}

INSTANTIATE_TEST_SUITE_P(Sizes, InBatches,
                         testing::Values(Case{0, 4, 8}, Case{1, 4, 8}, Case{8, 4, 8}, Case{9, 4, 8},
                                         Case{100, 3, 16}, Case{257, 16, 256}));

TEST(InBatchesErrors, AnItemsErrorStopsBeforeItsBatchIsPassedOn) {
    std::vector<size_t> passed;
    EXPECT_THROW(pipeline::in_batches_overlapped(
                     40, 2, 8,
                     [](size_t i) {
                         if (i == 20) throw std::runtime_error("item 20");
                     },
                     [&](size_t begin, size_t) { passed.push_back(begin); }),
                 std::runtime_error);
    // Batch 0 was passed on while 8 ran, 8 while 16 (item 20's) ran; 16 never was, nor any after.
    EXPECT_EQ(passed, (std::vector<size_t>{0, 8}));
}

TEST(InBatchesErrors, AnErrorInAfterIsRethrownOnceTheWorkersJoined) {
    std::atomic<size_t> items{0};
    EXPECT_THROW(pipeline::in_batches_overlapped(
                     40, 2, 8, [&](size_t) { ++items; },
                     [](size_t begin, size_t) {
                         if (begin == 8) throw std::runtime_error("after 8");
                     }),
                 std::runtime_error);
    EXPECT_EQ(items.load(), 24u);  // batches 0, 8 and 16 (the one running when 8 was passed on)
}

}  // namespace
}  // namespace ardent::test
