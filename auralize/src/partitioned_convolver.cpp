#include "ardent/auralize/partitioned_convolver.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <complex>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>

#include "fftw_plan.h"

namespace ardent::auralize {
namespace {

using detail::FftwArray;

// Each stage is 4 times the block of the one before: the smallest ratio that leaves a middle
// phase for the multiply-accumulates between the forward and inverse transform (see Stage).
constexpr size_t kGrowth = 4;
// A stage is added only for IRs at least this many of its blocks long; below that the larger
// transforms cost more than the partitions they save.
constexpr size_t kMinBlocksForStage = 8;
constexpr int kSlots = 3;  // per stage: current, previous (while fading), pending/being written

// Slot word of a stage. Bits 0..2: slots the audio thread uses; bits 4..5: the pending slot + 1
// (0: none). The audio thread turns a pending slot into a used one with one compare-and-swap, so
// the writer never sees a moment where a slot it could overwrite is about to be used.
constexpr int kPendingShift = 4;
constexpr std::uint32_t kPendingMask = 0x3u << kPendingShift;

int pending_of(std::uint32_t word) {
    return static_cast<int>((word & kPendingMask) >> kPendingShift) - 1;
}
std::uint32_t bit(int slot) {
    return 1u << slot;
}

size_t round_up(size_t n, size_t to) {
    return (n + to - 1) / to * to;
}

// acc += x * h over n complex bins in split format (real and imaginary parts in separate arrays,
// which the compiler vectorises).
void multiply_add(const float* __restrict xr, const float* __restrict xi,
                  const float* __restrict hr, const float* __restrict hi, float* __restrict ar,
                  float* __restrict ai, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        ar[i] += xr[i] * hr[i] - xi[i] * hi[i];
        ai[i] += xr[i] * hi[i] + xi[i] * hr[i];
    }
}

}  // namespace

// One uniformly partitioned stage. Stage 0 (ratio 1) does all its work inside each process call.
// A later stage with blocks of B = ratio * block samples covers IR taps from offset = 2B: its input
// block k, complete at the end of its period k (a period is `ratio` calls), contributes to output
// from (k + 2) B on. So period k + 1 has time for the work: at phase fft_phase the forward
// transform, then the multiply-accumulates in equal shares, at phase ifft_phase the inverse
// transform into one half of a double buffer, which period k + 2 plays out. Stage s >= 1 uses
// fft_phase = s - 1 and ifft_phase = ratio - s, so no two stages transform in the same call, and
// each convolver starts its stages at a different phase (Options::stagger), so that many
// convolvers run in one callback do not all do their large transforms in the same call.
struct StageState {
    size_t block = 0, offset = 0, partitions = 0, ratio = 1;
    size_t bins = 0, stride = 0;           // spectrum bins (block + 1) and their padded stride
    std::unique_ptr<detail::RealFft> fft;  // size 2 * block

    FftwArray<float> window;  // 2 * block: the forward transform's input
    FftwArray<float> inputs;  // stages >= 1: 3 input blocks, block k at (k % 3) * block
    FftwArray<std::complex<float>> spectrum;     // bins: scratch for transforms
    FftwArray<float> time;                       // 2 * block: scratch for inverse transforms
    FftwArray<float> fdl;                        // partitions x (re, im) x stride
    size_t head = 0;                             // FDL index of the newest input spectrum
    std::array<FftwArray<float>, kSlots> slots;  // channels x partitions x (re, im) x stride
    FftwArray<float> acc;    // 2 (current, previous) x channels x (re, im) x stride
    FftwArray<float> out;    // stages >= 1: channels x 2 halves x block
    FftwArray<float> mixed;  // block: scratch for the cross-fade

    std::atomic<std::uint32_t> word{bit(0)};
    // Audio thread only.
    int current = 0, previous = -1;  // slots; previous >= 0 while fading
    size_t fade_length = 0, fade_done = 0;
    int block_current = 0, block_previous = -1;  // latched for the block being computed
    size_t block_fade_start = 0;
    size_t phase = 0, period = 0, start_phase = 0;
    size_t fft_phase = 0, ifft_phase = 0;
    // No block latched since prepare() or reset(): everything this stage played so far was
    // silence, so a new IR can take over without a fade.
    bool cold = true;

