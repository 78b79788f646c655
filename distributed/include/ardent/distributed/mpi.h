// Starting and ending a distributed run over MPI: the world communicator as an ardent::Communicator
// (exchanges, sums, gathers on rank 0), whether this process was started by an MPI launcher, and
// aborting every rank when one fails (the others would wait for it forever). In a build without
// MPI, mpi_world() throws ResourceError saying so.
#pragma once

#include <memory>

#include "ardent/solvers/communicator.h"

namespace ardent::distributed {

// True when this build can run distributed.
bool mpi_built();

// The number of processes the launcher (mpirun, srun) started, from its environment; 1 when this
// process was not started by one. Needs no MPI call.
int launched_ranks();

// This process's index among the ranks on its node (the launcher's OMPI_COMM_WORLD_LOCAL_RANK,
// MPI_LOCALRANKID or SLURM_LOCALID), for choosing its GPU; 0 when none is set.
int local_rank();

// MPI_COMM_WORLD, initialising MPI on the first call (finalised when the last handle goes).
std::unique_ptr<Communicator> mpi_world();

// Ends every rank of the run with `code` (MPI_Abort). Returns only without MPI.
void abort_all(int code);

}  // namespace ardent::distributed
