// Sample-rate conversion of whole signals with libsamplerate's best sinc converter
// (SRC_SINC_BEST_QUALITY: about 97 dB of stop-band rejection, 97 % of the lower Nyquist rate
// passed). The output starts at the same instant as the input (libsamplerate compensates its
// filter delay) and lasts as long: round(n * fs_out / fs_in) samples. Ratios beyond
// libsamplerate's 1:256 are done in several stages.
#pragma once

#include <span>
#include <vector>

namespace ardent::audio {

// Resamples a signal as a waveform: a sine keeps its amplitude and frequency. Throws
// std::invalid_argument for non-positive or non-finite rates.
std::vector<float> resample(std::span<const float> signal, double fs_in, double fs_out);
std::vector<float> resample(std::span<const double> signal, double fs_in, double fs_out);

// Resamples an impulse response so that it keeps Ardent's IR convention (spec section 4): in
// free field the direct pulse sums to 1/(4 pi r), i.e. its spectrum (the DTFT of the samples) is
// 1/(4 pi r) per sample in the flat band, whatever the sample rate.
//
// Why the extra factor fs_in / fs_out: an IR h[n] at rate fs_in is the samples of a band-limited
// continuous response x(t), h[n] = x(n / fs_in). For x band-limited below fs_in / 2 the samples'
// spectrum is fs_in times x's Fourier transform: sum_n h[n] e^{-2 pi i f n / fs_in} = fs_in X(f)
// (at f = 0: the samples sum to fs_in times the integral of x). A waveform resampler keeps x(t)
// itself (a sine keeps its amplitude), so at fs_out the spectrum per sample becomes fs_out X(f):
// scaled by fs_out / fs_in. Multiplying by fs_in / fs_out restores it, so that convolving a dry
// signal at fs_out with the resampled IR gives the same pressure as convolving at fs_in with the
// original. (The IR is a discrete impulse response, a filter, not a waveform: what must be kept is
// its gain, not its sample values.)
std::vector<float> resample_ir(std::span<const double> ir, double fs_in, double fs_out);
std::vector<float> resample_ir(std::span<const float> ir, double fs_in, double fs_out);

}  // namespace ardent::audio
