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
                        Pairing pairing, int threads) {
    Rendered r;
    r.audio.sample_rate = dry.sample_rate;
    const size_t dry_ch = static_cast<size_t>(dry.channels), ir_ch = ir.size();
    std::vector<std::vector<float>> outs;
    if (pairing == Pairing::ByChannel && (dry_ch == ir_ch || ir_ch == 1)) {
        for (size_t c = 0; c < dry_ch; ++c)
            outs.push_back(convolve(dry.channel(static_cast<int>(c)), ir[ir_ch == 1 ? 0 : c],
                                    {.threads = threads}));
    } else {
        // One signal through every IR channel: its transforms are shared.
        r.downmixed = dry_ch > 1;
        const std::vector<float> mono = dry_ch == 1 ? dry.channel(0) : mix_to_mono(dry);
        std::vector<std::span<const float>> spans(ir.begin(), ir.end());
        outs = convolve(mono, spans, {.threads = threads});
    }
    size_t len = 0;
    for (const auto& o : outs)
        len = std::max(len, o.size());
    r.audio.channels = static_cast<int>(outs.size());
    r.audio.samples.assign(len * outs.size(), 0.0f);
    for (size_t c = 0; c < outs.size(); ++c)
        for (size_t i = 0; i < outs[c].size(); ++i)
            r.audio.samples[i * outs.size() + c] = outs[c][i];
    return r;
}

}  // namespace ardent::auralize
