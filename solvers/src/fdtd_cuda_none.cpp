// The CUDA FDTD entry points of a build without CUDA (ARDENT_CUDA=OFF or no toolkit): asking for
// the backend is a ResourceError like a missing device.
#include <stdexcept>

#include "ardent/preprocess/errors.h"
#include "ardent/solvers/fdtd_cuda.h"

namespace ardent::fdtd {

std::unique_ptr<Solver> make_cuda_solver(const Preprocessed&, const SolverOptions&) {
    throw ResourceError(
        "simulation.device \"cuda\": this build of ardent has no CUDA backend; use \"cpu\" or "
        "\"auto\"");
}

size_t cuda_memory_bytes(const Preprocessed&, const SolverOptions&) {
    throw std::invalid_argument("cuda_memory_bytes: this build has no CUDA backend");
}

CudaFdtdProfile profile_cuda(Solver&, size_t) {
    throw std::invalid_argument("profile_cuda: this build has no CUDA backend");
}

}  // namespace ardent::fdtd
