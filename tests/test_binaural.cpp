// Binaural rendering through the MIT KEMAR set (Debian's libmysofa1; the tests skip without it):
// a plane wave from the left is louder and earlier at the left ear (and from the right at the
// right); front and back, symmetric for the head, give no interaural differences, as the set has
// none there, and differ in level the way the set's own front and back HRIRs do; the decoder is
// diffuse-field flat; files that are not SOFA sets are refused with their name.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "ardent/auralize/ambisonics.h"
#include "ardent/auralize/binaural.h"
#include "ardent/auralize/hrtf.h"
#include "ardent/auralize/ir_grid.h"
#include "ardent/preprocess/ambix.h"
#include "ardent/preprocess/errors.h"
#include "grid_fixture.h"
#include "signal_tools.h"
#include "test_support.h"

namespace ardent::test {
namespace {

using auralize::HrtfSet;

constexpr double kFs = 48000;

#define REQUIRE_DEFAULT_SOFA()                             \
    if (!std::filesystem::exists(HrtfSet::default_file())) \
    GTEST_SKIP() << HrtfSet::default_file() << " missing (Debian package libmysofa1)"

std::vector<double> to_double(const std::vector<float>& v) {
    return {v.begin(), v.end()};
}

double energy(const std::vector<float>& v) {
    double e = 0;
    for (float x : v)
        e += static_cast<double>(x) * static_cast<double>(x);
    return e;
}

// Energy between lo and hi Hz.
double band_energy(const std::vector<float>& v, double lo, double hi) {
    const auto s = magnitude_spectrum(to_double(v), kFs, Window::Rectangular);
    double e = 0;
    for (size_t k = 0; k < s.magnitude.size(); ++k)
        if (s.frequency(k) >= lo && s.frequency(k) <= hi) e += s.magnitude[k] * s.magnitude[k];
    return e;
}

// Lag (samples) of the cross-correlation peak of right against left: positive when the left ear
// leads.
int lead_of_left(const std::vector<float>& left, const std::vector<float>& right) {
    int best = 0;
    double best_c = -1e300;
    for (int lag = -60; lag <= 60; ++lag) {
        double c = 0;
        for (size_t i = 0; i < left.size(); ++i) {
            const long j = static_cast<long>(i) + static_cast<long>(lag);
            if (j >= 0 && j < static_cast<long>(right.size()))
                c += static_cast<double>(left[i]) *
                     static_cast<double>(right[static_cast<size_t>(j)]);
        }
        if (c > best_c) {
            best_c = c;
            best = lag;
        }
    }
    return best;
}

// Binaural IR of a plane wave from `from` (model axes; the listener faces +x, z up), through a
// fine synthetic grid (directions valid to 5.5 kHz; pulse 100 Hz - 4 kHz).
std::array<std::vector<float>, 2> render_plane_wave(std::array<double, 3> from,
                                                    const auralize::FoaBinauralDecoder& decoder) {
    ScratchDir dir;
    const double d = 0.01;
    const auto file = dir / "g.h5";
    EXPECT_TRUE(
        write_grid_file(file, plane_wave_grid(from, {0, 0, 0}, d, kFs, 4800, 100, 4000), kFs, d));
    const auralize::IrGrid grid(file);
    return auralize::binaural_ir(auralize::encode_foa(grid, {0, 0, 0}, {}), decoder);
}

double db(double ratio) {
    return 10 * std::log10(ratio);
}

TEST(Binaural, PlaneWaveFromTheSideIsLouderAndEarlierAtThatEar) {
    REQUIRE_DEFAULT_SOFA();
    const HrtfSet hrtf(HrtfSet::default_file(), kFs);
    const auto decoder = auralize::make_foa_binaural_decoder(hrtf);
    const auto left = render_plane_wave({0, 1, 0}, decoder);
    const double ild = db(energy(left[0]) / energy(left[1]));
    const int itd = lead_of_left(left[0], left[1]);
    RecordProperty("ild_db_left", std::to_string(ild));
    RecordProperty("itd_samples_left", std::to_string(itd));
    EXPECT_GT(ild, 3.0);
    EXPECT_GE(itd, 10);  // about 0.2 ms or more at 48 kHz
    const auto right = render_plane_wave({0, -1, 0}, decoder);
    // Mirrored, up to the small left/right differences of libmysofa's interpolation between the
    // measured directions (0.55 dB here).
    EXPECT_NEAR(db(energy(right[1]) / energy(right[0])), ild, 1.0);
    EXPECT_LE(std::abs(lead_of_left(right[0], right[1]) + itd), 1);
}

TEST(Binaural, FrontAndBackBehaveAsTheHrtfSetDoes) {
    REQUIRE_DEFAULT_SOFA();
    const HrtfSet hrtf(HrtfSet::default_file(), kFs);
    const auto decoder = auralize::make_foa_binaural_decoder(hrtf);
    const auto front = render_plane_wave({1, 0, 0}, decoder);
    const auto back = render_plane_wave({-1, 0, 0}, decoder);
    // The set: no interaural difference straight ahead or behind.
    const auto h_front = hrtf.hrir({1, 0, 0}), h_back = hrtf.hrir({-1, 0, 0});
    const double set_ild_front = db(energy(h_front[0]) / energy(h_front[1]));
    const double set_ild_back = db(energy(h_back[0]) / energy(h_back[1]));
    EXPECT_NEAR(db(energy(front[0]) / energy(front[1])), set_ild_front, 0.5);
    EXPECT_NEAR(db(energy(back[0]) / energy(back[1])), set_ild_back, 0.5);
    EXPECT_LE(std::abs(lead_of_left(front[0], front[1])), 1);
    EXPECT_LE(std::abs(lead_of_left(back[0], back[1])), 1);
    // Front and back differ in the 1-4 kHz band (pinna and head shadow) with the sign the set has.
    const double set_fb =
        db(band_energy(h_front[0], 1000, 4000) / band_energy(h_back[0], 1000, 4000));
    const double fb = db(band_energy(front[0], 1000, 4000) / band_energy(back[0], 1000, 4000));
    RecordProperty("set_front_back_db", std::to_string(set_fb));
    RecordProperty("render_front_back_db", std::to_string(fb));
    ASSERT_GT(std::fabs(set_fb), 1.0) << "the set should tell front from back in this band";
    EXPECT_GT(fb * set_fb, 0.0) << "rendering " << fb << " dB, set " << set_fb << " dB";
}

// The diffuse-field equaliser: the decoder's mean power over directions is flat (0 dB) within
// +-1 dB from 100 Hz to 16 kHz.
TEST(Binaural, DecoderIsDiffuseFieldFlat) {
    REQUIRE_DEFAULT_SOFA();
    const HrtfSet hrtf(HrtfSet::default_file(), kFs);
    const auto decoder = auralize::make_foa_binaural_decoder(hrtf);
    const size_t n = decoder.filters[0][0].size();
    std::array<std::array<std::vector<std::complex<double>>, 2>, 4> spec;
    for (size_t acn = 0; acn < 4; ++acn)
        for (size_t ear = 0; ear < 2; ++ear)
            spec[acn][ear] = real_fft(to_double(decoder.filters[acn][ear]), n);
    std::vector<double> power(n / 2 + 1, 0.0);
    const size_t count = 500;  // not the equaliser's own directions
    for (size_t i = 0; i < count; ++i) {
        const double z = 1 - (2 * static_cast<double>(i) + 1) / count;
        const double r = std::sqrt(1 - z * z), phi = 2.39996 * static_cast<double>(i);
        const std::array<double, 4> e = {1, r * std::sin(phi), z, r * std::cos(phi)};
        for (size_t ear = 0; ear < 2; ++ear)
            for (size_t k = 0; k < power.size(); ++k) {
                std::complex<double> s = 0;
                for (size_t acn = 0; acn < 4; ++acn)
                    s += e[acn] * spec[acn][ear][k];
                power[k] += std::norm(s) / (2.0 * count);
            }
    }
    double worst = 0;
    for (size_t k = 0; k < power.size(); ++k) {
        const double f = static_cast<double>(k) * kFs / static_cast<double>(n);
        if (f >= 100 && f <= 16000) worst = std::max(worst, std::fabs(db(power[k])));
    }
    RecordProperty("diffuse_field_worst_db", std::to_string(worst));
    EXPECT_LT(worst, 1.0);
}

TEST(Binaural, FilesThatAreNotSofaSetsAreRefused) {
    ScratchDir dir;
    const auto expect_refused = [&](const std::filesystem::path& f, const std::string& needle) {
        try {
            const HrtfSet h(f, kFs);
            ADD_FAILURE() << f << " accepted";
        } catch (const InputError& e) {
            const std::string m = e.what();
            EXPECT_NE(m.find(f.filename().string()), std::string::npos) << m;
            EXPECT_NE(m.find(needle), std::string::npos) << m;
        }
    };
    expect_refused(dir / "missing.sofa", "no such file");
    expect_refused(dir.write("text.sofa", "not a sofa file at all"), "not a SOFA file");
    // HDF5, but an Ardent grid rather than an HRTF set.
    ASSERT_TRUE(write_grid_file(dir / "grid.sofa",
                                plane_wave_grid({1, 0, 0}, {0, 0, 0}, 0.1, kFs, 64), kFs, 0.1));
    expect_refused(dir / "grid.sofa", "SOFA");
    if (std::filesystem::exists(HrtfSet::default_file())) {
        // The real set cut short.
        std::ifstream in(HrtfSet::default_file(), std::ios::binary);
        std::string head(40000, '\0');
        in.read(head.data(), static_cast<std::streamsize>(head.size()));
        expect_refused(dir.write("cut.sofa", head), "cut.sofa");
    }
}

}  // namespace
}  // namespace ardent::test

