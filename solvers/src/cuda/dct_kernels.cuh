// The batched 3-D DCT of the CUDA ARD backend (spec section 5): the launches over every shape
// group of the layout, one kernel per axis and direction, each block one tile of lines
// (dct_tile.cuh). A launch covers every group whose lines fit its kernel class, so the step's
// launch count does not grow with the number of shapes. The classes split the line lengths by the
// registers their tiles need (a kernel takes the most any of its lengths needs, and registers set
// its occupancy): lines of 1 to 128 points (register DFTs of up to 8 points), 256 and 512 (16
// points) and 1024 (32 points). A fourth, the direct class (dct_direct.cuh), takes the lines whose
// length is not a power of two (2^a 3^b 5^c up to 64) by dense cosine matrices; a group uses it
// on exactly the axes whose side is not a power of two and the other classes on the rest. Groups
// of small partitions take none of these: the compact class (dct_compact.cuh) does a partition's
// whole forward transform, mode update and inverse in one block, and groups whose xy planes fit
// shared memory take the plane class (dct_plane.cuh) for x and y: both axes in one launch.
// Classes 0-2 are compiled twice (Lines<Pow2>): for groups whose sides are all powers of two
// (kPure), indexed by shifts and masks, and for the others (kMixed), by divisions, which in one
// kernel cost the power-of-two lines 15-30 %. A class's pass is one launch per kind with blocks.
// The z kernel also advances the modes between its forward and inverse transforms. Layout of a
// group (P partitions of nx x ny x nz cells, x fastest): field, force and modes [p][z][y][x]
// (modes indexed [p][kz][ky][kx]); mode coefficients [kz][ky][kx], shared by the group's
// partitions. The same tiles run on the host (emulate_*) for the tests that have no GPU.
#pragma once

#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "dct_compact.cuh"
#include "dct_direct.cuh"
#include "dct_plane.cuh"
#include "dct_tile.cuh"

