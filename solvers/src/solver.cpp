#include "ardent/solvers/solver.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "checkpoint_io.h"

namespace ardent {

void Solver::check_field(bool injects) {
    const double e = field_energy();
    const std::string when =
        std::to_string(step_) + " (t = " + std::to_string(static_cast<double>(step_) * dt_) + " s)";
    if (!std::isfinite(e))
        throw SolverError("the pressure field became NaN or infinite at step " + when);
    const bool source_on = injects && static_cast<double>(step_) * dt_ <= 2 * excitation_.delay();
    if (source_on || peak_energy_ == 0)
        peak_energy_ = std::max(peak_energy_, e);
    else if (e > 1e3 * peak_energy_)
        throw SolverError("the pressure field grew without bound by step " + when +
                          ": the run is numerically unstable");
}

void Solver::save_signals(std::ostream& out) const {
    for (const auto& r : receivers_) {
        checkpoint::write_pod(out, r.size());
        checkpoint::write_array(out, r.data(), r.size());
    }
    for (const auto& g : grid_signals_) {
        checkpoint::write_pod(out, g.size());
        checkpoint::write_array(out, g.data(), g.size());
    }
}

void Solver::load_signals(std::istream& in) {
    for (auto& r : receivers_) {
        r.resize(checkpoint::read_pod<size_t>(in));
        checkpoint::read_array(in, r.data(), r.size());
    }
    for (auto& g : grid_signals_) {
        g.resize(checkpoint::read_pod<size_t>(in));
        checkpoint::read_array(in, g.data(), g.size());
    }
}

}  // namespace ardent
