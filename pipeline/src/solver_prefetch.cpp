#include "solver_prefetch.h"

#include <chrono>
#include <exception>
#include <utility>

namespace ardent {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

void SolverPrefetch::start(const Preprocessed& p, SolverOptions options, size_t source) {
    if (job_.valid()) job_.wait();
    options.source = source;
    source_ = source;
    job_ = std::async(std::launch::async, [&p, options] {
        const auto t0 = std::chrono::steady_clock::now();
        Built b;
        b.solver = make_solver(p, options);
        b.seconds = seconds_since(t0);
        return b;
    });
}

std::unique_ptr<Solver> SolverPrefetch::take(const Preprocessed& p, SolverOptions options,
                                             size_t source, double& setup_s) {
    if (job_.valid() && source_ == source) {
        source_.reset();
        try {
            Built b = job_.get();
            setup_s = b.seconds;
            return std::move(b.solver);
        } catch (const std::exception&) {
            // Most likely two solvers did not fit the GPU's memory together (its estimate, or an
            // allocation); the previous one is gone now. Any other failure comes back below.
        }
    } else if (job_.valid()) {
        job_.wait();  // another source's: not wanted (the run skipped ahead)
        job_ = {};
        source_.reset();
    }
    const auto t0 = std::chrono::steady_clock::now();
    options.source = source;
    auto solver = make_solver(p, options);
    setup_s = seconds_since(t0);
    return solver;
}

SolverPrefetch::~SolverPrefetch() {
    if (job_.valid()) job_.wait();  // its solver is dropped with the future
}

}  // namespace ardent