namespace ardent::ard::cuda {

inline constexpr int kDctClasses = 4;
inline constexpr int kDirectClass = 3;
template <int Class>
inline constexpr int kClassLo = Class == 0   ? 0
                                : Class == 1 ? 8
                                             : 10;
template <int Class>
inline constexpr int kClassHi = Class == 0   ? 7
                                : Class == 1 ? 9
                                             : 10;
// Blocks per SM the compiler must leave registers for: the short lines' kernels run at half
// occupancy; 16- and 32-point register DFTs need more registers, the z kernel's most. The direct
// class's mirrored sums keep eight accumulators and their matrix rows: 5 blocks (48 registers a
// float thread). At 8 blocks (32 registers) the z kernel spilled and took 136 us on the hall
// against 111; at 4 (64 registers, no spill) 121.
template <int Class, bool Z>
inline constexpr int kClassMinBlocks = Class == 0   ? (Z ? 4 : 5)
                                       : Class == 1 ? (Z ? 2 : 3)
                                       : Class == 2 ? 1
                                                    : 5;
// The two kinds of group each class's launches split into: every side a power of two, or not.
inline constexpr int kPure = 0;
inline constexpr int kMixed = 1;
inline constexpr int kKinds = 2;
inline int group_kind(const GroupShape& s) {
    return is_pow2(s.nx) && is_pow2(s.ny) && is_pow2(s.nz) ? kPure : kMixed;
}

// Class 0's z kernel, which holds the forward and inverse transforms and the mode update of
// every length 1-128 at once, spilled 356 bytes a thread (596 for the kMixed groups) at its 64
// registers: ptxas gives the kernel one frame for the longest lengths' live values. Its pass is
// launched in these ranges of log2 of the side instead, one kernel each, over the blocks
// sort_dct_blocks leaves ordered by that side: at 4 blocks an SM lines of 1-16 points spill
// nothing and 32 points 112 bytes; at 3 (80 registers) 64 and 128 points spill nothing (56 bytes
// at 4). The ranges share the pass's side streams (launch_classes).
inline constexpr int kZRanges = 4;
inline constexpr int kZRangeLo[kZRanges] = {0, 5, 6, 7};
inline constexpr int kZRangeHi[kZRanges] = {4, 5, 6, 7};
inline constexpr int kZRangeMinBlocks[kZRanges] = {4, 4, 3, 3};

inline int dct_class(int log2n) {
    return log2n <= 7 ? 0 : log2n <= 9 ? 1 : 2;
}

// Calls f(std::integral_constant<int, LN>) for the LN in [Lo, Hi] that equals ln.
#pragma nv_exec_check_disable
template <int LN, int Hi, typename F>
ARDENT_HD __forceinline__ void dispatch_ln_from(int ln, F& f) {
    if (ln == LN)
        f(std::integral_constant<int, LN>{});
    else if constexpr (LN < Hi)
        dispatch_ln_from<LN + 1, Hi>(ln, f);
}
#pragma nv_exec_check_disable
template <int Lo, int Hi, typename F>
ARDENT_HD __forceinline__ void dispatch_ln(int ln, F&& f) {
    dispatch_ln_from<Lo, Hi>(ln, f);
}

inline int log2_of(long long v) {
    int r = 0;
    while ((1LL << r) < v)
        ++r;
    return r;
}

// The DCT launches over a list of shape groups: per kernel class, axis and kind (kPure, kMixed),
// the blocks and the shared bytes per block; per class and axis, the group of each block, the
// kPure blocks first. A group's first_block counts from the start of its kind's blocks.
// The compact groups (dct_compact.cuh), those whose two shared copies take at most
// compact_bytes, are in none of them: one block per partition, compact_group the group of each;
// those within compact_warp_bytes one warp per partition, compact_warp_group the group of each.
// The plane groups (dct_plane.cuh), those whose xy plane takes at most plane_bytes, are in no x or
// y launch of the line classes: per plane launch, the blocks (slabs), the shared bytes per block
// and the group of each block.
struct DctPlan {
    unsigned blocks[kDctClasses][3][kKinds] = {};
    size_t shared[kDctClasses][3][kKinds] = {};
    std::vector<int32_t> block_group[kDctClasses][3];
    unsigned z_blocks[kKinds][kClassHi<0> + 1] = {};  // class 0's z blocks by log2 of the side
    bool split_z = true;                              // class 0's z pass in kZRanges' launches
    size_t compact_bytes = kCompactBytes;             // set before the first add_dct_group; 0: none
    size_t compact_warp_bytes = kCompactWarpBytes;    // likewise, for a warp per partition
    unsigned compact_blocks = 0;
    size_t compact_shared = 0;
    std::vector<int32_t> compact_group;
    unsigned compact_warp_partitions = 0;
    size_t compact_warp_shared = 0;  // per warp
    std::vector<int32_t> compact_warp_group;
    size_t plane_bytes = kPlaneBytes;           // set before the first add_dct_group; 0: none
    size_t plane_slab_bytes = kPlaneSlabBytes;  // likewise: the slab a block aims at
    unsigned plane_blocks[kPlaneLaunches] = {};
    size_t plane_shared[kPlaneLaunches] = {};
    std::vector<int32_t> plane_group[kPlaneLaunches];
};

// A plane group's launch (the fewest sub-blocks that take one plane's tiles), its slabs (the most
// planes whose tiles those sub-blocks take, within the plan's slab bytes) and its blocks.
template <typename Real>
inline void add_plane_group(const GroupShape& s, int32_t index, DctGroup& g, DctPlan& plan) {
    const size_t plane = sizeof(Real) * static_cast<size_t>(s.nx) * static_cast<size_t>(s.ny);
    const long long planes = s.count * s.nz;
    int launch = 0;
    while (plane_tiles<Real>(s, 1) > kPlaneSubs[launch])
        ++launch;
    long long k = 1;
    while (k < planes && plane_tiles<Real>(s, k + 1) <= kPlaneSubs[launch] &&
           static_cast<size_t>(k + 1) * plane <= plan.plane_slab_bytes)
        ++k;
    g.plane_slab = static_cast<int>(k);
    g.plane_launch = launch;
    g.plane_bytes = static_cast<unsigned>((static_cast<size_t>(k) * plane + 15) & ~size_t{15});
    g.plane_work = plane_work_bytes<Real>(g.log2n[0], g.log2n[1]);
    g.first_plane = plan.plane_blocks[launch];
    const unsigned nb = static_cast<unsigned>((planes + k - 1) / k);
    std::vector<int32_t>& list = plan.plane_group[launch];
    list.insert(list.end(), nb, index);
    plan.plane_blocks[launch] += nb;
    plan.plane_shared[launch] =
        std::max(plan.plane_shared[launch],
                 g.plane_bytes + static_cast<size_t>(kPlaneSubs[launch]) * g.plane_work);
}

// Appends a group to `groups` and `plan`. Each side must be a power of two up to kMaxLine or a
// direct length (is_direct_length: 2^a 3^b 5^c up to kMaxDirectLine), and the group's cells,
// count times the partition's, fewer than 2^31 (Lines indexes them with 32 bits otherwise).
// With `plane_z`, a plane group's z pass goes to that plan instead of `plan` (its x and y go to
// `plan`'s plane launches as before): the plane groups' chain of passes can then run beside the
// line classes' (ard_cuda.cu, "the plane chain").
template <typename Real>
inline void add_dct_group(const GroupShape& s, long long offset, long long coef,
                          std::vector<DctGroup>& groups, DctPlan& plan,
                          DctPlan* plane_z = nullptr) {
    DctGroup g{};
    g.shape = s;
    g.offset = offset;
    g.coef = coef;
    g.by_x = FastDiv(static_cast<unsigned>(s.nx));
    g.by_y = FastDiv(static_cast<unsigned>(s.ny));
    g.by_cells = FastDiv(static_cast<unsigned>(s.nx * s.ny * s.nz));
    const int n[3] = {s.nx, s.ny, s.nz};
    if (is_compact<Real>(s, plan.compact_bytes)) {
        for (int a = 0; a < 3; ++a) {
            g.log2n[a] = is_pow2(n[a]) ? log2_of(n[a]) : -1;
            g.direct_matrix[a] = direct_offset(n[a]);
            g.by_lines[a] = FastDiv(static_cast<unsigned>(s.nx * s.ny * s.nz / n[a]));
        }
        // A warp per partition or a block per partition: the same bookkeeping in its own lists.
        const bool warp = is_compact<Real>(s, plan.compact_warp_bytes);
        std::vector<int32_t>& list = warp ? plan.compact_warp_group : plan.compact_group;
        unsigned& count = warp ? plan.compact_warp_partitions : plan.compact_blocks;
        size_t& shared = warp ? plan.compact_warp_shared : plan.compact_shared;
        g.first_compact = count;
        list.insert(list.end(), static_cast<size_t>(s.count), static_cast<int32_t>(groups.size()));
        count += static_cast<unsigned>(s.count);
        shared = std::max(shared, compact_shared_bytes<Real>(s));
        groups.push_back(g);
        return;
    }
    const int kind = group_kind(s);
    const bool plane = is_plane<Real>(s, plan.plane_bytes);
    if (plane) {
        g.log2n[0] = log2_of(s.nx);
        g.log2n[1] = log2_of(s.ny);
        add_plane_group<Real>(s, static_cast<int32_t>(groups.size()), g, plan);
    }
    for (int a = plane ? 2 : 0; a < 3; ++a) {
        DctPlan& into = plane && plane_z ? *plane_z : plan;
        int log2lines = 0, c = kDirectClass;
        size_t bytes = 0;
        if (is_pow2(n[a])) {
            g.log2n[a] = log2_of(n[a]);
            dispatch_ln<0, kLog2MaxLine>(g.log2n[a], [&](auto lc) {
                using S = LineShape<Real, decltype(lc)::value>;
                log2lines = S::LL;
                bytes = S::kSharedBytes;
            });
            c = dct_class(g.log2n[a]);
        } else {
            g.log2n[a] = -1;
            log2lines = direct_log2_lines<Real>(n[a]);
            bytes = direct_shared_bytes<Real>(n[a], log2lines);
            g.log2_direct_lines[a] = log2lines;
            g.direct_matrix[a] = direct_offset(n[a]);
        }
        unsigned* blocks = into.blocks[c][a];
        g.first_block[a] = blocks[kind];
        const long long lines = s.count * s.nx * s.ny * s.nz / n[a];
        const long long per = 1LL << log2lines;
        const unsigned nb = static_cast<unsigned>((lines + per - 1) / per);
        std::vector<int32_t>& bg = into.block_group[c][a];
        bg.insert(kind == kPure ? bg.begin() + blocks[kPure] : bg.end(), nb,
                  static_cast<int32_t>(groups.size()));
        blocks[kind] += nb;
        if (a == 2 && c == 0) into.z_blocks[kind][g.log2n[2]] += nb;
        size_t& most = into.shared[c][a][kind];
        most = most > bytes ? most : bytes;
    }
    groups.push_back(g);
}

// Reorders a launch's block list by key(group), stably, each group's blocks kept together, and
// calls placed(group, its first block in the new list).
template <typename Key, typename Placed>
inline void sort_group_blocks(std::vector<int32_t>& bg, size_t groups, Key key, Placed placed) {
    std::vector<int32_t> order;  // the launch's groups, each once, in block order
    std::vector<long long> count(groups, 0);
    for (size_t i = 0; i < bg.size(); ++i) {
        if (i == 0 || bg[i] != bg[i - 1]) order.push_back(bg[i]);
        ++count[static_cast<size_t>(bg[i])];
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](int32_t x, int32_t y) { return key(x) < key(y); });
    bg.clear();
    for (int32_t gi : order) {
        placed(gi, bg.size());
        bg.insert(bg.end(), static_cast<size_t>(count[static_cast<size_t>(gi)]), gi);
    }
}

