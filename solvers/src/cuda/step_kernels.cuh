// Kernels of one CUDA ARD time step other than the DCT: the ghosts beyond absorbing faces,
// interface forcing (line terms, then a gather per target cell),
// the C^2 time correction, source and sampling, the PML lines and the energy reduction. Each
// mirrors a loop of ard_cpu.cpp's step_once() and uses the shared per-cell physics (ard_physics.h),
// so the two backends differ only in rounding.
#pragma once

#include <cuda_runtime.h>

#include "ardent/solvers/ard_layout.h"
#include "ardent/solvers/ard_physics.h"

namespace ardent::ard::cuda {

inline constexpr int kMaxPmlDepth = 32;
inline constexpr int kStepBlock = 256;  // threads per block of these kernels' launches

__device__ inline long long thread_index() {
    return blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
}

// The interface lines on the device are stored field by field ([field][line], the fields of
// InterfaceLine in its order: right, left, far_right, far_left, own_right, own_left, scheme), so
// that a warp's loads of one field are coalesced; as an array of structs each load touched 19
// sectors per warp. `n` is the number of lines. A side without targets is not read, nor are the
// far and own cells of a plain line (kPlainLine in its scheme): one between two partitions each
// at least kReach cells deep, whose far cells on either side are the other side's targets and
// whose own cells are its own targets. Most of a hall's lines are plain; they read 7 of the 19
// fields.
inline constexpr int kLineFields = 6 * kReach + 1;
inline constexpr int32_t kPlainLine = 1 << 16;

__device__ inline InterfaceLine load_line(const int32_t* __restrict__ soa, long long n,
                                          long long l) {
    auto f = [&](int i) { return soa[i * n + l]; };
    InterfaceLine x;
    const int32_t scheme = f(6 * kReach);
#pragma unroll
    for (int j = 0; j < kReach; ++j) {
        x.right[j] = f(j);
        x.left[j] = f(kReach + j);
    }
    x.scheme = scheme & ~kPlainLine;
    if (scheme & kPlainLine) {
#pragma unroll
        for (int j = 0; j < kReach; ++j) {
            x.far_right[j] = x.own_left[j] = x.left[j];
            x.far_left[j] = x.own_right[j] = x.right[j];
        }
        return x;
    }
    const bool right = x.right[0] >= 0, left = x.left[0] >= 0;
#pragma unroll
    for (int j = 0; j < kReach; ++j) {
        x.far_right[j] = right ? f(2 * kReach + j) : -1;
        x.far_left[j] = left ? f(3 * kReach + j) : -1;
        x.own_right[j] = right ? f(4 * kReach + j) : -1;
        x.own_left[j] = left ? f(5 * kReach + j) : -1;
    }
    return x;
}

// The terms of lines [first, first + count) from the field `p`, times `scale`, slot-major: the
// term of line l's right target j at out[j count + l], its left target j's at
// out[(kReach + j) count + l] (zero where a side has no target), so that each store of a warp is
// one coalesced run (line by line, its six stores touched 24 sectors each). Cells at or above
// `limit` read as zero (line_terms).
template <typename Real>
__global__ void line_terms_range(const int32_t* __restrict__ lines, long long lines_count,
                                 long long first, long long count, const Real* p, Real scale,
                                 Real* __restrict__ out, int32_t limit) {
    const long long l = thread_index();
    if (l >= count) return;
    Real right[kReach], left[kReach];
    line_terms(load_line(lines, lines_count, first + l), p, scale, right, left, limit);
#pragma unroll
    for (int j = 0; j < kReach; ++j) {
        out[j * count + l] = right[j];
        out[(kReach + j) * count + l] = left[j];
    }
}

// The ghosts [first, count) beyond partially absorbing faces (Layout): out[base + g] is the
// weighted sum of its terms in `in`, which are air and PML cells only, so the order of evaluation
// does not matter. The field's ghosts at step n (in = out = the field), and the PML ghosts'
// accelerations (in = out = the forcing; pml_time_correction in ard_physics.h).
template <typename Real>
__global__ void evaluate_ghosts(const int32_t* __restrict__ offsets,
                                const int32_t* __restrict__ terms, const Real* __restrict__ weights,
                                long long first, long long count, const Real* in, Real* out,
                                long long base) {
    const long long g = first + thread_index();
    if (g >= count) return;
    Real v = 0;
    for (int32_t t = offsets[g]; t < offsets[g + 1]; ++t)
        v += weights[t] * in[terms[t]];
    out[base + g] = v;
}

// The same for every ghost's first K terms, stored term-major ([k][ghost]): no offsets to read,
// and the weights row weight_of[g] of `table` (K weights a row), shared by the ghosts of faces
// alike (add_ghost_extras adds the terms of the ghosts that have more).
template <typename Real, int K>
__global__ void evaluate_ghosts_uniform(const int32_t* __restrict__ terms,
                                        const uint16_t* __restrict__ weight_of,
                                        const Real* __restrict__ table, long long first,
                                        long long count, const Real* in, Real* out,
                                        long long base) {
    const long long g = first + thread_index();
    if (g >= count) return;
    const Real* w = table + K * static_cast<int>(weight_of[g]);
    Real v = 0;
#pragma unroll
    for (int k = 0; k < K; ++k)
        v += w[k] * in[terms[k * count + g]];
    out[base + g] = v;
}

// The terms beyond the first K of the ghosts that have more (evaluate_ghosts_uniform took the
// first K): ghost ghosts[e], e in [first, count), adds terms [offsets[e], offsets[e + 1]), after
// the first K and in their order, so the sum is evaluate_ghosts' to the bit.
template <typename Real>
__global__ void add_ghost_extras(const int32_t* __restrict__ ghosts,
                                 const int32_t* __restrict__ offsets,
                                 const int32_t* __restrict__ terms,
                                 const Real* __restrict__ weights, long long first, long long count,
                                 const Real* in, Real* out, long long base) {
    const long long e = first + thread_index();
    if (e >= count) return;
    Real v = out[base + ghosts[e]];
    for (int32_t t = offsets[e]; t < offsets[e + 1]; ++t)
        v += weights[t] * in[terms[t]];
    out[base + ghosts[e]] = v;
}

// out[i] = field[cells[i]]: the air-side values PML lines read, taken before update_pml writes
// the next level, since across a thin partition they may be another PML line's cells.
template <typename Real>
__global__ void gather_values(const int32_t* __restrict__ cells, long long count,
                              const Real* __restrict__ field, Real* __restrict__ out) {
    const long long i = thread_index();
    if (i < count) out[i] = field[cells[i]];
}

// The inverse of gather_values: what arrived from other ranks into this rank's halo cells.
template <typename Real>
__global__ void scatter_values(const int32_t* __restrict__ cells, long long count,
                               const Real* __restrict__ in, Real* __restrict__ field) {
    const long long i = thread_index();
    if (i < count) field[cells[i]] = in[i];
}

// Adds to each target cell the terms of the lines that reach it, in line order, which is the
// order the CPU backend's batches add them in: one launch instead of one per batch, and the
// same rounding. `offsets` has one more entry than `cells`.
template <typename Real>
__global__ void gather_terms(const int32_t* __restrict__ cells, const int32_t* __restrict__ offsets,
                             const int32_t* __restrict__ terms_of, long long count,
                             const Real* __restrict__ terms, Real* force) {
    const long long i = thread_index();
    if (i >= count) return;
    const int32_t c = cells[i], end = offsets[i + 1];
    int32_t j = offsets[i];
    // Every listed cell has a term (upload_gather): the first is read beside the cell's forcing,
    // the rest two at a time, both loads issued before either is added (the same sum in order).
    Real s = force[c] + terms[terms_of[j]];
    for (++j; j + 1 < end; j += 2) {
        const Real a = terms[terms_of[j]], b = terms[terms_of[j + 1]];
        s += a;
        s += b;
    }
    if (j < end) s += terms[terms_of[j]];
    force[c] = s;
}

// One thread per frequency-dependent wall face (wall_face_drive, the CPU backend's), every
// array face-minor so that a warp's loads are coalesced: its cells and weights at j n + f
// (j < kReach, cell -1 unused), its branch states at b n + f, and its drive times each weight
// into terms[j n + f], which gather_terms then adds per cell. A face of at most kHeldBranches
// branches (the bundled scenes' materials fit 1 to 8 at 1650 Hz) has its states read into
// registers, all loads issued together, and written back after: stepped in place, each branch's
// loads waited for the previous branch's stores (s and v might alias, as far as the compiler
// knew). A face of more branches steps them in place.
inline constexpr int kHeldBranches = 8;

template <typename Real>
__global__ void wall_faces_step(long long n, const int32_t* __restrict__ cells,
                                const Real* __restrict__ weights,
                                const int32_t* __restrict__ branch_begin,
                                const int32_t* __restrict__ branches,
                                const walls::BranchCoefficients<Real>* __restrict__ table,
                                const Real* __restrict__ p, Real* s, Real* v, Real* u_prev,
                                Real* dv_prev, Real scale, Real slope, Real* __restrict__ terms) {
    const long long f = thread_index();
    if (f >= n) return;
    Real u = 0;
#pragma unroll
    for (int j = 0; j < kReach; ++j) {
        const int32_t c = cells[j * n + f];
        if (c >= 0) u += weights[j * n + f] * p[c];
    }
    const int32_t count = branches[f];
    const walls::BranchCoefficients<Real>* own = table + branch_begin[f];
    Real u_last = u_prev[f], dv_last = dv_prev[f], drive;
    if (count <= kHeldBranches) {
        Real hs[kHeldBranches], hv[kHeldBranches];
#pragma unroll
        for (int b = 0; b < kHeldBranches; ++b) {
            if (b >= count) break;
            hs[b] = s[b * n + f];
            hv[b] = v[b * n + f];
        }
        drive =
            wall_face_drive<kHeldBranches>(u, count, own, hs, hv, 1, u_last, dv_last, scale, slope);
#pragma unroll
        for (int b = 0; b < kHeldBranches; ++b) {
            if (b >= count) break;
            s[b * n + f] = hs[b];
            v[b * n + f] = hv[b];
        }
    } else {
        drive = wall_face_drive(u, count, own, s + f, v + f, n, u_last, dv_last, scale, slope);
    }
    u_prev[f] = u_last;
    dv_prev[f] = dv_last;
#pragma unroll
    for (int j = 0; j < kReach; ++j)
        terms[j * n + f] = weights[j * n + f] * drive;
}

// The source and the sampling of a step, in one block, which then advances the step counter
// (every thread has read it by the barrier): one launch instead of three. The source adds
// samples[step] to its cell's forcing while step < source_count. Sample n is q + (dt^2/12) F at
// its cell (F with the source), in slot n mod `slots` of the recording buffer. The step counter
// lives on the device so that one captured graph serves every step.
template <typename Real>
__global__ void source_and_sample(Real* force, int32_t source, const Real* samples,
                                  unsigned long long source_count, const int32_t* cells, int count,
                                  const Real* field, Real scale, Real* buffer, int slots,
                                  unsigned long long* step) {
    const unsigned long long s = *step;
    const bool inject = s < source_count;
    const Real add = inject ? samples[s] : Real(0);
    const long long slot =
        slots > 0 ? static_cast<long long>(s % static_cast<unsigned long long>(slots)) : 0;
    for (int i = static_cast<int>(threadIdx.x); i < count; i += static_cast<int>(blockDim.x)) {
        const int32_t c = cells[i];
        if (c < 0) {  // another rank's cell (a distributed run): it records it
            buffer[slot * count + i] = Real(0);
            continue;
        }
        const Real f = inject && c == source ? force[c] + add : force[c];
        buffer[slot * count + i] = field[c] + scale * f;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        if (inject && source >= 0) force[source] += add;
        ++*step;
    }
}

// The same for many samples (a listener grid): one thread per sample over as many blocks as
// they need, then source_and_advance. In one block, a hall's 38 835 grid points took 0.15 ms a
// step, the rest of the GPU idle.
template <typename Real>
__global__ void sample_cells(const Real* force, int32_t source, const Real* samples,
                             unsigned long long source_count, const int32_t* cells, int count,
                             const Real* field, Real scale, Real* buffer, int slots,
                             const unsigned long long* step) {
    const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= count) return;
    const unsigned long long s = *step;
    const long long slot =
        slots > 0 ? static_cast<long long>(s % static_cast<unsigned long long>(slots)) : 0;
    const int32_t c = cells[i];
    if (c < 0) {  // another rank's cell (a distributed run): it records it
        buffer[slot * count + i] = Real(0);
        return;
    }
    const Real f = s < source_count && c == source ? force[c] + samples[s] : force[c];
    buffer[slot * count + i] = field[c] + scale * f;
}

