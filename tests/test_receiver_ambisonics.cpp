// Every receiver's ambisonic IR (docs/output-format.md, "Ambisonic receiver IRs"), read from the
// files `ardent simulate` writes: its W channel is the receiver's IR, and the direct sound comes
// from the source, below the crossover (the wave solver's pressure gradient at the receiver) and
// above it (the geometric engine's arrival directions). Boxes and positions are drawn from
// printed seeds; the first reflection arrives well after the direct sound's window.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ardent/auralize/audio_io.h"
#include "ardent/preprocess/ambix.h"
#include "test_support.h"

namespace {

namespace fs = std::filesystem;
using ardent::test::run_ardent;
using ardent::test::ScratchDir;
using V = std::array<double, 3>;

struct Case {
    V size, source, receiver;
    double distance = 0, first_reflection = 0;  // m
};

double length(V a) {
    return std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
}

// A box 4-8 m wide with the source and receiver in its middle half, redrawn until the shortest
// first-order reflection is at least 1.2 m longer than the direct path.
Case draw(unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    Case c;
    for (;;) {
        for (size_t a = 0; a < 3; ++a) {
            c.size[a] = a == 2 ? 3 + 2 * u(rng) : 4 + 4 * u(rng);
            c.source[a] = c.size[a] * (0.25 + 0.5 * u(rng));
            c.receiver[a] = c.size[a] * (0.25 + 0.5 * u(rng));
        }
        V d{};
        for (size_t a = 0; a < 3; ++a)
            d[a] = c.receiver[a] - c.source[a];
        c.distance = length(d);
        c.first_reflection = 1e9;
        for (size_t a = 0; a < 3; ++a)
            for (double wall : {0.0, c.size[a]}) {
                V m = d;
                m[a] = c.receiver[a] - (2 * wall - c.source[a]);
                c.first_reflection = std::min(c.first_reflection, length(m));
            }
        if (c.distance > 1.5 && c.first_reflection - c.distance > 1.2) break;
    }
    std::printf(
        "seed %u: box %.3f x %.3f x %.3f, source (%.3f, %.3f, %.3f), receiver (%.3f, %.3f, "
        "%.3f), direct %.3f m, first reflection %.3f m\n",
        seed, c.size[0], c.size[1], c.size[2], c.source[0], c.source[1], c.source[2], c.receiver[0],
        c.receiver[1], c.receiver[2], c.distance, c.first_reflection);
    return c;
}

std::string scene(const Case& c, const std::string& band) {
    const auto v = [](V p) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "[%.4f, %.4f, %.4f]", p[0], p[1], p[2]);
        return std::string(buf);
    };
    return R"({"format": "ardent-scene/1", "name": "ambisonic box", "geometry": {"box": )" +
           v(c.size) +
           R"(}, "materials": {"wall": {"absorption": 0.2}}, "surfaces": {"*": "wall"},
  "sources": [{"name": "S1", "position": )" +
           v(c.source) + R"(}], "receivers": [{"name": "R1", "position": )" + v(c.receiver) +
           R"(}], "simulation": {"max_frequency": 500, "duration": 0.12, "band": ")" + band +
           R"("}})";
}

// The angle between the direction to the source and the direct sound's mean intensity
// (W times X, Y, Z summed over `window_s` around the arrival), in degrees.
double direct_angle_deg(const ardent::audio::Audio& a, const Case& c, double window_s) {
    const double t = c.distance / 343.0;
    const auto k0 = static_cast<size_t>(std::max(0.0, (t - window_s) * a.sample_rate));
    const auto k1 = static_cast<size_t>((t + window_s) * a.sample_rate);
    V intensity{};
    const auto m = static_cast<size_t>(a.channels);
    for (size_t k = k0; k < k1 && k < a.frames(); ++k) {
        const double w = a.samples[m * k];
        intensity[0] += w * static_cast<double>(a.samples[m * k + 3]);  // X
        intensity[1] += w * static_cast<double>(a.samples[m * k + 1]);  // Y
        intensity[2] += w * static_cast<double>(a.samples[m * k + 2]);  // Z
    }
    double cosine = 0;
    for (size_t i = 0; i < 3; ++i)
        cosine += intensity[i] * (c.source[i] - c.receiver[i]);
    cosine /= length(intensity) * c.distance;
    return std::acos(std::clamp(cosine, -1.0, 1.0)) * 180 / std::numbers::pi;
}

