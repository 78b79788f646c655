// ardent::auralize audio files and resampling: float WAV round trips, atomic writes, errors that
// name the file, and resampling that keeps a sine's frequency and amplitude and an IR's
// convention (the direct pulse sums to 1/(4 pi r) at any rate).
#include <cmath>
#include <fstream>
#include <numbers>
#include <vector>

#include <gtest/gtest.h>

#include "ardent/auralize/audio_io.h"
#include "ardent/auralize/resample.h"
#include "ardent/preprocess/errors.h"
#include "test_support.h"

using namespace ardent;
using ardent::test::ScratchDir;

namespace {

std::vector<unsigned char> file_bytes(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<float> sine(double f, double fs, size_t n, double amp = 1.0) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i)
        v[i] = static_cast<float>(amp *
                                  std::sin(2 * std::numbers::pi * f * static_cast<double>(i) / fs));
    return v;
}

// Largest deviation from an ideal sine over the middle half (away from the edges' transients).
double sine_error(const std::vector<float>& v, double f, double fs, double amp) {
    double err = 0;
    for (size_t i = v.size() / 4; i < 3 * v.size() / 4; ++i) {
        const double ref = amp * std::sin(2 * std::numbers::pi * f * static_cast<double>(i) / fs);
        err = std::max(err, std::fabs(static_cast<double>(v[i]) - ref));
    }
    return err;
}

// A band-limited pulse: a Blackman-windowed sinc low-pass of DC gain `gain`, cut-off fc, centred
// at sample `centre`.
std::vector<double> lowpass_pulse(double fc, double fs, size_t n, double centre, double gain) {
    std::vector<double> v(n);
    const double half = 8.0 / fc * fs;  // samples
    for (size_t i = 0; i < n; ++i) {
        const double t = static_cast<double>(i) - centre;
        if (std::fabs(t) >= half) continue;
        const double x = 2 * fc / fs * t;
        const double sinc =
            std::fabs(x) < 1e-12 ? 1.0 : std::sin(std::numbers::pi * x) / (std::numbers::pi * x);
        const double w = 0.42 + 0.5 * std::cos(std::numbers::pi * t / half) +
                         0.08 * std::cos(2 * std::numbers::pi * t / half);
        v[i] = 2 * fc / fs * sinc * w;
    }
    double sum = 0;
    for (double s : v)
        sum += s;
    for (double& s : v)
        s *= gain / sum;
    return v;
}

template <typename T>
double magnitude_at(const std::vector<T>& v, double f, double fs) {
    double re = 0, im = 0;
    for (size_t i = 0; i < v.size(); ++i) {
        const double a = -2 * std::numbers::pi * f * static_cast<double>(i) / fs;
        re += static_cast<double>(v[i]) * std::cos(a);
        im += static_cast<double>(v[i]) * std::sin(a);
    }
    return std::hypot(re, im);
}

}  // namespace

TEST(AudioIo, FloatWavRoundTripKeepsEveryValue) {
    ScratchDir dir;
    audio::Audio a;
    a.sample_rate = 44100;
    a.channels = 3;
    for (int i = 0; i < 3000; ++i)
        a.samples.push_back(static_cast<float>(std::sin(0.01 * i) * (i % 3 == 0 ? 7.5 : 1e-6)));
    a.samples[4] = -123.25f;  // above full scale: float WAV keeps it
    const auto file = dir / "three.wav";
    audio::write_wav_float(file, a);
    const audio::Audio b = audio::read_audio(file);
    EXPECT_EQ(b.sample_rate, 44100);
    EXPECT_EQ(b.channels, 3);
    ASSERT_EQ(b.samples.size(), a.samples.size());
    for (size_t i = 0; i < a.samples.size(); ++i)
        ASSERT_EQ(b.samples[i], a.samples[i]) << i;
    EXPECT_EQ(b.frames(), 1000u);
    EXPECT_EQ(b.channel(1).size(), 1000u);
    EXPECT_EQ(b.channel(2)[0], a.samples[2]);
    // Only the file itself is left behind (the temporary twin was renamed).
    EXPECT_EQ(dir.listing(), "three.wav\n");
}

TEST(AudioIo, MonoFileIsIeeeFloat32Wav) {
    ScratchDir dir;
    const std::vector<float> x = {0.0f, 0.5f, -0.25f, 1e-9f};
    const auto file = dir / "mono.wav";
    audio::write_wav_float(file, x, 48000, audio::WriteMode::Direct);
    const auto bytes = file_bytes(file);
    ASSERT_GT(bytes.size(), 44u);
    EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 4), "RIFF");
    EXPECT_EQ(std::string(bytes.begin() + 8, bytes.begin() + 12), "WAVE");
    EXPECT_EQ(bytes[20] | (bytes[21] << 8), 3);  // WAVE_FORMAT_IEEE_FLOAT
    EXPECT_EQ(bytes[22] | (bytes[23] << 8), 1);  // channels
    EXPECT_EQ(bytes[24] | (bytes[25] << 8) | (bytes[26] << 16), 48000);
    EXPECT_EQ(bytes[34] | (bytes[35] << 8), 32);  // bits per sample
    const auto back = audio::read_audio(file);
    EXPECT_EQ(back.samples, x);
}

