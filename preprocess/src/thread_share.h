// The calling OpenMP thread's share of a range, for loops that give each thread one contiguous
// slab (so no two threads write one cell, and a serial pass can stitch the slabs' seams).
#pragma once

#ifdef _OPENMP
#include <omp.h>
#endif

#include <cstddef>
#include <utility>

namespace ardent {

// The calling thread's share [lo, hi) of n items (all of them outside a parallel region).
inline std::pair<size_t, size_t> thread_share(size_t n) {
#ifdef _OPENMP
    const size_t nth = static_cast<size_t>(omp_get_num_threads());
    const size_t tid = static_cast<size_t>(omp_get_thread_num());
#else
    const size_t nth = 1, tid = 0;
#endif
    return {n * tid / nth, n * (tid + 1) / nth};
}
inline std::pair<int, int> thread_share(int n) {
    const auto [lo, hi] = thread_share(static_cast<size_t>(n));
    return {static_cast<int>(lo), static_cast<int>(hi)};
}

// Threads a parallel region will have, and the calling thread's number within it.
inline int max_threads() {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}
inline int thread_number() {
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

}  // namespace ardent
