#include "ardent/auralize/render.h"

#include <algorithm>
#include <cmath>
#include <span>

#include "ardent/auralize/fft_convolution.h"
#include "ardent/preprocess/errors.h"

namespace ardent::auralize {

void check_audio(const audio::Audio& a, const std::string& role,
                 const std::filesystem::path& file) {
    const std::string q = role + " '" + file.string() + "'";
    if (a.channels <= 0) throw InputError(q + " has no channels");
    if (a.frames() == 0) throw InputError(q + " is empty (no samples)");
    if (a.sample_rate < kMinSampleRate || a.sample_rate > kMaxSampleRate)
        throw InputError(q + " has a sample rate of " + std::to_string(a.sample_rate) +
                         " Hz; rates from " + std::to_string(kMinSampleRate) + " to " +
                         std::to_string(kMaxSampleRate) + " Hz are accepted");
    const auto bad =
        std::find_if(a.samples.begin(), a.samples.end(), [](float v) { return !std::isfinite(v); });
    if (bad != a.samples.end())
        throw InputError(q + " holds a NaN or infinite sample (frame " +
                         std::to_string(static_cast<size_t>(bad - a.samples.begin()) /
                                        static_cast<size_t>(a.channels)) +
                         ")");
}

std::vector<float> mix_to_mono(const audio::Audio& a) {
    const size_t n = a.frames(), ch = static_cast<size_t>(std::max(a.channels, 1));
    std::vector<float> out(n);
    const double scale = 1.0 / static_cast<double>(ch);
    for (size_t i = 0; i < n; ++i) {
        double s = 0;
        for (size_t c = 0; c < ch; ++c)
            s += static_cast<double>(a.samples[i * ch + c]);
        out[i] = static_cast<float>(s * scale);
    }
    return out;
}

Rendered convolve_audio(const audio::Audio& dry, const std::vector<std::vector<float>>& ir,
                        Pairing pairing, const ConvolutionOptions& options) {
    Rendered r;
    r.audio.sample_rate = dry.sample_rate;
    const size_t dry_ch = static_cast<size_t>(std::max(dry.channels, 0)), ir_ch = ir.size();
    const size_t frames = dry.frames();
    std::vector<StridedSignal> signals;
    std::vector<float> mono;
    // (signal, IR channel) per output channel.
    std::vector<std::pair<size_t, size_t>> pairs;
    if (pairing == Pairing::ByChannel && (dry_ch == ir_ch || ir_ch == 1)) {
        for (size_t c = 0; c < dry_ch; ++c) {
            signals.push_back({dry.samples.data() + c, frames, dry_ch});
            pairs.emplace_back(c, ir_ch == 1 ? 0 : c);
        }
    } else {
        // One signal through every IR channel: its transforms are shared.
        r.downmixed = dry_ch > 1;
        if (dry_ch == 1) {
            signals.push_back({dry.samples.data(), frames, 1});
        } else {
            mono = mix_to_mono(dry);
            signals.push_back({mono.data(), mono.size(), 1});
        }
        for (size_t c = 0; c < ir_ch; ++c)
            pairs.emplace_back(0, c);
    }
    size_t len = 0;
    for (const auto& [s, f] : pairs)
        if (signals[s].size > 0 && !ir[f].empty())
            len = std::max(len, signals[s].size + ir[f].size() - 1);
    const size_t channels = pairs.size();
    r.audio.channels = static_cast<int>(channels);
    r.audio.samples.assign(len * channels, 0.0f);
    std::vector<std::span<const float>> filters(ir.begin(), ir.end());
    std::vector<ConvolutionOutput> outputs;
    for (size_t c = 0; c < channels; ++c)
        outputs.push_back({pairs[c].first, pairs[c].second, r.audio.samples.data() + c, channels});
    convolve_into(signals, filters, outputs, options);
    return r;
}

}  // namespace ardent::auralize