template <typename Real>
__global__ void source_and_advance(Real* force, int32_t source, const Real* samples,
                                   unsigned long long source_count, unsigned long long* step) {
    const unsigned long long s = *step;
    if (s < source_count && source >= 0) force[source] += samples[s];
    *step = s + 1;
}

// One thread per PML line: the new level goes into the field and the current one into `old`,
// which is the CPU backend's update followed by its swap. The line reads beyond its face the
// values in `air` (gather_values), or, where no line reads another's cells, the field's cells
// `air_at`; both depth-major. Every PML array is stored depth-major
// ([k][line]), so that neighbouring threads read neighbouring words. The damping profile
// (sigma dt per cell, then the decay per inner face) is one of a few shared by every line
// (`profile_of`), not one per cell. D > 0 is the depth at compile time, which keeps the line in
// registers; D = 0 takes `depth` at run time.
// c^2/h^2 times each PML cell's Laplacian at step n, into the forcing array's PML cells (same
// depth-major layout as the field's): the accelerations pml_time_correction reads. Only the
// first `written` cells of each line: deeper ones only their own line's update reads, and it
// computes them itself (update_pml). Runs before update_pml overwrites the line, so it reads the
// field's cells `air_at` directly.
template <typename Real, int D>
__global__ void pml_accelerations(const int32_t* __restrict__ air_at, long long count, int depth,
                                  int written, long long air_cells, const Real* __restrict__ field,
                                  Real* __restrict__ force, Real c2h2) {
    constexpr int M = D > 0 ? D : kMaxPmlDepth;
    if constexpr (D > 0) depth = D;
    const long long l = thread_index();
    if (l >= count) return;
    const Real* p = field + air_cells + l;
    Real cur[M];
#pragma unroll
    for (int k = 0; k < M; ++k) {
        if (k >= depth || k >= written + kReach) break;
        cur[k] = p[k * count];
    }
    auto val = [&](int i) -> Real {
        if (i < 0) return field[air_at[(-1 - i) * count + l]];
        if (i >= depth) i = 2 * depth - 1 - i;  // rigid back: even extension
        return cur[i];
    };
#pragma unroll
    for (int k = 0; k < M; ++k) {
        if (k >= depth || k >= written) break;
        force[air_cells + k * count + l] = c2h2 * pml_laplacian<Real>(k, val);
    }
}

