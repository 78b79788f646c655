// The CUDA entry points of a build without CUDA (ARDENT_CUDA=OFF or no toolkit): no GPU is ever
// available, and asking for the backend is a ResourceError like a missing device.
#include <stdexcept>

#include "ardent/preprocess/errors.h"
#include "ardent/solvers/ard_cuda.h"

namespace ardent::ard {

bool cuda_available(std::string* why) {
    if (why) *why = "this build of ardent has no CUDA backend";
    return false;
}

std::unique_ptr<Solver> make_cuda_solver(const Preprocessed&, const SolverOptions&) {
    throw ResourceError(
        "simulation.device \"cuda\": this build of ardent has no CUDA backend; use \"cpu\" or "
        "\"auto\"");
}

std::vector<CudaStage> profile_cuda_stages(Solver&, size_t) {
    throw std::invalid_argument("profile_cuda_stages: this build has no CUDA backend");
}

std::vector<SetupPhase> cuda_setup_phases(const Solver&) {
    throw std::invalid_argument("cuda_setup_phases: this build has no CUDA backend");
}

double measure_copy_bandwidth() {
    throw std::invalid_argument("measure_copy_bandwidth: this build has no CUDA backend");
}

}  // namespace ardent::ard
