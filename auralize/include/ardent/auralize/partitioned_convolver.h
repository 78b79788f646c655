// Real-time convolution for a listener who moves: a partitioned convolver whose process call
// takes one block of input (64-512 samples typically) and returns the same block convolved, with
// no added latency, no allocation, no locks and no system calls, and whose impulse response can be
// replaced from another thread at any time; the change is cross-faded so it never clicks.
//
// How: the IR is cut into partitions, each transformed once (FFTW); each input block is
// transformed once into a frequency-domain delay line (FDL), and each output block is the inverse
// transform of the sum of FDL spectra times partition spectra (uniformly partitioned overlap-save).
// The first partitions have the block size. Later parts of a long IR use partitions 4, 16, 64...
// times larger, each such stage again uniformly partitioned with its own FDL and its work spread
// over the blocks before its output is due (Gardner's non-uniform scheme). For a 3 s IR at
// 128-sample blocks that is about 8 times cheaper than one uniform partition (measured:
// docs/benchmarks.md). Options::max_partition = block gives a single uniform partition.
//
// IR changes: set_ir() transforms the new IR into a spare slot and publishes it with one atomic
// word per stage. At its next block boundary each stage computes its output with both the old and
// the new partitions (the FDL is shared, so both are steady-state convolutions of the same input)
// and cross-fades them linearly, over `fade_blocks` blocks for the first stage and over at least
// one of its own blocks for the later ones. The tail therefore follows a change a little later than
// the direct sound (at most about three of the largest partitions). While a fade runs, newer IRs
// wait; only the newest is kept.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace ardent::auralize {

struct PartitionedConvolverOptions {
    // Cross-fade length for IR changes, in blocks, at least 1.
    size_t fade_blocks = 2;
    // The largest partition size (samples): rounded down to block * 4^k. Equal to the block
    // size: one uniform partition.
    size_t max_partition = 8192;
    // Let FFTW time its algorithms when preparing (slower prepare, faster process).
    bool measure_fft = false;
    // Start the larger stages of each newly prepared convolver at a different phase, so that many
    // convolvers run in one audio callback spread their large transforms over different calls.
    // The output is the same either way (up to rounding).
    bool stagger = true;
};

class PartitionedConvolver {
  public:
    using Options = PartitionedConvolverOptions;
    // One uniformly partitioned stage: `partitions` partitions of `block` samples covering IR taps
    // [offset, offset + partitions * block).
    struct Stage {
        size_t block = 0, offset = 0, partitions = 0;
    };
    // The stages prepare() would use.
    static std::vector<Stage> layout(size_t max_ir_len, size_t block, size_t max_partition);

    PartitionedConvolver();
    ~PartitionedConvolver();
    PartitionedConvolver(const PartitionedConvolver&) = delete;
    PartitionedConvolver& operator=(const PartitionedConvolver&) = delete;

    // Allocates everything for IRs of up to `max_ir_len` samples, blocks of `block` samples, and
    // `channels` outputs (one input feeds every output: a mono source through a multichannel IR).
    // The IR starts silent and the history empty. Not real-time safe, and must not run while
    // another thread calls set_ir() or process(). Throws std::invalid_argument for zero sizes.
    void prepare(size_t max_ir_len, size_t block, size_t channels = 1, Options options = {});

    // Replaces the IR: one span per channel, each at most max_ir_len samples (shorter ones are
    // zero-padded). Callable from any thread while process() runs (calls are serialised among
    // themselves); it copies and transforms the IR, so the caller's buffers are free on return.
    // The first IR set before any process() call takes effect without a fade.
    void set_ir(std::span<const std::span<const float>> channels);
    void set_ir(std::span<const float> mono);

    // The audio thread: `in` holds exactly block() samples; `out` receives channels() * block()
    // samples, channel-major (channel c at out[c * block() ...]). Real-time safe. Throws
    // std::invalid_argument only for wrong sizes.
    void process(std::span<const float> in, std::span<float> out);

    // Forgets the input history (silence from now), keeping the current IR. Not real-time safe
    // against a concurrent process().
    void reset();

    size_t block() const;
    size_t channels() const;
    size_t max_ir_length() const;
    const std::vector<Stage>& stages() const;
    // True while some stage is still cross-fading (for tests; read on the audio thread).
    bool fading() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace ardent::auralize