    // Writer only (serialised by Impl::writer).
    FftwArray<float> writer_time;                    // 2 * block
    FftwArray<std::complex<float>> writer_spectrum;  // bins

    float* fdl_re(size_t p) { return fdl.get() + p * 2 * stride; }
    float* slot_re(int s, size_t channel, size_t p) {
        return slots[static_cast<size_t>(s)].get() + (channel * partitions + p) * 2 * stride;
    }
    float* acc_re(size_t which, size_t channel, size_t channels) {
        return acc.get() + (which * channels + channel) * 2 * stride;
    }
    float* input(size_t period_index) { return inputs.get() + (period_index % 3) * block; }
};

struct PartitionedConvolver::Impl {
    size_t block = 0, channels = 0, max_ir = 0;
    Options options;
    std::vector<Stage> layout;
    std::vector<std::unique_ptr<StageState>> stages;
    std::mutex writer;  // serialises set_ir(); never taken by process()

    void transform_input(StageState& s);
    void latch(StageState& s);
    void accumulate(StageState& s, size_t first, size_t last);
    // Inverse transforms the accumulated block into `dst` (channels x stride_out floats apart),
    // cross-fading when the block was latched with two slots.
    void finish(StageState& s, float* dst, size_t stride_out);
    void write_slot(StageState& s, int slot, std::span<const std::span<const float>> irs);
    void clear(StageState& s);
};

std::vector<PartitionedConvolver::Stage> PartitionedConvolver::layout(size_t max_ir_len,
                                                                      size_t block,
                                                                      size_t max_partition) {
    std::vector<Stage> out;
    if (max_ir_len == 0 || block == 0) return out;
    size_t offset = 0, b = block;
    for (;;) {
        const size_t next = b * kGrowth;
        const bool grow = next <= max_partition && max_ir_len >= kMinBlocksForStage * next;
        if (!grow) {
            out.push_back({b, offset, std::max<size_t>(1, (max_ir_len - offset + b - 1) / b)});
            return out;
        }
        // This stage reaches the next one's offset, two of the next blocks.
        out.push_back({b, offset, (2 * next - offset) / b});
        offset = 2 * next;
        b = next;
    }
}

PartitionedConvolver::PartitionedConvolver() : impl_(std::make_unique<Impl>()) {}
PartitionedConvolver::~PartitionedConvolver() = default;

size_t PartitionedConvolver::block() const {
    return impl_->block;
}
size_t PartitionedConvolver::channels() const {
    return impl_->channels;
}
size_t PartitionedConvolver::max_ir_length() const {
    return impl_->max_ir;
}
const std::vector<PartitionedConvolver::Stage>& PartitionedConvolver::stages() const {
    return impl_->layout;
}

bool PartitionedConvolver::fading() const {
    for (const auto& s : impl_->stages)
        if (s->previous >= 0) return true;
    return false;
}

