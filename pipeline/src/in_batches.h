// Independent per-item work (a receiver's or a listener-grid point's IRs) on worker threads, a
// batch at a time: after each batch the calling thread writes what must go in order, reports
// progress and checks for a stop, so that a stop or an error leaves at most one batch undone.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace ardent::pipeline {

// Worker threads for a `threads` setting (0: every core).
inline size_t worker_count(int threads) {
    return threads > 0 ? static_cast<size_t>(threads)
                       : std::max<size_t>(1, std::thread::hardware_concurrency());
}

// One batch, items [i0, i0 + count), spread over up to `workers` threads that start at once;
// join() waits for them and rethrows the first error of an item. The destructor waits too, so an
// error on the calling thread meanwhile leaves no thread running.
template <typename Body>
class BatchWorkers {
  public:
    BatchWorkers(Body& body, size_t i0, size_t count, size_t workers)
        : errors_(std::min(workers, count)) {
        const size_t used = errors_.size();
        for (size_t w = 0; w < used; ++w)
            pool_.emplace_back([this, &body, i0, count, used, w] {
                try {
                    for (size_t k = w; k < count; k += used)
                        body(i0 + k);
                } catch (...) {
                    errors_[w] = std::current_exception();
                }
            });
    }
    ~BatchWorkers() { wait(); }
    BatchWorkers(const BatchWorkers&) = delete;
    BatchWorkers& operator=(const BatchWorkers&) = delete;

    void join() {
        wait();
        for (auto& e : errors_)
            if (e) std::rethrow_exception(e);
    }

  private:
    void wait() {
        for (auto& t : pool_)
            if (t.joinable()) t.join();
    }
    std::vector<std::exception_ptr> errors_;  // before pool_: the threads write it
    std::vector<std::thread> pool_;
};

// body(i) for every i in [0, n), batches of `batch` items starting at multiples of it, each
// batch's items spread over `workers` threads; then after(begin, end) on the calling thread.
// The first exception of a batch is rethrown once its threads have joined.
template <typename Body, typename After>
void in_batches(size_t n, size_t workers, size_t batch, Body body, After after) {
    for (size_t i0 = 0; i0 < n; i0 += batch) {
        const size_t count = std::min(batch, n - i0);
        BatchWorkers<Body>(body, i0, count, workers).join();
        after(i0, i0 + count);
    }
}

// As in_batches, but after(begin, end) of a batch runs on the calling thread while the workers
// already do the next batch (its items must not touch what after() reads: e.g. alternate halves of
// a buffer of 2 * batch items). The listener grid's points: the file's writes in order no longer
// leave the workers idle. An error in after() is rethrown once the running batch has joined.
template <typename Body, typename After>
void in_batches_overlapped(size_t n, size_t workers, size_t batch, Body body, After after) {
    size_t done_begin = 0, done_end = 0;  // the batch done but not yet passed to after()
    for (size_t i0 = 0; i0 < n; i0 += batch) {
        const size_t count = std::min(batch, n - i0);
        BatchWorkers<Body> running(body, i0, count, workers);
        if (done_end > done_begin) after(done_begin, done_end);
        running.join();
        done_begin = i0;
        done_end = i0 + count;
    }
    if (done_end > done_begin) after(done_begin, done_end);
}

}  // namespace ardent::pipeline
