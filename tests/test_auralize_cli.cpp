// `ardent auralize` end to end through the real command: the output is the convolution of the dry
// signal with the IR (checked against the library's convolution), channels are paired as
// documented, FLAC and Ogg read, FLAC written, sample rates matched, levels normalised, clipping
// reported, outputs never replaced without --force, a listener grid rendered as AmbiX and
// binaurally (blending the grid points around a listener between them), the default level
// (-23 LUFS, the peak held at -1 dBFS), and a 4-channel AmbiX IR turned to the listener's
// orientation in both.
#include <gtest/gtest.h>
#include <sndfile.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "ardent/auralize/audio_io.h"
#include "ardent/auralize/fft_convolution.h"
#include "ardent/auralize/hrtf.h"
#include "ardent/auralize/levels.h"
#include "grid_fixture.h"
#include "test_support.h"

namespace ardent::test {
namespace {

namespace fs = std::filesystem;

audio::Audio noise(int channels, size_t frames, int rate, unsigned seed, double amp = 0.2,
                   double decay = 0) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> g;
    audio::Audio a;
    a.channels = channels;
    a.sample_rate = rate;
    a.samples.resize(frames * static_cast<size_t>(channels));
    for (size_t i = 0; i < frames; ++i)
        for (int c = 0; c < channels; ++c)
            a.samples[i * static_cast<size_t>(channels) + static_cast<size_t>(c)] =
                static_cast<float>(amp * g(rng) *
                                   (decay > 0 ? std::exp(-static_cast<double>(i) / decay) : 1.0));
    return a;
}

// Writes `a` through libsndfile in `format` (e.g. Ogg Vorbis, 16-bit WAV).
void write_with(const fs::path& file, const audio::Audio& a, int format) {
    SF_INFO info{};
    info.channels = a.channels;
    info.samplerate = a.sample_rate;
    info.format = format;
    SNDFILE* f = sf_open(file.c_str(), SFM_WRITE, &info);
    ASSERT_NE(f, nullptr) << sf_strerror(nullptr);
    // Integer formats stop at the first sample beyond full scale unless told to clip.
    sf_command(f, SFC_SET_CLIPPING, nullptr, SF_TRUE);
    EXPECT_EQ(sf_writef_float(f, a.samples.data(), static_cast<sf_count_t>(a.frames())),
              static_cast<sf_count_t>(a.frames()));
    sf_close(f);
}

// max |a - b| / max |b| over b's length, in dB.
double error_db(std::span<const float> a, std::span<const float> b) {
    double err = 0, peak = 0;
    for (size_t i = 0; i < b.size(); ++i) {
        err = std::max(err, std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
        peak = std::max(peak, std::fabs(static_cast<double>(b[i])));
    }
    return 20 * std::log10(std::max(err, 1e-300) / peak);
}

// Left minus right ear energy, dB.
double ear_difference_db(const audio::Audio& a) {
    double e[2] = {0, 0};
    for (int c = 0; c < 2; ++c)
        for (float v : a.channel(c))
            e[c] += static_cast<double>(v) * static_cast<double>(v);
    return 10 * std::log10(e[0] / e[1]);
}

class AuralizeCli : public ::testing::Test {
  protected:
    ScratchDir dir;
    CommandResult run(const std::string& args, int expected = 0) {
        SCOPED_TRACE("ardent auralize " + args);
        CommandResult r = run_ardent("auralize " + args, dir.path());
        EXPECT_EQ(r.exit_code, expected) << r.err << r.out;
        return r;
    }
};

TEST_F(AuralizeCli, OutputIsTheConvolution) {
    const auto dry = noise(1, 30000, 48000, 1);
    const auto ir = noise(1, 12000, 48000, 2, 0.1, 2000);
    audio::write_wav_float(dir / "dry.wav", dry);
    audio::write_wav_float(dir / "ir.wav", ir);
    run("dry.wav ir.wav -o wet.wav --normalize none");
    const auto wet = audio::read_audio(dir / "wet.wav");
    ASSERT_EQ(wet.channels, 1);
    ASSERT_EQ(wet.frames(), dry.frames() + ir.frames() - 1);  // the tail is kept
    EXPECT_LE(error_db(wet.samples, auralize::convolve(dry.samples, ir.samples)), -120.0);
}

TEST_F(AuralizeCli, IrLongerThanTheDrySignalKeepsTheWholeTail) {
    const auto dry = noise(1, 100, 48000, 3);  // a click
    const auto ir = noise(1, 48000, 48000, 4, 0.1, 9000);
    audio::write_wav_float(dir / "click.wav", dry);
    audio::write_wav_float(dir / "ir.wav", ir);
    run("click.wav ir.wav -o wet.wav --normalize none");
    const auto wet = audio::read_audio(dir / "wet.wav");
    EXPECT_EQ(wet.frames(), 48099u);
    EXPECT_LE(error_db(wet.samples, auralize::convolve(dry.samples, ir.samples)), -120.0);
}

TEST_F(AuralizeCli, ChannelsArePaired) {
    const auto mono = noise(1, 5000, 48000, 5), stereo = noise(2, 5000, 48000, 6);
    const auto ir1 = noise(1, 800, 48000, 7, 0.1, 200), ir2 = noise(2, 800, 48000, 8, 0.1, 200),
               ir3 = noise(3, 800, 48000, 9, 0.1, 200);
    audio::write_wav_float(dir / "mono.wav", mono);
    audio::write_wav_float(dir / "stereo.wav", stereo);
    audio::write_wav_float(dir / "ir1.wav", ir1);
    audio::write_wav_float(dir / "ir2.wav", ir2);
    audio::write_wav_float(dir / "ir3.wav", ir3);
    struct Case {
        std::string dry, ir;
        int channels;
        bool downmix;
    };
    for (const Case& c : {Case{"mono", "ir2", 2, false}, Case{"stereo", "ir1", 2, false},
                          Case{"stereo", "ir2", 2, false}, Case{"stereo", "ir3", 3, true}}) {
        SCOPED_TRACE(c.dry + " through " + c.ir);
        const auto r = run(c.dry + ".wav " + c.ir + ".wav -o out.wav --force --normalize none");
        EXPECT_EQ(r.out.find("mixed to mono") != std::string::npos, c.downmix) << r.out;
        const auto out = audio::read_audio(dir / "out.wav");
        ASSERT_EQ(out.channels, c.channels);
        const auto d = audio::read_audio(dir / (c.dry + ".wav"));
        const auto h = audio::read_audio(dir / (c.ir + ".wav"));
        for (int ch = 0; ch < c.channels; ++ch) {
            std::vector<float> x;
            if (c.downmix) {
                x.resize(d.frames());
                for (size_t i = 0; i < x.size(); ++i)
                    x[i] = 0.5f * (d.samples[2 * i] + d.samples[2 * i + 1]);
            } else {
                x = d.channel(d.channels == 1 ? 0 : ch);
            }
            const auto ref = auralize::convolve(x, h.channel(h.channels == 1 ? 0 : ch));
            EXPECT_LE(error_db(out.channel(ch), ref), -120.0) << "channel " << ch;
        }
    }
}

TEST_F(AuralizeCli, ReadsFlacAndOggWritesFlac) {
    const auto dry = noise(1, 20000, 44100, 10, 0.2);
    const auto ir = noise(1, 2000, 44100, 11, 0.02, 400);
    write_with(dir / "dry.flac", dry, SF_FORMAT_FLAC | SF_FORMAT_PCM_24);
    audio::write_wav_float(dir / "ir.wav", ir);
    run("dry.flac ir.wav -o wet.flac --normalize none");
    const auto wet = audio::read_audio(dir / "wet.flac");
    const auto ref = auralize::convolve(dry.samples, ir.samples);
    ASSERT_EQ(wet.frames(), ref.size());
    // 24-bit input and output: steps of 2^-23, about -140 dB re full scale.
    EXPECT_LE(error_db(wet.samples, ref), -100.0);

    // Ogg Vorbis is lossy: a tonal signal decodes close to the original, and in full length.
    audio::Audio tones = dry;
    for (size_t i = 0; i < tones.samples.size(); ++i) {
        const double t = static_cast<double>(i) / 44100;
        tones.samples[i] = static_cast<float>(0.3 * std::sin(2 * 3.141592653589793 * 440 * t) +
                                              0.2 * std::sin(2 * 3.141592653589793 * 1250 * t));
    }
    write_with(dir / "tones.ogg", tones, SF_FORMAT_OGG | SF_FORMAT_VORBIS);
    run("tones.ogg ir.wav -o wet_ogg.wav --normalize none");
    const auto wet_ogg = audio::read_audio(dir / "wet_ogg.wav");
    const auto ref_ogg = auralize::convolve(tones.samples, ir.samples);
    ASSERT_EQ(wet_ogg.frames(), ref_ogg.size());
    EXPECT_LE(error_db(wet_ogg.samples, ref_ogg), -20.0);
}

// A 48 kHz IR applied to 44.1 kHz audio: the output is at 44.1 kHz and the IR keeps its gain (a
// delayed unit impulse of gain 0.5 stays a gain of 0.5).
TEST_F(AuralizeCli, IrIsResampledToTheDrySignalsRate) {
    audio::Audio dry;
    dry.sample_rate = 44100;
    dry.samples.resize(44100);
    for (size_t i = 0; i < dry.samples.size(); ++i)
        dry.samples[i] = static_cast<float>(
            0.5 * std::sin(2 * 3.141592653589793 * 500 * static_cast<double>(i) / 44100));
    audio::Audio ir;
    ir.sample_rate = 48000;
    ir.samples.assign(4800, 0.0f);
    ir.samples[480] = 0.5f;
    audio::write_wav_float(dir / "dry.wav", dry);
    audio::write_wav_float(dir / "ir.wav", ir);
    const auto r = run("dry.wav ir.wav -o wet.wav --normalize none");
    EXPECT_NE(r.out.find("resampled from 48000 Hz to 44100 Hz"), std::string::npos) << r.out;
    const auto wet = audio::read_audio(dir / "wet.wav");
    EXPECT_EQ(wet.sample_rate, 44100);
    double peak = 0;
    for (size_t i = 10000; i < 40000; ++i)
        peak = std::max(peak, std::fabs(static_cast<double>(wet.samples[i])));
    EXPECT_NEAR(peak, 0.25, 0.25 * 0.01);
}

TEST_F(AuralizeCli, NormalisesPeakAndLoudness) {
    const auto dry = noise(1, 48000, 48000, 12, 0.05);
    const auto ir = noise(2, 4800, 48000, 13, 0.05, 1000);
    audio::write_wav_float(dir / "dry.wav", dry);
    audio::write_wav_float(dir / "ir.wav", ir);
    run("dry.wav ir.wav -o peak.wav --normalize peak");
    EXPECT_NEAR(20 * std::log10(auralize::sample_peak(audio::read_audio(dir / "peak.wav"))), -1.0,
                0.01);
    run("dry.wav ir.wav -o loud.wav --normalize loudness");
    EXPECT_NEAR(auralize::integrated_loudness(audio::read_audio(dir / "loud.wav"),
                                              auralize::ChannelRole::Speakers),
                -23.0, 0.05);
    run("dry.wav ir.wav -o x.wav --normalize median", 2);
    EXPECT_FALSE(fs::exists(dir / "x.wav"));
}

TEST_F(AuralizeCli, ReportsClipping) {
    const auto dry = noise(1, 20000, 48000, 14, 0.5);
    auto ir = noise(1, 100, 48000, 15, 0.0);
    ir.samples[0] = 4.0f;  // 12 dB of gain
    audio::write_wav_float(dir / "dry.wav", dry);
    audio::write_wav_float(dir / "ir.wav", ir);
    auto r = run("dry.wav ir.wav -o loud.wav --normalize none");
    EXPECT_NE(r.err.find("exceed full scale"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("players will clip"), std::string::npos) << r.err;
    EXPECT_GT(auralize::sample_peak(audio::read_audio(dir / "loud.wav")), 1.0);  // kept in float
    r = run("dry.wav ir.wav -o loud.flac --normalize none");
    EXPECT_NE(r.err.find("clipped in the FLAC file"), std::string::npos) << r.err;
    EXPECT_LE(auralize::sample_peak(audio::read_audio(dir / "loud.flac")), 1.0);
    r = run("dry.wav ir.wav -o fine.wav --normalize peak");
    EXPECT_EQ(r.err.find("exceed full scale"), std::string::npos) << r.err;
}

TEST_F(AuralizeCli, ExistingOutputNeedsForce) {
    const auto dry = noise(1, 1000, 48000, 16), ir = noise(1, 10, 48000, 17);
    audio::write_wav_float(dir / "dry.wav", dry);
    audio::write_wav_float(dir / "ir.wav", ir);
    dir.write("wet.wav", "precious");
    const auto r = run("dry.wav ir.wav -o wet.wav", 2);
    EXPECT_NE(r.err.find("wet.wav"), std::string::npos);
    EXPECT_NE(r.err.find("--force"), std::string::npos);
    std::ifstream in(dir / "wet.wav");
    std::string text;
    in >> text;
    EXPECT_EQ(text, "precious");
    run("dry.wav ir.wav -o wet.wav --force");
    EXPECT_EQ(audio::read_audio(dir / "wet.wav").frames(), 1009u);
    // Nothing but the inputs and the output: no temporary files left.
    EXPECT_EQ(dir.listing(), "dry.wav\nir.wav\nwet.wav\n");
}

TEST_F(AuralizeCli, ListenerGridAsAmbisonicsAndBinaural) {
    const double d = 0.01, fs = 48000;
    ASSERT_TRUE(write_grid_file(
        dir / "S1.h5", plane_wave_grid({0, 1, 0}, {1, 1, 1}, d, fs, 4800, 100, 4000), fs, d));
    const auto dry = noise(1, 24000, 48000, 18);
    audio::write_wav_float(dir / "dry.wav", dry);
    auto r = run("dry.wav S1.h5 --listener 1,1,1 --ambisonics -o amb.wav");
    EXPECT_NE(r.out.find("AmbiX"), std::string::npos) << r.out;
    const auto amb = audio::read_audio(dir / "amb.wav");
    ASSERT_EQ(amb.channels, 4);
    // From the left: Y (ACN 1) carries the signal, X and Z (ACN 3, 2) nearly nothing.
    const auto energy = [&](int c) {
        double e = 0;
        for (float v : amb.channel(c))
            e += static_cast<double>(v) * static_cast<double>(v);
        return e;
    };
    EXPECT_NEAR(energy(1) / energy(0), 1.0, 0.1);
    EXPECT_LT(energy(3), 1e-3 * energy(0));
    EXPECT_LT(energy(2), 1e-3 * energy(0));
    if (!fs::exists(auralize::HrtfSet::default_file())) GTEST_SKIP() << "no default SOFA set";
    r = run("dry.wav S1.h5 --listener 1,1,1 -o bin.wav");
    EXPECT_NE(r.out.find("MIT"), std::string::npos) << r.out;
    const auto bin = audio::read_audio(dir / "bin.wav");
    ASSERT_EQ(bin.channels, 2);
    EXPECT_GT(ear_difference_db(bin), 3.0);  // louder at the left ear
    // Facing +y (towards the sound), it is in front: no level difference between the ears.
    run("dry.wav S1.h5 --listener 1,1,1 --facing 0,1,0 -o front.wav");
    EXPECT_NEAR(ear_difference_db(audio::read_audio(dir / "front.wav")), 0.0, 0.5);
}

// Between grid points `auralize` blends the IRs around the listener and says which and how much:
// at a grid point the rendering is that point's (as --grid-interpolation nearest gives it); at a
// listener drawn between two neighbours it is the documented trilinear blend of the two, here
// checked on W, which carries the pressure IRs through the convolution unchanged.
TEST_F(AuralizeCli, ListenerBetweenGridPointsHearsTheirBlend) {
    const unsigned seed = 20261127;
    std::printf("[ case ] seed %u\n", seed);
    std::mt19937 rng(seed);
    const double d = 0.25, fs = 48000, t = std::uniform_real_distribution<double>(0.1, 0.9)(rng);
    ASSERT_TRUE(write_grid_file(
        dir / "S1.h5", plane_wave_grid({0, 1, 0}, {1, 1, 1}, d, fs, 2400, 100, 4000), fs, d));
    audio::write_wav_float(dir / "dry.wav", noise(1, 4800, 48000, seed));
    const std::string common = "dry.wav S1.h5 --ambisonics --normalize none ";
    auto r = run(common + "--listener 1,1,1 -o a.wav");
    EXPECT_NE(r.out.find("grid point (1.000, 1.000, 1.000), 0.000 m away (weight 1)"),
              std::string::npos)
        << r.out;
    run(common + "--listener 1,1,1 --grid-interpolation nearest -o a_nearest.wav");
    run(common + "--listener 1,1.25,1 -o b.wav");
    const auto a = audio::read_audio(dir / "a.wav"), b = audio::read_audio(dir / "b.wav");
    EXPECT_EQ(a.samples, audio::read_audio(dir / "a_nearest.wav").samples);

    char listener[64];
    std::snprintf(listener, sizeof listener, "1,%.17g,1", 1 + t * d);
    r = run(common + "--listener " + listener + " -o mid.wav");
    EXPECT_NE(r.out.find("-> 2 grid points, trilinear weights"), std::string::npos) << r.out;
    char weight[96];
    std::snprintf(weight, sizeof weight,
                  "grid point (1.000, 1.250, 1.000), %.3f m away: weight %.4f", (1 - t) * d, t);
    EXPECT_NE(r.out.find(weight), std::string::npos) << weight << "\n" << r.out;
    const auto mid = audio::read_audio(dir / "mid.wav");
    const auto wa = a.channel(0), wb = b.channel(0), wm = mid.channel(0);
    ASSERT_EQ(wm.size(), wa.size());
    std::vector<float> blend(wa.size());
    for (size_t i = 0; i < blend.size(); ++i)
        blend[i] = static_cast<float>((1 - t) * static_cast<double>(wa[i]) +
                                      t * static_cast<double>(wb[i]));
    EXPECT_LE(error_db(wm, blend), -100.0);
    // The nearest point alone is not the blend: the test can tell them apart.
    r = run(common + "--listener " + listener + " --grid-interpolation nearest -o near.wav");
    EXPECT_GT(error_db(audio::read_audio(dir / "near.wav").channel(0), blend), -40.0);
}

// Without --normalize the output is at EBU R128's -23 LUFS, never above a -1 dBFS sample peak
// (the old level, the convolution as it is, with --normalize none): a dry signal from a printed
// seed at a random level, through a reverberant IR and through a single click.
TEST_F(AuralizeCli, DefaultLevelIsLoudnessNormalisedWithoutClipping) {
    const unsigned seed = 20261128;
    std::printf("[ case ] seed %u\n", seed);
    std::mt19937 rng(seed);
    const double amp = std::pow(10.0, std::uniform_real_distribution<double>(-2, 0)(rng));
    const auto dry = noise(1, 96000, 48000, seed, amp);
    audio::write_wav_float(dir / "dry.wav", dry);
    audio::write_wav_float(dir / "room.wav", noise(2, 9600, 48000, seed + 1, 0.05, 2000));
    auto r = run("dry.wav room.wav -o wet.wav");
    EXPECT_NE(r.out.find("loudness -23.0 LUFS"), std::string::npos) << r.out;
    const auto wet = audio::read_audio(dir / "wet.wav");
    EXPECT_NEAR(auralize::integrated_loudness(wet, auralize::ChannelRole::Speakers), -23.0, 0.05);
    EXPECT_LE(20 * std::log10(auralize::sample_peak(wet)), -1.0 + 1e-4);
    run("dry.wav room.wav -o raw.wav --normalize none");
    const auto raw = audio::read_audio(dir / "raw.wav");
    EXPECT_LE(
        error_db(raw.channel(0),
                 auralize::convolve(dry.samples, audio::read_audio(dir / "room.wav").channel(0))),
        -120.0);
    // The default is the raw output scaled by one gain.
    const double g = auralize::sample_peak(wet) / auralize::sample_peak(raw);
    for (size_t i = 0; i < raw.samples.size(); i += 97)
        ASSERT_NEAR(wet.samples[i], g * static_cast<double>(raw.samples[i]),
                    1e-5 * auralize::sample_peak(wet))
            << i;

    // A click through a click: -23 LUFS would need a peak far above full scale, so the peak is
    // held at -1 dBFS and the message says so.
    audio::Audio click;
    click.sample_rate = 48000;
    click.samples.assign(48000, 0.0f);
    click.samples[1000] = 0.5f;
    audio::write_wav_float(dir / "click.wav", click);
    audio::write_wav_float(dir / "unit.wav", click);
    r = run("click.wav unit.wav -o clicked.wav");
    EXPECT_NE(r.out.find("the peak stays at -1 dBFS"), std::string::npos) << r.out;
    const auto clicked = audio::read_audio(dir / "clicked.wav");
    EXPECT_NEAR(20 * std::log10(auralize::sample_peak(clicked)), -1.0, 0.01);
    EXPECT_LT(auralize::integrated_loudness(clicked, auralize::ChannelRole::Speakers), -23.5);
    // Shorter than BS.1770's 400 ms block: no loudness to measure, so the peak target.
    audio::write_wav_float(dir / "short.wav", noise(1, 4800, 48000, seed + 2, amp));
    r = run("short.wav room.wav -o short_wet.wav");
    EXPECT_NE(r.out.find("too short or quiet for a loudness measurement"), std::string::npos)
        << r.out;
    EXPECT_NEAR(20 * std::log10(auralize::sample_peak(audio::read_audio(dir / "short_wet.wav"))),
                -1.0, 0.01);
}

// A 4-channel AmbiX IR file (dipoles along the model's axes): a single impulse from model +y,
// W = Y = 1. Facing +x it is on the listener's left; facing +y, in front; facing -x, on the right.
// The listener's orientation turns it both for --ambisonics and for --binaural.
TEST_F(AuralizeCli, AmbixIrIsTurnedToTheListener) {
    audio::Audio ir;
    ir.channels = 4;
    ir.sample_rate = 48000;
    ir.samples.assign(4 * 4800, 0.0f);
    ir.samples[4 * 100 + 0] = 1.0f;  // W
    ir.samples[4 * 100 + 1] = 1.0f;  // Y
    audio::write_wav_float(dir / "ambix.wav", ir);
    const auto dry = noise(1, 24000, 48000, 19);
    audio::write_wav_float(dir / "dry.wav", dry);
    const auto energy = [](const audio::Audio& a, int c) {
        double e = 0;
        for (float v : a.channel(c))
            e += static_cast<double>(v) * static_cast<double>(v);
        return e;
    };

    // AmbiX out, default orientation: the channels as before, each the dry signal through the
    // IR's channel.
    auto r = run("dry.wav ambix.wav --ambisonics -o amb.wav --normalize none");
    EXPECT_NE(r.out.find("turned to the listener's orientation: facing (1.000, 0.000, 0.000), up "
                         "(0.000, 0.000, 1.000)"),
              std::string::npos)
        << r.out;
    const auto amb = audio::read_audio(dir / "amb.wav");
    ASSERT_EQ(amb.channels, 4);
    EXPECT_LE(error_db(amb.channel(0), auralize::convolve(dry.samples, ir.channel(0))), -120.0);
    EXPECT_LE(error_db(amb.channel(1), auralize::convolve(dry.samples, ir.channel(1))), -120.0);
    EXPECT_EQ(energy(amb, 2), 0.0);
    EXPECT_EQ(energy(amb, 3), 0.0);
    // Facing +y the sound is in front: X (ACN 3) carries it, Y nothing.
    r = run("dry.wav ambix.wav --ambisonics --facing 0,1,0 -o amb_front.wav --normalize none");
    EXPECT_NE(r.out.find("facing (0.000, 1.000, 0.000)"), std::string::npos) << r.out;
    const auto amb_front = audio::read_audio(dir / "amb_front.wav");
    ASSERT_EQ(amb_front.channels, 4);
    EXPECT_LE(error_db(amb_front.channel(3), amb.channel(1)), -120.0);
    EXPECT_LT(energy(amb_front, 1), 1e-12 * energy(amb_front, 0));
    EXPECT_LT(energy(amb_front, 2), 1e-12 * energy(amb_front, 0));

    if (!fs::exists(auralize::HrtfSet::default_file())) GTEST_SKIP() << "no default SOFA set";
    r = run("dry.wav ambix.wav --binaural -o left.wav");
    EXPECT_NE(r.out.find("MIT"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("turned to the listener's orientation"), std::string::npos) << r.out;
    const auto left = audio::read_audio(dir / "left.wav");
    ASSERT_EQ(left.channels, 2);
    // --binaural is --hrtf with the default set.
    run("dry.wav ambix.wav --hrtf " + auralize::HrtfSet::default_file().string() + " -o hrtf.wav");
    // Equal to rounding: FFTW's plans may differ between the two runs (estimated at first, then
    // measured ones learned in the background), and with them the last bits.
    const auto hrtf = audio::read_audio(dir / "hrtf.wav");
    ASSERT_EQ(hrtf.channels, 2);
    EXPECT_LE(error_db(hrtf.channel(0), left.channel(0)), -100.0);
    EXPECT_LE(error_db(hrtf.channel(1), left.channel(1)), -100.0);
    run("dry.wav ambix.wav --binaural --facing 0,1,0 -o front.wav");
    run("dry.wav ambix.wav --binaural --facing 0,-1,0 -o back.wav");
    run("dry.wav ambix.wav --binaural --facing -1,0,0 --up 0,0,2 -o right.wav");
    const double ild_left = ear_difference_db(left),
                 ild_front = ear_difference_db(audio::read_audio(dir / "front.wav")),
                 ild_back = ear_difference_db(audio::read_audio(dir / "back.wav")),
                 ild_right = ear_difference_db(audio::read_audio(dir / "right.wav"));
    std::printf(
        "[ measured ] left minus right ear: facing +x %.2f dB, +y %.2f dB, -y %.2f dB, -x "
        "%.2f dB\n",
        ild_left, ild_front, ild_back, ild_right);
    EXPECT_GT(ild_left, 6.0);
    EXPECT_LT(std::fabs(ild_front), 3.0);
    EXPECT_LT(std::fabs(ild_back), 3.0);
    EXPECT_LT(ild_right, -6.0);
}

}  // namespace
}  // namespace ardent::test
