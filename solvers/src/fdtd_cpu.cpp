#include "fdtd_cpu.h"

#include <algorithm>
#include <cmath>
#include <istream>
#include <limits>
#include <ostream>
#include <string>

#include <omp.h>

#include "ardent/preprocess/errors.h"
#include "ardent/solvers/fdtd_physics.h"
#include "checkpoint_io.h"
#include "fdtd_layout.h"

namespace ardent::fdtd {
namespace {

// Interior cells in contiguous x-runs (never across a row: a row's ends are not air), found per
// slab of z planes on all cores and joined in order.
struct InteriorRun {
    size_t start, length;
};
std::vector<InteriorRun> interior_runs(const AirModel& air) {
    const Grid& g = air.grid;
    const int slabs = std::min(g.dims[2], 4 * omp_get_max_threads());
    std::vector<std::vector<InteriorRun>> slab(static_cast<size_t>(slabs));
#pragma omp parallel for schedule(dynamic)
    for (int n = 0; n < slabs; ++n)
        for (int k = g.dims[2] * n / slabs; k < g.dims[2] * (n + 1) / slabs; ++k)
            for (int j = 0; j < g.dims[1]; ++j) {
                size_t start = 0, length = 0;
                for (int i = 0; i <= g.dims[0]; ++i) {
                    const size_t idx = i < g.dims[0] ? g.index(i, j, k) : 0;
                    if (i < g.dims[0] && is_interior(air, idx)) {
                        if (length++ == 0) start = idx;
                    } else if (length > 0) {
                        slab[static_cast<size_t>(n)].push_back({start, length});
                        length = 0;
                    }
                }
            }
    std::vector<InteriorRun> out;
    for (const auto& runs : slab)
        out.insert(out.end(), runs.begin(), runs.end());
    return out;
}

template <typename Real>
class FdtdCpu final : public Solver {
  public:
    FdtdCpu(const Preprocessed& p, const SolverOptions& o) : grid_(p.air.grid) {
        const FdtdLayout L =
            build_fdtd_layout(p, o.source, o.listener_grid, o.inject_source, o.receiver_gradients);
        const Grid& g = grid_;
        threads_ = o.threads > 0 ? o.threads : omp_get_max_threads();
        dt_ = L.dt;
        excitation_ = L.excitation;
        lambda2_ = static_cast<Real>(L.lambda * L.lambda);
        for (double f : L.forcing)
            forcing_.push_back(static_cast<Real>(f));
        boundary_ = L.boundary;
        for (const BoundaryCoefficients& b : L.coefficients)
            coef_.push_back({static_cast<Real>(b.air_neighbours), static_cast<Real>(b.gain),
                             static_cast<Real>(b.loss), b.groups_begin,
                             b.groups_end - b.groups_begin, b.terms_begin, b.blocked});
        lambda_ = static_cast<Real>(L.lambda);
        for (const walls::BranchCoefficients<double>& b : L.branches)
            branches_.push_back(b.as<Real>());
        group_first_ = L.group_first;
        group_count_ = L.group_count;
        group_faces_.assign(L.group_faces.begin(), L.group_faces.end());
        branch_s_.assign(L.terms, Real(0));
        branch_v_.assign(L.terms, Real(0));

        const size_t n = g.count();
        p_.assign(n, Real(0));
        prev_.assign(n, Real(0));
        runs_ = interior_runs(p.air);
        offsets_[0] = 1;
        offsets_[1] = static_cast<size_t>(g.dims[0]);
        offsets_[2] = static_cast<size_t>(g.dims[0]) * static_cast<size_t>(g.dims[1]);
        source_ = L.source;
        receiver_cells_ = L.receivers;
        receivers_.assign(receiver_cells_.size(), {});
        grid_cells_ = L.grid_cells;
        grid_positions_ = L.grid_positions;
        grid_signals_.assign(grid_cells_.size(), {});
    }

    std::string name() const override {
        return std::string("fdtd-cpu-") + (sizeof(Real) == 4 ? "float32" : "float64");
    }

