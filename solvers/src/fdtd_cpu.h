// The FDTD fallback on the CPU: the 7-point leapfrog scheme on the scene's voxel grid (Courant
// number 1/sqrt(3)), two pressure arrays updated in place, interior air cells in contiguous x-runs
// (vectorised, OpenMP over runs) and boundary cells from an index list with their locally reacting
// wall update (fdtd_physics.h). float32 or float64.
#pragma once

#include <memory>

#include "ardent/solvers/solver.h"

namespace ardent::fdtd {

std::unique_ptr<Solver> make_cpu_solver(const Preprocessed& p, const SolverOptions& options);

}  // namespace ardent::fdtd
