// Output levels of a rendering: sample peak, integrated loudness (ITU-R BS.1770 / EBU R128,
// measured with libebur128), normalisation to a peak or loudness target, and the count of samples
// beyond full scale, which `ardent auralize` reports because a float WAV keeps them (a player
// clips them) and a FLAC file clips them when written.
#pragma once

#include <cstddef>

#include "ardent/auralize/audio_io.h"

namespace ardent::auralize {

// How the channels of a file count for loudness.
enum class ChannelRole {
    Speakers,  // mono counts as dual mono (heard on both ears or speakers), stereo as left and
               // right, more channels each with weight 1
    AmbiX,     // first-order AmbiX: only W (channel 0, the pressure) counts, as dual mono
};

enum class Normalize { None, Peak, Loudness };

// Targets of `--normalize`: -1 dBFS sample peak (headroom for inter-sample peaks and lossy
// encoding), and -23 LUFS integrated loudness (EBU R128's programme level).
inline constexpr double kPeakTargetDbfs = -1.0;
inline constexpr double kLoudnessTargetLufs = -23.0;

double sample_peak(const audio::Audio& a);  // largest |sample|, linear

// Integrated loudness in LUFS; -infinity for a signal below the gating threshold (silence).
// Throws std::runtime_error if libebur128 fails.
double integrated_loudness(const audio::Audio& a, ChannelRole role);

struct LevelChange {
    double gain_db = 0;    // applied
    bool applied = false;  // false for Normalize::None or a silent signal
    // Normalize::Loudness only: the loudness target would have put the sample peak above
    // kPeakTargetDbfs, so the gain was held to that peak (the output is quieter than the target).
    bool peak_limited = false;
    // Normalize::Loudness only: no loudness to measure (BS.1770 gates out every 400 ms block, as
    // in a file shorter than one), so the peak target was used instead.
    bool by_peak = false;
};
// Scales `a` in place to the target of `mode`. A silent signal is left as it is. Loudness never
// raises the sample peak above kPeakTargetDbfs: a peaky signal (a click, a dry IR) is held there,
// below the loudness target, rather than clipped.
LevelChange normalize(audio::Audio& a, Normalize mode, ChannelRole role);

// Samples with |x| > 1 (full scale).
size_t samples_beyond_full_scale(const audio::Audio& a);

}  // namespace ardent::auralize
