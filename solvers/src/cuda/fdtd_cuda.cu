// The CUDA FDTD backend: fdtd_cpu.cpp's scheme with both pressure arrays on the GPU. One step is
// four launches (interior sweep, boundary list, sampling and forcing, step counter) captured once
// into a CUDA graph per parity of the two arrays, so the host only replays graphs. Recorded samples
// collect in a device ring buffer copied back every few hundred steps. The host tables come from
// build_fdtd_layout(), the CPU backend's, and the checkpoint format is the CPU backend's too.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <istream>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../checkpoint_io.h"
#include "../fdtd_layout.h"
#include "../fdtd_sweep.h"
#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/estimate.h"
#include "ardent/solvers/fdtd_cuda.h"
#include "cuda_check.h"
#include "device_array.h"
#include "fdtd_kernels.cuh"
#include "plane_gather.cuh"

namespace ardent::fdtd {
namespace cuda {
namespace {

using checkpoint::read_array;
using checkpoint::read_pod;
using checkpoint::write_array;
using checkpoint::write_pod;

using ard::cuda::check_device_memory;
using ard::cuda::DeviceArray;
using ard::cuda::ring_slots;

unsigned blocks(long long n) {
    return ard::cuda::blocks_for(n, kBlock);
}

// The boundary cells' wall branch groups and states on the device: group i (state j) of boundary
// cell b at i n + b (j n + b), n cells, so that a warp's loads are coalesced; padded to the most
// groups (states) any cell has.
struct Padding {
    size_t groups = 0, terms = 0;
};
Padding padding(const FdtdLayout& L) {
    int32_t groups = 0, terms = 0;
    for (size_t b = 0; b < L.coefficients.size(); ++b) {
        const BoundaryCoefficients& k = L.coefficients[b];
        groups = std::max(groups, k.groups_end - k.groups_begin);
        const int32_t next = b + 1 < L.coefficients.size() ? L.coefficients[b + 1].terms_begin
                                                           : static_cast<int32_t>(L.terms);
        terms = std::max(terms, next - k.terms_begin);
    }
    return {static_cast<size_t>(groups) * L.boundary.size(),
            static_cast<size_t>(terms) * L.boundary.size()};
}

template <typename Real>
size_t device_bytes(const FdtdLayout& L, const Sweep& s) {
    const size_t R = sizeof(Real);
    const size_t nsamp = L.receivers.size() + L.grid_cells.size();
    auto a = [](size_t n, size_t size) { return std::max<size_t>(n, 1) * size; };
    return 2 * a(L.grid.count(), R) + a(s.mask.size(), 4) + a(s.zrange.size(), sizeof(ZRange)) +
           a(L.boundary.size(), 8) + a(L.boundary.size(), sizeof(BoundaryCoef<Real>)) +
           a(L.branches.size(), sizeof(walls::BranchCoefficients<Real>)) +
           a(padding(L).groups, 8 + R) + a(padding(L).terms, 2 * R) + a(L.forcing.size(), R) +
           a(nsamp, 8) + a(static_cast<size_t>(ring_slots(nsamp, R)) * nsamp, R) + a(1, 8) +
           a(1, 8);
}

class Profiled {
  public:
    virtual ~Profiled() = default;
    virtual CudaFdtdProfile profile(size_t steps) = 0;
};

template <typename Real>
class FdtdCuda final : public Solver, public Profiled {
  public:
    FdtdCuda(const Preprocessed& p, FdtdLayout&& layout, Sweep&& sweep)
        : grid_(layout.grid),
          inject_(!layout.forcing.empty()),
          sweep_(std::move(sweep)),
          boundary_count_(layout.boundary.size()),
          interior_count_(layout.interior_cells),
          source_(layout.source) {
        const FdtdLayout& L = layout;
        dt_ = L.dt;
        excitation_ = L.excitation;
        lambda2_ = static_cast<Real>(L.lambda * L.lambda);
        lambda_ = static_cast<Real>(L.lambda);
        const size_t need = device_bytes<Real>(L, sweep_);
        check_device_memory(p, need, "FDTD");

        // The same Real values as the CPU backend: rounded from the same doubles.
        std::vector<Real> forcing;
        for (double f : L.forcing)
            forcing.push_back(static_cast<Real>(f));
        std::vector<BoundaryCoef<Real>> coef;
        const size_t nb = L.boundary.size();
        const Padding pad = padding(L);
        std::vector<int32_t> group_first(pad.groups, 0), group_count(pad.groups, 0);
        std::vector<Real> group_faces(pad.groups, Real(0));
        for (size_t b = 0; b < nb; ++b) {
            const BoundaryCoefficients& k = L.coefficients[b];
            const int32_t groups = k.groups_end - k.groups_begin;
            coef.push_back({static_cast<Real>(k.air_neighbours), static_cast<Real>(k.gain),
                            static_cast<Real>(k.loss), static_cast<int16_t>(groups),
                            static_cast<uint16_t>(k.blocked)});
            int32_t terms = 0;
            for (int32_t i = 0; i < groups; ++i) {
                const auto g = static_cast<size_t>(k.groups_begin + i);
                group_first[static_cast<size_t>(i) * nb + b] = L.group_first[g];
                group_count[static_cast<size_t>(i) * nb + b] = L.group_count[g];
                group_faces[static_cast<size_t>(i) * nb + b] = static_cast<Real>(L.group_faces[g]);
                terms += L.group_count[g];
            }
            host_terms_.emplace_back(k.terms_begin, terms);
        }
        std::vector<walls::BranchCoefficients<Real>> branches;
        for (const walls::BranchCoefficients<double>& b : L.branches)
            branches.push_back(b.as<Real>());
        const std::vector<Real> zeros(pad.terms, Real(0));
        term_count_ = L.terms;
        std::vector<unsigned long long> boundary(L.boundary.begin(), L.boundary.end());
        std::vector<unsigned long long> cells(L.receivers.begin(), L.receivers.end());
        cells.insert(cells.end(), L.grid_cells.begin(), L.grid_cells.end());
        nsamp_ = cells.size();
        slots_ = ring_slots(nsamp_, sizeof(Real));
        host_boundary_ = L.boundary;

        size_t& t = bytes_;
        fields_[0].allocate(L.grid.count(), t);
        fields_[1].allocate(L.grid.count(), t);
        mask_.upload(sweep_.mask, t);
        zrange_.upload(sweep_.zrange, t);
        boundary_.upload(boundary, t);
        coef_.upload(coef, t);
        branches_.upload(branches, t);
        group_first_.upload(group_first, t);
        group_count_.upload(group_count, t);
        group_faces_.upload(group_faces, t);
        branch_s_.upload(zeros, t);
        branch_v_.upload(zeros, t);
        forcing_.upload(forcing, t);
        sample_cells_.upload(cells, t);
        samples_.allocate(static_cast<size_t>(slots_) * nsamp_, t);
        step_counter_.allocate(1, t);
        energy_.allocate(1, t);
        ARDENT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));

