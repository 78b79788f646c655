// The ARD backend on the CPU: FFTW DCTs per partition (plans shared by all partitions of a shape,
// wisdom cached on disk), OpenMP over partitions and interface lines, float32 or float64.
#pragma once

#include <memory>

#include "ardent/solvers/solver.h"

namespace ardent::ard {

std::unique_ptr<Solver> make_cpu_solver(const Preprocessed& p, const SolverOptions& options);

}  // namespace ardent::ard