// One thread per PML line: psi to step n, then the line's pressure to step n + 1 in place
// (ard_cpu.cpp's update_pml followed by its swap). The line reads beyond its face the
// values in `air` (gather_values), or, where no line reads another's cells, the field's cells
// `air_at`; both depth-major; and the accelerations there from `force` at `force_at`
// (pml_time_correction). Its own cells' accelerations it computes as pml_accelerations does,
// from the same values, instead of reading them back (a tenth of its traffic). Every PML array
// is stored depth-major
// ([k][line]), so that neighbouring threads read neighbouring words. The damping profile
// (sigma dt per cell, then the decay per inner face) is one of a few shared by every line
// (`profile_of`), not one per cell. D > 0 is the depth at compile time, which keeps the line in
// registers; D = 0 takes `depth` at run time.
// Two blocks an SM in float32 where the depth is known, which leaves it 96 registers and no
// spill. Session 35 bounded it to three (80 registers, a little spill: more warps to hide the
// loads' latency, 11.33 -> 11.25 s per simulated second on the hall); with its own accelerations
// and the cells beyond its face held in registers it has fewer loads to hide, and three blocks
// spilled 60 bytes a thread: two ran the hall at 9.80 s against 9.86 s (one H200, session 39).
template <typename Real, int D>
__global__ void __launch_bounds__(kStepBlock, sizeof(Real) == 4 && D > 0 ? 2 : 1)
    update_pml(const Real* __restrict__ air, const int32_t* __restrict__ air_at,
               const int32_t* __restrict__ force_at, long long count, int depth,
               long long air_cells, Real* __restrict__ field, const Real* __restrict__ force,
               Real* __restrict__ old, Real* __restrict__ psi, const Real* __restrict__ profiles,
               const int32_t* __restrict__ profile_of, Real courant2, Real dt2_12, Real c2h2) {
    constexpr int M = D > 0 ? D : kMaxPmlDepth;
    if constexpr (D > 0) depth = D;
    const long long l = thread_index();
    if (l >= count) return;
    Real* p = field + air_cells + l;
    Real* o = old + l;
    Real* ps = psi + l;
    const Real* sigma_dt = profiles + static_cast<long long>(profile_of[l]) * (2 * depth - 1);
    const Real* face_decay = sigma_dt + depth;
    Real cur[M], before[M], aux[M];
#pragma unroll
    for (int k = 0; k < M; ++k) {
        if (k >= depth) break;
        cur[k] = p[k * count];
        before[k] = o[k * count];
        if (k + 1 < depth) aux[k] = ps[k * count];
    }
    // Beyond the face, read once: the stores below go through `field` too, so the compiler
    // would read these again after each.
    Real beyond[kReach];
#pragma unroll
    for (int j = 0; j < kReach; ++j)
        beyond[j] = air_at ? field[air_at[j * count + l]] : air[j * count + l];
    auto val = [&](int i) -> Real {
        if (i < 0) return beyond[-1 - i];
        if (i >= depth) i = 2 * depth - 1 - i;  // rigid back: even extension
        return cur[i];
    };
    // Each cell's stencil once: in its pressure's update and, times c^2/h^2, as its acceleration
    // (what pml_accelerations writes) in the time correction.
    Real lap[M], own[M];
#pragma unroll
    for (int k = 0; k < M; ++k) {
        if (k >= depth) break;
        lap[k] = pml_laplacian<Real>(k, val);
        own[k] = c2h2 * lap[k];
    }
    auto acc = [&](int i) -> Real {
        if (i < 0) return force[force_at[(-1 - i) * count + l]];
        if (i >= depth) i = 2 * depth - 1 - i;
        return own[i];
    };
#pragma unroll
    for (int f = 0; f + 1 < M; ++f) {
        if (f + 1 >= depth) break;
        aux[f] =
            pml_auxiliary(aux[f], val(f + 1) - val(f), before[f + 1] - before[f], face_decay[f]);
        ps[f * count] = aux[f];
    }
#pragma unroll
    for (int k = 0; k < M; ++k) {
        if (k >= depth) break;
        const Real lap6 = lap[k] + pml_time_correction(k, acc, dt2_12);
        const Real front = k > 0 ? aux[k - 1] : Real(0);
        const Real back = k + 1 < depth ? aux[k] : Real(0);
        p[k * count] = pml_pressure(cur[k], before[k], lap6, back - front, sigma_dt[k], courant2);
        o[k * count] = cur[k];
    }
}

// Sum of squares in double, one atomic per block.
template <typename Real>
__global__ void sum_squares(const Real* x, long long n, double* out) {
    __shared__ double part[256];
    double s = 0;
    for (long long i = thread_index(); i < n; i += static_cast<long long>(gridDim.x) * blockDim.x)
        s += static_cast<double>(x[i]) * static_cast<double>(x[i]);
    part[threadIdx.x] = s;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (static_cast<int>(threadIdx.x) < w) part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, part[0]);
}

}  // namespace ardent::ard::cuda
