// Real-time convolution: how many mono channels one core sustains with a 3 s IR at 128-sample
// blocks and 48 kHz. Runs N independent PartitionedConvolvers (each its own IR copy and history,
// as a renderer with one convolver per source or per ear would) block by block on one thread,
// pinned to one core, and times every block of all N; the channels one core sustains are the
// block period divided by the mean time per channel-block. Also reports the spread of the block
// times (a real-time callback must finish every block within the period), the same with the IR
// replaced on every channel every 100 ms (cross-fades running), the cost of set_ir(), and a single
// uniform partition for comparison. Prints JSON (bench/README.md).
// Usage: bench_convolution_realtime [--channels N] [--seconds S] [--block B] [--ir-seconds S]
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ardent/auralize/partitioned_convolver.h"

namespace {

using Clock = std::chrono::steady_clock;
using ardent::auralize::PartitionedConvolver;

double percentile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    const auto i = static_cast<size_t>(p * static_cast<double>(v.size() - 1));
    return v[i];
}

struct Setup {
    size_t channels, block, ir_len, blocks, max_partition;
    bool swaps;
};

nlohmann::ordered_json run(const Setup& s, const std::vector<std::vector<float>>& irs) {
    std::vector<std::unique_ptr<PartitionedConvolver>> conv;
    for (size_t c = 0; c < s.channels; ++c) {
        conv.push_back(std::make_unique<PartitionedConvolver>());
        conv.back()->prepare(s.ir_len, s.block, 1,
                             {.max_partition = s.max_partition, .measure_fft = true});
        conv.back()->set_ir(irs[c % irs.size()]);
    }
    std::mt19937 rng(7);
    std::normal_distribution<float> g;
    std::vector<float> in(s.block * 64), out(s.block);
    for (float& v : in)
        v = 0.1f * g(rng);
    const double period = static_cast<double>(s.block) / 48000.0;
    const size_t swap_every = std::max<size_t>(1, static_cast<size_t>(0.1 / period));
    std::vector<double> times;
    double set_ir_total = 0;
    size_t set_ir_calls = 0;
    times.reserve(s.blocks);
    for (size_t k = 0; k < s.blocks; ++k) {
        if (s.swaps && k % swap_every == 0 && k > 0) {
            // Outside the timed block: in an application another thread does this.
            const auto t0 = Clock::now();
            for (size_t c = 0; c < s.channels; ++c)
                conv[c]->set_ir(irs[(c + k / swap_every) % irs.size()]);
            set_ir_total += std::chrono::duration<double>(Clock::now() - t0).count();
            set_ir_calls += s.channels;
        }
        const std::span<const float> block(in.data() + (k % 64) * s.block, s.block);
        const auto t0 = Clock::now();
        for (auto& c : conv)
            c->process(block, out);
        times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    double total = 0;
    for (double t : times)
        total += t;
    const double per_channel_block = total / static_cast<double>(s.blocks * s.channels);
    nlohmann::ordered_json j;
    nlohmann::ordered_json stages = nlohmann::json::array();
    for (const auto& st : conv[0]->stages())
        stages.push_back(
            {{"block", st.block}, {"offset", st.offset}, {"partitions", st.partitions}});
    j["stages"] = stages;
    j["channels_run"] = s.channels;
    j["ir_changes_every_100_ms"] = s.swaps;
    j["us_per_channel_block"] = per_channel_block * 1e6;
    j["channels_per_core"] = period / per_channel_block;
    j["block_period_ms"] = period * 1e3;
    j["block_ms_for_all_channels"] = {{"mean", total / static_cast<double>(s.blocks) * 1e3},
                                      {"p99", percentile(times, 0.99) * 1e3},
                                      {"p999", percentile(times, 0.999) * 1e3},
                                      {"max", percentile(times, 1.0) * 1e3}};
    if (set_ir_calls > 0)
        j["set_ir_ms_per_call"] = set_ir_total / static_cast<double>(set_ir_calls) * 1e3;
    return j;
}

}  // namespace

int main(int argc, char** argv) {
    size_t channels = 64, block = 128;
    double seconds = 20, ir_seconds = 3;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--channels") && i + 1 < argc)
            channels = static_cast<size_t>(std::max(1, std::atoi(argv[++i])));
        else if (!std::strcmp(argv[i], "--block") && i + 1 < argc)
            block = static_cast<size_t>(std::max(1, std::atoi(argv[++i])));
        else if (!std::strcmp(argv[i], "--seconds") && i + 1 < argc)
            seconds = std::atof(argv[++i]);
        else if (!std::strcmp(argv[i], "--ir-seconds") && i + 1 < argc)
            ir_seconds = std::atof(argv[++i]);
    }
    // One core: the metric is per core, and migrations would add noise.
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(0, &set);
    const bool pinned = sched_setaffinity(0, sizeof set, &set) == 0;

    const auto ir_len = static_cast<size_t>(ir_seconds * 48000);
    std::mt19937 rng(1);
    std::normal_distribution<double> g;
    std::vector<std::vector<float>> irs(4, std::vector<float>(ir_len));
    for (auto& ir : irs)
        for (size_t i = 0; i < ir_len; ++i)
            ir[i] = static_cast<float>(
                0.05 * g(rng) *
                std::exp(-6.9 * static_cast<double>(i) / static_cast<double>(ir_len)));
    const auto blocks = static_cast<size_t>(seconds * 48000 / static_cast<double>(block));

    nlohmann::ordered_json out;
    out["block"] = block;
    out["sample_rate"] = 48000;
    out["ir_seconds"] = ir_seconds;
    out["seconds_of_audio"] = seconds;
    out["pinned_to_one_core"] = pinned;
    out["partitioned"] = run({channels, block, ir_len, blocks, 8192, false}, irs);
    out["partitioned_with_ir_changes"] = run({channels, block, ir_len, blocks, 8192, true}, irs);
    // One uniform partition: far slower, so fewer channels and a shorter run.
    out["uniform"] =
        run({std::max<size_t>(1, channels / 8), block, ir_len, blocks / 4, block, false}, irs);
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
}
