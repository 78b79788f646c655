#include <cstdio>

#include "ard_cpu.h"
#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/estimate.h"
#include "ardent/solvers/solver.h"

namespace ardent {

std::unique_ptr<Solver> make_solver(const Preprocessed& p, const SolverOptions& options) {
    const SimulationSettings& sim = p.scene.simulation;
    if (options.source >= p.air.sources.size())
        throw InputError("make_solver: source index " + std::to_string(options.source) +
                         " out of range");
    if (sim.solver == "fdtd")
        throw InputError(
            p.scene.display_name() +
            ": simulation.solver: the FDTD solver is not available in this version; use \"ard\"");
    if (sim.device == "cuda")
        throw ResourceError(
            "simulation.device \"cuda\": this build of ardent has no CUDA backend; use "
            "\"cpu\" or \"auto\"");
    const ResourceEstimate e = p.estimate();
    const double need =
        options.precision == Precision::Float64 ? 2 * e.memory_ard_cpu : e.memory_ard_cpu;
    const double have = static_cast<double>(available_memory_bytes());
    if (have > 0 && need > 0.9 * have) {
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      "the ARD solver needs about %.1f GB and %.1f GB is available; lower "
                      "simulation.max_frequency to at most %.0f Hz",
                      need / 1e9, have / 1e9, sim.max_frequency * std::cbrt(0.9 * have / need));
        throw ResourceError(p.scene.display_name() + ": " + buf);
    }
    return ard::make_cpu_solver(p, options);
}

}  // namespace ardent