        receivers_.assign(L.receivers.size(), {});
        grid_positions_ = L.grid_positions;
        grid_signals_.assign(L.grid_cells.size(), {});
    }

    ~FdtdCuda() override {
        for (auto& e : graphs_)
            if (e) cudaGraphExecDestroy(e);
        if (stream_) cudaStreamDestroy(stream_);
    }

    std::string name() const override {
        return std::string("fdtd-cuda-") + (sizeof(Real) == 4 ? "float32" : "float64");
    }

    bool advance(size_t steps, const std::atomic<bool>* stop) override {
        apply_pending();
        for (size_t s = 0; s < steps; ++s) {
            if (stop && stop->load(std::memory_order_relaxed)) {
                flush();
                return false;
            }
            if (!graphs_[cur_]) capture(cur_);
            ARDENT_CUDA_CHECK(cudaGraphLaunch(graphs_[cur_], stream_));
            cur_ = 1 - cur_;
            ++step_;
            if (step_ % static_cast<size_t>(slots_) == 0) flush();
            if (step_ % kCheckEvery == 0) check_field(inject_);
        }
        flush();
        return true;
    }

    void wait() const override { ARDENT_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

    double field_energy() const override {
        apply_pending();
        ARDENT_CUDA_CHECK(cudaMemsetAsync(energy_.get(), 0, sizeof(double), stream_));
        const auto n = static_cast<long long>(grid_.count());
        sum_squares<<<std::min(blocks(n), 1024u), kBlock, 0, stream_>>>(fields_[cur_].get(), n,
                                                                        energy_.get());
        ARDENT_CUDA_CHECK(cudaGetLastError());
        double e = 0;
        ARDENT_CUDA_CHECK(
            cudaMemcpyAsync(&e, energy_.get(), sizeof e, cudaMemcpyDeviceToHost, stream_));
        ARDENT_CUDA_CHECK(cudaStreamSynchronize(stream_));
        return e;
    }

    // Gathered on the host and written in one launch before the next use of the field.
    void set_pressure(Index3 cell, double value) override {
        const size_t i = grid_.contains(cell) ? grid_.index(cell) : 0;
        if (!grid_.contains(cell) || !is_air(i))
            throw std::invalid_argument("set_pressure: not an air cell");
        pending_cells_.push_back(i);
        pending_values_.push_back(static_cast<Real>(value));
    }

    void pressure_plane(int axis, int index, std::vector<float>& out) const override {
        apply_pending();
        bool rebuilt = false;
        const std::vector<int64_t>& cells = plane_cells(
            grid_, axis, index,
            [this](size_t i) -> int64_t {
                return is_air(i) ? static_cast<int64_t>(i) : int64_t{-1};
            },
            &rebuilt);
        plane_.read(cells, rebuilt, fields_[cur_].get(), stream_, out);
    }

    size_t memory_bytes() const override { return bytes_; }

    // The CPU backend's format: either backend resumes the other's checkpoint.
    void save_state(std::ostream& out) const override {
        apply_pending();
        ARDENT_CUDA_CHECK(cudaStreamSynchronize(stream_));
        const uint64_t header[4] = {kCheckpointMagic, sizeof(Real), grid_.count(),
                                    receivers_.size()};
        out.write(reinterpret_cast<const char*>(header), sizeof header);
        write_pod(out, step_);
        write_pod(out, peak_energy_);
        for (const auto* a : {&fields_[cur_], &fields_[1 - cur_]}) {
            const std::vector<Real> v = a->download();
            write_array(out, v.data(), v.size());
        }
        // The branch states in the CPU backend's order (each cell's terms together).
        write_pod(out, static_cast<uint64_t>(term_count_));
        for (const auto* a : {&branch_s_, &branch_v_}) {
            const std::vector<Real> dev = a->download();
            std::vector<Real> v(term_count_);
            for_each_term([&](size_t host, size_t device) { v[host] = dev[device]; });
            write_array(out, v.data(), v.size());
        }
        save_signals(out);
    }

    void load_state(std::istream& in) override {
        uint64_t header[4] = {};
        in.read(reinterpret_cast<char*>(header), sizeof header);
        if (!in || header[0] != kCheckpointMagic || header[1] != sizeof(Real) ||
            header[2] != grid_.count() || header[3] != receivers_.size())
            throw InputError("the checkpoint was written for another scene, solver or precision");
        step_ = read_pod<size_t>(in);
        peak_energy_ = read_pod<double>(in);
        pending_cells_.clear();
        pending_values_.clear();
        cur_ = 0;
        for (auto* a : {&fields_[0], &fields_[1]}) {
            std::vector<Real> v(a->size());
            read_array(in, v.data(), v.size());
            a->assign(v);
        }
        if (read_pod<uint64_t>(in) != term_count_)
            throw InputError("the checkpoint was written for another scene's walls");
        for (auto* a : {&branch_s_, &branch_v_}) {
            std::vector<Real> v(term_count_), dev(a->size(), Real(0));
            read_array(in, v.data(), v.size());
            for_each_term([&](size_t host, size_t device) { dev[device] = v[host]; });
            a->assign(dev);
        }
        const unsigned long long s = step_;
        ARDENT_CUDA_CHECK(cudaMemcpy(step_counter_.get(), &s, sizeof s, cudaMemcpyHostToDevice));
        flushed_ = step_;
        load_signals(in);
    }

    CudaFdtdProfile profile(size_t steps) override {
        apply_pending();
        const double R = sizeof(Real);
        const double nb = static_cast<double>(boundary_count_);
        const double ns = static_cast<double>(nsamp_);
        // The least traffic: the interior reads p and the old level and writes the new one (the
        // mask adds 1/8 byte a cell); a boundary cell also reads its index and coefficients.
        const std::vector<double> bytes = {
            static_cast<double>(interior_count_) * 3 * R +
                static_cast<double>(sweep_.swept_cells) / 8,
            nb * (3 * R + 8 + 3 * R),
            ns * (2 * R + 8),
        };
        std::vector<double> ms(bytes.size(), 0.0);
        std::vector<cudaEvent_t> ev(bytes.size() + 1);
        for (auto& e : ev)
            ARDENT_CUDA_CHECK(cudaEventCreate(&e));
        for (size_t s = 0; s < steps; ++s) {
            enqueue_step(cur_, ev.data());
            ARDENT_CUDA_CHECK(cudaStreamSynchronize(stream_));
            for (size_t k = 0; k + 1 < ev.size(); ++k) {
                float t = 0;
                ARDENT_CUDA_CHECK(cudaEventElapsedTime(&t, ev[k], ev[k + 1]));
                ms[k] += t;
            }
            cur_ = 1 - cur_;
            ++step_;
            if (step_ % static_cast<size_t>(slots_) == 0) flush();
        }
        flush();
        for (auto e : ev)
            cudaEventDestroy(e);
        CudaFdtdProfile out;
        const char* names[] = {"interior sweep", "boundary cells", "sampling and source"};
        for (size_t k = 0; k < bytes.size(); ++k)
            out.stages.push_back({names[k],
                                  ms[k] / 1e3 / static_cast<double>(std::max<size_t>(steps, 1)),
                                  bytes[k]});
        out.interior_cells = interior_count_;
        out.swept_cells = sweep_.swept_cells;
        out.boundary_cells = boundary_count_;
        return out;
    }

  private:
    static constexpr size_t kCheckEvery = 64;

    // f(index in the CPU backend's term order, index on the device) for every branch term.
    template <typename F>
    void for_each_term(F&& f) const {
        const size_t nb = host_terms_.size();
        for (size_t b = 0; b < nb; ++b)
            for (int32_t j = 0; j < host_terms_[b].second; ++j)
                f(static_cast<size_t>(host_terms_[b].first + j), static_cast<size_t>(j) * nb + b);
    }

    bool is_air(size_t i) const {
        if (std::binary_search(host_boundary_.begin(), host_boundary_.end(), i)) return true;
        const size_t nx = static_cast<size_t>(grid_.dims[0]);
        const size_t word = (i / nx) * static_cast<size_t>(sweep_.shape.words) + (i % nx) / kTileX;
        return (sweep_.mask[word] >> ((i % nx) % kTileX)) & 1u;
    }

    // One time step: p = fields_[cur], the old level (overwritten by the new) fields_[1 - cur].
    // `events` (profiling only) are recorded around the three stages.
    void enqueue_step(int cur, cudaEvent_t* events) const {
        const Real* p = fields_[cur].get();
        Real* next = fields_[1 - cur].get();
        auto mark = [&](int k) {
            if (events) ARDENT_CUDA_CHECK(cudaEventRecord(events[k], stream_));
        };
        mark(0);
        const dim3 tile(kTileX, kTileY);
        const dim3 tiles(static_cast<unsigned>(sweep_.tiles_x),
                         static_cast<unsigned>(sweep_.tiles_y));
        interior_sweep<Real><<<tiles, tile, 0, stream_>>>(p, next, mask_.get(), zrange_.get(),
                                                          sweep_.shape, lambda2_);
        mark(1);
        const auto nb = static_cast<long long>(boundary_count_);
        if (nb > 0)
            boundary_cells<Real><<<blocks(nb), kBlock, 0, stream_>>>(
                p, next, boundary_.get(), coef_.get(), nb, sweep_.shape.sy, sweep_.shape.sz,
                lambda2_, lambda_,
                WallTerms<Real>{branches_.get(), group_first_.get(), group_count_.get(),
                                group_faces_.get(), branch_s_.get(), branch_v_.get()});
        mark(2);
        record_and_force<Real><<<blocks(static_cast<long long>(nsamp_) + 1), kBlock, 0, stream_>>>(
            p, next, sample_cells_.get(), static_cast<int>(nsamp_), samples_.get(), slots_,
            forcing_.get(), static_cast<unsigned long long>(inject_ ? forcing_.size() : 0),
            static_cast<unsigned long long>(source_), step_counter_.get());
        tick<<<1, 1, 0, stream_>>>(step_counter_.get());
        mark(3);
        ARDENT_CUDA_CHECK(cudaGetLastError());
    }

    void capture(int cur) {
        cudaGraph_t graph;
        ARDENT_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
        enqueue_step(cur, nullptr);
        ARDENT_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
        ARDENT_CUDA_CHECK(cudaGraphInstantiate(&graphs_[cur], graph, 0));
        ARDENT_CUDA_CHECK(cudaGraphDestroy(graph));
    }

    void apply_pending() const {
        if (pending_cells_.empty()) return;
        size_t ignored = 0;
        DeviceArray<unsigned long long> cells;
        DeviceArray<Real> values;
        cells.upload(std::vector<unsigned long long>(pending_cells_.begin(), pending_cells_.end()),
                     ignored);
        values.upload(pending_values_, ignored);
        const auto n = static_cast<long long>(pending_cells_.size());
        scatter_both<Real><<<blocks(n), kBlock, 0, stream_>>>(fields_[0].get(), fields_[1].get(),
                                                              cells.get(), values.get(), n);
        ARDENT_CUDA_CHECK(cudaGetLastError());
        ARDENT_CUDA_CHECK(cudaStreamSynchronize(stream_));
        pending_cells_.clear();
        pending_values_.clear();
    }

    // Copies the samples recorded since the last flush (never across the ring's end: flushes
    // happen at every multiple of the slot count).
    void flush() {
        if (step_ == flushed_) return;
        const size_t n = step_ - flushed_;
        const size_t first = flushed_ % static_cast<size_t>(slots_);
        if (nsamp_ > 0) {
            host_samples_.resize(n * nsamp_);
            ARDENT_CUDA_CHECK(cudaMemcpyAsync(host_samples_.data(), samples_.get() + first * nsamp_,
                                              n * nsamp_ * sizeof(Real), cudaMemcpyDeviceToHost,
                                              stream_));
            ARDENT_CUDA_CHECK(cudaStreamSynchronize(stream_));
            const size_t nr = receivers_.size();
            for (size_t s = 0; s < n; ++s) {
                const Real* row = host_samples_.data() + s * nsamp_;
                for (size_t r = 0; r < nr; ++r)
                    receivers_[r].push_back(static_cast<double>(row[r]));
                for (size_t i = nr; i < nsamp_; ++i)
                    grid_signals_[i - nr].push_back(static_cast<float>(row[i]));
            }
        }
        flushed_ = step_;
    }

    Grid grid_;
    bool inject_;
    Sweep sweep_;
    size_t boundary_count_, interior_count_, source_;
    std::vector<size_t> host_boundary_;
    Real lambda2_ = 0, lambda_ = 0;
    size_t nsamp_ = 0;
    int slots_ = 1;
    size_t bytes_ = 0;
    cudaStream_t stream_ = nullptr;
    cudaGraphExec_t graphs_[2] = {nullptr, nullptr};
    DeviceArray<Real> fields_[2], forcing_, samples_;
    DeviceArray<uint32_t> mask_;
    DeviceArray<ZRange> zrange_;
    DeviceArray<unsigned long long> boundary_, sample_cells_, step_counter_;
    DeviceArray<BoundaryCoef<Real>> coef_;
    // The walls' branch table and the boundary cells' branch terms with their state.
    DeviceArray<walls::BranchCoefficients<Real>> branches_;
    DeviceArray<int32_t> group_first_, group_count_;
    DeviceArray<Real> group_faces_, branch_s_, branch_v_;
    std::vector<std::pair<int32_t, int32_t>> host_terms_;  // per boundary cell: CPU first, count
    size_t term_count_ = 0;                                // terms in the CPU backend's order
    DeviceArray<double> energy_;
    int cur_ = 0;
    size_t flushed_ = 0;
    std::vector<Real> host_samples_;
    mutable std::vector<size_t> pending_cells_;
    mutable std::vector<Real> pending_values_;
    mutable ard::cuda::PlaneGather<Real> plane_;
};

}  // namespace
}  // namespace cuda