void PartitionedConvolver::prepare(size_t max_ir_len, size_t block, size_t channels,
                                   Options options) {
    if (max_ir_len == 0 || block == 0 || channels == 0)
        throw std::invalid_argument(
            "PartitionedConvolver::prepare: IR length, block and channels must be positive");
    if (options.fade_blocks == 0) options.fade_blocks = 1;
    // Consecutive convolvers get different start phases (7 is prime to every ratio 4^k).
    static std::atomic<size_t> instances{0};
    const size_t stagger = instances.fetch_add(1, std::memory_order_relaxed);
    auto impl = std::make_unique<Impl>();
    impl->block = block;
    impl->channels = channels;
    impl->max_ir = max_ir_len;
    impl->options = options;
    impl->layout = layout(max_ir_len, block, std::max(options.max_partition, block));
    const auto planning =
        options.measure_fft ? detail::Planning::Measure : detail::Planning::Estimate;
    for (const Stage& st : impl->layout) {
        auto s = std::make_unique<StageState>();
        s->block = st.block;
        s->offset = st.offset;
        s->partitions = st.partitions;
        s->ratio = st.block / block;
        s->bins = st.block + 1;
        s->stride = round_up(s->bins, 16);  // 64-byte aligned rows
        s->fft = std::make_unique<detail::RealFft>(2 * st.block, planning);
        s->window = detail::alloc_floats(2 * st.block);
        if (s->ratio > 1) {
            s->inputs = detail::alloc_floats(3 * st.block);
            const size_t k = impl->stages.size();
            s->fft_phase = k - 1;
            s->ifft_phase = s->ratio - k;
            s->start_phase = options.stagger ? (stagger * 7) % s->ratio : 0;
        }
        s->spectrum = detail::alloc_complex(s->bins);
        s->time = detail::alloc_floats(2 * st.block);
        s->fdl = detail::alloc_floats(st.partitions * 2 * s->stride);
        for (auto& slot : s->slots)
            slot = detail::alloc_floats(channels * st.partitions * 2 * s->stride);
        s->acc = detail::alloc_floats(2 * channels * 2 * s->stride);
        if (s->ratio > 1) s->out = detail::alloc_floats(channels * 2 * st.block);
        s->mixed = detail::alloc_floats(st.block);
        s->fade_length = std::max(st.block, options.fade_blocks * block);
        s->writer_time = detail::alloc_floats(2 * st.block);
        s->writer_spectrum = detail::alloc_complex(s->bins);
        impl->stages.push_back(std::move(s));
    }
    for (auto& s : impl->stages)
        impl->clear(*s);
    impl_ = std::move(impl);
}

void PartitionedConvolver::Impl::clear(StageState& s) {
    std::fill_n(s.window.get(), 2 * s.block, 0.0f);
    if (s.inputs) std::fill_n(s.inputs.get(), 3 * s.block, 0.0f);
    std::fill_n(s.fdl.get(), s.partitions * 2 * s.stride, 0.0f);
    // A stage that starts between its transforms finishes a block it never latched: silence.
    std::fill_n(s.acc.get(), 2 * channels * 2 * s.stride, 0.0f);
    s.block_current = s.current;
    s.block_previous = -1;
    if (s.out) std::fill_n(s.out.get(), channels * 2 * s.block, 0.0f);
    s.head = 0;
    // Starting at phase p is the same as having run p calls of silence before.
    s.phase = s.start_phase;
    s.period = 0;
    s.cold = true;
}

void PartitionedConvolver::reset() {
    Impl& im = *impl_;
    for (auto& sp : im.stages) {
        StageState& s = *sp;
        im.clear(s);
        if (s.previous >= 0) {  // a fade in progress: keep the newer IR
            s.word.fetch_and(~bit(s.previous), std::memory_order_release);
            s.previous = -1;
        }
    }
}

void PartitionedConvolver::set_ir(std::span<const float> mono) {
    const std::span<const float> one[] = {mono};
    set_ir(std::span<const std::span<const float>>(one));
}

void PartitionedConvolver::set_ir(std::span<const std::span<const float>> irs) {
    Impl& im = *impl_;
    if (im.stages.empty())
        throw std::invalid_argument("PartitionedConvolver::set_ir before prepare()");
    if (irs.size() != im.channels)
        throw std::invalid_argument("PartitionedConvolver::set_ir: " + std::to_string(irs.size()) +
                                    " channels given, prepared for " + std::to_string(im.channels));
    for (auto ir : irs)
        if (ir.size() > im.max_ir)
            throw std::invalid_argument(
                "PartitionedConvolver::set_ir: IR of " + std::to_string(ir.size()) +
                " samples, prepared for at most " + std::to_string(im.max_ir));
    std::lock_guard lock(im.writer);
    for (auto& sp : im.stages) {
        StageState& s = *sp;
        // Take back a pending slot the audio thread has not picked up yet, else use the one it
        // does not hold (it holds at most two).
        int slot = -1;
        std::uint32_t w = s.word.load(std::memory_order_acquire);
        for (;;) {
            const int pending = pending_of(w);
            if (pending >= 0) {
                if (s.word.compare_exchange_weak(w, w & ~kPendingMask, std::memory_order_acq_rel,
                                                 std::memory_order_acquire)) {
                    slot = pending;
                    break;
                }
                continue;
            }
            for (int k = 0; k < kSlots; ++k)
                if (!(w & bit(k))) {
                    slot = k;
                    break;
                }
            break;
        }
        im.write_slot(s, slot, irs);
        w = s.word.load(std::memory_order_relaxed);
        while (!s.word.compare_exchange_weak(
            w, (w & ~kPendingMask) | (static_cast<std::uint32_t>(slot + 1) << kPendingShift),
            std::memory_order_release, std::memory_order_relaxed)) {
        }
    }
}