// Orders each launch's blocks by line length (then by group), so that the blocks an SM holds
// at once mostly run the same code: a launch's kernel holds every length's unrolled code, and
// mixed neighbours stall on instruction fetch (the direct class's, by N, share its matrix in the
// cache). Each kind's blocks stay apart, the kPure ones first; the plane launches' blocks go by
// both lengths. Call after the last add_dct_group.
inline void sort_dct_blocks(std::vector<DctGroup>& groups, DctPlan& plan) {
    for (int a = 0; a < 3; ++a)
        for (int c = 0; c < kDctClasses; ++c) {
            const size_t pure = plan.blocks[c][a][kPure];
            auto key = [&](int32_t gi) {
                const GroupShape& s = groups[static_cast<size_t>(gi)].shape;
                return std::pair<int, int>(group_kind(s), side(s, a));
            };
            sort_group_blocks(
                plan.block_group[c][a], groups.size(), key, [&](int32_t gi, size_t first) {
                    groups[static_cast<size_t>(gi)].first_block[a] =
                        static_cast<long long>(first - (key(gi).first == kMixed ? pure : 0));
                });
        }
    for (std::vector<int32_t>& bg : plan.plane_group)
        sort_group_blocks(
            bg, groups.size(),
            [&](int32_t gi) {
                const DctGroup& g = groups[static_cast<size_t>(gi)];
                return std::pair<int, int>(g.log2n[0], g.log2n[1]);
            },
            [&](int32_t gi, size_t first) {
                groups[static_cast<size_t>(gi)].first_plane = static_cast<long long>(first);
            });
}

// The device's side of a block: each thread's registers, a barrier after each phase.
template <typename R>
struct DeviceBlock {
    R r;
    template <typename F>
    __device__ __forceinline__ void phase(F&& f) {
        f(static_cast<int>(threadIdx.x), r);
        __syncthreads();
    }
    template <typename F>
    __device__ __forceinline__ void run(F&& f) {
        f(static_cast<int>(threadIdx.x), r);
    }
};

extern __shared__ __align__(16) unsigned char dct_smem[];

// The kernels of a class and kind (Pow2: kPure; the direct class's only !Pow2). block_group
// starts at the kind's first block.
template <typename Real, int Class, bool Pow2>
__global__ void __launch_bounds__(dct_threads<Real>(), kClassMinBlocks<Class, false>)
    dct_forward(const DctGroup* groups, const int32_t* block_group, int axis,
                const typename Cplx<Real>::type* __restrict__ roots,
                const Real* __restrict__ direct, Real* field) {
    const DctGroup& g = groups[block_group[blockIdx.x]];
    if constexpr (Class == kDirectClass) {
        DeviceBlock<DirectRegs> b;
        direct_forward_tile(b, make_direct_tile(g, axis, blockIdx.x, dct_smem, direct),
                            field + g.offset);
    } else {
        dispatch_ln<kClassLo<Class>, kClassHi<Class>>(g.log2n[axis], [&](auto lc) {
            constexpr int LN = decltype(lc)::value;
            DeviceBlock<Regs<Real, LN>> b;
            forward_tile<Real, LN>(b,
                                   make_tile<Real, LN, Pow2>(g, axis, blockIdx.x, dct_smem, roots),
                                   field + g.offset);
        });
    }
}

