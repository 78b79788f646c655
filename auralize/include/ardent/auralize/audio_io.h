// Audio files through libsndfile. Reading accepts every format libsndfile knows (WAV, FLAC, AIFF,
// Ogg, ...) and returns float frames; writing produces WAV files of 32-bit float samples (the
// format of Ardent's impulse responses, spec section 4) or 24-bit FLAC, with any number of
// channels. A failed read or write throws InputError naming the file.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <vector>

#include "ardent/preprocess/safe_output.h"

namespace ardent::audio {

struct Audio {
    int sample_rate = 0;
    int channels = 1;
    std::vector<float> samples;  // interleaved: frame-major, channels fastest

    size_t frames() const {
        return channels > 0 ? samples.size() / static_cast<size_t>(channels) : 0;
    }
    std::vector<float> channel(int c) const;  // one channel, de-interleaved
};

// Reads an audio file into float samples (integer formats scaled to [-1, 1) as libsndfile does).
Audio read_audio(const std::filesystem::path& file);

enum class WriteMode {
    // Through an OutputFile (safe_output.h): a temporary file beside the target renamed over it
    // once complete, so the target is either absent/old or complete, never half-written; an
    // existing target is replaced only if it is a regular file.
    Atomic,
    // Write the target directly: for files inside a directory that is itself temporary and will be
    // renamed into place as a whole.
    Direct,
};

// Writes `audio` as a WAV file of 32-bit float samples. Samples are written unscaled and
// unclipped (float WAV has no full-scale limit; IRs are often far below 1 and may exceed it).
void write_wav_float(const std::filesystem::path& file, const Audio& audio,
                     WriteMode mode = WriteMode::Atomic);
// One channel.
void write_wav_float(const std::filesystem::path& file, std::span<const float> mono,
                     int sample_rate, WriteMode mode = WriteMode::Atomic);

enum class FileFormat {
    WavFloat,  // .wav: 32-bit float, written unscaled and unclipped
    Flac24,    // .flac: 24-bit integer PCM (FLAC has no float samples); beyond +-1 is clipped
};
// The format an output file name asks for, by its extension (case-insensitive). InputError naming
// the file for any other extension.
FileFormat format_for(const std::filesystem::path& file);
// Writes `audio` in the format of its file name (format_for).
void write_audio(const std::filesystem::path& file, const Audio& audio,
                 WriteMode mode = WriteMode::Atomic);
// The same for a user's output (a command's -o, an export): through an OutputFile with the user's
// rules (what may be replaced, the command's inputs).
void write_audio(const std::filesystem::path& file, const Audio& audio, const OutputRules& rules);

}  // namespace ardent::audio
