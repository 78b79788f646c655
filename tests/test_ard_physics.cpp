// ARD's per-cell physics (ard_physics.h): the mode coefficients against their series and the
// exact solution of a forced oscillator.
#include <gtest/gtest.h>

#include <cmath>

#include "ardent/solvers/ard_physics.h"

namespace ardent::ard {
namespace {

// b = 2 (1 - cos x) / w^2 = dt^2 (1 - x^2 / 12 + x^4 / 360 - ...), x = w dt. The slowest mode of
// a 1024-cell partition has x near 1e-3, where 1 - cos x keeps only ten digits in double.
TEST(ArdPhysics, SlowModeCoefficientsKeepFullPrecision) {
    const double dt = 1e-4;
    for (const double x : {1e-5, 1e-4, 1.2e-3, 1e-2}) {
        const double w = x / dt;
        const ModeCoefficients m = mode_coefficients(w, dt);
        const double series = dt * dt * (1 - x * x / 12 + x * x * x * x / 360);
        EXPECT_NEAR(m.b / series, 1.0, 1e-14) << "x = " << x;
        EXPECT_NEAR(m.a, 2 * std::cos(x), 1e-16) << "x = " << x;
    }
}

// Under a constant force f the mode p'' + w^2 p = f has p(t) = (f / w^2)(1 - cos w t) from rest;
// the update is exact for forcing held over each step, so it follows that to rounding.
TEST(ArdPhysics, ModeUpdateIsExactForConstantForcing) {
    const double dt = 1e-4, f = 3.0;
    for (const double w : {0.0, 50.0, 2000.0, 20000.0}) {
        const ModeCoefficients m = mode_coefficients(w, dt);
        auto exact = [&](double t) {
            return w == 0 ? f * t * t / 2 : f / (w * w) * (1 - std::cos(w * t));
        };
        double old = exact(-dt), p = exact(0);  // the even extension: p(-dt) = p(dt)
        for (int n = 1; n <= 1000; ++n) {
            const double next = mode_update(m.a, m.b, p, old, f);
            old = p;
            p = next;
        }
        const double want = exact(1000 * dt);
        EXPECT_NEAR(p, want, 1e-9 * std::abs(want) + 1e-18) << "w = " << w;
    }
}

}  // namespace
}  // namespace ardent::ard