    bool advance(size_t steps, const std::atomic<bool>* stop) override {
        for (size_t s = 0; s < steps; ++s) {
            if (stop && stop->load(std::memory_order_relaxed)) return false;
            step_once();
            if (step_ % kCheckEvery == 0) check_field(!forcing_.empty());
        }
        return true;
    }

    double field_energy() const override {
        double e = 0;
#pragma omp parallel for reduction(+ : e) num_threads(threads_) schedule(static) if (p_.size() > kParallelCells)
        for (long i = 0; i < static_cast<long>(p_.size()); ++i)
            e += static_cast<double>(p_[static_cast<size_t>(i)]) *
                 static_cast<double>(p_[static_cast<size_t>(i)]);
        return e;
    }

    void set_pressure(Index3 cell, double value) override {
        const size_t i = grid_.contains(cell) ? grid_.index(cell) : 0;
        if (!grid_.contains(cell) || !is_air(i))
            throw std::invalid_argument("set_pressure: not an air cell");
        p_[i] = prev_[i] = static_cast<Real>(value);  // at rest
    }

    void pressure_plane(int axis, int index, std::vector<float>& out) const override {
        const std::vector<int64_t>& cells =
            plane_cells(grid_, axis, index, [this](size_t i) -> int64_t {
                return is_air(i) ? static_cast<int64_t>(i) : int64_t{-1};
            });
        out.resize(cells.size());
        for (size_t k = 0; k < cells.size(); ++k)
            out[k] = cells[k] < 0 ? std::numeric_limits<float>::quiet_NaN()
                                  : static_cast<float>(p_[static_cast<size_t>(cells[k])]);
    }

    size_t memory_bytes() const override {
        return sizeof(Real) * (p_.size() + prev_.size()) +
               boundary_.size() * (sizeof(size_t) + sizeof(Coefficients)) +
               runs_.size() * sizeof(Run) +
               group_first_.size() * (2 * sizeof(int32_t) + sizeof(Real)) +
               branch_s_.size() * 2 * sizeof(Real);
    }

    void save_state(std::ostream& out) const override {
        const uint64_t header[4] = {kCheckpointMagic, sizeof(Real), p_.size(), receivers_.size()};
        out.write(reinterpret_cast<const char*>(header), sizeof header);
        checkpoint::write_pod(out, step_);
        checkpoint::write_pod(out, peak_energy_);
        checkpoint::write_array(out, p_.data(), p_.size());
        checkpoint::write_array(out, prev_.data(), prev_.size());
        checkpoint::write_pod(out, static_cast<uint64_t>(branch_s_.size()));
        checkpoint::write_array(out, branch_s_.data(), branch_s_.size());
        checkpoint::write_array(out, branch_v_.data(), branch_v_.size());
        save_signals(out);
    }

    void load_state(std::istream& in) override {
        uint64_t header[4] = {};
        in.read(reinterpret_cast<char*>(header), sizeof header);
        if (!in || header[0] != kCheckpointMagic || header[1] != sizeof(Real) ||
            header[2] != p_.size() || header[3] != receivers_.size())
            throw InputError("the checkpoint was written for another scene, solver or precision");
        step_ = checkpoint::read_pod<size_t>(in);
        peak_energy_ = checkpoint::read_pod<double>(in);
        checkpoint::read_array(in, p_.data(), p_.size());
        checkpoint::read_array(in, prev_.data(), prev_.size());
        if (checkpoint::read_pod<uint64_t>(in) != branch_s_.size())
            throw InputError("the checkpoint was written for another scene's walls");
        checkpoint::read_array(in, branch_s_.data(), branch_s_.size());
        checkpoint::read_array(in, branch_v_.data(), branch_v_.size());
        load_signals(in);
    }

