#include "ardent/auralize/resample.h"

#include <samplerate.h>

#include <cmath>
#include <stdexcept>
#include <string>

namespace ardent::audio {
namespace {

// libsamplerate accepts ratios in [1/256, 256].
constexpr double kMaxRatio = 256.0;

std::vector<float> one_stage(std::vector<float> in, double ratio, size_t n_out) {
    std::vector<float> out(n_out);
    if (in.empty() || n_out == 0) return out;
    // Room for the converter's flush at the end of input; trimmed to n_out below.
    std::vector<float> buf(n_out + 16);
    SRC_DATA d{};
    d.data_in = in.data();
    d.input_frames = static_cast<long>(in.size());
    d.data_out = buf.data();
    d.output_frames = static_cast<long>(buf.size());
    d.src_ratio = ratio;
    d.end_of_input = 1;
    const int rc = src_simple(&d, SRC_SINC_BEST_QUALITY, 1);
    if (rc != 0) throw std::runtime_error(std::string("libsamplerate: ") + src_strerror(rc));
    const size_t got = static_cast<size_t>(d.output_frames_gen);
    for (size_t i = 0; i < n_out && i < got; ++i)
        out[i] = buf[i];
    return out;
}

std::vector<float> resample_float(std::vector<float> in, double fs_in, double fs_out) {
    if (!(fs_in > 0) || !(fs_out > 0) || !std::isfinite(fs_in) || !std::isfinite(fs_out))
        throw std::invalid_argument("resample: sample rates must be positive and finite (" +
                                    std::to_string(fs_in) + " -> " + std::to_string(fs_out) + ")");
    const double ratio = fs_out / fs_in;
    const auto n_out = static_cast<size_t>(std::llround(static_cast<double>(in.size()) * ratio));
    if (ratio == 1.0) return in;
    if (ratio <= kMaxRatio && ratio >= 1.0 / kMaxRatio)
        return one_stage(std::move(in), ratio, n_out);
    // Split an extreme ratio into equal stages within libsamplerate's range.
    const int stages =
        static_cast<int>(std::ceil(std::fabs(std::log(ratio)) / std::log(kMaxRatio)));
    const double step = std::pow(ratio, 1.0 / stages);
    double fs = fs_in;
    for (int s = 0; s < stages; ++s) {
        const double next = s + 1 == stages ? fs_out : fs * step;
        const size_t n =
            s + 1 == stages
                ? n_out
                : static_cast<size_t>(std::llround(static_cast<double>(in.size()) * next / fs));
        in = one_stage(std::move(in), next / fs, n);
        fs = next;
    }
    return in;
}

template <typename T>
std::vector<float> to_float(std::span<const T> s) {
    std::vector<float> v(s.size());
    for (size_t i = 0; i < s.size(); ++i)
        v[i] = static_cast<float>(s[i]);
    return v;
}

}  // namespace

std::vector<float> resample(std::span<const float> signal, double fs_in, double fs_out) {
    return resample_float(to_float(signal), fs_in, fs_out);
}

std::vector<float> resample(std::span<const double> signal, double fs_in, double fs_out) {
    return resample_float(to_float(signal), fs_in, fs_out);
}

std::vector<float> resample_ir(std::span<const double> ir, double fs_in, double fs_out) {
    // Scale before converting to float so tiny IR values keep their precision either way.
    std::vector<float> v(ir.size());
    const double g = fs_in / fs_out;
    for (size_t i = 0; i < ir.size(); ++i)
        v[i] = static_cast<float>(ir[i] * g);
    return resample_float(std::move(v), fs_in, fs_out);
}

std::vector<float> resample_ir(std::span<const float> ir, double fs_in, double fs_out) {
    std::vector<float> v(ir.size());
    const double g = fs_in / fs_out;
    for (size_t i = 0; i < ir.size(); ++i)
        v[i] = static_cast<float>(static_cast<double>(ir[i]) * g);
    return resample_float(std::move(v), fs_in, fs_out);
}

}  // namespace ardent::audio