template <typename Real, int Class, bool Pow2>
__global__ void __launch_bounds__(dct_threads<Real>(), kClassMinBlocks<Class, false>)
    dct_inverse(const DctGroup* groups, const int32_t* block_group, int axis,
                const typename Cplx<Real>::type* __restrict__ roots,
                const Real* __restrict__ direct, const Real* in, Real* out, Real* clear) {
    const DctGroup& g = groups[block_group[blockIdx.x]];
    if constexpr (Class == kDirectClass) {
        DeviceBlock<DirectRegs> b;
        direct_inverse_tile(b, make_direct_tile(g, axis, blockIdx.x, dct_smem, direct),
                            in + g.offset, out + g.offset, clear ? clear + g.offset : nullptr);
    } else {
        dispatch_ln<kClassLo<Class>, kClassHi<Class>>(g.log2n[axis], [&](auto lc) {
            constexpr int LN = decltype(lc)::value;
            DeviceBlock<Regs<Real, LN>> b;
            inverse_tile<Real, LN>(
                b, make_tile<Real, LN, Pow2>(g, axis, blockIdx.x, dct_smem, roots), in + g.offset,
                out + g.offset, clear ? clear + g.offset : nullptr);
        });
    }
}

// Range: one of class 0's kZRanges, or -1 for the whole class (`whole`).
constexpr int z_range_or(int range, const int (&table)[kZRanges], int whole) {
    return range < 0 ? whole : table[range];
}
template <typename Real, int Class, bool Pow2, int Range = -1>
__global__ void __launch_bounds__(dct_threads<Real>(),
                                  z_range_or(Range, kZRangeMinBlocks, kClassMinBlocks<Class, true>))
    dct_z_modes(const DctGroup* groups, const int32_t* block_group, unsigned base,
                const typename Cplx<Real>::type* __restrict__ roots,
                const Real* __restrict__ direct, Real* field, ModeArrays<Real> modes, bool init) {
    const long long block = static_cast<long long>(blockIdx.x) + base;
    const DctGroup& g = groups[block_group[block]];
    const ModeArrays<Real> m = group_modes(modes, g);
    if constexpr (Class == kDirectClass) {
        DeviceBlock<DirectRegs> b;
        direct_z_modes_tile(b, make_direct_tile(g, 2, block, dct_smem, direct), field + g.offset, m,
                            init);
    } else {
        constexpr int Lo = z_range_or(Range, kZRangeLo, kClassLo<Class>);
        constexpr int Hi = z_range_or(Range, kZRangeHi, kClassHi<Class>);
        dispatch_ln<Lo, Hi>(g.log2n[2], [&](auto lc) {
            constexpr int LN = decltype(lc)::value;
            DeviceBlock<Regs<Real, LN>> b;
            z_modes_tile<Real, LN>(b, make_tile<Real, LN, Pow2>(g, 2, block, dct_smem, roots),
                                   field + g.offset, m, init);
        });
    }
}

// A warp's side of a tile: its lanes, the warp's own barrier after each phase.
template <typename R>
struct DeviceWarp {
    R r;
    template <typename F>
    __device__ __forceinline__ void phase(F&& f) {
        f(static_cast<int>(threadIdx.x & 31), r);
        __syncwarp();
    }
    template <typename F>
    __device__ __forceinline__ void run(F&& f) {
        f(static_cast<int>(threadIdx.x & 31), r);
    }
};

// The compact class: a partition per block, its whole spectral update (compact_tile).
template <typename Real>
__global__ void __launch_bounds__(kCompactThreads, 10)
    dct_compact(const DctGroup* groups, const int32_t* block_group, const Real* __restrict__ direct,
                Real* in, Real* out, ModeArrays<Real> modes, bool init) {
    const DctGroup& g = groups[block_group[blockIdx.x]];
    DeviceBlock<DirectRegs> b;
    compact_tile<kCompactThreads>(b, make_compact_tile(g, blockIdx.x, dct_smem, direct),
                                  in + g.offset, out + g.offset, group_modes(modes, g), init);
}

// The smallest compact partitions: one per warp, each warp `shared` bytes of the block's.
template <typename Real>
__global__ void __launch_bounds__(32 * kCompactWarps)
    dct_compact_warp(const DctGroup* groups, const int32_t* warp_group, unsigned partitions,
                     size_t shared, const Real* __restrict__ direct, Real* in, Real* out,
                     ModeArrays<Real> modes, bool init) {
    const unsigned warp = threadIdx.x >> 5, p = blockIdx.x * kCompactWarps + warp;
    if (p >= partitions) return;  // the whole warp
    const DctGroup& g = groups[warp_group[p]];
    DeviceWarp<DirectRegs> b;
    compact_tile<32>(b, make_compact_tile(g, p, dct_smem + warp * shared, direct), in + g.offset,
                     out + g.offset, group_modes(modes, g), init);
}

// A sub-block of a plane block: dct_threads threads with their own barrier (bar.sync 1 + w;
// __syncthreads is barrier 0).
template <typename R, int Threads, bool Whole>
struct DeviceSubBlock {
    R r;
    int tid;
    unsigned id;  // unused when the sub-block is the Whole block
    template <typename F>
    __device__ __forceinline__ void phase(F&& f) {
        f(tid, r);
        sync();
    }
    template <typename F>
    __device__ __forceinline__ void run(F&& f) {
        f(tid, r);
    }
    __device__ __forceinline__ void sync() const {
        if constexpr (Whole)
            __syncthreads();
        else
            asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(Threads) : "memory");
    }
};

// Reads a slab's cells into its copy in shared memory as asynchronous copies (cp.async), so a
// thread's loads are all in flight at once without registers; with `clear`, then zeroes them in
// global memory. Ends with the block's barrier.
template <typename Real>
__device__ __forceinline__ void plane_load(const Real* from, Real* to, Real* clear,
                                           unsigned cells) {
    for (unsigned i = threadIdx.x; i < cells; i += blockDim.x)
        __pipeline_memcpy_async(to + i, from + i, sizeof(Real));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    if (clear)
        for (unsigned i = threadIdx.x; i < cells; i += blockDim.x)
            clear[i] = Real(0);
    __syncthreads();
}

