#include "ard_cpu.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <istream>
#include <limits>
#include <mutex>
#include <ostream>
#include <string>

#include <omp.h>
#include <unistd.h>

#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/fftw_planner.h"
#include "ardent/solvers/ard_distribute.h"
#include "ardent/solvers/ard_layout.h"
#include "ardent/solvers/ard_physics.h"
#include "checkpoint_io.h"
#include "fftw_traits.h"
#include "halo_exchange.h"

namespace ardent::ard {
namespace {

using checkpoint::read_array;
using checkpoint::read_pod;
using checkpoint::write_array;
using checkpoint::write_pod;

std::filesystem::path default_wisdom_dir() {
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
        return std::filesystem::path(x) / "ardent";
    if (const char* home = std::getenv("HOME"); home && *home)
        return std::filesystem::path(home) / ".cache" / "ardent";
    return {};
}

// Shapes this large are planned with FFTW_MEASURE (and the plan kept as wisdom); smaller ones
// are cheap either way and would only slow start-up.
constexpr size_t kMeasureCells = 4096;

template <typename Real>
class ArdCpu final : public Solver {
    using F = Fftw<Real>;

  public:
    ArdCpu(const Preprocessed& p, const SolverOptions& o)
        : layout_(build_rank_layout(p, o, halo_plan_)),
          inject_(o.inject_source),
          comm_(o.comm && o.comm->size() > 1 ? o.comm : nullptr) {
        const Layout& L = layout_;
        if (comm_) {
            field_halo_ = HostHalo<Real>(std::move(halo_plan_.field));
            force_halo_ = HostHalo<Real>(std::move(halo_plan_.force));
        }
        threads_ = o.threads > 0 ? o.threads : omp_get_max_threads();
        dt_ = L.dt;
        excitation_ = Excitation::for_band(p.scene.simulation.max_frequency, dt_);
        source_samples_ = excitation_.samples(dt_);
        c2h2_ = static_cast<Real>(L.c * L.c / (L.h * L.h));
        source_scale_ = L.c * L.c / (L.h * L.h * L.h);
        courant2_ = static_cast<Real>((L.c * dt_ / L.h) * (L.c * dt_ / L.h));

        field_.assign(L.field_cells(), Real(0));
        ghost_weights_.assign(L.ghost_weights.begin(), L.ghost_weights.end());
        pml_old_.assign(L.pml_cells, Real(0));
        psi_.assign(L.pml.size() * static_cast<size_t>(std::max(L.pml_depth - 1, 0)), Real(0));
        correction_.assign(L.lines.size() * 2 * kReach, Real(0));
        dt2_12_ = static_cast<Real>(dt_ * dt_ / 12);
        sample_scale_ = static_cast<Real>(dt_ * dt_ / 12);
        correction_scale_ = static_cast<Real>(time_correction_scale(L.c * dt_ / L.h));
        // Air cells: the forcing; PML cells and their ghosts: the accelerations that the PML's
        // time correction reads (pml_time_correction); other ghosts stay zero.
        force_ = F::alloc(std::max<size_t>(L.field_cells(), 1));
        std::fill_n(force_, L.field_cells(), Real(0));
        modes_[0] = F::alloc(std::max<size_t>(L.air_cells, 1));
        modes_[1] = F::alloc(std::max<size_t>(L.air_cells, 1));
        std::fill_n(modes_[0], L.air_cells, Real(0));
        std::fill_n(modes_[1], L.air_cells, Real(0));

        for (const walls::BranchCoefficients<double>& b : L.wall_branches)
            wall_branches_.push_back(b.as<Real>());
        wall_weights_.assign(L.wall_weights.begin(), L.wall_weights.end());
        wall_s_.assign(L.wall_states, Real(0));
        wall_v_.assign(L.wall_states, Real(0));
        wall_u_.assign(L.wall_faces.size(), Real(0));
        wall_drive_.assign(L.wall_faces.size(), Real(0));
        wall_dv_.assign(L.wall_faces.size(), Real(0));
        wall_scale_ = static_cast<Real>(L.c / (L.h * dt_));
        wall_slope_ = static_cast<Real>(wall_face_slope(L.c * dt_ / L.h));

        build_coefficients();
        build_pml_profile();
        plan(o.fftw_wisdom);

        receivers_.assign(L.receivers.size(), {});
        grid_positions_ = L.grid_positions;
        grid_signals_.assign(L.grid_cells.size(), {});
    }

