#include <cstdlib>

#include "ardent/distributed/mpi.h"
#include "ardent/preprocess/errors.h"

namespace ardent::distributed {

bool mpi_built() {
    return false;
}

int local_rank() {
    for (const char* v : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"})
        if (const char* s = std::getenv(v); s && *s) return std::atoi(s);
    return 0;
}

int launched_ranks() {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_NTASKS"})
        if (const char* s = std::getenv(v); s && std::atoi(s) > 0) return std::atoi(s);
    return 1;
}

std::unique_ptr<Communicator> mpi_world() {
    throw ResourceError(
        "this build of ardent has no MPI: install an MPI (Debian: libopenmpi-dev) and rebuild to "
        "run distributed");
}

void abort_all(int) {}

}  // namespace ardent::distributed