// Writes a slab's copy back to global memory.
template <typename Real>
__device__ __forceinline__ void plane_store(const Real* from, Real* to, unsigned cells) {
    for (unsigned i = threadIdx.x; i < cells; i += blockDim.x)
        to[i] = from[i];
}

// The plane class: a slab of xy planes per block, x then y (forward, in place in `in` = `out`)
// or y then x (inverse, from `in`, left zero through `clear`, to `out`), Subs sub-blocks.
// Bounded to 64 registers a float thread, as the line classes' z kernel: without a bound the
// forward kernel took 255, one block an SM (12 % occupancy; Nsight Compute, one H200).
template <int Subs>
inline constexpr int kPlaneMinBlocks = 4 / Subs;
template <typename Real, bool Inverse, int Subs>
__global__ void __launch_bounds__(Subs* dct_threads<Real>(), kPlaneMinBlocks<Subs>)
    dct_plane(const DctGroup* groups, const int32_t* block_group,
              const typename Cplx<Real>::type* __restrict__ roots, const Real* in, Real* out,
              Real* clear) {
    using C = typename Cplx<Real>::type;
    constexpr int kThreads = dct_threads<Real>();
    const DctGroup& g = groups[block_group[blockIdx.x]];
    // The slab's first cell and size are found again for the store: kept across the passes,
    // they took registers the inverse tiles need (it spilled in 2 and 4 sub-blocks).
    auto slab = [&](long long& base, unsigned& cells) {
        long long first = 0;
        const int n = plane_slab(g, blockIdx.x, first);
        cells = static_cast<unsigned>(n * g.shape.nx * g.shape.ny);
        base = g.offset + first;
        return n;
    };
    long long base = 0;
    unsigned cells = 0;
    const int planes = slab(base, cells);
    Real* copy = reinterpret_cast<Real*>(dct_smem);
    plane_load(in + base, copy, clear ? clear + base : nullptr, cells);
    const int w = static_cast<int>(threadIdx.x) / kThreads;
    C* work = reinterpret_cast<C*>(dct_smem + g.plane_bytes + w * g.plane_work);
#pragma unroll 1
    for (int pass = 0; pass < 2; ++pass) {
        const int axis = Inverse ? 1 - pass : pass;
        dispatch_ln<0, kPlaneMaxLog2>(g.log2n[axis], [&](auto lc) {
            constexpr int LN = decltype(lc)::value;
            DeviceSubBlock<Regs<Real, LN>, kThreads, Subs == 1> b;
            b.tid = static_cast<int>(threadIdx.x) % kThreads;
            b.id = 1u + static_cast<unsigned>(w);
            plane_axis<Real, LN, Inverse>(b, g.log2n[0], g.log2n[1], planes, axis, w, work, roots,
                                          copy);
        });
        __syncthreads();
    }
    slab(base, cells);
    plane_store<Real>(copy, out + base, cells);
}

// What the launches need on the device: the groups, each class and axis's block-to-group
// table, the compact class's, the twiddle table (dct_twiddles) and the matrices
// (direct_matrices).
template <typename Real>
struct DctDevice {
    const DctGroup* groups;
    const int32_t* block_group[kDctClasses][3];
    const typename Cplx<Real>::type* roots;
    const Real* direct;
    const int32_t* compact_group;
    const int32_t* compact_warp_group;
    const int32_t* plane_group[kPlaneLaunches];
};

// Calls f(class constant, kind constant) for every class and kind that has kernels: the direct
// class has no kPure ones (its groups have a side that is not a power of two).
template <typename F>
inline void for_each_kernel(F&& f) {
    static_for<kDctClasses>([&](auto cc) {
        constexpr int c = decltype(cc)::value;
        static_for<kKinds>([&](auto kc) {
            if constexpr (c != kDirectClass || decltype(kc)::value == kMixed) f(cc, kc);
        });
    });
}

// Lets each kernel take the plan's shared memory (above 48 KB needs the opt-in), and the plane
// groups' z plan's where they have one (add_dct_group).
template <typename Real>
inline cudaError_t configure_dct_kernels(const DctPlan& p, const DctPlan* plane_z = nullptr) {
    cudaError_t e = cudaSuccess;
    auto set = [&](const void* kernel, size_t bytes) {
        if (e == cudaSuccess)
            e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(bytes));
    };
    for_each_kernel([&](auto cc, auto kc) {
        constexpr int c = decltype(cc)::value, k = decltype(kc)::value;
        size_t most = 0;
        for (const auto& s : p.shared[c])
            most = most > s[k] ? most : s[k];
        if (plane_z)
            for (const auto& s : plane_z->shared[c])
                most = most > s[k] ? most : s[k];
        set(reinterpret_cast<const void*>(&dct_forward<Real, c, k == kPure>), most);
        set(reinterpret_cast<const void*>(&dct_inverse<Real, c, k == kPure>), most);
        set(reinterpret_cast<const void*>(&dct_z_modes<Real, c, k == kPure>), most);
        if constexpr (c == 0)
            static_for<kZRanges>([&](auto rc) {
                constexpr int r = decltype(rc)::value;
                set(reinterpret_cast<const void*>(&dct_z_modes<Real, 0, k == kPure, r>), most);
            });
    });
    set(reinterpret_cast<const void*>(&dct_compact<Real>), p.compact_shared);
    set(reinterpret_cast<const void*>(&dct_compact_warp<Real>),
        kCompactWarps * p.compact_warp_shared);
    static_for<kPlaneLaunches>([&](auto lc) {
        constexpr int S = kPlaneSubs[decltype(lc)::value];
        set(reinterpret_cast<const void*>(&dct_plane<Real, false, S>), p.plane_shared[lc]);
        set(reinterpret_cast<const void*>(&dct_plane<Real, true, S>), p.plane_shared[lc]);
    });
    return e;
}

