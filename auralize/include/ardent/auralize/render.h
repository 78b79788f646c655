// Rendering a dry recording through impulse responses, as `ardent auralize` does: checks on the
// audio read from files, downmixing, and the pairing of dry channels with IR channels for the
// offline convolution.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "ardent/auralize/audio_io.h"
#include "ardent/auralize/fft_convolution.h"

namespace ardent::auralize {

// Sample rates accepted for dry signals and IRs: telephone speech to the fastest common converters.
inline constexpr int kMinSampleRate = 8000;
inline constexpr int kMaxSampleRate = 768000;

// At least one frame, a sample rate within [kMinSampleRate, kMaxSampleRate] and finite samples;
// otherwise InputError naming `role` (e.g. "dry signal") and `file`.
void check_audio(const audio::Audio& a, const std::string& role, const std::filesystem::path& file);

// The mean of the channels.
std::vector<float> mix_to_mono(const audio::Audio& a);

struct Rendered {
    audio::Audio audio;
    bool downmixed = false;  // the dry signal was mixed to mono first
};

enum class Pairing {
    ByChannel,   // the rules below
    MonoSource,  // the dry signal is one point source: mixed to mono, through every IR channel
                 // (ambisonic and binaural IRs)
};

// Convolves `dry` with the IR channels (all at dry's sample rate). With Pairing::ByChannel,
// output channel c is:
// - dry mono: the dry signal through IR channel c (one output per IR channel);
// - one IR channel: dry channel c through it (one output per dry channel);
// - as many dry as IR channels: dry channel c through IR channel c;
// - otherwise: the dry signal mixed to mono through each IR channel (downmixed = true).
// Outputs are dry length + IR length - 1 samples, the reverberant tail included (shorter IR
// channels end in zeros). All channels are computed in one pass (convolve_into), reading the
// interleaved dry signal and writing the interleaved result in place, with `options` (threads,
// measured plans).
Rendered convolve_audio(const audio::Audio& dry, const std::vector<std::vector<float>>& ir,
                        Pairing pairing = Pairing::ByChannel,
                        const ConvolutionOptions& options = {});

}  // namespace ardent::auralize
