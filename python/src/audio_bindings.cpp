// ardent.analyze, ardent.auralize and ardent.read_audio (docs/python.md): NumPy arrays in and out
// of the libraries `ardent analyze` and `ardent auralize` use. Audio arrays are frames first, as
// soundfile and SciPy have them: (frames,) for one channel, (frames, channels) for more.
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "ardent/auralize/ambisonics.h"
#include "ardent/auralize/analysis.h"
#include "ardent/auralize/audio_io.h"
#include "ardent/auralize/binaural.h"
#include "ardent/auralize/hrtf.h"
#include "ardent/auralize/levels.h"
#include "ardent/auralize/render.h"
#include "ardent/auralize/resample.h"
#include "ardent/preprocess/errors.h"
#include "bindings.h"

namespace py = pybind11;
namespace fs = std::filesystem;

namespace ardent::python {
namespace {

using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;

// An audio array as the libraries hold it (interleaved, frame-major), checked as `ardent
// auralize` checks a file: InputError naming `role`.
audio::Audio to_audio(const py::handle& value, double fs, const std::string& role) {
    const FloatArray a = FloatArray::ensure(value);
    if (!a) throw InputError(role + ": expected an array of numbers");
    if (a.ndim() != 1 && a.ndim() != 2)
        throw InputError(role + ": expected shape (frames,) or (frames, channels), got " +
                         std::to_string(a.ndim()) + " dimensions");
    if (!(fs == std::round(fs)) || fs < auralize::kMinSampleRate || fs > auralize::kMaxSampleRate)
        throw InputError(role + ": sample rate " + std::to_string(fs) +
                         " Hz: expected a whole number of Hz from " +
                         std::to_string(auralize::kMinSampleRate) + " to " +
                         std::to_string(auralize::kMaxSampleRate));
    audio::Audio out;
    out.sample_rate = static_cast<int>(fs);
    out.channels = a.ndim() == 2 ? static_cast<int>(a.shape(1)) : 1;
    if (out.channels < 1) throw InputError(role + ": has no channels");
    out.samples.assign(a.data(), a.data() + a.size());
    auralize::check_audio(out, role, {});
    return out;
}

std::vector<std::vector<float>> channels_of(const audio::Audio& a) {
    const size_t frames = a.frames(), n = static_cast<size_t>(a.channels);
    std::vector<std::vector<float>> ch(n, std::vector<float>(frames));
    for (size_t i = 0; i < frames; ++i)
        for (size_t c = 0; c < n; ++c)
            ch[c][i] = a.samples[i * n + c];
    return ch;
}

py::array to_array(const audio::Audio& a) {
    const auto frames = static_cast<py::ssize_t>(a.frames());
    if (a.channels == 1) {
        py::array_t<float> out(frames);
        std::copy(a.samples.begin(), a.samples.end(), out.mutable_data());
        return out;
    }
    py::array_t<float> out({frames, static_cast<py::ssize_t>(a.channels)});
    std::copy(a.samples.begin(), a.samples.end(), out.mutable_data());
    return out;
}

py::object analyze(const py::handle& ir, double fs, bool third_octave,
                   std::optional<double> max_frequency, std::optional<double> onset,
                   std::optional<double> free_field_10m, bool decay_curves) {
    const audio::Audio a = to_audio(ir, fs, "impulse response");
    if (a.channels != 1)
        throw InputError("impulse response: expected one channel (shape (frames,)), got " +
                         std::to_string(a.channels) + "; analyse one column at a time");
    auralize::AnalysisOptions o;
    if (max_frequency) {
        if (!(*max_frequency > 0) || !std::isfinite(*max_frequency))
            throw InputError("max_frequency: expected a positive number of Hz");
        o.max_frequency_hz = *max_frequency;
    }
    if (onset) {
        if (!(*onset >= 0) || !std::isfinite(*onset))
            throw InputError("onset: expected seconds from the first sample, at least 0");
        o.onset_s = *onset;
    }
    if (free_field_10m) o.free_field_10m = *free_field_10m;
    o.keep_decay_curves = decay_curves;
    auralize::Analysis an;
    {
        py::gil_scoped_release release;
        an = auralize::analyze_ir(
            a.samples, fs, third_octave ? auralize::Bands::Third : auralize::Bands::Octave, o);
    }
    py::object out = to_python(auralize::to_json(an));
    if (decay_curves) {
        // Each band's Schroeder curve (dB, from the onset) at its own rate, beside its values.
        py::list bands = out["bands"];
        for (size_t i = 0; i < an.results.size(); ++i) {
            const auralize::BandResult& b = an.results[i];
            py::array_t<float> curve(static_cast<py::ssize_t>(b.decay_db.size()));
            std::copy(b.decay_db.begin(), b.decay_db.end(), curve.mutable_data());
            bands[i]["decay_db"] = curve;
            bands[i]["decay_rate_hz"] = b.decay_rate_hz;
        }
    }
    return out;
}

py::array auralize_array(const py::handle& dry_in, const py::handle& ir_in, double fs,
                         std::optional<double> ir_fs, bool binaural, std::optional<fs::path> hrtf,
                         const py::handle& facing, const py::handle& up,
                         const std::string& normalize, int threads) {
    const audio::Audio dry = to_audio(dry_in, fs, "dry signal");
    const audio::Audio ir = to_audio(ir_in, ir_fs.value_or(fs), "impulse response");
    const auralize::Normalize mode = normalize == "none"       ? auralize::Normalize::None
                                     : normalize == "peak"     ? auralize::Normalize::Peak
                                     : normalize == "loudness" ? auralize::Normalize::Loudness
                                                               : throw InputError(
                                                                     "normalize: expected "
                                                                     "\"none\", \"peak\" or "
                                                                     "\"loudness\", got \"" +
                                                                     normalize + "\"");
    if (threads < 0 || threads > 4096) throw InputError("threads: expected 0 (every core) to 4096");
    const bool to_binaural = binaural || hrtf.has_value();
    auralize::Orientation orientation;
    orientation.front = to_point(facing, "facing");
    orientation.up = to_point(up, "up");
    if (hrtf) auralize::HrtfSet::check_file(*hrtf);
    const int order = ir.channels == 4 ? 1 : ir.channels == 9 ? 2 : ir.channels == 16 ? 3 : 0;
    if (to_binaural && order == 0)
        throw InputError("binaural rendering needs directions: the impulse response has " +
                         std::to_string(ir.channels) +
                         " channel(s); give an AmbiX IR of 4, 9 or 16 channels (ACN, SN3D, the "
                         "model's axes), e.g. Result.ambix()");

    audio::Audio rendered;
    {
        py::gil_scoped_release release;
        std::vector<std::vector<float>> irs = channels_of(ir);
        if (ir.sample_rate != dry.sample_rate)
            for (auto& ch : irs)
                ch = audio::resample_ir(std::span<const float>(ch), ir.sample_rate, fs);
        auto pairing = auralize::Pairing::ByChannel;
        if (to_binaural) {
            const auto turned = auralize::rotate_ambix(irs, orientation);
            const auralize::HrtfSet set(hrtf.value_or(auralize::HrtfSet::default_file()), fs);
            const auto ears =
                auralize::binaural_ir(turned, fs, auralize::make_binaural_decoder(set, order));
            irs.assign(ears.begin(), ears.end());
            pairing = auralize::Pairing::MonoSource;
        }
        const int n = threads > 0
                          ? threads
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        rendered = auralize::convolve_audio(dry, irs, pairing, {.threads = n}).audio;
        auralize::normalize(rendered, mode, auralize::ChannelRole::Speakers);
    }
    return to_array(rendered);
}

void write_audio(const fs::path& file, const py::handle& samples, double fs, bool overwrite) {
    OutputRules rules;
    rules.replace = overwrite;
    rules.replace_hint = "overwrite=True";
    check_output_file(file, rules);
    audio::format_for(file);  // the extension, before any work
    audio::write_audio(file, to_audio(samples, fs, "'" + file.string() + "'"), rules);
}

py::tuple read_audio(const fs::path& file) {
    const audio::Audio a = audio::read_audio(file);
    return py::make_tuple(to_array(a), a.sample_rate);
}

}  // namespace

void bind_audio(py::module_& m) {
    m.def(
        "analyze", &analyze, py::arg("ir"), py::arg("fs"), py::arg("third_octave") = false,
        py::arg("max_frequency") = py::none(), py::arg("onset") = py::none(),
        py::arg("free_field_10m") = py::none(), py::arg("decay_curves") = false,
        "ISO 3382-1 parameters of a one-channel IR per octave (or third-octave) band, as "
        "`ardent analyze --json` gives them (keys in docs/analysis.md). max_frequency: the "
        "highest frequency the IR is good for (bands above are left out); onset: the direct "
        "sound's arrival in seconds (else ISO 3382-1's rule); free_field_10m: the free-field IR "
        "at 10 m in the IR's units (1/(40 pi) for an Ardent IR), for the strength G; decay_curves: "
        "each band also gets `decay_db` (its Schroeder curve in dB from the onset, a NumPy "
        "array) at `decay_rate_hz`");
    m.def("_auralize", &auralize_array, py::arg("dry"), py::arg("ir"), py::arg("fs"),
          py::arg("ir_fs"), py::arg("binaural"), py::arg("hrtf"), py::arg("facing"), py::arg("up"),
          py::arg("normalize"), py::arg("threads"),
          "The rendering behind ardent.auralize (use that)");
    m.def("read_audio", &read_audio, py::arg("file"),
          "A sound file (WAV, FLAC, ...) as (samples, sample_rate): samples (frames,) or (frames, "
          "channels), float32");
    m.def("write_audio", &write_audio, py::arg("file"), py::arg("samples"), py::arg("fs"),
          py::arg("overwrite") = false,
          "Writes (frames,) or (frames, channels) samples: .wav as 32-bit float (unscaled), .flac "
          "as 24-bit; atomically; an existing file only with overwrite=True");
    m.def("default_hrtf", &auralize::HrtfSet::default_file,
          "The SOFA HRTF set binaural rendering uses by default (MIT KEMAR)");
}

}  // namespace ardent::python