// A stream beside the step's stream and the events that fork work onto it and join it back: a
// pass's kernel classes and kinds are independent (they cover different groups), and the smaller
// launches run beside the largest instead of after it (a class of a few hundred 3-blocks-per-SM
// blocks filled 1.5 waves alone, the second half empty); so do the plane and compact classes.
struct DctSideStream {
    cudaStream_t stream = nullptr;
    cudaEvent_t fork = nullptr, join = nullptr;
};

// Makes side streams [0, n) wait for the work queued on `stream` so far (through side[0].fork).
inline cudaError_t fork_sides(const DctSideStream* side, int n, cudaStream_t stream) {
    cudaError_t e = n > 0 ? cudaEventRecord(side->fork, stream) : cudaSuccess;
    for (int s = 0; s < n && e == cudaSuccess; ++s)
        e = cudaStreamWaitEvent(side[s].stream, side->fork, 0);
    return e;
}

// Makes `stream` wait for the work queued on side streams [0, n).
inline cudaError_t join_sides(const DctSideStream* side, int n, cudaStream_t stream) {
    cudaError_t e = cudaSuccess;
    for (int s = 0; s < n && e == cudaSuccess; ++s) {
        e = cudaEventRecord(side[s].join, side[s].stream);
        if (e == cudaSuccess) e = cudaStreamWaitEvent(stream, side[s].join, 0);
    }
    return e;
}

// One launch of a pass: a class and kind's blocks [first, first + blocks) of the kind's list,
// and for class 0's split z pass (kZRanges) its range of sides, -1 otherwise.
struct DctLaunch {
    int c = 0, k = 0, range = -1;
    unsigned first = 0, blocks = 0;
};

// The launches of the pass along `axis`: every class and kind with blocks, class 0's z pass in
// its ranges where the plan splits it.
inline std::vector<DctLaunch> dct_launches(const DctPlan& p, int axis) {
    std::vector<DctLaunch> out;
    for (int c = 0; c < kDctClasses; ++c)
        for (int k = 0; k < kKinds; ++k) {
            if (p.blocks[c][axis][k] == 0) continue;
            if (c != 0 || axis != 2 || !p.split_z) {
                out.push_back({c, k, -1, 0, p.blocks[c][axis][k]});
                continue;
            }
            unsigned first = 0;
            for (int r = 0; r < kZRanges; ++r) {
                unsigned nb = 0;
                for (int ln = kZRangeLo[r]; ln <= kZRangeHi[r]; ++ln)
                    nb += p.z_blocks[k][ln];
                if (nb > 0) out.push_back({c, k, r, first, nb});
                first += nb;
            }
        }
    return out;
}

// Calls launch(class constant, kind constant, the launch, the kind's first block, stream) for
// every launch of the pass along `axis` (dct_launches): the one with the most blocks on `stream`,
// the others on the `sides` side streams in turn, joined back into `stream`.
template <typename F>
inline void launch_classes(const DctPlan& p, int axis, cudaStream_t stream,
                           const DctSideStream* side, int sides, F&& launch) {
    const std::vector<DctLaunch> launches = dct_launches(p, axis);
    size_t main = 0;
    for (size_t i = 1; i < launches.size(); ++i)
        if (launches[i].blocks > launches[main].blocks) main = i;
    const bool split = side && side->stream && launches.size() > 1;
    const int used = split ? std::min(sides, static_cast<int>(launches.size()) - 1) : 0;
    fork_sides(side, used, stream);  // errors surface at the graph's capture
    int next = 0;
    for (size_t i = 0; i < launches.size(); ++i) {
        const DctLaunch& l = launches[i];
        const cudaStream_t s = split && i != main ? side[next++ % used].stream : stream;
        for_each_kernel([&](auto cc, auto kc) {
            if (decltype(cc)::value == l.c && decltype(kc)::value == l.k)
                launch(cc, kc, l, l.k == kPure ? 0u : p.blocks[l.c][axis][kPure], s);
        });
    }
    join_sides(side, used, stream);
}

// Forward DCT along `axis` (x or y) of every group, in place.
template <typename Real>
inline void launch_dct_forward(const DctPlan& p, const DctDevice<Real>& d, int axis, Real* field,
                               cudaStream_t stream, const DctSideStream* side = nullptr,
                               int sides = 1) {
    launch_classes(p, axis, stream, side, sides,
                   [&](auto cc, auto kc, const DctLaunch&, unsigned first, cudaStream_t s) {
                       constexpr int c = decltype(cc)::value, k = decltype(kc)::value;
                       dct_forward<Real, c, k == kPure>
                           <<<p.blocks[c][axis][k], dct_threads<Real>(), p.shared[c][axis][k], s>>>(
                               d.groups, d.block_group[c][axis] + first, axis, d.roots, d.direct,
                               field);
                   });
}

// Inverse DCT along `axis` (x or y) of every group, from `in` to `out` (which may be `in`);
// with `clear` (`in`, not `out`) `in` is left zero, which spares the next step a memset.
template <typename Real>
inline void launch_dct_inverse(const DctPlan& p, const DctDevice<Real>& d, int axis, const Real* in,
                               Real* out, Real* clear, cudaStream_t stream,
                               const DctSideStream* side = nullptr, int sides = 1) {
    launch_classes(p, axis, stream, side, sides,
                   [&](auto cc, auto kc, const DctLaunch&, unsigned first, cudaStream_t s) {
                       constexpr int c = decltype(cc)::value, k = decltype(kc)::value;
                       dct_inverse<Real, c, k == kPure>
                           <<<p.blocks[c][axis][k], dct_threads<Real>(), p.shared[c][axis][k], s>>>(
                               d.groups, d.block_group[c][axis] + first, axis, d.roots, d.direct,
                               in, out, clear);
                   });
}

