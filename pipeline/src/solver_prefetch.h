// The next source's solver, set up while the GPU steps this one's (docs/benchmarks.md, issue 21's
// four-source run): a solver's set-up is CPU work (its layout, mode tables and wall fits, 4-6 s
// for the Musikverein at 1650 Hz) that the GPU would otherwise wait for once per source. Only a
// GPU solve leaves the cores free for it, and only a single-process run (every rank of a
// distributed one builds its part together with the others).
#pragma once

#include <cstddef>
#include <future>
#include <memory>
#include <optional>

#include "ardent/preprocess/preprocess.h"
#include "ardent/solvers/solver.h"

namespace ardent {

class SolverPrefetch {
  public:
    // Starts building the solver of `source` (`options` with their source replaced) on another
    // thread; a solver already building is finished and dropped first.
    void start(const Preprocessed& p, SolverOptions options, size_t source);
    // The solver of `source`: the one built beforehand when it is that source's, else (or when
    // building it failed, as when the GPU's memory did not hold it beside the previous one) one
    // built now. `setup_s`: the
    // set-up's own time (the caller's wait for it is in its solve time).
    std::unique_ptr<Solver> take(const Preprocessed& p, SolverOptions options, size_t source,
                                 double& setup_s);
    ~SolverPrefetch();

  private:
    struct Built {
        std::unique_ptr<Solver> solver;
        double seconds = 0;
    };
    std::optional<size_t> source_;
    std::future<Built> job_;
};

}  // namespace ardent