    ~ArdCpu() override {
        {
            // Destroying a plan changes the planner's shared state (fftw_planner.h).
            std::lock_guard lock(fftw_planner_mutex());
            for (auto pl : forward_)
                F::destroy(pl);
            for (auto pl : backward_)
                F::destroy(pl);
        }
        F::free(force_);
        F::free(modes_[0]);
        F::free(modes_[1]);
    }

    std::string name() const override {
        return std::string("ard-cpu-") + (sizeof(Real) == 4 ? "float32" : "float64");
    }

    bool advance(size_t steps, const std::atomic<bool>* stop) override {
        bool finished = true;
        for (size_t s = 0; s < steps; ++s) {
            bool stopping = stop && stop->load(std::memory_order_relaxed);
            if (comm_) stopping = comm_->any(stopping);  // every rank stops at the same step
            if (stopping) {
                finished = false;
                break;
            }
            step_once();
            if (step_ % kCheckEvery == 0) check_field(inject_);
        }
        if (comm_) gather_signals(*comm_);
        return finished;
    }

    double field_energy() const override {
        double e = 0;
#pragma omp parallel for reduction(+ : e) num_threads(threads_) schedule(static) if (layout_.owned_air_cells > kParallelCells)
        for (long i = 0; i < static_cast<long>(layout_.owned_air_cells); ++i)
            e += static_cast<double>(field_[i]) * static_cast<double>(field_[i]);
        return comm_ ? comm_->sum(e) : e;
    }

    void set_pressure(Index3 cell, double value) override {
        const int32_t f = layout_.flat(cell);
        if (f < 0 && comm_) return;  // another rank's cell
        if (f < 0) throw std::invalid_argument("set_pressure: not an air cell");
        // The modes hold p, the field shows q = phi(A) p: change p at the cell, then set both
        // time levels of the partition's modes (the field starts at rest) and refresh q.
        for (const PartitionSlot& s : layout_.partitions) {
            const size_t n = cells(s), o = s.offset;
            if (static_cast<size_t>(f) < o || static_cast<size_t>(f) >= o + n) continue;
            const Real* phi = coef_phi_.data() + coef_offset_[s.group];
            Real* t = force_ + o;
            F::execute(backward_[s.group], modes_[cur_] + o, t);
            t[static_cast<size_t>(f) - o] = static_cast<Real>(value);
            F::execute(forward_[s.group], t, t);
            const Real scale = Real(1) / static_cast<Real>(8 * n);
            for (size_t i = 0; i < n; ++i) {
                modes_[0][o + i] = modes_[1][o + i] = t[i] * scale;
                t[i] = phi[i] * t[i] * scale;
            }
            F::execute(backward_[s.group], t, field_.data() + o);
        }
    }

    // field_ holds the pressure in cell space (the inverse DCT of the filtered modes) at step n.
    void pressure_plane(int axis, int index, std::vector<float>& out) const override {
        const std::vector<int64_t>& cells =
            plane_cells(layout_.grid, axis, index,
                        [this](size_t i) -> int64_t { return layout_.cell_index[i]; });
        out.resize(cells.size());
        for (size_t k = 0; k < cells.size(); ++k)
            out[k] = cells[k] < 0 ? std::numeric_limits<float>::quiet_NaN()
                                  : static_cast<float>(field_[static_cast<size_t>(cells[k])]);
    }

