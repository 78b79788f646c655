// The CUDA ARD backend: ard_cpu.cpp's time step with every array on the GPU. One step is a fixed
// sequence of launches (ghosts, interface lines and their gathers, walls, source and sampling,
// PML, C^2 correction, the batched DCTs with the mode update in their middle), some of them on
// side streams beside others that touch other arrays, captured once into a CUDA graph per parity
// of the mode buffers, so the host only replays graphs. Recorded samples collect in a device ring
// buffer copied back every few hundred steps.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <istream>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "../checkpoint_io.h"
#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/estimate.h"
#include "ardent/solvers/ard_cuda.h"
#include "ardent/solvers/ard_distribute.h"
#include "ardent/solvers/ard_layout.h"
#include "ardent/solvers/ard_physics.h"
#include "cuda_check.h"
#include "dct_kernels.cuh"
#include "device_array.h"
#include "device_halo.h"
#include "nccl_halo.h"
#include "plane_gather.cuh"
#include "step_kernels.cuh"

namespace ardent::ard {
namespace cuda {
namespace {

using checkpoint::read_array;
using checkpoint::read_pod;
using checkpoint::write_array;
using checkpoint::write_pod;

constexpr int kBlock = kStepBlock;

unsigned blocks(long long n) {
    return blocks_for(n, kBlock);
}

// f(std::integral_constant<int, v>) when v is one of Values, else f(... 0): a kernel's
// compile-time specialisations with a run-time fallback.
template <int... Values, typename F>
void with_constant(int v, F&& f) {
    if (!((v == Values && (f(std::integral_constant<int, Values>{}), true)) || ...))
        f(std::integral_constant<int, 0>{});
}

// The most branches any wall face has: the device stores that many states per face.
size_t most_wall_branches(const Layout& L) {
    int32_t most = 0;
    for (const WallFace& w : L.wall_faces)
        most = std::max(most, w.branches);
    return static_cast<size_t>(most);
}

// Bytes the solver will allocate for a layout.
template <typename Real>
size_t state_bytes(const Layout& L, size_t coefs, size_t samples) {
    const size_t R = sizeof(Real);
    std::vector<double> profiles;  // distinct PML damping profiles (build_pml_profiles)
    for (const PmlLine& line : L.pml)
        if (std::find(profiles.begin(), profiles.end(), line.sigma_max) == profiles.end())
            profiles.push_back(line.sigma_max);
    return R * (2 * L.field_cells() + L.ghost_weights.size() + 2 * L.air_cells + 3 * coefs +
                L.lines.size() * 2 * kReach + 2 * L.pml_cells + 2 * profiles.size() * L.pml_depth +
                kReach * L.pml.size() + samples) +
           sizeof(InterfaceLine) * L.lines.size() + sizeof(int32_t) * (kReach + 1) * L.pml.size() +
           sizeof(int32_t) * 3 * 2 * kReach * L.lines.size() +  // gathers (at most)
           sizeof(int32_t) * (L.receivers.size() + L.grid_cells.size()) + 2 * R * kTwiddles +
           R * kDirectTable + sizeof(int32_t) * (L.ghost_offsets.size() + L.ghost_terms.size()) +
           sizeof(DctGroup) * L.groups.size() + (sizeof(WallFace) + 4 * R) * L.wall_faces.size() +
           2 * R * L.wall_states + (2 * R + 3 * sizeof(int32_t)) * L.wall_cells.size() +
           sizeof(walls::BranchCoefficients<Real>) * L.wall_branches.size();
}

struct StageTimer {
    std::vector<cudaEvent_t> events;
    std::vector<std::string> names;
    cudaStream_t stream;
    void mark(const char* name) {
        cudaEvent_t e;
        ARDENT_CUDA_CHECK(cudaEventCreate(&e));
        ARDENT_CUDA_CHECK(cudaEventRecord(e, stream));
        events.push_back(e);
        names.emplace_back(name);
    }
};

class Profiled {
  public:
    virtual ~Profiled() = default;
    virtual std::vector<CudaStage> profile(size_t steps) = 0;
    // The constructor's body, phase by phase (cuda_setup_phases).
    std::vector<SetupPhase> setup_phases;

  protected:
    // Ends a phase of the set-up begun at the last mark (or once the layout was built).
    void mark(const char* name) {
        const auto now = std::chrono::steady_clock::now();
        setup_phases.push_back({name, std::chrono::duration<double>(now - marked_).count()});
        marked_ = now;
    }
    void restart_marks() { marked_ = std::chrono::steady_clock::now(); }

  private:
    std::chrono::steady_clock::time_point marked_ = std::chrono::steady_clock::now();
};

template <typename Real>
class ArdCuda final : public Solver, public Profiled {
    using Complex = typename Cplx<Real>::type;

