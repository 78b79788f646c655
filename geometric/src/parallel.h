// Static split of [0, n) into `threads` contiguous ranges run on their own threads (the caller's
// thread runs the first): each range's result is then combined in range order, so a run is
// repeatable for a given thread count.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace ardent::geometric {

inline int thread_count(int requested) {
    if (requested > 0) return requested;
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

// body(begin, end, t) for t = 0 .. threads - 1; rethrows the first exception.
template <typename F>
void parallel_ranges(size_t n, int threads, F body) {
    const size_t t_count = std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(threads), n));
    std::vector<std::exception_ptr> errors(t_count);
    const auto run = [&](size_t t) {
        try {
            body(n * t / t_count, n * (t + 1) / t_count, static_cast<int>(t));
        } catch (...) {
            errors[t] = std::current_exception();
        }
    };
    std::vector<std::thread> pool;
    for (size_t t = 1; t < t_count; ++t)
        pool.emplace_back(run, t);
    run(0);
    for (auto& th : pool)
        th.join();
    for (auto& e : errors)
        if (e) std::rethrow_exception(e);
}

}  // namespace ardent::geometric