TEST(AudioIo, ErrorsNameTheFileAndLeaveNothing) {
    ScratchDir dir;
    auto expect_error = [](auto&& f, const std::string& name) {
        try {
            f();
            ADD_FAILURE() << "no error for " << name;
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
        }
    };
    expect_error([&] { audio::read_audio(dir / "missing.wav"); }, "missing.wav");
    dir.write("text.wav", "this is not audio at all, just some text long enough to look at");
    expect_error([&] { audio::read_audio(dir / "text.wav"); }, "text.wav");
    dir.write("empty.flac", "");
    expect_error([&] { audio::read_audio(dir / "empty.flac"); }, "empty.flac");
    std::filesystem::create_directory(dir / "folder.wav");
    expect_error([&] { audio::read_audio(dir / "folder.wav"); }, "folder.wav");
    const std::vector<float> x(10, 0.1f);
    expect_error([&] { audio::write_wav_float(dir / "no" / "such" / "dir.wav", x, 48000); },
                 "dir.wav");
    expect_error([&] { audio::write_wav_float(dir / "zero_rate.wav", x, 0); }, "zero_rate.wav");
    EXPECT_EQ(dir.listing(), "empty.flac\nfolder.wav\ntext.wav\n");
}

TEST(Resample, SineKeepsFrequencyAndAmplitude) {
    // Up, down and an extreme ratio beyond libsamplerate's 256 (done in stages).
    struct Case {
        double f, fs_in, fs_out;
    };
    for (const Case c : {Case{1000, 44100, 48000}, Case{1000, 48000, 16000},
                         Case{60, 1733.3333, 48000}, Case{10, 100, 48000}}) {
        const size_t n = static_cast<size_t>(c.fs_in);  // one second
        const auto in = sine(c.f, c.fs_in, n, 0.7);
        const auto out = audio::resample(in, c.fs_in, c.fs_out);
        EXPECT_EQ(out.size(),
                  static_cast<size_t>(std::llround(static_cast<double>(n) * c.fs_out / c.fs_in)));
        // Same instant at the start, same amplitude, same frequency: the ideal sine at fs_out.
        EXPECT_LT(sine_error(out, c.f, c.fs_out, 0.7), 2e-3)
            << c.f << " Hz, " << c.fs_in << " -> " << c.fs_out;
    }
    const std::vector<double> d(1000, 0.25);
    EXPECT_EQ(audio::resample(d, 1000, 1000).size(), 1000u);
    EXPECT_THROW(audio::resample(d, 0, 48000), std::invalid_argument);
    EXPECT_THROW(audio::resample(d, 1000, std::nan("")), std::invalid_argument);
}

TEST(Resample, ImpulseResponseKeepsTheOneOverFourPiRConvention) {
    const double r = 2.5, expect = 1.0 / (4 * std::numbers::pi * r);
    struct Case {
        double fs_in, fs_out, fc;
    };
    for (const Case c :
         {Case{1733.3333, 48000, 300}, Case{48000, 16000, 3000}, Case{44100, 48000, 8000}}) {
        const size_t n = static_cast<size_t>(c.fs_in * 0.5);
        const auto ir = lowpass_pulse(c.fc, c.fs_in, n, static_cast<double>(n) / 3, expect);
        const auto out = audio::resample_ir(ir, c.fs_in, c.fs_out);
        double sum = 0;
        for (float s : out)
            sum += static_cast<double>(s);
        EXPECT_NEAR(sum / expect, 1.0, 1e-3) << c.fs_in << " -> " << c.fs_out;
        // In band the per-sample spectrum is unchanged, not just its DC value.
        for (double f : {0.1 * c.fc, 0.5 * c.fc})
            EXPECT_NEAR(magnitude_at(out, f, c.fs_out) / magnitude_at(ir, f, c.fs_in), 1.0, 2e-3)
                << f << " Hz";
        // A waveform resampler alone would scale the sum by fs_out / fs_in.
        const auto plain = audio::resample(ir, c.fs_in, c.fs_out);
        double psum = 0;
        for (float s : plain)
            psum += static_cast<double>(s);
        EXPECT_NEAR(psum / expect, c.fs_out / c.fs_in, 2e-3 * c.fs_out / c.fs_in);
        // The pulse stays where it was in time.
        size_t peak = 0;
        for (size_t i = 0; i < out.size(); ++i)
            if (std::fabs(out[i]) > std::fabs(out[peak])) peak = i;
        EXPECT_NEAR(static_cast<double>(peak) / c.fs_out, static_cast<double>(n) / 3 / c.fs_in,
                    1.5 / c.fs_out + 0.5 / c.fs_in);
    }
}
