#include "ardent/auralize/levels.h"

#include <ebur128.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

namespace ardent::auralize {
namespace {

struct StateFree {
    void operator()(ebur128_state* st) const noexcept { ebur128_destroy(&st); }
};

}  // namespace

double sample_peak(const audio::Audio& a) {
    float peak = 0.0f;
    for (float v : a.samples)
        peak = std::max(peak, std::fabs(v));
    return static_cast<double>(peak);
}

double integrated_loudness(const audio::Audio& a, ChannelRole role) {
    if (a.channels <= 0 || a.sample_rate <= 0)
        throw std::invalid_argument("integrated_loudness: no channels or no sample rate");
    if (role == ChannelRole::AmbiX && a.channels > 1) {
        // libebur128 counts a channel twice only in a mono stream: measure W on its own.
        audio::Audio w;
        w.sample_rate = a.sample_rate;
        w.samples = a.channel(0);
        return integrated_loudness(w, ChannelRole::Speakers);
    }
    std::unique_ptr<ebur128_state, StateFree> st(
        ebur128_init(static_cast<unsigned>(a.channels), static_cast<unsigned long>(a.sample_rate),
                     EBUR128_MODE_I));
    if (!st) throw std::runtime_error("libebur128 could not start a loudness measurement");
    for (int c = 0; c < a.channels; ++c) {
        int ch = EBUR128_LEFT;  // weight 1
        if (a.channels == 1)
            ch = EBUR128_DUAL_MONO;
        else if (a.channels == 2)
            ch = c == 0 ? EBUR128_LEFT : EBUR128_RIGHT;
        if (ebur128_set_channel(st.get(), static_cast<unsigned>(c), ch) != EBUR128_SUCCESS)
            throw std::runtime_error("libebur128 rejected the channel map");
    }
    if (ebur128_add_frames_float(st.get(), a.samples.data(), a.frames()) != EBUR128_SUCCESS)
        throw std::runtime_error("libebur128 failed to measure the loudness");
    double lufs = 0;
    if (ebur128_loudness_global(st.get(), &lufs) != EBUR128_SUCCESS)
        throw std::runtime_error("libebur128 failed to measure the loudness");
    return lufs;
}

namespace {

void scale(audio::Audio& a, double gain_db) {
    const auto g = static_cast<float>(std::pow(10.0, gain_db / 20));
    for (float& v : a.samples)
        v *= g;
}

}  // namespace

LevelChange normalize(audio::Audio& a, Normalize mode, ChannelRole role) {
    LevelChange r;
    if (mode == Normalize::Peak) {
        const double peak = sample_peak(a);
        if (!(peak > 0)) return r;
        r.gain_db = kPeakTargetDbfs - 20 * std::log10(peak);
        scale(a, r.gain_db);
        r.applied = true;
    } else if (mode == Normalize::Loudness) {
        // Raising the level lets quiet blocks pass BS.1770's absolute gate (-70 LUFS), which
        // moves the measurement a little: measure again until it sits on the target.
        for (int pass = 0; pass < 4; ++pass) {
            const double lufs = integrated_loudness(a, role);
            if (!std::isfinite(lufs)) break;
            const double step = kLoudnessTargetLufs - lufs;
            if (r.applied && std::fabs(step) < 0.01) break;
            scale(a, step);
            r.gain_db += step;
            r.applied = true;
        }
        if (!r.applied && sample_peak(a) > 0) {
            r = normalize(a, Normalize::Peak, role);
            r.by_peak = true;
            return r;
        }
        // A sample peak more than 22 dB above the loudness (-23 LUFS to -1 dBFS) would come near
        // clipping: held at the peak target instead.
        const double peak = sample_peak(a);
        if (r.applied && peak > 0 && 20 * std::log10(peak) > kPeakTargetDbfs) {
            const double down = kPeakTargetDbfs - 20 * std::log10(peak);
            scale(a, down);
            r.gain_db += down;
            r.peak_limited = true;
        }
    }
    return r;
}

size_t samples_beyond_full_scale(const audio::Audio& a) {
    return static_cast<size_t>(std::count_if(a.samples.begin(), a.samples.end(),
                                             [](float v) { return std::fabs(v) > 1.0f; }));
}

}  // namespace ardent::auralize