    size_t memory_bytes() const override {
        return sizeof(Real) * (field_.size() + pml_old_.size() + psi_.size() + correction_.size() +
                               2 * layout_.air_cells + layout_.field_cells() + coef_a_.size() +
                               coef_b_.size() + coef_phi_.size() + wall_weights_.size() +
                               wall_s_.size() + wall_v_.size() + 3 * wall_u_.size()) +
               sizeof(int32_t) * layout_.wall_cells.size() +
               sizeof(WallFace) * layout_.wall_faces.size() +
               sizeof(InterfaceLine) * layout_.lines.size() + sizeof(PmlLine) * layout_.pml.size() +
               (sizeof(Real) + sizeof(int32_t)) * ghost_weights_.size();
    }

    RankPart rank_part() const override {
        if (!comm_) return {};
        return {layout_.partitions.size(), layout_.owned_air_cells,
                layout_.air_cells - layout_.owned_air_cells + layout_.halo_cells, "mpi"};
    }

    void save_state(std::ostream& out) const override {
        write_pod(out, kMagic);
        write_pod(out, header());
        write_pod(out, step_);
        write_pod(out, peak_energy_);
        write_array(out, modes_[cur_], layout_.air_cells);
        write_array(out, modes_[1 - cur_], layout_.air_cells);
        write_array(out, field_.data(), field_.size());
        write_array(out, pml_old_.data(), pml_old_.size());
        write_array(out, psi_.data(), psi_.size());
        write_array(out, wall_s_.data(), wall_s_.size());
        write_array(out, wall_v_.data(), wall_v_.size());
        write_array(out, wall_u_.data(), wall_u_.size());
        write_array(out, wall_dv_.data(), wall_dv_.size());
        save_signals(out);
    }

    void load_state(std::istream& in) override {
        if (read_pod<uint64_t>(in) != kMagic || read_pod<Header>(in) != header())
            throw InputError("the checkpoint was written for another scene, solver or precision");
        step_ = read_pod<size_t>(in);
        peak_energy_ = read_pod<double>(in);
        cur_ = 0;
        read_array(in, modes_[0], layout_.air_cells);
        read_array(in, modes_[1], layout_.air_cells);
        read_array(in, field_.data(), field_.size());
        read_array(in, pml_old_.data(), pml_old_.size());
        read_array(in, psi_.data(), psi_.size());
        read_array(in, wall_s_.data(), wall_s_.size());
        read_array(in, wall_v_.data(), wall_v_.size());
        read_array(in, wall_u_.data(), wall_u_.size());
        read_array(in, wall_dv_.data(), wall_dv_.size());
        load_signals(in);
    }

  private:
    static constexpr uint64_t kMagic = 0x3430544b43445241ULL;  // "ARDCKT04"
    struct Header {
        uint64_t real_size, air, pml, psi, receivers, grid, wall_states, wall_faces;
        bool operator==(const Header&) const = default;
    };
    Header header() const {
        return {sizeof(Real),        layout_.air_cells,        layout_.pml_cells,
                psi_.size(),         receivers_.size(),        grid_signals_.size(),
                layout_.wall_states, layout_.wall_faces.size()};
    }
    static constexpr size_t kCheckEvery = 64;
    // Below these sizes a parallel region costs more than it saves (its barrier spins, and on a
    // loaded machine a spinning thread can wait for a whole scheduler slice).
    static constexpr size_t kParallelCells = 1 << 16;
    static constexpr size_t kParallelLines = 4096;

    static size_t cells(const PartitionSlot& s) {
        return static_cast<size_t>(s.size[0]) * static_cast<size_t>(s.size[1]) *
               static_cast<size_t>(s.size[2]);
    }

    // Per shape and mode: the update's coefficients and the field filter (build_mode_tables).
    void build_coefficients() {
        build_mode_tables(layout_, coef_offset_, coef_a_, coef_b_, coef_phi_);
    }