void PartitionedConvolver::Impl::write_slot(StageState& s, int slot,
                                            std::span<const std::span<const float>> irs) {
    // Partition spectra scaled by 1 / (2 B): FFTW's inverse is unnormalised.
    const float scale = 1.0f / static_cast<float>(2 * s.block);
    for (size_t c = 0; c < irs.size(); ++c) {
        const std::span<const float> ir = irs[c];
        for (size_t p = 0; p < s.partitions; ++p) {
            float* t = s.writer_time.get();
            std::fill_n(t, 2 * s.block, 0.0f);
            const size_t first = s.offset + p * s.block;
            for (size_t i = 0; i < s.block && first + i < ir.size(); ++i)
                t[i] = ir[first + i] * scale;
            s.fft->forward(t, s.writer_spectrum.get());
            float* re = s.slot_re(slot, c, p);
            float* im = re + s.stride;
            for (size_t b = 0; b < s.bins; ++b) {
                re[b] = s.writer_spectrum[b].real();
                im[b] = s.writer_spectrum[b].imag();
            }
        }
    }
}

void PartitionedConvolver::Impl::transform_input(StageState& s) {
    s.fft->forward(s.window.get(), s.spectrum.get());
    s.head = (s.head + s.partitions - 1) % s.partitions;
    float* re = s.fdl_re(s.head);
    float* im = re + s.stride;
    for (size_t b = 0; b < s.bins; ++b) {
        re[b] = s.spectrum[b].real();
        im[b] = s.spectrum[b].imag();
    }
}

void PartitionedConvolver::Impl::latch(StageState& s) {
    if (s.previous < 0) {
        std::uint32_t w = s.word.load(std::memory_order_acquire);
        int pending = pending_of(w);
        while (pending >= 0) {
            if (s.word.compare_exchange_weak(w, (w & ~kPendingMask) | bit(pending),
                                             std::memory_order_acq_rel,
                                             std::memory_order_acquire)) {
                if (s.cold) {  // nothing played yet: switch at once
                    s.word.fetch_and(~bit(s.current), std::memory_order_release);
                } else {
                    s.previous = s.current;
                    s.fade_done = 0;
                }
                s.current = pending;
                break;
            }
            pending = pending_of(w);
        }
    }
    s.cold = false;
    s.block_current = s.current;
    s.block_previous = s.previous;
    s.block_fade_start = s.fade_done;
    std::fill_n(s.acc.get(), (s.block_previous >= 0 ? 2 : 1) * channels * 2 * s.stride, 0.0f);
}

void PartitionedConvolver::Impl::accumulate(StageState& s, size_t first, size_t last) {
    const int slots[2] = {s.block_current, s.block_previous};
    const size_t which_count = s.block_previous >= 0 ? 2 : 1;
    for (size_t p = first; p < last; ++p) {
        const float* xr = s.fdl_re((s.head + p) % s.partitions);
        const float* xi = xr + s.stride;
        for (size_t which = 0; which < which_count; ++which)
            for (size_t c = 0; c < channels; ++c) {
                const float* hr = s.slot_re(slots[which], c, p);
                float* ar = s.acc_re(which, c, channels);
                multiply_add(xr, xi, hr, hr + s.stride, ar, ar + s.stride, s.bins);
            }
    }
}

