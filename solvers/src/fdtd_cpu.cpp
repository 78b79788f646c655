#include "fdtd_cpu.h"

#include <algorithm>
#include <cmath>
#include <istream>
#include <ostream>
#include <string>

#include <omp.h>

#include "ardent/preprocess/errors.h"
#include "ardent/solvers/ard_layout.h"
#include "ardent/solvers/fdtd_physics.h"
#include "checkpoint_io.h"

namespace ardent::fdtd {
namespace {

template <typename Real>
class FdtdCpu final : public Solver {
  public:
    FdtdCpu(const Preprocessed& p, const SolverOptions& o) : grid_(p.air.grid) {
        const AirModel& air = p.air;
        const Grid& g = grid_;
        threads_ = o.threads > 0 ? o.threads : omp_get_max_threads();
        const double c = p.scene.simulation.speed_of_sound;
        lambda_ = kCourant;
        dt_ = kCourant * g.h / c;
        excitation_ = Excitation::for_band(p.scene.simulation.max_frequency, dt_);
        if (o.inject_source) source_samples_ = excitation_.samples(dt_);
        lambda2_ = static_cast<Real>(lambda_ * lambda_);
        // p_next += dt^2 c^2 G / h^3 at the source cell.
        source_scale_ = lambda_ * lambda_ / g.h;

        const size_t n = g.count();
        p_.assign(n, Real(0));
        prev_.assign(n, Real(0));
        const long sy = g.dims[0], sz = static_cast<long>(g.dims[0]) * g.dims[1];
        const long offsets[6] = {-1, 1, -sy, sy, -sz, sz};
        const double f_max = p.scene.simulation.max_frequency;
        for (int k = 0; k < g.dims[2]; ++k)
            for (int j = 0; j < g.dims[1]; ++j) {
                long run_start = -1;
                for (int i = 0; i <= g.dims[0]; ++i) {
                    bool interior = false;
                    const size_t idx = i < g.dims[0] ? g.index(i, j, k) : 0;
                    if (i < g.dims[0] && air.air[idx]) {
                        if (i == 0 || j == 0 || k == 0 || i + 1 == g.dims[0] ||
                            j + 1 == g.dims[1] || k + 1 == g.dims[2])
                            throw InputError(p.scene.display_name() +
                                             ": an air cell touches the edge of the grid");
                        int neighbours = 0;
                        double beta = 0;
                        for (long off : offsets) {
                            const size_t nb = static_cast<size_t>(static_cast<long>(idx) + off);
                            if (air.air[nb]) {
                                ++neighbours;
                                continue;
                            }
                            const int m = air.face_material(idx, nb);
                            if (m >= 0)
                                beta += wall_admittance(std::min(
                                    1.0, ard::band_absorption(p.scene.materials[m], f_max)));
                        }
                        interior = neighbours == 6;
                        if (!interior) {
                            const BoundaryCoefficients b =
                                boundary_coefficients(neighbours, beta, lambda_);
                            boundary_.push_back(idx);
                            coef_.push_back({static_cast<Real>(b.centre), static_cast<Real>(b.near),
                                             static_cast<Real>(b.prev)});
                        }
                    }
                    if (interior && run_start < 0) run_start = static_cast<long>(idx);
                    if (!interior && run_start >= 0) {
                        runs_.push_back(
                            {static_cast<size_t>(run_start),
                             static_cast<size_t>(i) -
                                 static_cast<size_t>(g.coords(static_cast<size_t>(run_start))[0])});
                        run_start = -1;
                    }
                }
            }
        offsets_[0] = 1;
        offsets_[1] = static_cast<size_t>(sy);
        offsets_[2] = static_cast<size_t>(sz);

        source_ = g.index(air.sources.at(o.source).cell);
        source_div_ = 1;
        const auto it = std::lower_bound(boundary_.begin(), boundary_.end(), source_);
        if (it != boundary_.end() && *it == source_) {
            // A boundary cell's update is divided by (1 + lambda B / 2); so is its forcing.
            source_div_ =
                static_cast<double>(coef_[static_cast<size_t>(it - boundary_.begin())].near) /
                (lambda_ * lambda_);
        }
        for (const PlacedEmitter& r : air.receivers)
            receiver_cells_.push_back(g.index(r.cell));
        receivers_.assign(receiver_cells_.size(), {});
        const int every = p.scene.listener_grid_every;
        if (o.listener_grid && every > 0)
            for (int k = 0; k < g.dims[2]; k += every)
                for (int j = 0; j < g.dims[1]; j += every)
                    for (int i = 0; i < g.dims[0]; i += every)
                        if (air.air[g.index(i, j, k)]) {
                            grid_cells_.push_back(g.index(i, j, k));
                            grid_positions_.push_back(g.centre({i, j, k}));
                        }
        grid_signals_.assign(grid_cells_.size(), {});
    }