// Forward z DCT, mode update (or, for `init`, the modes of the initial field), inverse z DCT.
template <typename Real>
inline void launch_dct_z_modes(const DctPlan& p, const DctDevice<Real>& d, Real* field,
                               const ModeArrays<Real>& m, bool init, cudaStream_t stream,
                               const DctSideStream* side = nullptr, int sides = 1) {
    launch_classes(
        p, 2, stream, side, sides,
        [&](auto cc, auto kc, const DctLaunch& l, unsigned first, cudaStream_t s) {
            constexpr int c = decltype(cc)::value, k = decltype(kc)::value;
            const size_t bytes = p.shared[c][2][k];
            const int32_t* bg = d.block_group[c][2] + first;
            if constexpr (c == 0) {
                if (l.range >= 0) {
                    static_for<kZRanges>([&](auto rc) {
                        constexpr int r = decltype(rc)::value;
                        if (r == l.range)
                            dct_z_modes<Real, 0, k == kPure, r>
                                <<<l.blocks, dct_threads<Real>(), bytes, s>>>(
                                    d.groups, bg, l.first, d.roots, d.direct, field, m, init);
                    });
                    return;
                }
            }
            dct_z_modes<Real, c, k == kPure><<<l.blocks, dct_threads<Real>(), bytes, s>>>(
                d.groups, bg, 0u, d.roots, d.direct, field, m, init);
        });
}

// The compact groups' forward DCT, mode update (or, for `init`, the modes of the initial field)
// and inverse DCT, from `in` (left zero) to `out`, in one launch; independent of the line
// classes' passes (other groups).
template <typename Real>
inline void launch_dct_compact(const DctPlan& p, const DctDevice<Real>& d, Real* in, Real* out,
                               const ModeArrays<Real>& m, bool init, cudaStream_t stream) {
    if (p.compact_warp_partitions > 0) {
        const unsigned blocks = (p.compact_warp_partitions + kCompactWarps - 1) / kCompactWarps;
        dct_compact_warp<Real>
            <<<blocks, 32 * kCompactWarps, kCompactWarps * p.compact_warp_shared, stream>>>(
                d.groups, d.compact_warp_group, p.compact_warp_partitions, p.compact_warp_shared,
                d.direct, in, out, m, init);
    }
    if (p.compact_blocks > 0)
        dct_compact<Real><<<p.compact_blocks, kCompactThreads, p.compact_shared, stream>>>(
            d.groups, d.compact_group, d.direct, in, out, m, init);
}

// The plane groups' forward x and y DCT (in place in `in` = `out`) or inverse y and x (from `in`,
// left zero, to `out`), launch l on sides[l] (null `sides`: all on the default stream);
// independent of the line classes' x and y passes (other groups).
template <typename Real>
inline void launch_dct_plane(const DctPlan& p, const DctDevice<Real>& d, bool inverse,
                             const Real* in, Real* out, Real* clear, const DctSideStream* sides) {
    static_for<kPlaneLaunches>([&](auto lc) {
        constexpr int l = decltype(lc)::value, S = kPlaneSubs[l];
        if (p.plane_blocks[l] == 0) return;
        const dim3 grid(p.plane_blocks[l]), block(S * dct_threads<Real>());
        const cudaStream_t stream = sides ? sides[l].stream : nullptr;
        if (inverse)
            dct_plane<Real, true, S><<<grid, block, p.plane_shared[l], stream>>>(
                d.groups, d.plane_group[l], d.roots, in, out, clear);
        else
            dct_plane<Real, false, S><<<grid, block, p.plane_shared[l], stream>>>(
                d.groups, d.plane_group[l], d.roots, in, out, clear);
    });
}

// The host's side of a block (tests): every thread's registers, threads run one after another.
template <typename R>
struct HostBlock {
    std::vector<R> r;
    explicit HostBlock(int threads) : r(static_cast<size_t>(threads)) {}
    template <typename F>
    void phase(F&& f) {
        for (int t = 0; t < static_cast<int>(r.size()); ++t)
            f(t, r[static_cast<size_t>(t)]);
    }
    template <typename F>
    void run(F&& f) {
        phase(f);
    }
    void sync() const {}
};

// Runs fn(block, tile, group) for every block of every class and kind on `axis`, on the host,
// with fresh shared memory per block; the direct class's tiles are DirectTile, the others'
// Tile<Real, kind == kPure>. Blocks are numbered within their kind, as on the device.
template <typename Real, typename Fn>
inline void emulate_blocks(const DctPlan& p, const std::vector<DctGroup>& groups, int axis,
                           const typename Cplx<Real>::type* roots, const Real* direct, Fn fn) {
    using C = typename Cplx<Real>::type;
    for (int c = 0; c < kDctClasses; ++c)
        for (int kind = 0; kind < kKinds; ++kind) {
            const unsigned first = kind == kPure ? 0u : p.blocks[c][axis][kPure];
            for (unsigned blk = 0; blk < p.blocks[c][axis][kind]; ++blk) {
                const DctGroup& g =
                    groups[static_cast<size_t>(p.block_group[c][axis][first + blk])];
                const long long block = static_cast<long long>(blk);
                if (c == kDirectClass) {
                    const size_t bytes =
                        direct_shared_bytes<Real>(side(g.shape, axis), g.log2_direct_lines[axis]);
                    std::vector<Real> smem(bytes / sizeof(Real), Real(-7));
                    HostBlock<DirectRegs> b(dct_threads<Real>());
                    fn(b, make_direct_tile<Real>(g, axis, block, smem.data(), direct), g);
                    continue;
                }
                dispatch_ln<0, kLog2MaxLine>(g.log2n[axis], [&](auto lc) {
                    constexpr int LN = decltype(lc)::value;
                    using S = LineShape<Real, LN>;
                    std::vector<C> smem(static_cast<size_t>(S::L * S::CS), C{Real(-7), Real(-7)});
                    HostBlock<Regs<Real, LN>> b(S::kThreads);
                    if (kind == kPure)
                        fn(b, make_tile<Real, LN, true>(g, axis, block, smem.data(), roots), g);
                    else
                        fn(b, make_tile<Real, LN, false>(g, axis, block, smem.data(), roots), g);
                });
            }
        }
}