size_t cuda_memory_bytes(const Preprocessed& p, const SolverOptions& options) {
    const FdtdLayout L = build_fdtd_layout(p, options.source, options.listener_grid,
                                           options.inject_source, options.receiver_gradients);
    const Sweep s = build_sweep(p.air);
    return options.precision == Precision::Float64 ? cuda::device_bytes<double>(L, s)
                                                   : cuda::device_bytes<float>(L, s);
}

std::unique_ptr<Solver> make_cuda_solver(const Preprocessed& p, const SolverOptions& options) {
    std::string why;
    if (!ard::cuda_available(&why))
        throw ResourceError("simulation.device \"cuda\": " + why + "; use --device cpu or auto");
    ard::cuda::use_device(options.gpu);
    // The host tables first: the GPU memory they imply is checked before any allocation.
    FdtdLayout L = build_fdtd_layout(p, options.source, options.listener_grid,
                                     options.inject_source, options.receiver_gradients);
    Sweep s = build_sweep(p.air);
    if (options.precision == Precision::Float64)
        return std::make_unique<cuda::FdtdCuda<double>>(p, std::move(L), std::move(s));
    return std::make_unique<cuda::FdtdCuda<float>>(p, std::move(L), std::move(s));
}

CudaFdtdProfile profile_cuda(Solver& solver, size_t steps) {
    auto* s = dynamic_cast<cuda::Profiled*>(&solver);
    if (!s) throw std::invalid_argument("profile_cuda: not a CUDA FDTD solver");
    return s->profile(steps);
}

}  // namespace ardent::fdtd
