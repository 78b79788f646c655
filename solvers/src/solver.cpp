#include "ardent/solvers/solver.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

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

void Solver::expect_steps(size_t total) {
    settle_signals();
    for (auto& r : receivers_)
        r.reserve(total);
    for (auto& g : grid_signals_)
        g.reserve(total);
}

const std::vector<int64_t>& Solver::plane_cells(const Grid& grid, int axis, int index,
                                                const std::function<int64_t(size_t)>& storage,
                                                bool* rebuilt) const {
    if (axis < 0 || axis > 2 || index < 0 || index >= grid.dims[static_cast<size_t>(axis)])
        throw std::invalid_argument("pressure_plane: plane " + std::to_string(index) +
                                    " along axis " + std::to_string(axis) + " is outside the grid");
    if (rebuilt) *rebuilt = false;
    if (axis == plane_axis_ && index == plane_index_) return plane_cells_;
    const int u = axis == 0 ? 1 : 0, v = axis == 2 ? 1 : 2;
    const int nu = grid.dims[static_cast<size_t>(u)], nv = grid.dims[static_cast<size_t>(v)];
    plane_cells_.resize(static_cast<size_t>(nu) * static_cast<size_t>(nv));
    Index3 c{0, 0, 0};
    c[static_cast<size_t>(axis)] = index;
    size_t k = 0;
    for (int j = 0; j < nv; ++j)
        for (int i = 0; i < nu; ++i) {
            c[static_cast<size_t>(u)] = i;
            c[static_cast<size_t>(v)] = j;
            plane_cells_[k++] = storage(grid.index(c));
        }
    plane_axis_ = axis;
    plane_index_ = index;
    if (rebuilt) *rebuilt = true;
    return plane_cells_;
}

void Solver::save_signals(std::ostream& out) const {
    settle_signals();
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
    gathered_ = step_;
}

void Solver::gather_signals(Communicator& comm) {
    settle_signals();
    const size_t n = step_ - gathered_;
    gathered_ = step_;
    if (n == 0) return;
    // Each signal's last n samples; in blocks of rows so that the buffer stays small.
    auto gather = [&](auto& signals) {
        using T = typename std::decay_t<decltype(signals)>::value_type::value_type;
        const size_t rows = std::max<size_t>(1, (size_t{32} << 20) / (n * sizeof(T)));
        std::vector<T> buf;
        for (size_t r0 = 0; r0 < signals.size(); r0 += rows) {
            const size_t r1 = std::min(signals.size(), r0 + rows);
            buf.resize((r1 - r0) * n);
            for (size_t r = r0; r < r1; ++r)
                std::copy(signals[r].end() - static_cast<long>(n), signals[r].end(),
                          buf.begin() + static_cast<long>((r - r0) * n));
            comm.sum_to_root(buf.data(), buf.size());
            for (size_t r = r0; r < r1; ++r) {
                if (comm.root())
                    std::copy_n(buf.begin() + static_cast<long>((r - r0) * n), n,
                                signals[r].end() - static_cast<long>(n));
                else
                    signals[r].clear();
            }
        }
    };
    gather(receivers_);
    gather(grid_signals_);
}

}  // namespace ardent
