// The CUDA FDTD kernels (fdtd_cuda.cu launches them), after López et al. 2013: the interior air
// cells in a sliced sweep — 32 x 8 thread blocks over (x, y), each thread marching up its z column
// and keeping the cells below, at and above it in registers, so a cell's pressure is read from
// memory once per step — with no branch on the cell's kind: a bit mask (one 32-bit word per warp
// row) only predicates the store, and each block column sweeps only the z range that holds
// interior cells (padding and walls around the room are skipped). The two pressure arrays are
// updated in place (the new field overwrites the one two steps old). Boundary cells are a list
// with their own kernel. Both use the per-cell updates of fdtd_physics.h, the CPU backend's.
#pragma once

#include <cstdint>

#include "../fdtd_sweep.h"
#include "ardent/solvers/fdtd_physics.h"

namespace ardent::fdtd::cuda {

inline constexpr int kBlock = 256;  // 1-D kernels

template <typename Real>
struct BoundaryCoef {
    Real air_neighbours, gain, loss;
    int16_t groups;    // its wall branch groups at b + i n, its branch states at b + j n (n cells)
    uint16_t blocked;  // neighbour_sum (fdtd_physics.h)
};

// One step for the interior cells; the tables are fdtd_sweep.h's (sweep_updates() there walks them
// the same way on the host, for the tests). Every read below is inside the grid for x < nx, y < ny
// and z in [first - 1, last]: the z ranges keep off the grid's first and last planes, and rows
// wrap into their neighbours for the lanes at x = 0 and nx - 1.
template <typename Real>
__global__ void __launch_bounds__(kTileX* kTileY)
    interior_sweep(const Real* __restrict__ p, Real* __restrict__ next,
                   const uint32_t* __restrict__ mask, const ZRange* __restrict__ zrange,
                   SweepShape s, Real lambda2) {
    const ZRange zr = zrange[blockIdx.y * gridDim.x + blockIdx.x];
    const int x = static_cast<int>(blockIdx.x) * kTileX + static_cast<int>(threadIdx.x);
    const int y = static_cast<int>(blockIdx.y) * kTileY + static_cast<int>(threadIdx.y);
    if (zr.first >= zr.last || x >= s.nx || y >= s.ny) return;  // empty tiles, the grid's last
    long long i = zr.first * s.sz + y * s.sy + x;
    const uint32_t* m = mask + (static_cast<long long>(zr.first) * s.ny + y) * s.words + blockIdx.x;
    const long long mask_step = static_cast<long long>(s.ny) * s.words;
    const uint32_t lane = 1u << threadIdx.x;
    Real below = p[i - s.sz];
    Real centre = p[i];
    for (int z = zr.first; z < zr.last; ++z) {
        const Real above = p[i + s.sz];
        // Same order of additions as the CPU backend.
        const Real nb = p[i - 1] + p[i + 1] + p[i - s.sy] + p[i + s.sy] + below + above;
        const Real v = interior_update(centre, next[i], nb, lambda2);
        if (*m & lane) next[i] = v;  // a predicated store, not a branch around the update
        below = centre;
        centre = above;
        i += s.sz;
        m += mask_step;
    }
}

// One step for the boundary cells (a list: none is in the interior mask).
template <typename Real>
__global__ void boundary_cells(const Real* __restrict__ p, Real* __restrict__ next,
                               const unsigned long long* __restrict__ cells,
                               const BoundaryCoef<Real>* __restrict__ coef, long long n,
                               long long sy, long long sz, Real lambda2, Real lambda,
                               WallTerms<Real> terms) {
    const long long b = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (b >= n) return;
    const long long i = static_cast<long long>(cells[b]);
    const BoundaryCoef<Real> k = coef[b];
    const Real nb = neighbour_sum(p, i, sy, sz, k.blocked);
    next[i] = boundary_update(p[i], next[i], nb, lambda2, k.air_neighbours, k.gain, k.loss, lambda,
                              terms, CellWalls{b, k.groups, n, b, n});
}

// After the updates: records p (this step's field) at the sampled cells into slot step % slots of
// the ring, and adds this step's forcing to the source cell's new value.
template <typename Real>
__global__ void record_and_force(const Real* __restrict__ p, Real* __restrict__ next,
                                 const unsigned long long* __restrict__ cells, int nsamp,
                                 Real* __restrict__ ring, int slots,
                                 const Real* __restrict__ forcing, unsigned long long nforcing,
                                 unsigned long long source, const unsigned long long* step) {
    const int t = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const unsigned long long s = *step;
    if (t < nsamp)
        ring[(s % static_cast<unsigned long long>(slots)) * static_cast<unsigned long long>(nsamp) +
             static_cast<unsigned long long>(t)] = p[cells[t]];
    if (t == 0 && s < nforcing) next[source] += forcing[s];
}

inline __global__ void tick(unsigned long long* step) {
    ++*step;
}

// Sum of squares into *out (double, atomically; *out zeroed by the caller).
template <typename Real>
__global__ void sum_squares(const Real* __restrict__ p, long long n, double* out) {
    __shared__ double partial[kBlock / 32];
    double s = 0;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const double v = static_cast<double>(p[i]);
        s += v * v;
    }
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_down_sync(0xffffffffu, s, o);
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        double t = 0;
        for (int w = 0; w < kBlock / 32; ++w)
            t += partial[w];
        atomicAdd(out, t);
    }
}

// Sets both time levels of the listed cells (initial values at rest).
template <typename Real>
__global__ void scatter_both(Real* a, Real* b, const unsigned long long* __restrict__ cells,
                             const Real* __restrict__ values, long long n) {
    const long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (k >= n) return;
    a[cells[k]] = values[k];
    b[cells[k]] = values[k];
}

}  // namespace ardent::fdtd::cuda