    void build_pml_profile() {
        const Layout& L = layout_;
        const int D = L.pml_depth;
        // Per line, sigma dt at cell centres and decay factors at the faces between cells.
        cell_sigma_dt_.resize(L.pml.size() * static_cast<size_t>(D));
        face_decay_.resize(L.pml.size() * static_cast<size_t>(std::max(D - 1, 0)));
        for (size_t l = 0; l < L.pml.size(); ++l) {
            const double smax = L.pml[l].sigma_max;
            for (int k = 0; k < D; ++k)
                cell_sigma_dt_[l * D + k] = static_cast<Real>(pml_cell_sigma_dt(smax, k, D, dt_));
            for (int f = 0; f + 1 < D; ++f)
                face_decay_[l * (D - 1) + f] = static_cast<Real>(pml_face_decay(smax, f, D, dt_));
        }
    }

    void plan(const std::filesystem::path& wisdom_opt) {
        // The planner, wisdom and time limit are process-wide: one planner at a time across the
        // libraries (fftw_planner.h), the previous source's files may be written beside this.
        std::lock_guard lock(fftw_planner_mutex());
        const Layout& L = layout_;
        const std::filesystem::path dir = wisdom_opt.empty() ? default_wisdom_dir() : wisdom_opt;
        std::filesystem::path wisdom;
        if (!dir.empty()) {
            wisdom = dir / (std::string("fftw-wisdom-") + F::tag);
            F::import_wisdom(wisdom.c_str());
        }
        F::time_limit(2.0);
        size_t largest = 1;
        for (const auto& g : L.groups)
            largest = std::max(largest, g.cells());
        Real* a = F::alloc(largest);
        Real* b = F::alloc(largest);
        bool measured = false;
        for (const auto& g : L.groups) {
            const unsigned flags = FFTW_UNALIGNED | FFTW_PRESERVE_INPUT |
                                   (g.cells() >= kMeasureCells ? FFTW_MEASURE : FFTW_ESTIMATE);
            measured |= g.cells() >= kMeasureCells;
            // Partitions are stored x fastest: FFTW's last dimension is x.
            forward_.push_back(
                F::r2r_3d(g.size[2], g.size[1], g.size[0], a, a, FFTW_REDFT10, flags));
            backward_.push_back(
                F::r2r_3d(g.size[2], g.size[1], g.size[0], a, b, FFTW_REDFT01, flags));
        }
        F::free(a);
        F::free(b);
        if (measured && !wisdom.empty()) {
            std::error_code ec;
            std::filesystem::create_directories(dir, ec);
            // Written aside and renamed: another process (a rank of the same run) may be
            // reading it, and a torn file would make it plan anew, with other roundings.
            std::filesystem::path tmp = wisdom;
            tmp += ".tmp-" + std::to_string(::getpid());
            if (!ec && F::export_wisdom(tmp.c_str())) std::filesystem::rename(tmp, wisdom, ec);
            if (ec) std::filesystem::remove(tmp, ec);
        }
    }