  public:
    ArdCuda(const Preprocessed& p, const SolverOptions& o)
        : layout_(build_rank_layout(p, o, halo_plan_)),
          inject_(o.inject_source),
          comm_(o.comm && o.comm->size() > 1 ? o.comm : nullptr) {
        restart_marks();
        const Layout& L = layout_;
        if (L.pml_depth > kMaxPmlDepth)
            throw ResourceError("CUDA backend: PML depth " + std::to_string(L.pml_depth) +
                                " exceeds its limit of " + std::to_string(kMaxPmlDepth));
        dt_ = L.dt;
        excitation_ = Excitation::for_band(p.scene.simulation.max_frequency, dt_);
        const double source_scale = L.c * L.c / (L.h * L.h * L.h);
        std::vector<Real> source;
        if (inject_ && L.source >= 0)
            for (double s : excitation_.samples(dt_))
                source.push_back(static_cast<Real>(source_scale * s));
        c2h2_ = static_cast<Real>(L.c * L.c / (L.h * L.h));
        courant2_ = static_cast<Real>((L.c * dt_ / L.h) * (L.c * dt_ / L.h));
        sample_scale_ = static_cast<Real>(dt_ * dt_ / 12);
        correction_scale_ = static_cast<Real>(time_correction_scale(L.c * dt_ / L.h));
        dt2_12_ = static_cast<Real>(dt_ * dt_ / 12);

        // Shape groups: their cells and coefficients, and each DCT pass's blocks over them.
        dct_.compact_bytes = env_bytes("ARDENT_DCT_COMPACT_BYTES", kCompactSolverBytes);
        dct_.compact_warp_bytes = env_bytes("ARDENT_DCT_COMPACT_WARP_BYTES", kCompactWarpBytes);
        dct_.plane_bytes = env_bytes("ARDENT_DCT_PLANE_BYTES", kPlaneSolverBytes);
        dct_.plane_slab_bytes = env_bytes("ARDENT_DCT_PLANE_SLAB_BYTES", kPlaneSlabBytes);
        dct_.split_z = env_bytes("ARDENT_DCT_SPLIT_Z", 1) != 0;
        plane_z_.split_z = dct_.split_z;
        const bool chain = env_bytes("ARDENT_DCT_PLANE_CHAIN", 1) != 0;
        size_t coefs = 0;
        for (const ShapeGroup& sg : L.groups) {
            for (int a = 0; a < 3; ++a)
                if (!(is_pow2(sg.size[a]) && sg.size[a] <= kMaxLine) &&
                    !is_direct_length(sg.size[a]))
                    throw ResourceError(
                        "CUDA backend: partition side " + std::to_string(sg.size[a]) +
                        " is neither a power of two up to " + std::to_string(kMaxLine) +
                        " nor a 2^a 3^b 5^c length up to " + std::to_string(kMaxDirectLine));
            add_dct_group<Real>(
                {sg.size[0], sg.size[1], sg.size[2], static_cast<long long>(sg.count)},
                static_cast<long long>(L.partitions[sg.first].offset),
                static_cast<long long>(coefs), groups_, dct_, chain ? &plane_z_ : nullptr);
            coefs += sg.cells();
        }
        sort_dct_blocks(groups_, dct_);
        sort_dct_blocks(groups_, plane_z_);
        const size_t nsamp = L.receivers.size() + L.grid_cells.size();
        slots_ = ring_slots(nsamp, sizeof(Real));
        const size_t need = state_bytes<Real>(L, coefs, static_cast<size_t>(slots_) * nsamp);
        check_device_memory(p, need, "ARD", comm_ ? comm_->size() : 1);
        mark("shape groups and memory check");

        // Host-side tables, then the device state.
        std::vector<Real> a, b, phi;
        std::vector<size_t> mode_offsets;
        build_mode_tables(L, mode_offsets, a, b, phi);  // the groups' coef offsets, in order
        mark("mode tables");
        std::vector<Real> profiles;
        std::vector<int32_t> profile_of;
        build_pml_profiles(profiles, profile_of);
        size_t& t = bytes_;
        field_.allocate(L.field_cells(), t);
        upload_ghosts(t);
        mark("field and ghosts");
        // Air cells: the forcing; PML cells and their ghosts: the accelerations that the PML's
        // time correction reads (pml_time_correction); other ghosts stay zero.
        force_.allocate(L.field_cells(), t);
        modes_[0].allocate(L.air_cells, t);
        modes_[1].allocate(L.air_cells, t);
        a_.upload(a, t);
        b_.upload(b, t);
        phi_.upload(phi, t);
        terms_.allocate(L.lines.size() * 2 * kReach, t);
        lines_.upload(device_lines(), t);
        build_gather(0, L.air_lines, air_gather_, t);
        build_gather(L.air_lines, L.lines.size(), pml_gather_, t);
        mark("modes and interface lines");
        upload_walls(t);
        mark("walls");
        std::vector<int32_t> pml_air(L.pml.size() * kReach);
        for (size_t l = 0; l < L.pml.size(); ++l)
            for (int j = 0; j < kReach; ++j) {
                int32_t& c = pml_air[static_cast<size_t>(j) * L.pml.size() + l];
                c = L.pml[l].air[j];
                renumber(c);  // beyond a thin partition it may be another PML line's cell
            }
        pml_air_.upload(pml_air, t);
        // Reads of other PML lines' cells need the values taken before the update; without
        // them (most scenes) update_pml reads the field directly.
        const long long air = static_cast<long long>(L.air_cells),
                        pml_end = air + static_cast<long long>(L.pml_cells);
        pml_reads_pml_ = std::any_of(pml_air.begin(), pml_air.end(),
                                     [&](int32_t c) { return c >= air && c < pml_end; });
        if (pml_reads_pml_) pml_air_values_.allocate(pml_air.size(), t);
        pml_read_depth_ = pml_read_depth();
        pml_old_.allocate(L.pml_cells, t);
        psi_.allocate(L.pml.size() * static_cast<size_t>(std::max(L.pml_depth - 1, 0)), t);
        pml_profiles_.upload(profiles, t);
        pml_profile_of_.upload(profile_of, t);
        source_.upload(source, t);
        std::vector<int32_t> cells = L.receivers;
        cells.insert(cells.end(), L.grid_cells.begin(), L.grid_cells.end());
        sample_cells_.upload(cells, t);
        samples_.allocate(static_cast<size_t>(slots_) * nsamp, t);
        step_counter_.allocate(1, t);
        energy_.allocate(1, t);
        ARDENT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        for (DctSideStream& side : side_)
            create_side(side);
        for (DctSideStream& side : planes_)
            create_side(side);
        create_side(compact_);
        create_side(plane_chain_);
        create_side(forcing_side_);
        ARDENT_CUDA_CHECK(cudaEventCreateWithFlags(&forcing_side_.ghosts, cudaEventDisableTiming));
        mark("PML, receivers, streams");
        dct_groups_.upload(groups_, t);
        for (int c = 0; c < kDctClasses; ++c)
            for (int a = 0; a < 3; ++a)
                block_group_[c][a].upload(dct_.block_group[c][a], t);
        for (int c = 0; c < kDctClasses; ++c)
            plane_z_group_[c].upload(plane_z_.block_group[c][2], t);
        compact_group_.upload(dct_.compact_group, t);
        compact_warp_group_.upload(dct_.compact_warp_group, t);
        for (int l = 0; l < kPlaneLaunches; ++l)
            plane_group_[l].upload(dct_.plane_group[l], t);
        ARDENT_CUDA_CHECK(configure_dct_kernels<Real>(dct_, &plane_z_));
        roots_.upload(dct_twiddles<Complex>(), t);
        direct_.upload(direct_matrices<Real>(), t);
        mark("DCT tables and kernels");

        if (comm_) {
            // GPU to GPU through NCCL where every rank can load it; else through host memory.
            std::string why;
            const NcclApi* api = NcclApi::get(&why);
            const auto map = [this](int32_t& c) { renumber(c); };
            if (!comm_->any(api == nullptr)) {
                nccl_ = std::make_unique<NcclComm>(*api, *comm_);
                nccl_field_.build(halo_plan_.field, map, t);
                nccl_force_.build(halo_plan_.force, map, t);
            } else {
                field_halo_.build(halo_plan_.field, map, t);
                force_halo_.build(halo_plan_.force, map, t);
            }
        }

        receivers_.assign(L.receivers.size(), {});
        grid_positions_ = L.grid_positions;
        grid_signals_.assign(L.grid_cells.size(), {});
        if (nccl_) {
            // The first exchange waits for every rank's set-up and lets NCCL connect the peers:
            // done here, on fields still zero (so it changes nothing), it is set-up; left to the
            // first step it cost 1 s of stepping (4 H200s, 2619 Hz).
            nccl_force_.enqueue(*nccl_, force_.get(), stream_);
            nccl_field_.enqueue(*nccl_, field_.get(), stream_);
            ARDENT_CUDA_CHECK(cudaStreamSynchronize(stream_));
        }
        mark("rest");
    }

    ~ArdCuda() override {
        if (stream_) cudaStreamSynchronize(stream_);  // no copy may land in a freed mirror
        for (const Landing& l : landing_)
            cudaEventDestroy(l.landed);
        for (auto& e : halves_)
            if (e) cudaGraphExecDestroy(e);
        for (auto& e : graphs_)
            if (e) cudaGraphExecDestroy(e);
        for (const DctSideStream& side : side_)
            destroy_side(side);
        for (const DctSideStream& side : planes_)
            destroy_side(side);
        destroy_side(compact_);
        destroy_side(plane_chain_);
        if (forcing_side_.ghosts) cudaEventDestroy(forcing_side_.ghosts);
        destroy_side(forcing_side_);
        if (stream_) cudaStreamDestroy(stream_);
    }

    std::string name() const override {
        return std::string("ard-cuda-") + (sizeof(Real) == 4 ? "float32" : "float64");
    }

    bool advance(size_t steps, const std::atomic<bool>* stop) override {
        apply_pending();
        if (comm_) return advance_distributed(steps, stop);
        for (size_t s = 0; s < steps; ++s) {
            if (stop && stop->load(std::memory_order_relaxed)) {
                copy_back();
                return false;
            }
            if (!graphs_[cur_]) capture(cur_);
            ARDENT_CUDA_CHECK(cudaGraphLaunch(graphs_[cur_], stream_));
            cur_ = 1 - cur_;
            ++step_;
            if (step_ % static_cast<size_t>(slots_) == 0) copy_back();
            if (step_ % kCheckEvery == 0) check_field(inject_);
        }
        copy_back();  // the last samples come back while the caller goes on
        return true;
    }

