// The CUDA ARD backend's entry points beyond the Solver interface: whether this build has the
// backend and a GPU is present, the GPU memory a run needs (checked before anything is
// allocated), and the per-stage timing the benchmark reports (spec section 7). In a build
// without CUDA every query answers "no GPU" and the solver factory throws ResourceError, so
// callers need no #ifdef.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "ardent/preprocess/preprocess.h"
#include "ardent/solvers/solver.h"

namespace ardent::ard {

// True when this build has the CUDA backend and at least one CUDA device can be used. When it
// is false, `why` (if given) says why in a sentence.
bool cuda_available(std::string* why = nullptr);

// Builds the CUDA ARD solver; throws ResourceError without a GPU or when the run's estimated GPU
// memory exceeds what is free (the message gives the estimate and the largest max_frequency that
// fits).
std::unique_ptr<Solver> make_cuda_solver(const Preprocessed& p, const SolverOptions& options);

// One stage of a time step as the benchmark sees it: mean time per step and the bytes the stage
// must move at the least (each array it reads and writes once).
struct CudaStage {
    std::string name;
    double seconds_per_step = 0;
    double bytes_per_step = 0;
};

// Runs `steps` steps of a CUDA solver made by make_cuda_solver() stage by stage with events
// between the stages (no graph) and returns the stages in order. Throws std::invalid_argument
// for any other solver.
std::vector<CudaStage> profile_cuda_stages(Solver& solver, size_t steps);

// A CUDA solver's set-up, phase by phase in order (the device, the layout, then the constructor's
// parts), for the benchmark. Throws std::invalid_argument for any other solver.
struct SetupPhase {
    std::string name;
    double seconds = 0;
};
std::vector<SetupPhase> cuda_setup_phases(const Solver& solver);

// Device-to-device cudaMemcpy bandwidth in bytes/s (read plus write counted), for the
// benchmark's "fraction of copy bandwidth".
double measure_copy_bandwidth();

}  // namespace ardent::ard