    std::string name() const override {
        return std::string("fdtd-cpu-") + (sizeof(Real) == 4 ? "float32" : "float64");
    }

    bool advance(size_t steps, const std::atomic<bool>* stop) override {
        for (size_t s = 0; s < steps; ++s) {
            if (stop && stop->load(std::memory_order_relaxed)) return false;
            step_once();
            if (step_ % kCheckEvery == 0) check_field(!source_samples_.empty());
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

    size_t memory_bytes() const override {
        return sizeof(Real) * (p_.size() + prev_.size()) +
               boundary_.size() * (sizeof(size_t) + sizeof(Coefficients)) +
               runs_.size() * sizeof(Run);
    }

    void save_state(std::ostream& out) const override {
        const uint64_t header[4] = {kMagic, sizeof(Real), p_.size(), receivers_.size()};
        out.write(reinterpret_cast<const char*>(header), sizeof header);
        checkpoint::write_pod(out, step_);
        checkpoint::write_pod(out, peak_energy_);
        checkpoint::write_array(out, p_.data(), p_.size());
        checkpoint::write_array(out, prev_.data(), prev_.size());
        save_signals(out);
    }

    void load_state(std::istream& in) override {
        uint64_t header[4] = {};
        in.read(reinterpret_cast<char*>(header), sizeof header);
        if (!in || header[0] != kMagic || header[1] != sizeof(Real) || header[2] != p_.size() ||
            header[3] != receivers_.size())
            throw InputError("the checkpoint was written for another scene, solver or precision");
        step_ = checkpoint::read_pod<size_t>(in);
        peak_energy_ = checkpoint::read_pod<double>(in);
        checkpoint::read_array(in, p_.data(), p_.size());
        checkpoint::read_array(in, prev_.data(), prev_.size());
        load_signals(in);
    }

  private:
    static constexpr uint64_t kMagic = 0x3130544b43445446ULL;  // "FTDCKT01"
    static constexpr size_t kCheckEvery = 64;
    // Below this many grid cells a parallel region costs more than the step (its barrier spins).
    static constexpr size_t kParallelCells = 1 << 17;
    struct Run {
        size_t start = 0, length = 0;
    };
    struct Coefficients {
        Real centre, near, prev;
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
        const Real l2 = lambda2_;
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
                // Non-air neighbours hold zero for ever, so the plain sum is the air sum.
                const Real nb =
                    p[i - sx] + p[i + sx] + p[i - sy] + p[i + sy] + p[i - sz] + p[i + sz];
                next[i] = boundary_update(p[i], next[i], nb, k.centre, k.near, k.prev);
            }
        }
        if (step_ < source_samples_.size())
            next[source_] +=
                static_cast<Real>(source_scale_ * source_div_ * source_samples_[step_]);
        p_.swap(prev_);
        ++step_;
    }

    Grid grid_;
    int threads_ = 1;
    double lambda_ = 0, source_scale_ = 0, source_div_ = 1;
    Real lambda2_ = 0;
    std::vector<double> source_samples_;
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