template <typename Real, typename T>
inline constexpr bool kIsDirectTile = std::is_same_v<std::remove_cvref_t<T>, DirectTile<Real>>;

template <typename Real>
inline void emulate_dct_forward(const DctPlan& p, const std::vector<DctGroup>& groups, int axis,
                                const typename Cplx<Real>::type* roots, const Real* direct,
                                Real* field) {
    emulate_blocks<Real>(p, groups, axis, roots, direct,
                         [&](auto& b, const auto& t, const DctGroup& g) {
                             if constexpr (kIsDirectTile<Real, decltype(t)>) {
                                 direct_forward_tile(b, t, field + g.offset);
                             } else {
                                 constexpr int LN = std::remove_reference_t<decltype(b.r[0])>::kLN;
                                 forward_tile<Real, LN>(b, t, field + g.offset);
                             }
                         });
}

template <typename Real>
inline void emulate_dct_inverse(const DctPlan& p, const std::vector<DctGroup>& groups, int axis,
                                const typename Cplx<Real>::type* roots, const Real* direct,
                                const Real* in, Real* out, Real* clear = nullptr) {
    emulate_blocks<Real>(p, groups, axis, roots, direct,
                         [&](auto& b, const auto& t, const DctGroup& g) {
                             Real* cl = clear ? clear + g.offset : nullptr;
                             if constexpr (kIsDirectTile<Real, decltype(t)>) {
                                 direct_inverse_tile(b, t, in + g.offset, out + g.offset, cl);
                             } else {
                                 constexpr int LN = std::remove_reference_t<decltype(b.r[0])>::kLN;
                                 inverse_tile<Real, LN>(b, t, in + g.offset, out + g.offset, cl);
                             }
                         });
}

template <typename Real>
inline void emulate_dct_z_modes(const DctPlan& p, const std::vector<DctGroup>& groups,
                                const typename Cplx<Real>::type* roots, const Real* direct,
                                Real* field, const ModeArrays<Real>& modes, bool init) {
    emulate_blocks<Real>(p, groups, 2, roots, direct,
                         [&](auto& b, const auto& t, const DctGroup& g) {
                             const ModeArrays<Real> m = group_modes(modes, g);
                             if constexpr (kIsDirectTile<Real, decltype(t)>) {
                                 direct_z_modes_tile(b, t, field + g.offset, m, init);
                             } else {
                                 constexpr int LN = std::remove_reference_t<decltype(b.r[0])>::kLN;
                                 z_modes_tile<Real, LN>(b, t, field + g.offset, m, init);
                             }
                         });
}

template <typename Real>
inline void emulate_dct_compact(const DctPlan& p, const std::vector<DctGroup>& groups,
                                const Real* direct, Real* in, Real* out,
                                const ModeArrays<Real>& modes, bool init) {
    auto run = [&](auto threads, const std::vector<int32_t>& list) {
        for (size_t blk = 0; blk < list.size(); ++blk) {
            const DctGroup& g = groups[static_cast<size_t>(list[blk])];
            const ModeArrays<Real> m = group_modes(modes, g);
            std::vector<Real> smem(compact_shared_bytes<Real>(g.shape) / sizeof(Real), Real(-7));
            HostBlock<DirectRegs> b(decltype(threads)::value);
            compact_tile<decltype(threads)::value>(
                b, make_compact_tile<Real>(g, static_cast<long long>(blk), smem.data(), direct),
                in + g.offset, out + g.offset, m, init);
        }
    };
    run(std::integral_constant<int, 32>{}, p.compact_warp_group);
    run(std::integral_constant<int, kCompactThreads>{}, p.compact_group);
}

// The plane class on the host: each block's slab copied out, its sub-blocks' tiles one after
// another, the slab copied back.
template <typename Real>
inline void emulate_dct_plane(const DctPlan& p, const std::vector<DctGroup>& groups, bool inverse,
                              const typename Cplx<Real>::type* roots, const Real* in, Real* out,
                              Real* clear = nullptr) {
    using C = typename Cplx<Real>::type;
    for (int l = 0; l < kPlaneLaunches; ++l)
        for (size_t blk = 0; blk < p.plane_group[l].size(); ++blk) {
            const DctGroup& g = groups[static_cast<size_t>(p.plane_group[l][blk])];
            long long first = 0;
            const int planes = plane_slab(g, static_cast<long long>(blk), first);
            const long long cells = planes * g.shape.nx * g.shape.ny;
            const long long base = g.offset + first;
            std::vector<Real> copy(in + base, in + base + cells);
            if (clear) std::fill(clear + base, clear + base + cells, Real(0));
            for (int pass = 0; pass < 2; ++pass) {
                const int axis = inverse ? 1 - pass : pass;
                for (int w = 0; w < kPlaneSubs[l]; ++w)
                    dispatch_ln<0, kPlaneMaxLog2>(g.log2n[axis], [&](auto lc) {
                        constexpr int LN = decltype(lc)::value;
                        std::vector<C> work(g.plane_work / sizeof(C) + 1, C{Real(-7), Real(-7)});
                        HostBlock<Regs<Real, LN>> b(dct_threads<Real>());
                        if (inverse)
                            plane_axis<Real, LN, true>(b, g.log2n[0], g.log2n[1], planes, axis, w,
                                                       work.data(), roots, copy.data());
                        else
                            plane_axis<Real, LN, false>(b, g.log2n[0], g.log2n[1], planes, axis, w,
                                                        work.data(), roots, copy.data());
                    });
            }
            std::copy(copy.begin(), copy.end(), out + base);
        }
}

}  // namespace ardent::ard::cuda
