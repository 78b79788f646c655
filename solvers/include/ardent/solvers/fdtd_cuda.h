// The CUDA FDTD backend's entry points beyond the Solver interface: the solver factory (GPU memory
// estimated and checked before anything is allocated), the GPU memory a run would need, and the
// per-kernel timing the benchmark reports against the device's copy bandwidth (spec section 7).
// Whether a GPU is usable is ard::cuda_available() (ard_cuda.h), shared by both CUDA backends. In
// a build without CUDA the factory throws ResourceError like a missing device, so callers need no
// #ifdef.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "ardent/preprocess/preprocess.h"
#include "ardent/solvers/ard_cuda.h"
#include "ardent/solvers/solver.h"

namespace ardent::fdtd {

// Builds the CUDA FDTD solver; throws ResourceError without a GPU or when the run's GPU memory
// exceeds what is free (the message gives the estimate and the largest max_frequency that fits).
std::unique_ptr<Solver> make_cuda_solver(const Preprocessed& p, const SolverOptions& options);

// Bytes of GPU memory make_cuda_solver() would allocate for this scene and options.
size_t cuda_memory_bytes(const Preprocessed& p, const SolverOptions& options);

// What one time step of a CUDA FDTD solver costs, kernel by kernel (events between kernels, no
// graph), and the cells and least bytes each kernel moves (every array read or written once).
struct CudaFdtdProfile {
    std::vector<ard::CudaStage> stages;  // interior, boundary, sampling and source
    size_t interior_cells = 0;           // interior air cells updated per step
    size_t swept_cells = 0;  // cells the interior kernel visits (its z-ranges, padding included)
    size_t boundary_cells = 0;
};

// Runs `steps` steps of a solver made by make_cuda_solver() kernel by kernel. Throws
// std::invalid_argument for any other solver.
CudaFdtdProfile profile_cuda(Solver& solver, size_t steps);

}  // namespace ardent::fdtd