namespace ardent::test {
namespace {

// An impulse from `from` (model axes) encoded in AmbiX of `order`: each channel the impulse times
// its plane-wave gain.
std::vector<std::vector<float>> ambix_impulse(Vec3 from, int order, size_t length = 2048) {
    std::vector<std::vector<float>> ch(ambisonic_channels(order), std::vector<float>(length));
    for (size_t c = 0; c < ch.size(); ++c)
        ch[c][64] = static_cast<float>(ambix_gain(c, from));
    return ch;
}

// Third-order rotation: an impulse encoded from a direction in the model's axes, turned to a
// listener's frame, is the impulse encoded from that direction in the listener's axes, in every
// channel; first order is exactly rotate_foa's. Orientations and directions from a printed seed.
TEST(HigherOrderAmbisonics, RotationTurnsEveryDirection) {
    const unsigned seed = 3101;
    std::mt19937 rng(seed);
    std::normal_distribution<double> n(0, 1);
    double worst = 0;
    for (int i = 0; i < 8; ++i) {
        const Vec3 front{n(rng), n(rng), n(rng)}, up0{n(rng), n(rng), n(rng)};
        Vec3 from{n(rng), n(rng), n(rng)};
        from = from * (1 / norm(from));
        auralize::Orientation o;
        o.front = {front.x, front.y, front.z};
        o.up = {up0.x, up0.y, up0.z};
        const auralize::ListenerAxes axes = auralize::listener_axes(o);
        const Vec3 local{axes.front[0] * from.x + axes.front[1] * from.y + axes.front[2] * from.z,
                         axes.left[0] * from.x + axes.left[1] * from.y + axes.left[2] * from.z,
                         axes.up[0] * from.x + axes.up[1] * from.y + axes.up[2] * from.z};
        const auto turned = auralize::rotate_ambix(ambix_impulse(from, 3), o);
        for (size_t c = 0; c < 16; ++c)
            worst = std::max(worst,
                             std::abs(static_cast<double>(turned[c][64]) - ambix_gain(c, local)));
        const auto first = auralize::rotate_ambix(ambix_impulse(from, 1), o);
        auralize::FoaIr foa;
        const auto in = ambix_impulse(from, 1);
        for (size_t c = 0; c < 4; ++c)
            foa.channels[c] = in[c];
        const auto want = auralize::rotate_foa(foa, o);
        for (size_t c = 0; c < 4; ++c)
            EXPECT_EQ(first[c], want.channels[c]);
    }
    std::printf("seed %u: 8 orientations and directions, third order: largest channel error %.2e\n",
                seed, worst);
    EXPECT_LT(worst, 2e-3);
}

// The third-order binaural decoder: its first-order case is the first-order decoder's filters; a
// plane wave from the left is louder at the left ear, and more so above 3 kHz at third order
// than at first (the higher order resolves the direction where the head's shadow is sharp); from
// the front the ears differ as the HRTF set's own do.
TEST(HigherOrderAmbisonics, ThirdOrderBinauralLateralisesMoreThanFirstOrder) {
    REQUIRE_DEFAULT_SOFA();
    const HrtfSet hrtf(HrtfSet::default_file(), kFs);
    const auto foa = auralize::make_foa_binaural_decoder(hrtf);
    const auto first = auralize::make_binaural_decoder(hrtf, 1);
    for (size_t c = 0; c < 4; ++c)
        for (size_t e = 0; e < 2; ++e)
            EXPECT_EQ(first.filters[c][e], foa.filters[c][e]);
    const auto third = auralize::make_binaural_decoder(hrtf, 3);
    ASSERT_EQ(third.filters.size(), 16u);
    const auto ild = [&](Vec3 from, int order, const auralize::AmbisonicBinauralDecoder& d) {
        const auto ears = auralize::binaural_ir(ambix_impulse(from, order), kFs, d);
        return db(band_energy(ears[0], 3000, 12000) / band_energy(ears[1], 3000, 12000));
    };
    const double side1 = ild({0, 1, 0}, 1, first), side3 = ild({0, 1, 0}, 3, third);
    const double front1 = ild({1, 0, 0}, 1, first), front3 = ild({1, 0, 0}, 3, third);
    std::printf(
        "ILD 3-12 kHz from the left: first order %.1f dB, third %.1f dB; from the front "
        "%.1f and %.1f dB\n",
        side1, side3, front1, front3);
    EXPECT_GT(side1, 3.0);
    EXPECT_GT(side3, side1 + 2.0);
    // The set's own level difference for a source in front (KEMAR is not quite symmetric).
    const auto h_front = hrtf.hrir({1, 0, 0});
    const double set_front =
        db(band_energy(h_front[0], 3000, 12000) / band_energy(h_front[1], 3000, 12000));
    std::printf("the HRTF set's own ILD 3-12 kHz in front: %.1f dB\n", set_front);
    EXPECT_NEAR(front3, set_front, 1.5);
}

}  // namespace
}  // namespace ardent::test
