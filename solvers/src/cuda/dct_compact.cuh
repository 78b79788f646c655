// The compact class of the CUDA ARD backend's DCTs (dct_kernels.cuh): partitions small enough
// that one block holds a whole one in shared memory. A block takes one partition and does its
// step's whole spectral update there: it reads the forcing once (leaving it zero), transforms x,
// y and z with the cosine matrices of dct_direct.cuh (every side a matrix length: a power of two
// or a 2^a 3^b 5^c length up to 64), advances the modes, transforms back z, y and x, and writes
// the pressure once. The line classes take such a partition's cells through six passes over
// global memory in five launches, each block a few lines long; on a hall, where most partitions
// are small, those passes ran at a fraction of the bandwidth (docs/benchmarks.md). Shared memory
// holds two copies of the partition, point (x, y, z) at x + y px + z ps with px and ps odd, so
// that a warp's lanes on consecutive lines of any axis fall in different banks.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "dct_direct.cuh"
#include "dct_tile.cuh"

namespace ardent::ard::cuda {

inline constexpr int kCompactThreads = 128;
// The shared memory a compact block may take: below it a group is compact (the limit is the
// plan's, DctPlan::compact_bytes; this is its default). Measured on the Musikverein (docs/ard.md).
inline constexpr size_t kCompactBytes = 18 * 1024;
// The limit the CUDA ARD backend sets (ARDENT_DCT_COMPACT_BYTES): with the plane chain and planes
// up to 8 KB, blocks up to 30 KB ran the hall x 0.843 0.6 % faster, the L-shaped room x 4.02
// 0.1 % slower (session 41; with 64 KB planes they had cost the L-shaped room 3 %).
inline constexpr size_t kCompactSolverBytes = 30 * 1024;
// The smallest partitions, those whose copies fit kCompactWarpBytes (DctPlan::compact_warp_bytes),
// take one warp each instead of a block, kCompactWarps to a block: a warp meets only itself
// between phases, so no block barrier holds a partition of a few hundred cells back.
inline constexpr int kCompactWarps = 4;
inline constexpr size_t kCompactWarpBytes = 8 * 1024;

// The padded pitches of a partition in shared memory: between rows and between z planes.
ARDENT_HD constexpr int compact_pitch_x(int nx) {
    return nx | 1;
}
ARDENT_HD constexpr int compact_pitch_plane(int nx, int ny) {
    return (ny * compact_pitch_x(nx)) | 1;
}
template <typename Real>
constexpr size_t compact_shared_bytes(const GroupShape& s) {
    return 2 * sizeof(Real) * static_cast<size_t>(s.nz) *
           static_cast<size_t>(compact_pitch_plane(s.nx, s.ny));
}

// The most shared memory a compact block takes, whatever the plan's limit: what a block of every
// GPU since Ampere may have (the opt-in maximum is 99 KB on sm_86 and sm_89).
inline constexpr size_t kMaxCompactBytes = 96 * 1024;

// Whether a group's partitions take the compact class under a shared-memory limit.
template <typename Real>
constexpr bool is_compact(const GroupShape& s, size_t limit) {
    return is_matrix_length(s.nx) && is_matrix_length(s.ny) && is_matrix_length(s.nz) &&
           compact_shared_bytes<Real>(s) <= std::min(limit, kMaxCompactBytes);
}

template <typename Real>
struct CompactTile {
    int n[3];             // the partition's sides
    int px, ps;           // shared-memory pitches (compact_pitch_x, compact_pitch_plane)
    unsigned cells;       // a partition's cells
    FastDiv by_x, by_y;   // the group's
    FastDiv by_lines[3];  // by the lines along each axis
    int first;            // the partition's first cell in the group
    Real* a;              // shared memory: the partition, then the spectrum, alternately
    Real* b;
    const Real* matrix[3];  // each axis's matrices (direct_matrices: E, O, then T)
};

template <typename Real>
ARDENT_HD __forceinline__ CompactTile<Real> make_compact_tile(const DctGroup& g, long long block,
                                                              void* smem, const Real* table) {
    const GroupShape& s = g.shape;
    const int px = compact_pitch_x(s.nx), ps = compact_pitch_plane(s.nx, s.ny);
    const unsigned cells = static_cast<unsigned>(s.nx * s.ny * s.nz);
    Real* a = static_cast<Real*>(smem);
    return {{s.nx, s.ny, s.nz},
            px,
            ps,
            cells,
            g.by_x,
            g.by_y,
            {g.by_lines[0], g.by_lines[1], g.by_lines[2]},
            static_cast<int>((block - g.first_compact) * static_cast<long long>(cells)),
            a,
            a + static_cast<size_t>(s.nz) * static_cast<size_t>(ps),
            {table + g.direct_matrix[0], table + g.direct_matrix[1], table + g.direct_matrix[2]}};
}

// Cell c of the partition (x fastest) in shared memory.
template <typename Real>
ARDENT_HD __forceinline__ int compact_slot(const CompactTile<Real>& t, unsigned c) {
    const unsigned r = t.by_x.div(c), x = c - r * static_cast<unsigned>(t.n[0]);
    const unsigned z = t.by_y.div(r), y = r - z * static_cast<unsigned>(t.n[1]);
    return static_cast<int>(x + y * static_cast<unsigned>(t.px) + z * static_cast<unsigned>(t.ps));
}

// Loads the partition from `in` (at its first cell) into buffer a and leaves `in` zero there.
// A thread issues 2 kDirectBatch reads before any store (the stores to `in` would otherwise keep
// the reads one memory latency apart).
#pragma nv_exec_check_disable
template <int Threads, typename Real, typename Block>
ARDENT_HD __forceinline__ void compact_load(Block& b, const CompactTile<Real>& t, Real* in) {
    b.phase([&](int tid, DirectRegs&) {
        constexpr int B = 2 * kDirectBatch, T = Threads;
        for (unsigned c0 = static_cast<unsigned>(tid); c0 < t.cells; c0 += B * T) {
            Real v[B];
#pragma unroll
            for (int j = 0; j < B; ++j) {
                const unsigned c = c0 + static_cast<unsigned>(j * T);
                v[j] = c < t.cells ? in[c] : Real(0);
            }
#pragma unroll
            for (int j = 0; j < B; ++j) {
                const unsigned c = c0 + static_cast<unsigned>(j * T);
                if (c >= t.cells) continue;
                t.a[compact_slot(t, c)] = v[j];
                in[c] = Real(0);
            }
        }
    });
}

// One axis's transforms of every line of the partition, `from` to `to`, forward (REDFT10) or
// inverse (REDFT01), by Threads threads (a block's or a warp's). Thread items: kDirectPairs output
// pairs (forward) or rows (inverse) of one line, lanes on consecutive lines; a line is (u, v) over
// the other two axes, u the faster.
#pragma nv_exec_check_disable
template <int Threads, typename Real, bool Inverse, typename Block>
ARDENT_HD __forceinline__ void compact_pass(Block& b, const CompactTile<Real>& t, int axis,
                                            const Real* from, Real* to) {
    constexpr int P = kDirectPairs;
    b.phase([&](int tid, DirectRegs&) {
        const int n = t.n[axis], w = direct_width(n);
        const int stride = axis == 0 ? 1 : axis == 1 ? t.px : t.ps;
        const int nu = axis == 0 ? t.n[1] : t.n[0];
        const FastDiv& by_u = axis == 0 ? t.by_y : t.by_x;
        const int u_pitch = axis == 0 ? t.px : 1, v_pitch = axis == 2 ? t.px : t.ps;
        const FastDiv& by_lines = t.by_lines[axis];
        const int lines = static_cast<int>(by_lines.d);
        const Real* m = t.matrix[axis];
        const Real* even = m;
        const Real* odd = m + (n + 1) / 2 * w;
        const Real* inverse = odd + n / 2 * w;
        // Item i: line i mod lines of column group i / lines; a thread's items Threads apart.
        const int step_col = static_cast<int>(by_lines.div(Threads));
        const int step_l = Threads - step_col * lines;
        int col = static_cast<int>(by_lines.div(static_cast<unsigned>(tid))), l = tid - col * lines;
        for (; col < w / P;) {
            const unsigned v = by_u.div(static_cast<unsigned>(l));
            const int u = l - static_cast<int>(v) * nu;
            const int base = u * u_pitch + static_cast<int>(v) * v_pitch;
            Real lo[P], hi[P];
            if constexpr (Inverse) {
                inverse_rows(from + base, stride, n, inverse + col * P, lo, hi);
                store_rows(to + base, stride, n, col * P, lo, hi);
            } else {
                forward_pairs(from + base, stride, n, even + col * P, odd + col * P, lo, hi);
                store_pairs(to + base, stride, n, col * P, lo, hi);
            }
            col += step_col;
            l += step_l;
            if (l >= lines) {
                l -= lines;
                ++col;
            }
        }
    });
}

// Forward DCT, mode update (or the initial field's modes), inverse DCT of one partition: from
// `in` (left zero) to `out`, both at the group's first cell; the modes' arrays at the group's.
#pragma nv_exec_check_disable
template <int Threads, typename Real, typename Block>
ARDENT_HD __forceinline__ void compact_tile(Block& b, const CompactTile<Real>& t, Real* in,
                                            Real* out, const ModeArrays<Real>& m, bool init) {
    const Real init_scale =  // the initial field's modes only: a division in double
        init ? static_cast<Real>(1.0 / (8.0 * static_cast<double>(t.cells))) : Real(0);
    compact_load<Threads>(b, t, in + t.first);
    compact_pass<Threads, Real, false>(b, t, 0, t.a, t.b);
    compact_pass<Threads, Real, false>(b, t, 1, t.b, t.a);
    compact_pass<Threads, Real, false>(b, t, 2, t.a, t.b);
    b.phase([&](int tid, DirectRegs&) {
        constexpr int B = kModeBatch, T = Threads;
        for (unsigned c0 = static_cast<unsigned>(tid); c0 < t.cells; c0 += B * T) {
            int g[B], c[B], slot[B];
#pragma unroll
            for (int j = 0; j < B; ++j) {
                const unsigned cell = c0 + static_cast<unsigned>(j * T);
                g[j] = cell < t.cells ? t.first + static_cast<int>(cell) : -1;
                c[j] = static_cast<int>(cell);
                slot[j] = cell < t.cells ? compact_slot(t, cell) : 0;
            }
            advance_modes(m, g, c, t.b, slot, init, init_scale);
        }
    });
    compact_pass<Threads, Real, true>(b, t, 2, t.b, t.a);
    compact_pass<Threads, Real, true>(b, t, 1, t.a, t.b);
    compact_pass<Threads, Real, true>(b, t, 0, t.b, t.a);
    b.run([&](int tid, DirectRegs&) {
        Real* o = out + t.first;
        for (unsigned c = static_cast<unsigned>(tid); c < t.cells; c += Threads)
            o[c] = t.a[compact_slot(t, c)];
    });
}

}  // namespace ardent::ard::cuda
