// What the MPI launcher told this process through its environment; no MPI call, so the same with
// or without an MPI in the build.
#include <cstdlib>

#include "ardent/distributed/mpi.h"

namespace ardent::distributed {

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

}  // namespace ardent::distributed
