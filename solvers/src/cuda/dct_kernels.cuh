// The batched 3-D DCT of the CUDA ARD backend (spec section 5): the launches over every shape
// group of the layout, one kernel per axis and direction, each block one tile of lines
// (dct_tile.cuh). A launch covers every group whose lines fit its kernel class, so the step's
// launch count does not grow with the number of shapes. The classes split the line lengths by the
// registers their tiles need (a kernel takes the most any of its lengths needs, and registers set
// its occupancy): lines of 1 to 128 points (register DFTs of up to 8 points), 256 and 512 (16
// points) and 1024 (32 points).
// The z kernel also advances the modes between its forward and inverse transforms. Layout of a
// group (P partitions of nx x ny x nz cells, x fastest): field, force and modes [p][z][y][x]
// (modes indexed [p][kz][ky][kx]); mode coefficients [kz][ky][kx], shared by the group's
// partitions. The same tiles run on the host (emulate_*) for the tests that have no GPU.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "dct_tile.cuh"

namespace ardent::ard::cuda {

inline constexpr int kDctClasses = 3;
template <int Class>
inline constexpr int kClassLo = Class == 0   ? 0
                                : Class == 1 ? 8
                                             : 10;
template <int Class>
inline constexpr int kClassHi = Class == 0   ? 7
                                : Class == 1 ? 9
                                             : 10;
// Blocks per SM the compiler must leave registers for: the short lines' kernels run at half
// occupancy; 16- and 32-point register DFTs need more registers, the z kernel's most.
template <int Class, bool Z>
inline constexpr int kClassMinBlocks = Class == 0   ? (Z ? 4 : 5)
                                       : Class == 1 ? (Z ? 2 : 3)
                                                    : 1;
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

// The DCT launches over a list of shape groups: per kernel class and axis, the blocks, the
// shared bytes per block and the group of each block.
struct DctPlan {
    unsigned blocks[kDctClasses][3] = {};
    size_t shared[kDctClasses][3] = {};
    std::vector<int32_t> block_group[kDctClasses][3];
};

// Appends a group (its sides must be powers of two up to kMaxLine) to `groups` and `plan`.
template <typename Real>
inline void add_dct_group(const GroupShape& s, long long offset, long long coef,
                          std::vector<DctGroup>& groups, DctPlan& plan) {
    DctGroup g{};
    g.shape = s;
    g.offset = offset;
    g.coef = coef;
    const int n[3] = {s.nx, s.ny, s.nz};
    for (int a = 0; a < 3; ++a) {
        g.log2n[a] = log2_of(n[a]);
        int log2lines = 0;
        size_t bytes = 0;
        dispatch_ln<0, kLog2MaxLine>(g.log2n[a], [&](auto lc) {
            using S = LineShape<Real, decltype(lc)::value>;
            log2lines = S::LL;
            bytes = S::kSharedBytes;
        });
        const int c = dct_class(g.log2n[a]);
        g.first_block[a] = plan.blocks[c][a];
        const long long lines = s.count * s.nx * s.ny * s.nz / n[a];
        const long long per = 1LL << log2lines;
        const unsigned nb = static_cast<unsigned>((lines + per - 1) / per);
        plan.blocks[c][a] += nb;
        plan.block_group[c][a].insert(plan.block_group[c][a].end(), nb,
                                      static_cast<int32_t>(groups.size()));
        plan.shared[c][a] = plan.shared[c][a] > bytes ? plan.shared[c][a] : bytes;
    }
    groups.push_back(g);
}

// Orders each launch's blocks by line length (then by group), so that the blocks an SM holds
// at once mostly run the same code: a launch's kernel holds every length's unrolled code, and
// mixed neighbours stall on instruction fetch. Call after the last add_dct_group.
inline void sort_dct_blocks(std::vector<DctGroup>& groups, DctPlan& plan) {
    for (int a = 0; a < 3; ++a)
        for (int c = 0; c < kDctClasses; ++c) {
            std::vector<int32_t>& bg = plan.block_group[c][a];
            std::vector<int32_t> order;  // the class's groups, each once, in block order
            for (size_t i = 0; i < bg.size(); ++i)
                if (i == 0 || bg[i] != bg[i - 1]) order.push_back(bg[i]);
            std::vector<long long> count(groups.size(), 0);
            for (int32_t gi : bg)
                ++count[static_cast<size_t>(gi)];
            std::stable_sort(order.begin(), order.end(), [&](int32_t x, int32_t y) {
                return groups[static_cast<size_t>(x)].log2n[a] <
                       groups[static_cast<size_t>(y)].log2n[a];
            });
            bg.clear();
            for (int32_t gi : order) {
                groups[static_cast<size_t>(gi)].first_block[a] = static_cast<long long>(bg.size());
                bg.insert(bg.end(), static_cast<size_t>(count[static_cast<size_t>(gi)]), gi);
            }
        }
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

template <typename Real, int Class>
__global__ void __launch_bounds__(dct_threads<Real>(), kClassMinBlocks<Class, false>)
    dct_forward(const DctGroup* groups, const int32_t* block_group, int axis,
                const typename Cplx<Real>::type* __restrict__ roots, Real* field) {
    const DctGroup& g = groups[block_group[blockIdx.x]];
    dispatch_ln<kClassLo<Class>, kClassHi<Class>>(g.log2n[axis], [&](auto lc) {
        constexpr int LN = decltype(lc)::value;
        DeviceBlock<Regs<Real, LN>> b;
        forward_tile<Real, LN>(b, make_tile<Real, LN>(g, axis, blockIdx.x, dct_smem, roots),
                               field + g.offset);
    });
}

template <typename Real, int Class>
__global__ void __launch_bounds__(dct_threads<Real>(), kClassMinBlocks<Class, false>)
    dct_inverse(const DctGroup* groups, const int32_t* block_group, int axis,
                const typename Cplx<Real>::type* __restrict__ roots, const Real* in, Real* out,
                Real* clear) {
    const DctGroup& g = groups[block_group[blockIdx.x]];
    dispatch_ln<kClassLo<Class>, kClassHi<Class>>(g.log2n[axis], [&](auto lc) {
        constexpr int LN = decltype(lc)::value;
        DeviceBlock<Regs<Real, LN>> b;
        inverse_tile<Real, LN>(b, make_tile<Real, LN>(g, axis, blockIdx.x, dct_smem, roots),
                               in + g.offset, out + g.offset, clear ? clear + g.offset : nullptr);
    });
}

template <typename Real, int Class>
__global__ void __launch_bounds__(dct_threads<Real>(), kClassMinBlocks<Class, true>)
    dct_z_modes(const DctGroup* groups, const int32_t* block_group,
                const typename Cplx<Real>::type* __restrict__ roots, Real* field,
                ModeArrays<Real> modes, bool init) {
    const DctGroup& g = groups[block_group[blockIdx.x]];
    const ModeArrays<Real> m{modes.cur + g.offset, modes.old + g.offset, modes.a + g.coef,
                             modes.b + g.coef, modes.phi + g.coef};
    dispatch_ln<kClassLo<Class>, kClassHi<Class>>(g.log2n[2], [&](auto lc) {
        constexpr int LN = decltype(lc)::value;
        DeviceBlock<Regs<Real, LN>> b;
        z_modes_tile<Real, LN>(b, make_tile<Real, LN>(g, 2, blockIdx.x, dct_smem, roots),
                               field + g.offset, m, init);
    });
}

// What the launches need on the device: the groups, each class and axis's block-to-group
// table, and the twiddle table (dct_twiddles).
template <typename Real>
struct DctDevice {
    const DctGroup* groups;
    const int32_t* block_group[kDctClasses][3];
    const typename Cplx<Real>::type* roots;
};

// Lets each kernel take the plan's shared memory (above 48 KB needs the opt-in).
template <typename Real>
inline cudaError_t configure_dct_kernels(const DctPlan& p) {
    cudaError_t e = cudaSuccess;
    auto set = [&](const void* kernel, size_t bytes) {
        if (e == cudaSuccess)
            e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(bytes));
    };
    static_for<kDctClasses>([&](auto cc) {
        constexpr int c = decltype(cc)::value;
        size_t most = 0;
        for (size_t s : p.shared[c])
            most = most > s ? most : s;
        set(reinterpret_cast<const void*>(&dct_forward<Real, c>), most);
        set(reinterpret_cast<const void*>(&dct_inverse<Real, c>), most);
        set(reinterpret_cast<const void*>(&dct_z_modes<Real, c>), most);
    });
    return e;
}

// A second stream for the launches of a pass: its kernel classes are independent (they cover
// different groups), and the smaller classes run beside the largest instead of after it. A
// class of a few hundred 3-blocks-per-SM blocks filled 1.5 waves alone, the second half empty.
struct DctSideStream {
    cudaStream_t stream = nullptr;
    cudaEvent_t fork = nullptr, join = nullptr;
};

// Calls launch(class constant, stream) for every class with blocks along `axis`: the class with
// the most blocks on `stream`, the others on the side stream, joined back into `stream`.
template <typename F>
inline void launch_classes(const DctPlan& p, int axis, cudaStream_t stream,
                           const DctSideStream* side, F&& launch) {
    int classes = 0, main_class = 0;
    for (int c = 0; c < kDctClasses; ++c)
        if (p.blocks[c][axis] > 0) {
            if (classes == 0 || p.blocks[c][axis] > p.blocks[main_class][axis]) main_class = c;
            ++classes;
        }
    const bool split = side && side->stream && classes > 1;
    if (split) {
        cudaEventRecord(side->fork, stream);
        cudaStreamWaitEvent(side->stream, side->fork, 0);
    }
    static_for<kDctClasses>([&](auto cc) {
        constexpr int c = decltype(cc)::value;
        if (p.blocks[c][axis] == 0) return;
        launch(cc, split && c != main_class ? side->stream : stream);
    });
    if (split) {
        cudaEventRecord(side->join, side->stream);
        cudaStreamWaitEvent(stream, side->join, 0);
    }
}

// Forward DCT along `axis` (x or y) of every group, in place.
template <typename Real>
inline void launch_dct_forward(const DctPlan& p, const DctDevice<Real>& d, int axis, Real* field,
                               cudaStream_t stream, const DctSideStream* side = nullptr) {
    launch_classes(p, axis, stream, side, [&](auto cc, cudaStream_t s) {
        constexpr int c = decltype(cc)::value;
        dct_forward<Real, c><<<p.blocks[c][axis], dct_threads<Real>(), p.shared[c][axis], s>>>(
            d.groups, d.block_group[c][axis], axis, d.roots, field);
    });
}

// Inverse DCT along `axis` (x or y) of every group, from `in` to `out` (which may be `in`);
// with `clear` (`in`, not `out`) `in` is left zero, which spares the next step a memset.
template <typename Real>
inline void launch_dct_inverse(const DctPlan& p, const DctDevice<Real>& d, int axis, const Real* in,
                               Real* out, Real* clear, cudaStream_t stream,
                               const DctSideStream* side = nullptr) {
    launch_classes(p, axis, stream, side, [&](auto cc, cudaStream_t s) {
        constexpr int c = decltype(cc)::value;
        dct_inverse<Real, c><<<p.blocks[c][axis], dct_threads<Real>(), p.shared[c][axis], s>>>(
            d.groups, d.block_group[c][axis], axis, d.roots, in, out, clear);
    });
}

// Forward z DCT, mode update (or, for `init`, the modes of the initial field), inverse z DCT.
template <typename Real>
inline void launch_dct_z_modes(const DctPlan& p, const DctDevice<Real>& d, Real* field,
                               const ModeArrays<Real>& m, bool init, cudaStream_t stream,
                               const DctSideStream* side = nullptr) {
    launch_classes(p, 2, stream, side, [&](auto cc, cudaStream_t s) {
        constexpr int c = decltype(cc)::value;
        dct_z_modes<Real, c><<<p.blocks[c][2], dct_threads<Real>(), p.shared[c][2], s>>>(
            d.groups, d.block_group[c][2], d.roots, field, m, init);
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
};

// Runs fn(block, tile) for every block of every class on `axis`, on the host, with fresh shared
// memory per block.
template <typename Real, typename Fn>
inline void emulate_blocks(const DctPlan& p, const std::vector<DctGroup>& groups, int axis,
                           const typename Cplx<Real>::type* roots, Fn fn) {
    using C = typename Cplx<Real>::type;
    for (int c = 0; c < kDctClasses; ++c) {
        for (unsigned blk = 0; blk < p.blocks[c][axis]; ++blk) {
            const DctGroup& g = groups[static_cast<size_t>(p.block_group[c][axis][blk])];
            dispatch_ln<0, kLog2MaxLine>(g.log2n[axis], [&](auto lc) {
                constexpr int LN = decltype(lc)::value;
                using S = LineShape<Real, LN>;
                std::vector<C> smem(static_cast<size_t>(S::L * S::CS), C{Real(-7), Real(-7)});
                HostBlock<Regs<Real, LN>> b(S::kThreads);
                fn(b, make_tile<Real, LN>(g, axis, static_cast<long long>(blk), smem.data(), roots),
                   g);
            });
        }
    }
}

template <typename Real>
inline void emulate_dct_forward(const DctPlan& p, const std::vector<DctGroup>& groups, int axis,
                                const typename Cplx<Real>::type* roots, Real* field) {
    emulate_blocks<Real>(p, groups, axis, roots, [&](auto& b, const auto& t, const DctGroup& g) {
        constexpr int LN = std::remove_reference_t<decltype(b.r[0])>::kLN;
        forward_tile<Real, LN>(b, t, field + g.offset);
    });
}

template <typename Real>
inline void emulate_dct_inverse(const DctPlan& p, const std::vector<DctGroup>& groups, int axis,
                                const typename Cplx<Real>::type* roots, const Real* in, Real* out,
                                Real* clear = nullptr) {
    emulate_blocks<Real>(p, groups, axis, roots, [&](auto& b, const auto& t, const DctGroup& g) {
        constexpr int LN = std::remove_reference_t<decltype(b.r[0])>::kLN;
        inverse_tile<Real, LN>(b, t, in + g.offset, out + g.offset,
                               clear ? clear + g.offset : nullptr);
    });
}

template <typename Real>
inline void emulate_dct_z_modes(const DctPlan& p, const std::vector<DctGroup>& groups,
                                const typename Cplx<Real>::type* roots, Real* field,
                                const ModeArrays<Real>& modes, bool init) {
    emulate_blocks<Real>(p, groups, 2, roots, [&](auto& b, const auto& t, const DctGroup& g) {
        constexpr int LN = std::remove_reference_t<decltype(b.r[0])>::kLN;
        const ModeArrays<Real> m{modes.cur + g.offset, modes.old + g.offset, modes.a + g.coef,
                                 modes.b + g.coef, modes.phi + g.coef};
        z_modes_tile<Real, LN>(b, t, field + g.offset, m, init);
    });
}

}  // namespace ardent::ard::cuda
