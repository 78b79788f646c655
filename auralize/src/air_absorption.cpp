#include "ardent/auralize/air_absorption.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>
#include <stdexcept>
#include <string>

#include "fftw_plan.h"

namespace ardent::auralize {

struct PropagationFilter::Plan {
    explicit Plan(size_t n) : fft(n, detail::Planning::Estimate) {}
    detail::RealFft fft;
};

namespace {

size_t next_pow2(double x) {
    size_t n = 1;
    while (static_cast<double>(n) < x)
        n *= 2;
    return n;
}

}  // namespace

PropagationFilter::PropagationFilter(double sample_rate, const Atmosphere& air,
                                     double speed_of_sound, double advance_s)
    : fs_(sample_rate) {
    if (!(sample_rate > 0) || !std::isfinite(sample_rate) || !(speed_of_sound > 0) ||
        !(advance_s >= 0) || !std::isfinite(advance_s))
        throw std::invalid_argument("PropagationFilter: bad rate " + std::to_string(sample_rate) +
                                    ", speed " + std::to_string(speed_of_sound) + " or advance " +
                                    std::to_string(advance_s));
    identity_ = !air.absorption && advance_s == 0;
    if (identity_) return;
    // Frames of about 10 ms, and long enough that the advance and the short zero-phase air filter
    // stay inside the half-frame margin either side of the windowed segment.
    frame_ = next_pow2(std::max({32.0, 0.01 * fs_, 8.0 * (advance_s * fs_ + 1.0)}));
    const size_t n = 2 * frame_;  // transform size: the segment with its margins
    const size_t bins = n / 2 + 1;
    plan_ = std::make_unique<Plan>(n);
    // Periodic Hann window: shifted copies half a frame apart sum to exactly one.
    window_.resize(frame_);
    for (size_t i = 0; i < frame_; ++i)
        window_[i] = static_cast<float>(std::pow(
            std::sin(std::numbers::pi * static_cast<double>(i) / static_cast<double>(frame_)), 2));
    // Each sample's time from its frame's centre, in seconds (the slope's weights).
    offset_s_.resize(frame_);
    for (size_t i = 0; i < frame_; ++i)
        offset_s_[i] = (static_cast<double>(i) - static_cast<double>(frame_) / 2) / fs_;
    // The advance as a phase ramp; the Nyquist bin keeps only its real part (a real signal).
    shift_.resize(bins);
    for (size_t b = 0; b < bins; ++b) {
        const double phase = 2.0 * std::numbers::pi * static_cast<double>(b) * advance_s * fs_ /
                             static_cast<double>(n);
        shift_[b] =
            b + 1 == bins ? std::complex<double>(std::cos(phase), 0.0) : std::polar(1.0, phase);
    }
    nepers_per_second_.assign(bins, 0.0);
    if (air.absorption) {
        const double k = speed_of_sound * std::numbers::ln10 / 20.0;
        for (size_t b = 0; b < nepers_per_second_.size(); ++b)
            nepers_per_second_[b] =
                k * air_attenuation_db_per_m(static_cast<double>(b) * fs_ / static_cast<double>(n),
                                             air);
    }
    hop_decay_.resize(bins);
    for (size_t b = 0; b < bins; ++b)
        hop_decay_[b] = std::exp(-nepers_per_second_[b] * static_cast<double>(frame_ / 2) / fs_);
}

PropagationFilter::~PropagationFilter() = default;

std::vector<float> PropagationFilter::apply(std::span<const float> ir) const {
    std::vector<float> out(ir.size(), 0.0f);
    if (identity_) {
        std::copy(ir.begin(), ir.end(), out.begin());
        return out;
    }
    const size_t frame = frame_, hop = frame_ / 2, n = 2 * frame_, bins = n / 2 + 1;
    const auto len = static_cast<std::ptrdiff_t>(ir.size());
    auto buf = detail::alloc_floats(n);
    auto spec = detail::alloc_complex(bins);
    const auto margin = static_cast<std::ptrdiff_t>(frame / 2);
    auto slope = detail::alloc_floats(n);  // the frame times (t - its centre), for the correction
    auto slope_spec = detail::alloc_complex(bins);
    const double scale = 1.0 / static_cast<double>(n);  // FFTW's inverse is unnormalised
    // exp(-rate t) per bin at the frame's travel time t: computed at the first frame that has
    // one, then carried from frame to frame by the hop's decay (an exp per bin and frame was a
    // tenth of the listener grid's write).
    std::vector<double> decay(bins, 1.0);
    bool decaying = false;
    for (auto start = -static_cast<std::ptrdiff_t>(hop); start < len;
         start += static_cast<std::ptrdiff_t>(hop)) {
        const double centre = (static_cast<double>(start) + static_cast<double>(frame) / 2) / fs_;
        if (centre >= 0 && decaying) {
            for (size_t b = 0; b < bins; ++b)
                decay[b] *= hop_decay_[b];
        } else if (centre >= 0) {
            for (size_t b = 0; b < bins; ++b)
                decay[b] = std::exp(-nepers_per_second_[b] * centre);
            decaying = true;
        }
        std::fill(buf.get(), buf.get() + n, 0.0f);
        std::fill(slope.get(), slope.get() + n, 0.0f);
        bool any = false;
        // The frame's samples that exist: i in [i_lo, i_hi).
        const auto i_lo = static_cast<size_t>(std::max<std::ptrdiff_t>(0, -start));
        const auto i_hi = static_cast<size_t>(
            std::clamp<std::ptrdiff_t>(len - start, 0, static_cast<std::ptrdiff_t>(frame)));
        for (size_t i = i_lo; i < i_hi; ++i) {
            const float v =
                ir[static_cast<size_t>(start + static_cast<std::ptrdiff_t>(i))] * window_[i];
            buf[static_cast<size_t>(margin) + i] = v;
            slope[static_cast<size_t>(margin) + i] =
                static_cast<float>(static_cast<double>(v) * offset_s_[i]);
            any = any || v != 0.0f;
        }
        if (!any) continue;
        plan_->fft.forward(buf.get(), spec.get());
        // The frame's travel time t_c is its window's centre (never before the emission). A
        // sample at t_c + u is attenuated by exp(-b (t_c + u)) ~ exp(-b t_c) (1 - b u): the
        // second term, from the frame's time-weighted spectrum, removes the error of taking
        // t_c for every sample (up to a quarter of a hop), leaving one of order (b u)^2.
        const bool correct = centre >= 0;
        if (correct) plan_->fft.forward(slope.get(), slope_spec.get());
        for (size_t b = 0; b < bins; ++b) {
            const double rate = nepers_per_second_[b];
            const std::complex<double> g = shift_[b] * (scale * decay[b]);
            std::complex<double> v(spec[b]);
            if (correct) v -= rate * std::complex<double>(slope_spec[b]);
            spec[b] = std::complex<float>(v * g);
        }
        plan_->fft.inverse(spec.get(), buf.get());
        // Overlap-add of the transform's span, s = start - margin + j, where the output has it.
        const std::ptrdiff_t first = start - margin;
        const auto j_lo = static_cast<size_t>(std::max<std::ptrdiff_t>(0, -first));
        const auto j_hi = static_cast<size_t>(
            std::clamp<std::ptrdiff_t>(len - first, 0, static_cast<std::ptrdiff_t>(n)));
        for (size_t j = j_lo; j < j_hi; ++j)
            out[static_cast<size_t>(first + static_cast<std::ptrdiff_t>(j))] += buf[j];
    }
    return out;
}

}  // namespace ardent::auralize
