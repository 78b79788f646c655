// The stop of a run (Ctrl-C, the editor's Stop): where simulate() or a stage it runs sees the
// stop flag raised, it throws Interrupted, which simulate() turns into Cancelled once the results
// directory is gone or kept.
#pragma once

#include <atomic>

namespace ardent::pipeline {

struct Interrupted {};

// The stop flag was raised (null: never).
inline bool stopped(const std::atomic<bool>* stop) {
    return stop && stop->load();
}

inline void stop_point(const std::atomic<bool>* stop) {
    if (stopped(stop)) throw Interrupted{};
}

}  // namespace ardent::pipeline
