#include "ardent/distributed/mpi.h"
#include "ardent/preprocess/errors.h"

namespace ardent::distributed {

bool mpi_built() {
    return false;
}

std::unique_ptr<Communicator> mpi_world() {
    throw ResourceError(
        "this build of ardent has no MPI: install an MPI (Debian: libopenmpi-dev) and rebuild to "
        "run distributed");
}

void abort_all(int) {}

}  // namespace ardent::distributed