    void step_once() {
        const Layout& L = layout_;
        evaluate_ghosts(field_.data(), field_.data(), 0);
        const Real* p = field_.data();
        std::fill_n(force_, L.air_cells, Real(0));

        // 1. Interface forcing F = C q on the air-air lines, batch by batch.
        const size_t air_batches = L.air_batches;
        for (size_t bi = 0; bi < air_batches; ++bi)
            add_line_forcing(L.batches[bi], p, c2h2_);
        // 2. The walls' frequency-dependent branches, then the source.
        if (!L.wall_faces.empty()) add_wall_forcing(p);
        if (inject_ && L.source >= 0 && step_ < source_samples_.size())
            force_[L.source] += static_cast<Real>(source_scale_ * source_samples_[step_]);
        // Sampling: sample n is the pressure at t = n dt, q + (dt^2/12) F (ard_physics.h).
        for (size_t r = 0; r < L.receivers.size(); ++r)
            receivers_[r].push_back(static_cast<double>(sample(L.receivers[r])));
        for (size_t i = 0; i < L.grid_cells.size(); ++i)
            grid_signals_[i].push_back(static_cast<float>(sample(L.grid_cells[i])));
        // 3. PML coupling lines, and the PML cells' accelerations, both from the field at step n.
        for (size_t bi = air_batches; bi < L.batches.size(); ++bi)
            add_line_forcing(L.batches[bi], p, c2h2_);
        pml_accelerations(p);
        // A distributed run: the other ranks' forcing and accelerations on the cells this rank's
        // corrections read.
        if (comm_) force_halo_.exchange(*comm_, force_);
        evaluate_ghosts(force_, force_, L.pml_ghosts);
        // 4. PML lines to step n+1 (they read the air at step n, so before the partitions).
        update_pml();
        // 5. The coupling's time correction (dt^2/12) C F, where F holds the forcing of steps 1-3
        //    (and the PML's accelerations), read in full before any of it is added (ard_physics.h).
        add_time_correction();
        // 6. Partitions: DCT of the forcing, mode update, inverse DCT of the filtered modes.
        Real* cur = modes_[cur_];
        Real* old = modes_[1 - cur_];
#pragma omp parallel for num_threads(threads_) \
    schedule(dynamic, 1) if (L.air_cells > kParallelCells)
        for (long si = 0; si < static_cast<long>(L.partitions.size()); ++si) {
            const PartitionSlot& s = L.partitions[static_cast<size_t>(si)];
            const size_t n = cells(s), o = s.offset;
            F::execute(forward_[s.group], force_ + o, force_ + o);
            const Real* a = coef_a_.data() + coef_offset_[s.group];
            const Real* bb = coef_b_.data() + coef_offset_[s.group];
            Real* c = cur + o;
            Real* od = old + o;
            Real* f = force_ + o;
            const Real* phi = coef_phi_.data() + coef_offset_[s.group];
            Real* q = force_ + o;
            for (size_t i = 0; i < n; ++i) {
                od[i] = mode_update(a[i], bb[i], c[i], od[i], f[i]);
                q[i] = phi[i] * od[i];
            }
            F::execute(backward_[s.group], q, field_.data() + o);
        }
        cur_ = 1 - cur_;
        std::swap_ranges(pml_old_.begin(), pml_old_.end(),
                         field_.begin() + static_cast<long>(L.air_cells));
        ++step_;
        if (comm_) field_halo_.exchange(*comm_, field_.data());
    }

    // Every line's C^2 term from `force_` (air-air lines read air cells only: the forcing of a
    // PML cell beyond a thin partition is not theirs; PML coupling lines read the accelerations
    // too), computed before any is added, then added batch by batch in line order.
    void add_time_correction() {
        const Layout& L = layout_;
        const auto air = static_cast<int32_t>(L.air_cells);
#pragma omp parallel for num_threads(threads_) schedule(static) if (L.lines.size() > kParallelLines)
        for (long li = 0; li < static_cast<long>(L.lines.size()); ++li) {
            const size_t l = static_cast<size_t>(li);
            Real* out = correction_.data() + l * 2 * kReach;
            line_terms(L.lines[l], force_, correction_scale_, out, out + kReach,
                       l < L.air_lines ? air : 0x7fffffff);
        }
        for (const LineBatch& b : L.batches) {
#pragma omp parallel for num_threads(threads_) \
    schedule(static) if (b.end - b.begin > kParallelLines)
            for (long li = static_cast<long>(b.begin); li < static_cast<long>(b.end); ++li) {
                const size_t l = static_cast<size_t>(li);
                const InterfaceLine& line = L.lines[l];
                const Real* c = correction_.data() + l * 2 * kReach;
                for (int j = 0; j < kReach; ++j) {
                    if (line.right[j] >= 0) force_[line.right[j]] += c[j];
                    if (line.left[j] >= 0) force_[line.left[j]] += c[kReach + j];
                }
            }
        }
    }

    // -1: a cell of another rank (which records it).
    Real sample(int32_t cell) const {
        return cell < 0 ? Real(0) : field_[cell] + sample_scale_ * force_[cell];
    }

