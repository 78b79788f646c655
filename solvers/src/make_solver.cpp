#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ard_cpu.h"
#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/estimate.h"
#include "ardent/solvers/ard_cuda.h"
#include "ardent/solvers/fdtd_cuda.h"
#include "ardent/solvers/solver.h"
#include "fdtd_cpu.h"

namespace ardent {

void check_memory(const Preprocessed& p, const SolverOptions& options) {
    const auto& sim = p.scene.simulation;
    if (sim.device == "cuda") return;  // GPU memory is the CUDA backend's to check
    const ResourceEstimate e = p.estimate();
    const bool fdtd = sim.solver == "fdtd";
    // An FDTD scene's grid is already at FDTD resolution, so its own cells and time step count:
    // the estimate's FDTD figures assume a grid at ARD's resolution and would shrink h once more
    // (the 512^3 benchmark box came out at 67 GB instead of 1.2 GB).
    const double dt = fdtd ? fdtd_time_step(p.air.grid.h, sim.speed_of_sound) : e.dt_ard;
    // One source runs at a time: its recorded signals (the receivers and the listener grid, their
    // cells and the cells next to them) grow with the duration; the rest is the fields.
    // The outputs at the output rate too (the delivered IRs, the geometric stage's).
    const double outputs = e.signal_bytes_per_step * std::ceil(sim.duration / dt) + e.output_bytes;
    // FDTD: two pressure arrays and about a byte of tables per grid cell (as the estimate counts).
    const double fixed = fdtd ? kProcessBaseBytes + 9.0 * static_cast<double>(p.air.grid.count())
                              : e.memory_ard_cpu -
                                    e.signal_bytes_per_step * std::ceil(sim.duration / e.dt_ard) -
                                    e.output_bytes;
    const double precision = options.precision == Precision::Float64 ? 2.0 : 1.0;
    const double fields = precision * std::max(0.0, fixed);
    const double need = fields + outputs;
    const double have = static_cast<double>(available_memory_bytes());
    if (have <= 0 || need <= 0.9 * have) return;
    std::string advice;
    if (outputs > fields) {
        // The recorded signals dominate: they grow with the duration.
        const double room = 0.9 * have - fields;
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.3g", sim.duration * std::max(0.0, room) / outputs * 0.98);
        advice = room > 0
                     ? std::string("Shorten the duration to at most ") + buf +
                           " s, use a coarser listener grid, or use a machine with more memory."
                     : std::string("Use a machine with more memory.");
    } else {
        // Fields grow as f_max^3 (cells), the recorded signals as f_max (steps): f^3 bounds it.
        const double fit = sim.max_frequency * std::cbrt(0.9 * have / need) * 0.98;
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.0f", std::floor(fit));
        advice = std::string("Lower the maximum frequency to at most ") + buf +
                 " Hz (--max-frequency), or use a machine with more memory.";
    }
    throw ResourceError(p.scene.display_name() + ": the " + sim.solver + " solver needs about " +
                        format_bytes(need) + " for this scene and " + format_bytes(have) +
                        " is available. " + advice);
}

std::unique_ptr<Solver> make_solver(const Preprocessed& p, const SolverOptions& options) {
    const SimulationSettings& sim = p.scene.simulation;
    if (options.source >= p.air.sources.size())
        throw InputError("make_solver: source index " + std::to_string(options.source) +
                         " out of range");
    // "auto" takes the GPU when one is usable; the CUDA backends check GPU memory themselves.
    const bool gpu = sim.device == "cuda" || (sim.device == "auto" && ard::cuda_available());
    if (options.comm && options.comm->size() > 1 && sim.solver == "fdtd")
        throw InputError(p.scene.display_name() +
                         ": a distributed run needs the ARD solver (simulation.solver \"ard\"); "
                         "FDTD runs in one process");
    if (sim.solver == "fdtd") {
        if (gpu) return fdtd::make_cuda_solver(p, options);
        check_memory(p, options);
        return fdtd::make_cpu_solver(p, options);
    }
    if (gpu) return ard::make_cuda_solver(p, options);
    check_memory(p, options);
    return ard::make_cpu_solver(p, options);
}

}  // namespace ardent