  private:
    static constexpr size_t kCheckEvery = 64;
    // Below this many grid cells a parallel region costs more than the step (its barrier spins).
    static constexpr size_t kParallelCells = 1 << 17;
    using Run = InteriorRun;
    struct Coefficients {
        Real air_neighbours, gain, loss;
        int32_t groups_begin, groups, terms_begin;
        uint32_t blocked;
    };

    bool is_air(size_t i) const {
        if (std::binary_search(boundary_.begin(), boundary_.end(), i)) return true;
        const auto it = std::upper_bound(runs_.begin(), runs_.end(), i,
                                         [](size_t v, const Run& r) { return v < r.start; });
        if (it == runs_.begin()) return false;
        const Run& r = *(it - 1);
        return i < r.start + r.length;
    }

    void step_once() {
        const Real* p = p_.data();
        Real* next = prev_.data();  // updated in place: prev becomes next
        for (size_t r = 0; r < receiver_cells_.size(); ++r)
            receivers_[r].push_back(static_cast<double>(p[receiver_cells_[r]]));
        for (size_t i = 0; i < grid_cells_.size(); ++i)
            grid_signals_[i].push_back(static_cast<float>(p[grid_cells_[i]]));
        const size_t sx = offsets_[0], sy = offsets_[1], sz = offsets_[2];
        const Real l2 = lambda2_, lambda = lambda_;
        const WallTerms<Real> terms{branches_.data(),    group_first_.data(), group_count_.data(),
                                    group_faces_.data(), branch_s_.data(),    branch_v_.data()};
#pragma omp parallel num_threads(threads_) if (p_.size() > kParallelCells)
        {
#pragma omp for schedule(static) nowait
            for (long ri = 0; ri < static_cast<long>(runs_.size()); ++ri) {
                const Run run = runs_[static_cast<size_t>(ri)];
                const Real* __restrict c = p + run.start;
                Real* __restrict o = next + run.start;
#pragma omp simd
                for (size_t i = 0; i < run.length; ++i) {
                    const Real nb =
                        c[i - sx] + c[i + sx] + c[i - sy] + c[i + sy] + c[i - sz] + c[i + sz];
                    o[i] = interior_update(c[i], o[i], nb, l2);
                }
            }
#pragma omp for schedule(static)
            for (long bi = 0; bi < static_cast<long>(boundary_.size()); ++bi) {
                const size_t i = boundary_[static_cast<size_t>(bi)];
                const Coefficients& k = coef_[static_cast<size_t>(bi)];
                const Real nb =
                    neighbour_sum(p, static_cast<long long>(i), static_cast<long long>(sy),
                                  static_cast<long long>(sz), k.blocked);
                next[i] =
                    boundary_update(p[i], next[i], nb, l2, k.air_neighbours, k.gain, k.loss, lambda,
                                    terms, {k.groups_begin, k.groups, 1, k.terms_begin, 1});
            }
        }
        if (step_ < forcing_.size()) next[source_] += forcing_[step_];
        p_.swap(prev_);
        ++step_;
    }

    Grid grid_;
    int threads_ = 1;
    Real lambda2_ = 0, lambda_ = 0;
    // The walls' branch table and the boundary cells' branch terms with their state.
    std::vector<walls::BranchCoefficients<Real>> branches_;
    std::vector<int32_t> group_first_, group_count_;
    std::vector<Real> group_faces_, branch_s_, branch_v_;
    std::vector<Real> forcing_;
    std::vector<Real> p_, prev_;
    std::vector<Run> runs_;
    std::vector<size_t> boundary_;  // ascending
    std::vector<Coefficients> coef_;
    size_t offsets_[3] = {1, 1, 1};
    size_t source_ = 0;
    std::vector<size_t> receiver_cells_, grid_cells_;
};

}  // namespace

std::unique_ptr<Solver> make_cpu_solver(const Preprocessed& p, const SolverOptions& options) {
    if (options.precision == Precision::Float64)
        return std::make_unique<FdtdCpu<double>>(p, options);
    return std::make_unique<FdtdCpu<float>>(p, options);
}

}  // namespace ardent::fdtd