    // Ghosts [first, ghost_cells) of `in` into `out` (Layout): those beyond partially absorbing
    // faces from the field at step n, and the PML ghosts' accelerations from the forcing.
    void evaluate_ghosts(const Real* in, Real* out, size_t first) {
        const Layout& L = layout_;
        Real* ghost = out + L.air_cells + L.pml_cells;
        for (size_t g = first; g < L.ghost_cells; ++g) {
            Real v = 0;
            for (int32_t t = L.ghost_offsets[g]; t < L.ghost_offsets[g + 1]; ++t)
                v += ghost_weights_[static_cast<size_t>(t)] *
                     in[static_cast<size_t>(L.ghost_terms[static_cast<size_t>(t)])];
            ghost[g] = v;
        }
    }

    // Adds the forcing of one batch of lines, scaled by `scale`, reading the field `p`.
    void add_line_forcing(const LineBatch& b, const Real* p, Real scale) {
        const Layout& L = layout_;
#pragma omp parallel for num_threads(threads_) \
    schedule(static) if (b.end - b.begin > kParallelLines)
        for (long li = static_cast<long>(b.begin); li < static_cast<long>(b.end); ++li) {
            const InterfaceLine& line = L.lines[static_cast<size_t>(li)];
            Real right[kReach], left[kReach];
            line_terms(line, p, scale, right, left);
            for (int j = 0; j < kReach; ++j) {
                if (line.right[j] >= 0) force_[line.right[j]] += right[j];
                if (line.left[j] >= 0) force_[line.left[j]] += left[j];
            }
        }
    }

    // Each wall face's branches stepped from the field at step n (wall_face_drive), their drive
    // added to the cells the face pressure was read from, with the same weights (WallFace).
    void add_wall_forcing(const Real* p) {
        const Layout& L = layout_;
#pragma omp parallel for num_threads(threads_) \
    schedule(static) if (L.wall_faces.size() > kParallelLines)
        for (long fi = 0; fi < static_cast<long>(L.wall_faces.size()); ++fi) {
            const auto f = static_cast<size_t>(fi);
            const WallFace& w = L.wall_faces[f];
            Real u = 0;
            for (int32_t t = w.cells_begin; t < w.cells_end; ++t)
                u +=
                    wall_weights_[static_cast<size_t>(t)] * p[L.wall_cells[static_cast<size_t>(t)]];
            const auto st = static_cast<size_t>(w.state_begin);
            wall_drive_[f] = wall_face_drive(u, w.branches, wall_branches_.data() + w.branch_begin,
                                             wall_s_.data() + st, wall_v_.data() + st, 1,
                                             wall_u_[f], wall_dv_[f], wall_scale_, wall_slope_);
        }
        // Faces share cells (corners, thin partitions): scattered in order.
        for (size_t f = 0; f < L.wall_faces.size(); ++f) {
            const WallFace& w = L.wall_faces[f];
            for (int32_t t = w.cells_begin; t < w.cells_end; ++t)
                force_[L.wall_cells[static_cast<size_t>(t)]] +=
                    wall_weights_[static_cast<size_t>(t)] * wall_drive_[f];
        }
    }

    // c^2/h^2 times each PML cell's Laplacian at step n, into `force_` (pml_time_correction).
    void pml_accelerations(const Real* p) {
        const Layout& L = layout_;
        const int D = L.pml_depth;
#pragma omp parallel for num_threads(threads_) schedule(static) if (L.pml.size() > kParallelLines)
        for (long li = 0; li < static_cast<long>(L.pml.size()); ++li) {
            const size_t l = static_cast<size_t>(li);
            const size_t base = L.air_cells + l * static_cast<size_t>(D);
            const PmlLine& line = L.pml[l];
            for (int k = 0; k < D; ++k)
                force_[base + static_cast<size_t>(k)] = c2h2_ * pml_laplacian<Real>(k, [&](int i) {
                                                            return pml_value(line, base, p, i);
                                                        });
        }
    }