    void wait() const override { ARDENT_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

    double field_energy() const override {
        apply_pending();
        ARDENT_CUDA_CHECK(cudaMemsetAsync(energy_.get(), 0, sizeof(double), stream_));
        const long long n = static_cast<long long>(layout_.owned_air_cells);
        sum_squares<<<std::min(blocks(n), 1024u), kBlock, 0, stream_>>>(field_.get(), n,
                                                                        energy_.get());
        ARDENT_CUDA_CHECK(cudaGetLastError());
        double e = 0;
        ARDENT_CUDA_CHECK(
            cudaMemcpyAsync(&e, energy_.get(), sizeof e, cudaMemcpyDeviceToHost, stream_));
        ARDENT_CUDA_CHECK(cudaStreamSynchronize(stream_));
        return comm_ ? comm_->sum(e) : e;
    }

    RankPart rank_part() const override {
        if (!comm_) return {};
        return {layout_.partitions.size(), layout_.owned_air_cells,
                layout_.air_cells - layout_.owned_air_cells + layout_.halo_cells,
                nccl_ ? "nccl" : "mpi-host-staged"};
    }

    // Initial values are gathered on the host and transformed in one go before the first step:
    // the CPU backend's per-cell transform would cost a whole-group DCT per call here.
    void set_pressure(Index3 cell, double value) override {
        const int32_t f = layout_.flat(cell);
        if (f < 0 && comm_) return;  // another rank's cell
        if (f < 0) throw std::invalid_argument("set_pressure: not an air cell");
        if (step_ > 0)
            throw std::logic_error(
                "set_pressure: the CUDA backend sets initial values only before the first step");
        if (pending_.empty()) pending_.assign(layout_.air_cells, Real(0));
        pending_[static_cast<size_t>(f)] = static_cast<Real>(value);
        pending_dirty_ = true;
    }

    // field_ holds the pressure in cell space (the inverse DCT of the filtered modes) at step n.
    void pressure_plane(int axis, int index, std::vector<float>& out) const override {
        apply_pending();
        bool rebuilt = false;
        const std::vector<int64_t>& cells = plane_cells(
            layout_.grid, axis, index,
            [this](size_t i) -> int64_t { return layout_.cell_index[i]; }, &rebuilt);
        plane_.read(cells, rebuilt, field_.get(), stream_, out);
    }

    size_t memory_bytes() const override { return bytes_; }

    void save_state(std::ostream& out) const override {
        apply_pending();
        ARDENT_CUDA_CHECK(cudaStreamSynchronize(stream_));
        write_pod(out, kMagic);
        write_pod(out, header());
        write_pod(out, step_);
        write_pod(out, peak_energy_);
        for (const auto* a : {&modes_[cur_], &modes_[1 - cur_], &field_, &pml_old_, &psi_}) {
            const std::vector<Real> v = a->download();
            write_array(out, v.data(), v.size());
        }
        // The branch states in the CPU backend's order (each face's branches together), as
        // load_state reads them: the device's face-minor arrays hold most_wall_branches per face.
        for (const auto* a : {&wall_s_, &wall_v_}) {
            const std::vector<Real> dev = a->download();
            std::vector<Real> v(layout_.wall_states);
            for_each_wall_state([&](size_t host, size_t device) { v[host] = dev[device]; });
            write_array(out, v.data(), v.size());
        }
        for (const auto* a : {&wall_u_, &wall_dv_}) {
            const std::vector<Real> v = a->download();
            write_array(out, v.data(), v.size());
        }
        save_signals(out);
    }

    void load_state(std::istream& in) override {
        settle_signals();  // no copy may still be on its way into the signals
        if (read_pod<uint64_t>(in) != kMagic || read_pod<Header>(in) != header())
            throw InputError(
                "the checkpoint was written for another scene, solver, precision or version");
        step_ = read_pod<size_t>(in);
        peak_energy_ = read_pod<double>(in);
        cur_ = 0;
        pending_.clear();
        pending_dirty_ = false;
        for (auto* a : {&modes_[0], &modes_[1], &field_, &pml_old_, &psi_}) {
            std::vector<Real> v(a->size());
            read_array(in, v.data(), v.size());
            a->assign(v);
        }
        for (auto* a : {&wall_s_, &wall_v_}) {
            std::vector<Real> v(layout_.wall_states), dev(a->size(), Real(0));
            read_array(in, v.data(), v.size());
            for_each_wall_state([&](size_t host, size_t device) { dev[device] = v[host]; });
            a->assign(dev);
        }
        for (auto* a : {&wall_u_, &wall_dv_}) {
            std::vector<Real> v(a->size());
            read_array(in, v.data(), v.size());
            a->assign(v);
        }
        const unsigned long long s = step_;
        ARDENT_CUDA_CHECK(cudaMemcpy(step_counter_.get(), &s, sizeof s, cudaMemcpyHostToDevice));
        flushed_ = step_;
        load_signals(in);  // replaces whatever settle_signals() completed
    }

    std::vector<CudaStage> profile(size_t steps) override {
        apply_pending();
        const double R = sizeof(Real), line = sizeof(InterfaceLine);
        const double N = static_cast<double>(layout_.air_cells);
        const double nsamp =
            static_cast<double>(layout_.receivers.size() + layout_.grid_cells.size());
        double coefs = 0;
        for (const DctGroup& g : groups_)
            coefs += static_cast<double>(g.shape.nx) * g.shape.ny * g.shape.nz;
        // The least traffic of each stage: every array it reads or writes, once. Lines read
        // their indices and 4 kReach values and write 2 kReach terms; a gather reads each term
        // and its index and reads and writes each target cell once.
        auto lines_bytes = [&](const Gather& g) {
            return static_cast<double>(g.last - g.first) * (line + 6 * kReach * R) +
                   static_cast<double>(g.terms_of.size()) * (4 + R) +
                   static_cast<double>(g.cells.size()) * (8 + 2 * R);
        };
        // An exchange gathers what it sends, moves it and scatters what arrives.
        auto halo_bytes = [&](const NcclHalo<Real>& h) {
            return 3 * static_cast<double>(h.cells()) * R;
        };
        const std::map<std::string, double> bytes = {
            {"interface forcing", lines_bytes(air_gather_)},
            {"source and sampling", 3 * nsamp * R},
            {"halo exchange: forcing", halo_bytes(nccl_force_)},
            {"C^2 correction", lines_bytes(air_gather_)},
            {"PML", lines_bytes(pml_gather_) + static_cast<double>(layout_.pml_cells) * 6 * R},
            {"forward DCT x, y", 2 * 2 * N * R},  // x and y passes, in place
            // z pass, both mode levels, a, b, phi
            {"DCT z, mode update", 2 * N * R + 3 * N * R + 3 * coefs * R},
            // and the x pass leaves the forcing zero
            {"inverse DCT y, x", 2 * 2 * N * R + N * R},
            {"halo exchange: field", halo_bytes(nccl_field_)},
        };
        // A host-staged distributed run is profiled without its exchanges: each rank's own
        // work alone (its fields go stale; profiling is for benchmarks only).
        std::vector<double> ms(bytes.size(), 0.0);
        std::vector<std::string> names;
        for (size_t s = 0; s < steps; ++s) {
            StageTimer timer{{}, {}, stream_};
            enqueue_step(cur_, &timer);
            ARDENT_CUDA_CHECK(cudaStreamSynchronize(stream_));
            for (size_t i = 0; i + 1 < timer.events.size(); ++i) {
                float t = 0;
                ARDENT_CUDA_CHECK(cudaEventElapsedTime(&t, timer.events[i], timer.events[i + 1]));
                ms[i] += t;
            }
            names.assign(timer.names.begin(), timer.names.end() - 1);
            for (auto e : timer.events)
                cudaEventDestroy(e);
            cur_ = 1 - cur_;
            ++step_;
            if (step_ % static_cast<size_t>(slots_) == 0) copy_back();
        }
        copy_back();
        std::vector<CudaStage> out;
        for (size_t i = 0; i < names.size(); ++i)
            out.push_back({names[i], ms[i] / 1e3 / static_cast<double>(std::max<size_t>(steps, 1)),
                           bytes.at(names[i])});
        return out;
    }

  private:
    // "RDCUDA05": from 2026-11-29 the walls' branch states in the CPU order (04 saved them in
    // the device's, which 04's own load_state misread).
    static constexpr uint64_t kMagic = 0x3530414455434452ULL;
    static constexpr size_t kCheckEvery = 64;
    static constexpr size_t kSortBlock = 64;  // signals sorted together (settle_front)
    struct Header {
        uint64_t real_size, air, pml, psi, receivers, grid, wall_states, wall_faces;
        bool operator==(const Header&) const = default;
    };
    Header header() const {
        return {sizeof(Real),        layout_.air_cells,        layout_.pml_cells,
                psi_.size(),         receivers_.size(),        grid_signals_.size(),
                layout_.wall_states, layout_.wall_faces.size()};
    }

    // The frequency-dependent walls' tables and state, face-minor (wall_faces_step), and the
    // gather of their drive per cell.
    void upload_walls(size_t& t) {
        const Layout& L = layout_;
        const size_t n = L.wall_faces.size();
        std::vector<walls::BranchCoefficients<Real>> table;
        for (const walls::BranchCoefficients<double>& b : L.wall_branches)
            table.push_back(b.as<Real>());
        wall_branches_.upload(table, t);
        std::vector<int32_t> cells(kReach * n, -1), begin(n), count(n);
        std::vector<Real> weights(kReach * n, Real(0));
        std::vector<std::pair<int32_t, int32_t>> to;  // (cell, term)
        for (size_t f = 0; f < n; ++f) {
            const WallFace& w = L.wall_faces[f];
            if (w.cells_end - w.cells_begin > kReach)
                throw std::logic_error("a wall face with more than kReach cells");
            for (int32_t k = w.cells_begin; k < w.cells_end; ++k) {
                const size_t at = static_cast<size_t>(k - w.cells_begin) * n + f;
                cells[at] = L.wall_cells[static_cast<size_t>(k)];
                weights[at] = static_cast<Real>(L.wall_weights[static_cast<size_t>(k)]);
                to.emplace_back(cells[at], static_cast<int32_t>(at));
            }
            begin[f] = w.branch_begin;
            count[f] = w.branches;
        }
        wall_cells_.upload(cells, t);
        wall_weights_.upload(weights, t);
        wall_branch_begin_.upload(begin, t);
        wall_branch_count_.upload(count, t);
        const std::vector<Real> states(most_wall_branches(L) * n, Real(0)), faces(n, Real(0));
        wall_s_.upload(states, t);
        wall_v_.upload(states, t);
        wall_u_.upload(faces, t);
        wall_dv_.upload(faces, t);
        wall_terms_.allocate(kReach * n, t);
        upload_gather(
            [&](auto&& f) {
                for (const auto& [cell, term] : to)
                    f(cell, term);
            },
            L.field_cells(), wall_gather_, t);
        wall_scale_ = static_cast<Real>(L.c / (L.h * L.dt));
        wall_slope_ = static_cast<Real>(wall_face_slope(L.c * L.dt / L.h));
    }

    // f(index in the CPU backend's state order, index on the device) for every branch state.
    template <typename F>
    void for_each_wall_state(F&& f) const {
        const size_t n = layout_.wall_faces.size();
        for (size_t i = 0; i < n; ++i) {
            const WallFace& w = layout_.wall_faces[i];
            for (int32_t b = 0; b < w.branches; ++b)
                f(static_cast<size_t>(w.state_begin + b), static_cast<size_t>(b) * n + i);
        }
    }

    // Per group, in the mode layout [kz][ky][kx]: a, b (with the DCT round trip's 1/(8N)) and phi.
    // A PML cell renumbered into the device's depth-major PML layout (cell k of PML line l at
    // air_cells + k * lines + l instead of air_cells + l * depth + k); air cells and ghosts stay.
    void renumber(int32_t& c) const {
        const Layout& L = layout_;
        const long long air = static_cast<long long>(L.air_cells);
        const long long n = static_cast<long long>(L.pml.size()), D = L.pml_depth;
        if (c < air || c >= air + static_cast<long long>(L.pml_cells)) return;
        const long long r = c - air;
        c = static_cast<int32_t>(air + (r % D) * n + r / D);
    }
    // 1 + the deepest PML cell that anything but its own line's update reads (the coupling
    // lines, the ghosts, the cells beyond a face, the samples): pml_accelerations writes the
    // accelerations of that many cells a line, and update_pml computes its own. A distributed
    // run's exchanges send PML cells too: there, every cell.
    int pml_read_depth() const {
        const Layout& L = layout_;
        if (comm_ || L.pml_depth == 0) return L.pml_depth;
        const long long air = static_cast<long long>(L.air_cells),
                        end = air + static_cast<long long>(L.pml_cells);
        const auto depth = [&](int32_t c) {
            return c >= air && c < end ? static_cast<int>((c - air) % L.pml_depth) : -1;
        };
        int deepest = depth(L.source);
        // On every core: a hall's lines and ghost terms are millions.
        const auto lines = static_cast<long long>(L.lines.size());
#pragma omp parallel for schedule(static) reduction(max : deepest)
        for (long long l = 0; l < lines; ++l) {
            const InterfaceLine& line = L.lines[static_cast<size_t>(l)];
            for (int j = 0; j < kReach; ++j)
                for (int32_t c : {line.right[j], line.left[j], line.far_right[j], line.far_left[j],
                                  line.own_right[j], line.own_left[j]})
                    deepest = std::max(deepest, depth(c));
        }
        for (const std::vector<int32_t>* cells :
             {&L.ghost_terms, &L.wall_cells, &L.receivers, &L.grid_cells}) {
            const auto n = static_cast<long long>(cells->size());
#pragma omp parallel for schedule(static) reduction(max : deepest)
            for (long long i = 0; i < n; ++i)
                deepest = std::max(deepest, depth((*cells)[static_cast<size_t>(i)]));
        }
        for (const PmlLine& line : L.pml)
            for (int32_t c : line.air)
                deepest = std::max(deepest, depth(c));
        return deepest + 1;
    }

    // The interface lines with their PML cells renumbered, field by field (load_line).
    std::vector<int32_t> device_lines() const {
        const Layout& L = layout_;
        const size_t n = L.lines.size();
        std::vector<int32_t> soa(n * kLineFields);
        // On every core: a hall's 3.5 M lines took most of a second of one.
#pragma omp parallel for schedule(static)
        for (size_t l = 0; l < n; ++l) {
            InterfaceLine line = L.lines[l];
            for (int j = 0; j < kReach; ++j)
                for (int32_t* c : {&line.right[j], &line.left[j], &line.far_right[j],
                                   &line.far_left[j], &line.own_right[j], &line.own_left[j]})
                    renumber(*c);
            const int32_t* f[6] = {line.right,    line.left,      line.far_right,
                                   line.far_left, line.own_right, line.own_left};
            // A plain line's far and own cells are its targets (load_line derives them).
            bool plain = true;
            for (int j = 0; j < kReach; ++j)
                plain = plain && line.right[j] >= 0 && line.left[j] >= 0 &&
                        line.far_right[j] == line.left[j] && line.far_left[j] == line.right[j] &&
                        line.own_right[j] == line.right[j] && line.own_left[j] == line.left[j];
            for (int i = 0; i < (plain ? 2 : 6); ++i)
                for (int j = 0; j < kReach; ++j)
                    soa[static_cast<size_t>(i * kReach + j) * n + l] = f[i][j];
            soa[static_cast<size_t>(6 * kReach) * n + l] = line.scheme | (plain ? kPlainLine : 0);
        }
        return soa;
    }

    // Every ghost's first K weights as a row of `table` (the distinct rows, K weights each):
    // weight_of[g]. False where there are more than 16-bit indices can name.
    bool ghost_weight_table(size_t K, std::vector<uint16_t>& weight_of,
                            std::vector<Real>& table) const {
        const Layout& L = layout_;
        std::map<std::array<double, 3>, uint16_t> ids;
        weight_of.resize(L.ghost_cells);
        for (size_t g = 0; g < L.ghost_cells; ++g) {
            std::array<double, 3> key{};
            for (size_t k = 0; k < K; ++k)
                key[k] = L.ghost_weights[static_cast<size_t>(L.ghost_offsets[g]) + k];
            const auto [it, added] = ids.try_emplace(key, static_cast<uint16_t>(ids.size()));
            if (!added) {
                weight_of[g] = it->second;
                continue;
            }
            if (ids.size() > 65536) return false;
            for (size_t k = 0; k < K; ++k)
                table.push_back(static_cast<Real>(key[k]));
            weight_of[g] = it->second;
        }
        return true;
    }

    // The ghosts' tables on the device (evaluate_ghosts). Every ghost's first K terms, K the fewest
    // any ghost has (1-3; two in the scenes measured), are stored term-major and need no offsets
    // (evaluate_ghosts_uniform); the few ghosts with more (a hall's 44 000 of 4.5 M) add the rest
    // in a second launch (add_ghost_extras), in the same order, so the sums are those of one loop.
    // The first K weights come from a table of the distinct ones (a face's reflection and
    // transmission: 92 on the hall), indexed in 16 bits, instead of K weights a ghost.
    void upload_ghosts(size_t& t) {
        const Layout& L = layout_;
        std::vector<int32_t> ghost_terms = L.ghost_terms;
        for (int32_t& c : ghost_terms)
            renumber(c);
        std::vector<Real> ghost_weights(L.ghost_weights.begin(), L.ghost_weights.end());
        const size_t ghosts = L.ghost_cells;
        int32_t fewest = ghosts > 0 ? std::numeric_limits<int32_t>::max() : 0;
        for (size_t g = 0; g < ghosts; ++g)
            fewest = std::min(fewest, L.ghost_offsets[g + 1] - L.ghost_offsets[g]);
        ghost_terms_each_ = fewest >= 1 && fewest <= 3 ? fewest : 0;
        std::vector<uint16_t> weight_of;
        std::vector<Real> table;
        if (ghost_terms_each_ > 0 &&
            !ghost_weight_table(static_cast<size_t>(ghost_terms_each_), weight_of, table))
            ghost_terms_each_ = 0;  // the offsets kernel
        if (ghost_terms_each_ > 0) {
            const size_t K = static_cast<size_t>(ghost_terms_each_);
            std::vector<int32_t> terms(K * ghosts), extra_ghosts, extra_offsets{0}, extra_terms;
            std::vector<Real> extra_weights;
            for (size_t g = 0; g < ghosts; ++g) {
                const size_t first = static_cast<size_t>(L.ghost_offsets[g]);
                const size_t last = static_cast<size_t>(L.ghost_offsets[g + 1]);
                for (size_t k = 0; k < K; ++k)
                    terms[k * ghosts + g] = ghost_terms[first + k];
                if (last == first + K) continue;
                if (g < L.pml_ghosts) ++ghost_extras_before_pml_;
                extra_ghosts.push_back(static_cast<int32_t>(g));
                for (size_t i = first + K; i < last; ++i) {
                    extra_terms.push_back(ghost_terms[i]);
                    extra_weights.push_back(ghost_weights[i]);
                }
                extra_offsets.push_back(static_cast<int32_t>(extra_terms.size()));
            }
            ghost_terms = std::move(terms);
            ghost_weights = std::move(table);
            ghost_weight_of_.upload(weight_of, t);
            ghost_extras_ = extra_ghosts.size();
            if (ghost_extras_ > 0) {
                extra_ghosts_.upload(extra_ghosts, t);
                ghost_offsets_.upload(extra_offsets, t);
                extra_terms_.upload(extra_terms, t);
                extra_weights_.upload(extra_weights, t);
            }
        } else {
            ghost_offsets_.upload(L.ghost_offsets, t);
        }
        ghost_terms_.upload(ghost_terms, t);
        ghost_weights_.upload(ghost_weights, t);
    }

    // The damping profiles of the PML lines, one per distinct sigma_max (the layout gives every
    // line the same one today): sigma dt per cell, then the decay per inner face.
    void build_pml_profiles(std::vector<Real>& profiles, std::vector<int32_t>& profile_of) const {
        const Layout& L = layout_;
        const int D = L.pml_depth;
        std::vector<double> smaxes;
        profile_of.resize(L.pml.size());
        for (size_t l = 0; l < L.pml.size(); ++l) {
            const double smax = L.pml[l].sigma_max;
            auto it = std::find(smaxes.begin(), smaxes.end(), smax);
            if (it == smaxes.end()) {
                smaxes.push_back(smax);
                for (int k = 0; k < D; ++k)
                    profiles.push_back(static_cast<Real>(pml_cell_sigma_dt(smax, k, D, dt_)));
                for (int f = 0; f + 1 < D; ++f)
                    profiles.push_back(static_cast<Real>(pml_face_decay(smax, f, D, dt_)));
                it = smaxes.end() - 1;
            }
            profile_of[l] = static_cast<int32_t>(it - smaxes.begin());
        }
    }

    DctDevice<Real> dct_device() const {
        DctDevice<Real> d{dct_groups_.get(),    {},
                          roots_.get(),         direct_.get(),
                          compact_group_.get(), compact_warp_group_.get()};
        for (int c = 0; c < kDctClasses; ++c)
            for (int a = 0; a < 3; ++a)
                d.block_group[c][a] = block_group_[c][a].get();
        for (int l = 0; l < kPlaneLaunches; ++l)
            d.plane_group[l] = plane_group_[l].get();
        return d;
    }

    // The plane groups' z pass (plane_z_): the same tables but its own block lists.
    DctDevice<Real> plane_z_device() const {
        DctDevice<Real> d = dct_device();
        for (int c = 0; c < kDctClasses; ++c)
            d.block_group[c][2] = plane_z_group_[c].get();
        return d;
    }

    ModeArrays<Real> mode_arrays(int cur) const {
        return {modes_[cur].get(), modes_[1 - cur].get(), a_.get(), b_.get(), phi_.get()};
    }

    // A side stream and its fork and join events (DctSideStream), and their release.
    static void create_side(DctSideStream& s) {
        ARDENT_CUDA_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
        ARDENT_CUDA_CHECK(cudaEventCreateWithFlags(&s.fork, cudaEventDisableTiming));
        ARDENT_CUDA_CHECK(cudaEventCreateWithFlags(&s.join, cudaEventDisableTiming));
    }
    static void destroy_side(const DctSideStream& s) {
        if (s.fork) cudaEventDestroy(s.fork);
        if (s.join) cudaEventDestroy(s.join);
        if (s.stream) cudaStreamDestroy(s.stream);
    }

    // The shared-memory limits of the compact and plane DCT classes (kCompactSolverBytes,
    // kCompactWarpBytes, kPlaneSolverBytes, kPlaneSlabBytes), or ARDENT_DCT_COMPACT_BYTES,
    // ARDENT_DCT_COMPACT_WARP_BYTES, ARDENT_DCT_PLANE_BYTES and ARDENT_DCT_PLANE_SLAB_BYTES where
    // set (0: none), for measurements; likewise ARDENT_DCT_SPLIT_Z=0 launches class 0's z pass
    // whole (kZRanges).
    static size_t env_bytes(const char* name, size_t fallback) {
        const char* v = std::getenv(name);
        return v && *v ? static_cast<size_t>(std::strtoull(v, nullptr, 10)) : fallback;
    }
    bool has_compact() const {
        return dct_.compact_blocks > 0 || dct_.compact_warp_partitions > 0;
    }

    // The compact groups' whole spectral update from `data` (left zero) into `out`, on a stream
    // of its own beside the line classes' passes; join_compact() joins it back.
    void fork_compact(Real* data, Real* out, int cur, bool init) const {
        if (!has_compact()) return;
        ARDENT_CUDA_CHECK(fork_sides(&compact_, 1, stream_));
        launch_dct_compact<Real>(dct_, dct_device(), data, out, mode_arrays(cur), init,
                                 compact_.stream);
    }
    void join_compact() const {
        if (has_compact()) ARDENT_CUDA_CHECK(join_sides(&compact_, 1, stream_));
    }

    // The plane groups' x and y passes (dct_plane.cuh) on streams of their own, beside the line
    // classes' x and y passes; join_planes() joins them back into the step's stream.
    bool has_planes() const {
        return std::any_of(std::begin(dct_.plane_blocks), std::end(dct_.plane_blocks),
                           [](unsigned b) { return b > 0; });
    }
    void fork_planes(bool inverse, const Real* in, Real* out, Real* clear) const {
        if (!has_planes()) return;
        ARDENT_CUDA_CHECK(fork_sides(planes_, kPlaneLaunches, stream_));
        launch_dct_plane<Real>(dct_, dct_device(), inverse, in, out, clear, planes_);
    }
    void join_planes() const {
        if (has_planes()) ARDENT_CUDA_CHECK(join_sides(planes_, kPlaneLaunches, stream_));
    }

    // The plane chain: where the plane groups' z pass has a plan of its own (plane_z_), their
    // passes run forward x/y -> z with the mode update -> inverse y/x on the plane streams and
    // plane_chain_, beside the other groups' passes on the step's stream, and are joined back
    // only at the end of inverse_dct(). Each chain's tails then overlap the other's work instead
    // of waiting at the joins between the passes.
    bool plane_chain() const {
        return has_planes() && std::any_of(std::begin(plane_z_.blocks), std::end(plane_z_.blocks),
                                           [](const auto& axes) {
                                               return axes[2][kPure] > 0 || axes[2][kMixed] > 0;
                                           });
    }

    // Forward DCT along x and y of the forcing, in place (the z pass is in modes()); with the
    // plane chain, the plane groups' z pass and mode update too (from the mode buffers of `cur`).
    void forward_dct(Real* data, int cur, bool init) const {
        fork_planes(false, data, data, nullptr);
        for (int a = 0; a < 2; ++a)
            launch_dct_forward<Real>(dct_, dct_device(), a, data, stream_, side_, kDctSides);
        if (!plane_chain()) {
            join_planes();
            return;
        }
        // One stream: the plane streams as its side streams made the hall 1 % slower (session 41).
        ARDENT_CUDA_CHECK(join_sides(planes_, kPlaneLaunches, plane_chain_.stream));
        launch_dct_z_modes<Real>(plane_z_, plane_z_device(), data, mode_arrays(cur), init,
                                 plane_chain_.stream);
        ARDENT_CUDA_CHECK(fork_sides(planes_, kPlaneLaunches, plane_chain_.stream));
    }

    // Forward z DCT, mode update, inverse z DCT, in place in `data` (the plane chain's groups
    // are in forward_dct()).
    void modes(Real* data, int cur, bool init) const {
        launch_dct_z_modes<Real>(dct_, dct_device(), data, mode_arrays(cur), init, stream_, side_,
                                 kDctSides);
    }

    // Inverse DCT along y (in place) and x (into `out`), leaving `data` zero.
    void inverse_dct(Real* data, Real* out) const {
        if (plane_chain())  // the plane streams wait for the chain's z pass already
            launch_dct_plane<Real>(dct_, dct_device(), true, data, out, data, planes_);
        else
            fork_planes(true, data, out, data);
        launch_dct_inverse<Real>(dct_, dct_device(), 1, data, data, nullptr, stream_, side_,
                                 kDctSides);
        launch_dct_inverse<Real>(dct_, dct_device(), 0, data, out, data, stream_, side_, kDctSides);
        join_planes();
        if (plane_chain()) ARDENT_CUDA_CHECK(join_sides(&plane_chain_, 1, stream_));
    }

    // Lines [first, last) as target cells, each with the indices of the terms it receives
    // (relative to the terms of line `first`), in line order.
    struct Gather {
        DeviceArray<int32_t> cells, offsets, terms_of;
        size_t first = 0, last = 0;
    };
    // A gather's tables from its (target cell, term) pairs, which `pairs(f)` passes to f(cell,
    // term) in order: the cells in order, each with its terms (in the order given) at
    // offsets[i] .. offsets[i + 1]. Counted, not sorted (a stable sort of a hall's 13 M pairs took
    // a second), and from the pairs as they are made: a list of them cost as much again in new
    // pages and copies. Cells are field indices, below `cells_bound`.
    template <typename Pairs>
    static void upload_gather(const Pairs& pairs, size_t cells_bound, Gather& g, size_t& bytes) {
        std::vector<int32_t> start(cells_bound + 1, 0);  // terms before each cell
        size_t n = 0;
        pairs([&](int32_t cell, int32_t) {
            ++start[static_cast<size_t>(cell) + 1];
            ++n;
        });
        std::vector<int32_t> cells, offsets;
        for (size_t c = 0; c < cells_bound; ++c) {
            if (start[c + 1] > 0) {
                cells.push_back(static_cast<int32_t>(c));
                offsets.push_back(start[c]);
            }
            start[c + 1] += start[c];
        }
        offsets.push_back(static_cast<int32_t>(n));
        std::vector<int32_t> terms(n);
        pairs([&](int32_t cell, int32_t term) {
            terms[static_cast<size_t>(start[static_cast<size_t>(cell)]++)] = term;
        });
        g.cells.upload(cells, bytes);
        g.offsets.upload(offsets, bytes);
        g.terms_of.upload(terms, bytes);
    }
    void build_gather(size_t first, size_t last, Gather& g, size_t& bytes) const {
        const auto pairs = [&](auto&& f) {
            const auto n =
                static_cast<int32_t>(last - first);  // terms slot-major (line_terms_range)
            for (size_t l = first; l < last; ++l) {
                const InterfaceLine& line = layout_.lines[l];
                const auto at = static_cast<int32_t>(l - first);
                for (int j = 0; j < kReach; ++j) {
                    if (line.right[j] >= 0) f(line.right[j], j * n + at);
                    if (line.left[j] >= 0) f(line.left[j], (kReach + j) * n + at);
                }
            }
        };
        upload_gather(pairs, layout_.field_cells(), g, bytes);
        g.first = first;
        g.last = last;
    }

    // The terms of a gather's lines from `p` into terms_ (every line its own slots, so two
    // gathers' terms can wait together).
    void line_terms(const Gather& g, const Real* p, Real scale, int32_t limit = 0x7fffffff,
                    cudaStream_t stream = nullptr) const {
        const long long n = static_cast<long long>(g.last - g.first);
        if (n == 0) return;
        line_terms_range<<<blocks(n), kBlock, 0, stream ? stream : stream_>>>(
            lines_.get(), static_cast<long long>(layout_.lines.size()),
            static_cast<long long>(g.first), n, p, scale, terms_.get() + g.first * 2 * kReach,
            limit);
    }
    void gather(const Gather& g, Real* force) const {
        const long long n = static_cast<long long>(g.last - g.first);
        if (n == 0) return;
        const long long nc = static_cast<long long>(g.cells.size());
        gather_terms<<<blocks(nc), kBlock, 0, stream_>>>(
            g.cells.get(), g.offsets.get(), g.terms_of.get(), nc,
            terms_.get() + g.first * 2 * kReach, force);
    }

    // One time step, in ard_cpu.cpp's order. `timer` marks the stage boundaries (profiling only).
    // `half` 0 queues all of it: with NCCL, a distributed run's two halo exchanges queued in it
    // too (one graph a step). Without NCCL a distributed run queues it in two halves (1, 2) and
    // exchanges the forcing on halo cells through the host between them.
    void enqueue_step(int cur, StageTimer* timer, int half = 0) const {
        auto mark = [&](const char* n) {
            if (timer) timer->mark(n);
        };
        if (half != 2) enqueue_forcing(timer);
        if (half == 0 && nccl_) {
            mark("halo exchange: forcing");
            nccl_force_.enqueue(*nccl_, force_.get(), stream_);
        }
        if (half != 1) enqueue_update(cur, timer);
        if (half == 0 && nccl_) {
            mark("halo exchange: field");
            nccl_field_.enqueue(*nccl_, field_.get(), stream_);
        }
        mark("end");
        ARDENT_CUDA_CHECK(cudaGetLastError());
    }

    // Ghosts, interface and wall forcing, the source and the sampling.
    void enqueue_forcing(StageTimer* timer) const {
        const Layout& L = layout_;
        auto mark = [&](const char* n) {
            if (timer) timer->mark(n);
        };
        Real* force = force_.get();
        mark("interface forcing");
        // What reads the field and writes elsewhere than the air's forcing runs beside the ghosts
        // and the air lines (fork_forcing); the gathers then add in the CPU backend's order.
        fork_forcing();
        // `force` is zero here: the last inverse DCT pass leaves it so.
        line_terms(air_gather_, field_.get(), c2h2_);
        gather(air_gather_, force);
        join_forcing();
        if (!L.wall_faces.empty()) {
            const long long nc = static_cast<long long>(wall_gather_.cells.size());
            gather_terms<<<blocks(nc), kBlock, 0, stream_>>>(
                wall_gather_.cells.get(), wall_gather_.offsets.get(), wall_gather_.terms_of.get(),
                nc, wall_terms_.get(), force);
        }
        mark("source and sampling");
        // This also advances the device's step counter, which nothing after it reads.
        const auto n_src = static_cast<unsigned long long>(source_.size());
        const int nsamp = static_cast<int>(sample_cells_.size());
        if (nsamp <= 4 * kBlock) {
            source_and_sample<<<1, kBlock, 0, stream_>>>(
                force, L.source, source_.get(), n_src, sample_cells_.get(), nsamp, field_.get(),
                sample_scale_, samples_.get(), slots_, step_counter_.get());
        } else {
            sample_cells<<<blocks(nsamp), kBlock, 0, stream_>>>(
                force, L.source, source_.get(), n_src, sample_cells_.get(), nsamp, field_.get(),
                sample_scale_, samples_.get(), slots_, step_counter_.get());
            source_and_advance<<<1, 1, 0, stream_>>>(force, L.source, source_.get(), n_src,
                                                     step_counter_.get());
        }
        mark("PML");
        gather(pml_gather_, force);
    }

    // On the side stream, beside the ghosts and the air lines' terms and gather: the wall faces'
    // branches and their terms (they read air cells only), then, once the field's ghosts are
    // evaluated, the PML coupling lines' terms and the PML cells' accelerations. Each reads the
    // field at step n and writes its own terms, branch states or the PML cells' forcing, none of
    // which the ghosts or the air lines touch; join_forcing() joins it back before the gathers
    // that add those terms.
    void fork_forcing() const {
        const Layout& L = layout_;
        cudaStream_t side = forcing_side_.stream;
        ARDENT_CUDA_CHECK(fork_sides(&forcing_side_, 1, stream_));
        if (!L.wall_faces.empty()) {
            const long long n = static_cast<long long>(L.wall_faces.size());
            wall_faces_step<<<blocks(n), kBlock, 0, side>>>(
                n, wall_cells_.get(), wall_weights_.get(), wall_branch_begin_.get(),
                wall_branch_count_.get(), wall_branches_.get(), field_.get(), wall_s_.get(),
                wall_v_.get(), wall_u_.get(), wall_dv_.get(), wall_scale_, wall_slope_,
                wall_terms_.get());
        }
        evaluate_ghosts(0, field_.get(), field_.get());
        ARDENT_CUDA_CHECK(cudaEventRecord(forcing_side_.ghosts, stream_));
        ARDENT_CUDA_CHECK(cudaStreamWaitEvent(side, forcing_side_.ghosts, 0));
        line_terms(pml_gather_, field_.get(), c2h2_, 0x7fffffff, side);
        if (!L.pml.empty() && pml_read_depth_ > 0) {
            const long long n = static_cast<long long>(L.pml.size());
            with_constant<8, 10, 12>(L.pml_depth, [&](auto d) {
                pml_accelerations<Real, d.value><<<blocks(n), kBlock, 0, side>>>(
                    pml_air_.get(), n, L.pml_depth, pml_read_depth_,
                    static_cast<long long>(L.air_cells), field_.get(), force_.get(), c2h2_);
            });
        }
    }
    void join_forcing() const {
        ARDENT_CUDA_CHECK(join_sides(&forcing_side_, 1, stream_));
    }

    // Ghosts [first, ghost_cells) of `in` into `out` (evaluate_ghosts in step_kernels.cuh).
    void evaluate_ghosts(size_t first, const Real* in, Real* out) const {
        const Layout& L = layout_;
        if (first >= L.ghost_cells) return;
        const long long n = static_cast<long long>(L.ghost_cells);
        const long long f = static_cast<long long>(first);
        const long long base = static_cast<long long>(L.air_cells + L.pml_cells);
        with_constant<1, 2, 3>(ghost_terms_each_, [&](auto k) {
            if constexpr (k.value > 0)
                evaluate_ghosts_uniform<Real, k.value><<<blocks(n - f), kBlock, 0, stream_>>>(
                    ghost_terms_.get(), ghost_weight_of_.get(), ghost_weights_.get(), f, n, in, out,
                    base);
            else
                cuda::evaluate_ghosts<<<blocks(n - f), kBlock, 0, stream_>>>(
                    ghost_offsets_.get(), ghost_terms_.get(), ghost_weights_.get(), f, n, in, out,
                    base);
        });
        // The extras of ghosts [first, ghost_cells): first is 0 or pml_ghosts.
        const size_t e0 = first == 0 ? 0 : ghost_extras_before_pml_;
        if (ghost_terms_each_ > 0 && ghost_extras_ > e0) {
            const long long ne = static_cast<long long>(ghost_extras_ - e0);
            add_ghost_extras<<<blocks(ne), kBlock, 0, stream_>>>(
                extra_ghosts_.get(), ghost_offsets_.get(), extra_terms_.get(), extra_weights_.get(),
                static_cast<long long>(e0), static_cast<long long>(ghost_extras_), in, out, base);
        }
    }

    // The C^2 correction, the PML, the partitions' DCTs and mode update.
    void enqueue_update(int cur, StageTimer* timer) const {
        const Layout& L = layout_;
        auto mark = [&](const char* n) {
            if (timer) timer->mark(n);
        };
        Real* force = force_.get();
        mark("PML");
        evaluate_ghosts(L.pml_ghosts, force, force);
        if (!L.pml.empty()) {
            const long long n = static_cast<long long>(L.pml.size());
            if (pml_reads_pml_)
                gather_values<<<blocks(n * kReach), kBlock, 0, stream_>>>(
                    pml_air_.get(), n * kReach, field_.get(), pml_air_values_.get());
            // The default depth (10) and its neighbours in registers; others at run time.
            with_constant<8, 10, 12>(L.pml_depth, [&](auto d) {
                update_pml<Real, d.value><<<blocks(n), kBlock, 0, stream_>>>(
                    pml_reads_pml_ ? pml_air_values_.get() : nullptr,
                    pml_reads_pml_ ? nullptr : pml_air_.get(), pml_air_.get(), n, L.pml_depth,
                    static_cast<long long>(L.air_cells), field_.get(), force, pml_old_.get(),
                    psi_.get(), pml_profiles_.get(), pml_profile_of_.get(), courant2_, dt2_12_,
                    c2h2_);
            });
        }
        mark("C^2 correction");
        // Every line's term from the forcing before any is added (ard_cpu.cpp), then the gathers
        // in the CPU's batch order: the air-air lines', then the PML coupling lines'. The two
        // sets of terms go to their own slots, so the PML lines' are computed beside the air
        // lines' (the hall 0.3 % faster, the L-shaped room 0.25 %; session 40).
        ARDENT_CUDA_CHECK(fork_sides(&forcing_side_, 1, stream_));
        line_terms(pml_gather_, force, correction_scale_, 0x7fffffff, forcing_side_.stream);
        line_terms(air_gather_, force, correction_scale_, static_cast<int32_t>(L.air_cells));
        join_forcing();
        gather(air_gather_, force);
        gather(pml_gather_, force);
        mark("forward DCT x, y");
        fork_compact(force, field_.get(), cur, false);
        forward_dct(force, cur, false);
        mark("DCT z, mode update");
        modes(force, cur, false);
        mark("inverse DCT y, x");
        inverse_dct(force, field_.get());
        join_compact();
    }

    void capture(int cur, int half = 0) {
        cudaGraph_t graph;
        ARDENT_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
        enqueue_step(cur, nullptr, half);
        ARDENT_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
        cudaGraphExec_t& exec = half == 0 ? graphs_[cur] : halves_[2 * cur + half - 1];
        ARDENT_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
        ARDENT_CUDA_CHECK(cudaGraphDestroy(graph));
    }

    // A distributed run's steps: each half a graph, the halo exchanges between (every rank
    // stops at the same step), the recorded samples gathered on rank 0 at the end.
    bool advance_distributed(size_t steps, const std::atomic<bool>* stop) {
        bool finished = true;
        for (size_t s = 0; s < steps; ++s) {
            if (comm_->any(stop && stop->load(std::memory_order_relaxed))) {
                finished = false;
                break;
            }
            if (nccl_) {
                if (!graphs_[cur_]) capture(cur_);
                ARDENT_CUDA_CHECK(cudaGraphLaunch(graphs_[cur_], stream_));
            } else {
                for (int half = 1; half <= 2; ++half) {
                    cudaGraphExec_t& exec = halves_[2 * cur_ + half - 1];
                    if (!exec) capture(cur_, half);
                    ARDENT_CUDA_CHECK(cudaGraphLaunch(exec, stream_));
                    if (half == 1) force_halo_.exchange(*comm_, force_.get(), stream_);
                }
                field_halo_.exchange(*comm_, field_.get(), stream_);
            }
            cur_ = 1 - cur_;
            ++step_;
            if (step_ % static_cast<size_t>(slots_) == 0) copy_back();
            if (step_ % kCheckEvery == 0) check_field(inject_);
        }
        gather_signals(*comm_);  // settles the signals first
        return finished;
    }

    // The field q = phi(A) p and both mode levels from the initial pressures set so far.
    void apply_pending() const {
        if (!pending_dirty_) return;
        pending_dirty_ = false;
        ARDENT_CUDA_CHECK(cudaMemcpyAsync(force_.get(), pending_.data(),
                                          pending_.size() * sizeof(Real), cudaMemcpyHostToDevice,
                                          stream_));
        fork_compact(force_.get(), field_.get(), cur_, true);
        forward_dct(force_.get(), cur_, true);
        modes(force_.get(), cur_, true);
        inverse_dct(force_.get(), field_.get());
        join_compact();
        ARDENT_CUDA_CHECK(cudaGetLastError());
        ARDENT_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

    // The samples recorded since the last copy go back to the host asynchronously, into the same
    // slots of a pinned mirror of the device ring (a copy never crosses the ring's end: one is
    // queued at every multiple of the slot count). Queued in the stream, a copy runs before any
    // later step reuses its slots, so the GPU never waits for the host; the host sorts the rows
    // into per-signal vectors once their copy has landed (settle), while later steps run. Sorting
    // a hall's 38 835 grid points after every ring (the GPU idle meanwhile) took 0.5 ms a step.
    void copy_back() const {
        if (step_ == flushed_) return;
        const size_t nsamp = sample_cells_.size();
        const size_t n = step_ - flushed_;
        if (nsamp > 0) {
            // The mirror's slots must be sorted before they are written again.
            while (!landing_.empty() &&
                   landing_.front().first + static_cast<size_t>(slots_) < step_)
                settle_front();
            if (!mirror_) {
                void* p = nullptr;
                ARDENT_CUDA_CHECK(
                    cudaMallocHost(&p, static_cast<size_t>(slots_) * nsamp * sizeof(Real)));
                mirror_.reset(static_cast<Real*>(p));
            }
            const size_t first = (flushed_ % static_cast<size_t>(slots_)) * nsamp;
            ARDENT_CUDA_CHECK(cudaMemcpyAsync(mirror_.get() + first, samples_.get() + first,
                                              n * nsamp * sizeof(Real), cudaMemcpyDeviceToHost,
                                              stream_));
            cudaEvent_t landed;
            ARDENT_CUDA_CHECK(cudaEventCreateWithFlags(&landed, cudaEventDisableTiming));
            ARDENT_CUDA_CHECK(cudaEventRecord(landed, stream_));
            landing_.push_back({flushed_, n, landed});
        }
        flushed_ = step_;
        // Whatever has landed already is sorted now; nothing waits here.
        while (!landing_.empty() && cudaEventQuery(landing_.front().landed) == cudaSuccess)
            settle_front();
    }

    void settle_signals() const override {
        copy_back();
        while (!landing_.empty())
            settle_front();
    }

    // Waits for the oldest copy and appends its rows to the signals, in blocks of signals so
    // that the rows' reads and each signal's writes stay in cache.
    void settle_front() const {
        const Landing l = landing_.front();
        landing_.pop_front();
        ARDENT_CUDA_CHECK(cudaEventSynchronize(l.landed));
        ARDENT_CUDA_CHECK(cudaEventDestroy(l.landed));
        const size_t nsamp = sample_cells_.size();
        const size_t nr = receivers_.size();
        const Real* rows = mirror_.get() + (l.first % static_cast<size_t>(slots_)) * nsamp;
        for (size_t i0 = 0; i0 < nsamp; i0 += kSortBlock) {
            const size_t i1 = std::min(nsamp, i0 + kSortBlock);
            for (size_t i = i0; i < i1; ++i) {
                const size_t had = i < nr ? receivers_[i].size() : grid_signals_[i - nr].size();
                if (i < nr)
                    receivers_[i].resize(had + l.n);
                else
                    grid_signals_[i - nr].resize(had + l.n);
                sorted_from_[i - i0] = had;
            }
            for (size_t s = 0; s < l.n; ++s) {
                const Real* row = rows + s * nsamp;
                for (size_t i = i0; i < std::min(i1, nr); ++i)
                    receivers_[i][sorted_from_[i - i0] + s] = row[i];
                for (size_t i = std::max(i0, nr); i < i1; ++i)
                    grid_signals_[i - nr][sorted_from_[i - i0] + s] = static_cast<float>(row[i]);
            }
        }
    }

    HaloPlan halo_plan_;  // consumed by the constructor
    Layout layout_;
    bool inject_;
    Communicator* comm_ = nullptr;  // several ranks: this rank's part (ard_distribute.h)
    HostStagedHalo<Real> field_halo_, force_halo_;
    std::unique_ptr<NcclComm> nccl_;  // null: the host-staged exchanges
    NcclHalo<Real> nccl_field_, nccl_force_;
    cudaGraphExec_t halves_[4] = {nullptr, nullptr, nullptr, nullptr};  // [parity][half]
    Real c2h2_, courant2_, sample_scale_, correction_scale_;
    Real dt2_12_ = 0;  // dt^2 / 12: the PML's time correction (ard_physics.h)
    std::vector<DctGroup> groups_;
    DctPlan dct_;
    int slots_ = 1;
    size_t bytes_ = 0;
    cudaStream_t stream_ = nullptr;
    // The DCT passes' smaller kernel classes, in turn (launch_classes). With one, the z pass's
    // 128-point and mixed groups ran one after the other beside the direct class: two made the
    // L-shaped room x 4.02 3 % faster, the hall 0.2 % (one H200).
    static constexpr int kDctSides = 2;
    DctSideStream side_[kDctSides];
    DctSideStream compact_;  // the compact DCT class, beside the passes (fork_compact)
    // The walls' and the PML's forcing, beside the air lines (fork_forcing).
    struct ForcingSide : DctSideStream {
        cudaEvent_t ghosts = nullptr;  // the field's ghosts evaluated
    } forcing_side_;
    DctSideStream planes_[kPlaneLaunches];  // the plane class's launches (fork_planes)
    // The plane groups' z pass (add_dct_group's plane_z; ARDENT_DCT_PLANE_CHAIN=0: none, for
    // measurements) and the stream it runs on between their forward and inverse (plane_chain()).
    DctPlan plane_z_;
    DctSideStream plane_chain_;
    cudaGraphExec_t graphs_[2] = {nullptr, nullptr};
    DeviceArray<Real> field_, force_, modes_[2], a_, b_, phi_, terms_, pml_old_, psi_,
        pml_profiles_, source_, samples_;
    DeviceArray<Complex> roots_;
    DeviceArray<Real> direct_;  // the DCT's direct-class matrices (direct_matrices)
    DeviceArray<DctGroup> dct_groups_;
    DeviceArray<int32_t> block_group_[kDctClasses][3], plane_z_group_[kDctClasses];
    DeviceArray<int32_t> compact_group_, compact_warp_group_, plane_group_[kPlaneLaunches];
    DeviceArray<int32_t> lines_, pml_air_, pml_profile_of_, ghost_offsets_, ghost_terms_;
    DeviceArray<Real> ghost_weights_;        // uniform ghosts: the table of distinct weights
    DeviceArray<uint16_t> ghost_weight_of_;  // uniform ghosts: each one's row of that table
    // Ghosts with more terms than ghost_terms_each_: their indices, and the rest of their terms
    // (offsets in ghost_offsets_); ghost_extras_before_pml_ of them are below pml_ghosts.
    DeviceArray<int32_t> extra_ghosts_, extra_terms_;
    DeviceArray<Real> extra_weights_;
    size_t ghost_extras_ = 0, ghost_extras_before_pml_ = 0;
    DeviceArray<walls::BranchCoefficients<Real>> wall_branches_;
    DeviceArray<int32_t> wall_cells_, wall_branch_begin_, wall_branch_count_;
    DeviceArray<Real> wall_weights_, wall_s_, wall_v_, wall_u_, wall_dv_, wall_terms_;
    Real wall_scale_ = 0;
    Real wall_slope_ = 0;
    int32_t ghost_terms_each_ = 0;  // the fewest terms of any ghost, if 1-3 (uniform), or 0
    DeviceArray<Real> pml_air_values_;
    bool pml_reads_pml_ = false;  // a PML line reads another's cells (gather_values first)
    int pml_read_depth_ = 0;      // a PML line's cells whose accelerations are written
    Gather air_gather_, pml_gather_, wall_gather_;
    DeviceArray<int32_t> sample_cells_;
    DeviceArray<unsigned long long> step_counter_;
    DeviceArray<double> energy_;
    int cur_ = 0;
    // Samples on their way back (copy_back): steps [first, first + n) in the mirror's slots.
    struct Landing {
        size_t first, n;
        cudaEvent_t landed;
    };
    struct FreeHost {
        void operator()(Real* p) const { cudaFreeHost(p); }
    };
    mutable size_t flushed_ = 0;  // steps whose copy is queued
    mutable std::deque<Landing> landing_;
    mutable std::unique_ptr<Real, FreeHost> mirror_;  // pinned, slots_ rows of every sample
    mutable size_t sorted_from_[kSortBlock] = {};
    mutable std::vector<Real> pending_;
    mutable bool pending_dirty_ = false;
    mutable PlaneGather<Real> plane_;
};

}  // namespace
}  // namespace cuda

bool cuda_available(std::string* why) {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e == cudaSuccess && n > 0) return true;
    if (why)
        *why = e != cudaSuccess
                   ? std::string("no usable CUDA device (") + cudaGetErrorString(e) + ")"
                   : std::string("no CUDA device is present");
    return false;
}

std::unique_ptr<Solver> make_cuda_solver(const Preprocessed& p, const SolverOptions& options) {
    std::string why;
    if (!cuda_available(&why))
        throw ResourceError("simulation.device \"cuda\": " + why + "; use --device cpu or auto");
    const auto t0 = std::chrono::steady_clock::now();
    cuda::use_device(options.gpu);
    const auto t1 = std::chrono::steady_clock::now();
    std::unique_ptr<Solver> solver;
    if (options.precision == Precision::Float64)
        solver = std::make_unique<cuda::ArdCuda<double>>(p, options);
    else
        solver = std::make_unique<cuda::ArdCuda<float>>(p, options);
    // The phases before the constructor's body: the device (its context, in a process's first
    // solver) and the layout, the constructor's time less its body's.
    const auto seconds = [](auto a, auto b) {
        return std::chrono::duration<double>(b - a).count();
    };
    auto& phases = dynamic_cast<cuda::Profiled&>(*solver).setup_phases;
    double body = 0;
    for (const SetupPhase& ph : phases)
        body += ph.seconds;
    const double made = seconds(t1, std::chrono::steady_clock::now());
    phases.insert(phases.begin(), {{"device", seconds(t0, t1)}, {"layout", made - body}});
    return solver;
}

std::vector<SetupPhase> cuda_setup_phases(const Solver& solver) {
    const auto* s = dynamic_cast<const cuda::Profiled*>(&solver);
    if (!s) throw std::invalid_argument("cuda_setup_phases: not a CUDA solver");
    return s->setup_phases;
}

std::vector<CudaStage> profile_cuda_stages(Solver& solver, size_t steps) {
    auto* s = dynamic_cast<cuda::Profiled*>(&solver);
    if (!s) throw std::invalid_argument("profile_cuda_stages: not a CUDA solver");
    return s->profile(steps);
}

double measure_copy_bandwidth() {
    const size_t bytes = size_t{1} << 30;
    void *a = nullptr, *b = nullptr;
    ARDENT_CUDA_CHECK(cudaMalloc(&a, bytes));
    ARDENT_CUDA_CHECK(cudaMalloc(&b, bytes));
    cudaEvent_t e0, e1;
    ARDENT_CUDA_CHECK(cudaEventCreate(&e0));
    ARDENT_CUDA_CHECK(cudaEventCreate(&e1));
    ARDENT_CUDA_CHECK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));  // warm-up
    const int reps = 10;
    ARDENT_CUDA_CHECK(cudaEventRecord(e0));
    for (int i = 0; i < reps; ++i)
        ARDENT_CUDA_CHECK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
    ARDENT_CUDA_CHECK(cudaEventRecord(e1));
    ARDENT_CUDA_CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    ARDENT_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaFree(a);
    cudaFree(b);
    return 2.0 * static_cast<double>(bytes) * reps / (ms / 1e3);
}

}  // namespace ardent::ard
