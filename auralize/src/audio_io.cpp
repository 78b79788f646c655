#include "ardent/auralize/audio_io.h"

#include <sndfile.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <string>
#include <system_error>

#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/input_file.h"
#include "ardent/preprocess/safe_output.h"

namespace ardent::audio {
namespace {

std::string quoted(const std::filesystem::path& p) {
    return "'" + p.string() + "'";
}

struct SndFile {
    SNDFILE* f = nullptr;
    ~SndFile() {
        if (f) sf_close(f);
    }
};

// Writes `file`; messages name `shown` (the target when `file` is its temporary twin).
void write_direct(const std::filesystem::path& file, const std::filesystem::path& shown,
                  const Audio& audio, FileFormat format) {
    if (audio.sample_rate <= 0)
        throw InputError("cannot write " + quoted(shown) + ": sample rate " +
                         std::to_string(audio.sample_rate) + " is not positive");
    if (audio.channels <= 0 || audio.samples.size() % static_cast<size_t>(audio.channels) != 0)
        throw InputError(
            "cannot write " + quoted(shown) + ": " + std::to_string(audio.samples.size()) +
            " samples do not make whole frames of " + std::to_string(audio.channels) + " channels");
    SF_INFO info{};
    info.samplerate = audio.sample_rate;
    info.channels = audio.channels;
    info.format = SF_FORMAT_WAV | SF_FORMAT_FLOAT;
    // More than 4 GB of data needs RF64; libsndfile switches to it when asked for WAVEX sizes.
    if (audio.samples.size() * sizeof(float) > 0xFFFF0000ull)
        info.format = SF_FORMAT_RF64 | SF_FORMAT_FLOAT;
    if (format == FileFormat::Flac24) info.format = SF_FORMAT_FLAC | SF_FORMAT_PCM_24;
    if (!sf_format_check(&info))
        throw InputError("cannot write " + quoted(shown) + ": the format cannot hold " +
                         std::to_string(audio.channels) + " channels at " +
                         std::to_string(audio.sample_rate) + " Hz");
    SndFile out;
    errno = 0;
    out.f = sf_open(file.c_str(), SFM_WRITE, &info);
    if (!out.f && errno) throw_write_error(shown, errno);
    if (!out.f) throw InputError("cannot write " + quoted(shown) + ": " + sf_strerror(nullptr));
    // No PEAK chunk: it holds the time of writing, and two runs of one scene must give the same
    // bytes (docs/output-format.md).
    sf_command(out.f, SFC_SET_ADD_PEAK_CHUNK, nullptr, SF_FALSE);
    if (format == FileFormat::WavFloat) {
        // Float WAV stores the values as given: no normalisation, no clipping.
        sf_command(out.f, SFC_SET_NORM_FLOAT, nullptr, SF_FALSE);
        sf_command(out.f, SFC_SET_CLIPPING, nullptr, SF_FALSE);
    } else {
        // Integer samples: +-1 is full scale, and values beyond clip instead of wrapping around.
        sf_command(out.f, SFC_SET_NORM_FLOAT, nullptr, SF_TRUE);
        sf_command(out.f, SFC_SET_CLIPPING, nullptr, SF_TRUE);
    }
    const auto frames = static_cast<sf_count_t>(audio.frames());
    errno = 0;
    if (sf_writef_float(out.f, audio.samples.data(), frames) != frames) {
        if (errno) throw_write_error(shown, errno);
        throw InputError("cannot write " + quoted(shown) + ": " + sf_strerror(out.f));
    }
    const int rc = sf_close(out.f);
    out.f = nullptr;
    if (rc != 0 && errno) throw_write_error(shown, errno);
    if (rc != 0) throw InputError("cannot write " + quoted(shown) + ": " + sf_error_number(rc));
}

}  // namespace

std::vector<float> Audio::channel(int c) const {
    std::vector<float> out;
    if (c < 0 || c >= channels) return out;
    const size_t n = frames(), stride = static_cast<size_t>(channels);
    out.resize(n);
    for (size_t i = 0; i < n; ++i)
        out[i] = samples[i * stride + static_cast<size_t>(c)];
    return out;
}

Audio read_audio(const std::filesystem::path& file) {
    std::error_code ec;
    if (const std::string kind = special_file_kind(file); !kind.empty())  // a link loop too
        throw InputError("cannot read " + quoted(file) + ": it is " + kind + ", not a file");
    if (!std::filesystem::exists(file, ec))
        throw InputError("cannot read " + quoted(file) + ": no such file");
    if (std::filesystem::is_directory(file, ec))
        throw InputError("cannot read " + quoted(file) + ": it is a directory");
    SF_INFO info{};
    SndFile in;
    in.f = sf_open(file.c_str(), SFM_READ, &info);
    if (!in.f)
        throw InputError("cannot read " + quoted(file) + " as audio: " + sf_strerror(nullptr));
    if (info.channels <= 0 || info.samplerate <= 0 || info.frames < 0)
        throw InputError("cannot read " + quoted(file) + ": invalid header (" +
                         std::to_string(info.channels) + " channels, " +
                         std::to_string(info.samplerate) + " Hz)");
    Audio a;
    a.sample_rate = info.samplerate;
    a.channels = info.channels;
    // Integer formats read as floats in [-1, 1); float files as stored.
    sf_command(in.f, SFC_SET_NORM_FLOAT, nullptr, SF_TRUE);
    // Some formats (Ogg, MP3) report no exact length: read in blocks until nothing comes back.
    constexpr sf_count_t block = 65536;
    std::vector<float> buf(static_cast<size_t>(block) * static_cast<size_t>(info.channels));
    if (info.frames > 0 && info.frames < (sf_count_t{1} << 40))
        a.samples.reserve(static_cast<size_t>(info.frames) * static_cast<size_t>(info.channels));
    for (;;) {
        const sf_count_t got = sf_readf_float(in.f, buf.data(), block);
        if (got <= 0) break;
        a.samples.insert(a.samples.end(), buf.begin(),
                         buf.begin() + static_cast<ptrdiff_t>(got * info.channels));
        // No early exit on a short read: Ogg Vorbis returns fewer frames than asked before its
        // end (one decoded page at a time); only 0 means the end.
    }
    if (sf_error(in.f) != SF_ERR_NO_ERROR)
        throw InputError("cannot read " + quoted(file) + ": " + sf_strerror(in.f));
    return a;
}

namespace {

// Replacing an existing regular file, as the library's callers (tests, benches) expect of an
// Atomic write; front ends pass their user's OutputRules instead.
OutputRules replace_files() {
    OutputRules rules;
    rules.replace = true;
    return rules;
}

void write_file(const std::filesystem::path& file, const Audio& audio, WriteMode mode,
                FileFormat format) {
    if (mode == WriteMode::Direct) {
        write_direct(file, file, audio, format);
        return;
    }
    write_output_file(file, replace_files(), [&](const std::filesystem::path& tmp) {
        write_direct(tmp, file, audio, format);
    });
}

}  // namespace

void write_wav_float(const std::filesystem::path& file, const Audio& audio, WriteMode mode) {
    write_file(file, audio, mode, FileFormat::WavFloat);
}

FileFormat format_for(const std::filesystem::path& file) {
    std::string ext = file.extension().string();
    for (char& c : ext)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (ext == ".wav") return FileFormat::WavFloat;
    if (ext == ".flac") return FileFormat::Flac24;
    throw InputError("cannot write " + quoted(file) + ": unknown output format '" +
                     file.extension().string() + "' (use .wav for 32-bit float WAV or .flac)");
}

void write_audio(const std::filesystem::path& file, const Audio& audio, WriteMode mode) {
    write_file(file, audio, mode, format_for(file));
}

void write_audio(const std::filesystem::path& file, const Audio& audio, const OutputRules& rules) {
    const FileFormat format = format_for(file);
    write_output_file(file, rules, [&](const std::filesystem::path& tmp) {
        write_direct(tmp, file, audio, format);
    });
}

void write_wav_float(const std::filesystem::path& file, std::span<const float> mono,
                     int sample_rate, WriteMode mode) {
    Audio a;
    a.sample_rate = sample_rate;
    a.channels = 1;
    a.samples.assign(mono.begin(), mono.end());
    write_wav_float(file, a, mode);
}

}  // namespace ardent::audio