    // A PML line's view of array `a` at i cells into it (ard_physics.h, pml_time_correction).
    Real pml_value(const PmlLine& line, size_t base, const Real* a, int i) const {
        const int D = layout_.pml_depth;
        if (i < 0) return a[line.air[-1 - i]];
        if (i >= D) i = 2 * D - 1 - i;  // rigid back: even extension
        return a[base + static_cast<size_t>(i)];
    }

    void update_pml() {
        const Layout& L = layout_;
        const int D = L.pml_depth;
        const Real* p = field_.data();
#pragma omp parallel for num_threads(threads_) schedule(static) if (L.pml.size() > kParallelLines)
        for (long li = 0; li < static_cast<long>(L.pml.size()); ++li) {
            const size_t l = static_cast<size_t>(li);
            const PmlLine& line = L.pml[l];
            const size_t base = L.air_cells + l * static_cast<size_t>(D);
            auto val = [&](int i) { return pml_value(line, base, p, i); };
            auto acc = [&](int i) { return pml_value(line, base, force_, i); };
            Real* psi = psi_.data() + l * static_cast<size_t>(D - 1);
            Real* old = pml_old_.data() + l * static_cast<size_t>(D);
            for (int f = 0; f + 1 < D; ++f)
                psi[f] = pml_auxiliary(psi[f], val(f + 1) - val(f), old[f + 1] - old[f],
                                       face_decay_[l * (D - 1) + static_cast<size_t>(f)]);
            for (int k = 0; k < D; ++k) {
                const Real lap = pml_laplacian<Real>(k, val) + pml_time_correction(k, acc, dt2_12_);
                const Real front = k > 0 ? psi[k - 1] : Real(0);
                const Real back = k + 1 < D ? psi[k] : Real(0);
                old[k] = pml_pressure(val(k), old[k], lap, back - front,
                                      cell_sigma_dt_[l * D + static_cast<size_t>(k)], courant2_);
            }
        }
    }

    HaloPlan halo_plan_;  // consumed by the constructor
    Layout layout_;
    bool inject_;
    Communicator* comm_ = nullptr;  // several ranks: this rank's part (ard_distribute.h)
    HostHalo<Real> field_halo_, force_halo_;
    int threads_ = 1;
    Real c2h2_, courant2_;
    double source_scale_;
    std::vector<double> source_samples_;
    std::vector<Real> field_, pml_old_, psi_;
    std::vector<Real> ghost_weights_;
    std::vector<Real> correction_;  // per air-air line: right targets, then left targets
    Real correction_scale_ = 0;
    Real dt2_12_ = 0;        // dt^2 / 12: the PML's time correction (ard_physics.h)
    Real sample_scale_ = 0;  // dt^2 / 12
    Real* force_ = nullptr;
    Real* modes_[2] = {nullptr, nullptr};
    int cur_ = 0;
    std::vector<size_t> coef_offset_;
    std::vector<Real> coef_a_, coef_b_, coef_phi_;
    std::vector<Real> cell_sigma_dt_, face_decay_;
    // Frequency-dependent walls: branch table, face weights, branch states, each face's pressure
    // at the last step and this step's drive.
    std::vector<walls::BranchCoefficients<Real>> wall_branches_;
    std::vector<Real> wall_weights_, wall_s_, wall_v_, wall_u_, wall_drive_, wall_dv_;
    Real wall_scale_ = 0;  // c / (h dt): a velocity change over a step as forcing
    Real wall_slope_ = 0;  // wall_face_slope
    std::vector<typename F::Plan> forward_, backward_;
};

}  // namespace

std::unique_ptr<Solver> make_cpu_solver(const Preprocessed& p, const SolverOptions& options) {
    if (options.precision == Precision::Float64)
        return std::make_unique<ArdCpu<double>>(p, options);
    return std::make_unique<ArdCpu<float>>(p, options);
}

}  // namespace ardent::ard