void PartitionedConvolver::Impl::finish(StageState& s, float* dst, size_t stride_out) {
    const bool fade = s.block_previous >= 0;
    for (size_t c = 0; c < channels; ++c) {
        float* y = dst + c * stride_out;
        for (size_t which = 0; which < (fade ? 2u : 1u); ++which) {
            const float* ar = s.acc_re(which, c, channels);
            const float* ai = ar + s.stride;
            for (size_t b = 0; b < s.bins; ++b)
                s.spectrum[b] = {ar[b], ai[b]};
            s.fft->inverse(s.spectrum.get(), s.time.get());
            // Overlap-save: the second half is the valid linear convolution.
            const float* valid = s.time.get() + s.block;
            if (!fade) {
                std::memcpy(y, valid, s.block * sizeof(float));
            } else if (which == 0) {
                std::memcpy(s.mixed.get(), valid, s.block * sizeof(float));
            } else {
                // Linear ramp from the previous IR's output to the current one's.
                const float inv = 1.0f / static_cast<float>(s.fade_length);
                for (size_t i = 0; i < s.block; ++i) {
                    const size_t pos = s.block_fade_start + i + 1;
                    const float g = pos >= s.fade_length ? 1.0f : static_cast<float>(pos) * inv;
                    y[i] = valid[i] + g * (s.mixed[i] - valid[i]);
                }
            }
        }
    }
    if (fade) {
        s.fade_done = s.block_fade_start + s.block;
        if (s.fade_done >= s.fade_length) {
            s.word.fetch_and(~bit(s.previous), std::memory_order_release);
            s.previous = -1;
        }
    }
}

void PartitionedConvolver::process(std::span<const float> in, std::span<float> out) {
    Impl& im = *impl_;
    const size_t n = im.block;
    if (im.stages.empty() || in.size() != n || out.size() != n * im.channels)
        throw std::invalid_argument("PartitionedConvolver::process: wrong buffer sizes");

    // Stage 0: everything within this call, writing the output.
    {
        StageState& s = *im.stages[0];
        std::memcpy(s.window.get() + n, in.data(), n * sizeof(float));
        im.transform_input(s);
        std::memcpy(s.window.get(), s.window.get() + n, n * sizeof(float));
        im.latch(s);
        im.accumulate(s, 0, s.partitions);
        im.finish(s, out.data(), n);
    }
    // Later stages: this call's share of the work on the block of the previous period, then
    // their output and this call's input.
    for (size_t k = 1; k < im.stages.size(); ++k) {
        StageState& s = *im.stages[k];
        const size_t b = s.block;
        if (s.phase == s.fft_phase) {
            // Blocks period - 2 and period - 1 (+ 3 keeps the index positive).
            std::memcpy(s.window.get(), s.input(s.period + 1), b * sizeof(float));
            std::memcpy(s.window.get() + b, s.input(s.period + 2), b * sizeof(float));
            im.transform_input(s);
            im.latch(s);
        } else if (s.phase > s.fft_phase && s.phase < s.ifft_phase) {
            const size_t shares = s.ifft_phase - s.fft_phase - 1, i = s.phase - s.fft_phase;
            im.accumulate(s, s.partitions * (i - 1) / shares, s.partitions * i / shares);
        } else if (s.phase == s.ifft_phase) {
            // It plays during the next period, from half (period & 1).
            im.finish(s, s.out.get() + (s.period & 1) * b, 2 * b);
        }
        const size_t play = ((s.period + 1) & 1) * b + s.phase * n;
        for (size_t c = 0; c < im.channels; ++c) {
            const float* src = s.out.get() + c * 2 * b + play;
            float* y = out.data() + c * n;
            for (size_t i = 0; i < n; ++i)
                y[i] += src[i];
        }
        std::memcpy(s.input(s.period) + s.phase * n, in.data(), n * sizeof(float));
        if (++s.phase == s.ratio) {
            s.phase = 0;
            ++s.period;
        }
    }
}

}  // namespace ardent::auralize
