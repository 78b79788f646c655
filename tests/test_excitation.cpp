// The source signal and the IR convention (spec section 4): the excitation kernel is flat within
// +-0.5 dB from 0.05 to 0.8 f_max, has no DC and nothing above f_max; the equalised samples ARD
// injects differ from it only by the mode update's known gain; and through the real solver the
// free-field direct pulse carries 1/(4 pi r) per sample across the flat band.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>
#include <vector>

#include "ardent/preprocess/preprocess.h"
#include "ardent/preprocess/scene_parser.h"
#include "ardent/solvers/excitation.h"
#include "ardent/solvers/solver.h"
#include "signal_tools.h"

namespace ardent {
namespace {

// DTFT of samples x (period dt) at frequency f.
std::complex<double> dtft(const std::vector<double>& x, double dt, double f) {
    std::complex<double> s = 0;
    for (size_t n = 0; n < x.size(); ++n)
        s += x[n] * std::polar(1.0, -2 * std::numbers::pi * f * static_cast<double>(n) * dt);
    return s;
}

std::vector<double> sampled(const Excitation& g, double dt) {
    std::vector<double> x(static_cast<size_t>(std::ceil(2 * g.delay() / dt)) + 1);
    for (size_t n = 0; n < x.size(); ++n)
        x[n] = g(static_cast<double>(n) * dt);
    return x;
}

TEST(Excitation, FlatInBandSilentAtDcAndAboveFmax) {
    const double f_max = 1000, dt = 0.25 * 343.0 / (2.6 * f_max) / 343.0;
    const Excitation g = Excitation::for_band(f_max, dt);
    const std::vector<double> x = sampled(g, dt);
    double worst_db = 0;
    for (double f = 0.05 * f_max; f <= 0.8 * f_max; f += 5)
        worst_db = std::max(worst_db, std::abs(20 * std::log10(std::abs(dtft(x, dt, f)))));
    EXPECT_LT(worst_db, 0.5) << "flat band";
    EXPECT_LT(std::abs(dtft(x, dt, 0.0)), 1e-12) << "DC";
    for (double f = f_max; f <= 1.3 * f_max; f += 10)
        EXPECT_LT(std::abs(dtft(x, dt, f)), 2e-3) << f << " Hz";
    // Symmetric about its centre, so it leaves no pressure offset in a closed room.
    for (double t = 0; t < g.delay(); t += g.delay() / 37)
        EXPECT_NEAR(g(g.delay() - t), g(g.delay() + t), 1e-12);
}

TEST(Excitation, SamplesAreTheKernelAtTheStep) {
    const double f_max = 500, dt = 0.25 * 343.0 / (2.6 * f_max) / 343.0;
    const Excitation g = Excitation::for_band(f_max, dt);
    const std::vector<double> x = sampled(g, dt), y = g.samples(dt);
    ASSERT_EQ(x.size(), y.size());
    for (size_t n = 0; n < x.size(); ++n)
        EXPECT_EQ(x[n], y[n]) << n;
}

// A large rigid box; the direct pulse is windowed before the first reflection arrives.
TEST(IrConvention, FreeFieldDirectPulseIsOneOverFourPiR) {
    const double f_max = 500;
    const Scene s = parse_scene(R"({"format": "ardent-scene/1",
        "geometry": {"box": [16, 16, 16]},
        "materials": {"rigid": {"absorption": 0}}, "surfaces": {"*": "rigid"},
        "sources": [{"name": "S", "position": [8, 8, 8]}],
        "receivers": [{"name": "R", "position": [9.6, 8.6, 8.3]}],
        "simulation": {"max_frequency": 500}})",
                                "/tmp/ir-convention.json");
    const Preprocessed p = preprocess(s);
    SolverOptions o;
    o.listener_grid = false;
    auto solver = make_solver(p, o);
    const double dt = solver->dt();
    const Vec3 d = p.air.receivers[0].cell_centre - p.air.sources[0].cell_centre;
    const double r = norm(d), c = s.simulation.speed_of_sound;
    // The nearest wall is 8 m away: the first reflection arrives 14 m later than the direct
    // sound, after the kernel's pulse has rung down to -60 dB around its centre.
    const size_t centre =
        static_cast<size_t>(std::llround((solver->excitation().delay() + r / c) / dt));
    const size_t half = static_cast<size_t>(0.02 / dt);  // +-20 ms keeps 0.2-0.8 f_max resolvable
    solver->advance(centre + half + 1);
    const std::vector<double>& y = solver->receivers()[0];
    std::vector<double> pulse(y.begin() + static_cast<long>(centre - half),
                              y.begin() + static_cast<long>(centre + half + 1));
    for (size_t n = 0; n < pulse.size(); ++n)  // Hann taper against the window's edges
        pulse[n] *= 0.5 - 0.5 * std::cos(2 * std::numbers::pi * static_cast<double>(n) /
                                         static_cast<double>(pulse.size() - 1));
    double worst_db = 0;
    for (double f = 0.2 * f_max; f <= 0.8 * f_max; f += 10) {
        const double level = std::abs(dtft(pulse, dt, f)) * 4 * std::numbers::pi * r;
        worst_db = std::max(worst_db, std::abs(20 * std::log10(level)));
    }
    std::printf(
        "[ measured ] free-field direct pulse, r = %.3f m: |H| 4 pi r within %.2f dB of 1 "
        "over 0.2-0.8 f_max\n",
        r, worst_db);
    EXPECT_LT(worst_db, 0.5);
}

}  // namespace
}  // namespace ardent