// The direction of the strongest third-order beam (SN3D plane-wave decomposition, sum over the
// channels of (2n + 1) Y(u) a(t)) in the direct sound's window, over 20 000 directions (1.4
// degrees apart), in degrees from the direction to the source.
double third_order_beam_angle_deg(const ardent::audio::Audio& a, const Case& c, double window_s) {
    const double t = c.distance / 343.0;
    const auto k0 = static_cast<size_t>(std::max(0.0, (t - window_s) * a.sample_rate));
    const auto k1 = static_cast<size_t>((t + window_s) * a.sample_rate);
    const size_t m = 16, q = 20000;
    const double golden = std::numbers::pi * (3 - std::sqrt(5.0));
    double best = -1;
    ardent::Vec3 best_u;
    for (size_t i = 0; i < q; ++i) {
        const double z = 1 - (2 * static_cast<double>(i) + 1) / static_cast<double>(q);
        const double r = std::sqrt(1 - z * z), phi = golden * static_cast<double>(i);
        const ardent::Vec3 u{r * std::cos(phi), r * std::sin(phi), z};
        double g[16];
        for (size_t ch = 0; ch < m; ++ch)
            g[ch] = (2.0 * ardent::ambisonic_order_of_channel(ch) + 1) * ardent::ambix_gain(ch, u);
        double e = 0;
        for (size_t k = k0; k < k1 && k < a.frames(); ++k) {
            double y = 0;
            for (size_t ch = 0; ch < m; ++ch)
                y += g[ch] * static_cast<double>(a.samples[m * k + ch]);
            e += y * y;
        }
        if (e > best) best = e, best_u = u;
    }
    double cosine = 0;
    for (size_t i = 0; i < 3; ++i)
        cosine += best_u[static_cast<int>(i)] * (c.source[i] - c.receiver[i]);
    cosine /= c.distance;
    return std::acos(std::clamp(cosine, -1.0, 1.0)) * 180 / std::numbers::pi;
}

class ReceiverAmbisonics : public testing::TestWithParam<unsigned> {};

TEST_P(ReceiverAmbisonics, DirectSoundComesFromTheSourceInBothHalves) {
    const Case c = draw(GetParam());
    ScratchDir dir;
    for (const std::string band : {"wave", "full"}) {
        dir.write(band + ".json", scene(c, band));
        const auto r = run_ardent("simulate " + band + ".json -o " + band + " --quiet", dir.path());
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const auto ambix = ardent::audio::read_audio(dir / band / "ambix" / "S1_R1.wav");
        const auto mono = ardent::audio::read_audio(dir / band / "ir" / "S1_R1.wav");
        // Third order in a full-band run (above the crossover), first order in a wave-band run.
        const size_t channels = band == "full" ? 16 : 4;
        ASSERT_EQ(static_cast<size_t>(ambix.channels), channels);
        ASSERT_EQ(ambix.frames(), mono.frames());
        for (size_t k = 0; k < mono.frames(); ++k)
            ASSERT_EQ(ambix.samples[channels * k], mono.samples[k])
                << band << ": W differs at " << k;
        std::ifstream in(dir / band / "result.json");
        const auto result = nlohmann::json::parse(in);
        EXPECT_EQ(result["ambix_order"], band == "full" ? 3 : 1);
        EXPECT_EQ(result["files"]["ambix"], nlohmann::json::array({"ambix/S1_R1.wav"}));
        // A full-band run's ISO 3382-1 table says which solver each band came from, and so
        // does `ardent analyze` of its IR (the crossover is at 300 Hz).
        const auto& bands = result["acoustics"][0]["iso3382"]["bands"];
        if (band == "full") {
            EXPECT_EQ(bands.front()["from"], "wave");
            EXPECT_EQ(bands.back()["from"], "geometric");
            const auto a = run_ardent("analyze " + band + "/ir/S1_R1.wav --json", dir.path());
            ASSERT_EQ(a.exit_code, 0) << a.err;
            const auto j = nlohmann::json::parse(a.out);
            EXPECT_EQ(j["crossover_hz"], 300.0);
            EXPECT_EQ(j["bands"], bands);
        } else {
            EXPECT_FALSE(bands.front().contains("from"));
        }
        // The wave band ends at 400 Hz: its direct pulse lasts a few ms, the window with it.
        const double window = band == "wave" ? 2.5e-3 : 1e-3;
        const double angle = direct_angle_deg(ambix, c, window);
        std::printf("  %s band: direct sound %.2f degrees from the source's direction\n",
                    band.c_str(), angle);
        EXPECT_LT(angle, band == "wave" ? 10.0 : 5.0) << band;
        if (band == "full") {
            // Between the cell centres both halves place the pair at (result.json).
            Case cells = c;
            for (size_t i = 0; i < 3; ++i) {
                cells.source[i] = result["sources"][0]["cell_centre"][i].get<double>();
                cells.receiver[i] = result["receivers"][0]["cell_centre"][i].get<double>();
            }
            cells.distance =
                length({cells.source[0] - cells.receiver[0], cells.source[1] - cells.receiver[1],
                        cells.source[2] - cells.receiver[2]});
            const double beam = third_order_beam_angle_deg(ambix, cells, window);
            std::printf(
                "  full band, third order: the strongest beam %.2f degrees from the "
                "source's direction\n",
                beam);
            EXPECT_LT(beam, 2.0);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Seeds, ReceiverAmbisonics, testing::Values(31u, 32u, 33u));

}  // namespace
