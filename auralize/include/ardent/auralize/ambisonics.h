// First-order ambisonics (AmbiX: ACN channel order W, Y, Z, X, SN3D normalisation) of a room
// impulse response at a listener, from the pressure there and its gradient, which the listener
// grid gives by finite differences between neighbouring grid points.
//
// The physics: for a plane wave arriving from the unit direction u, p(x, t) = s(t + u.x / c), so
// grad p = (u / c) ds/dt and c * integral(grad p dt) = u p. The dipole channels (X, Y, Z) are
// therefore c times the time integral of the gradient, projected on the listener's front, left and
// up axes, and W is the pressure: exactly SN3D first order for a plane wave (X = cos(az) cos(el) p
// and so on), and the pressure-velocity (W, -rho c v) pair for any field.
//
// The limit: the central difference (p(x + d) - p(x - d)) / 2d of a plane wave along the axis is
// sin(kd)/d instead of k, 1.5 dB low at kd = 1 and meaningless (spatially aliased) beyond kd =
// pi/2. The dipoles are therefore kept only up to the frequency where kd = 1, f = c / (2 pi d),
// and faded out above it; above that limit the rendering is W only, omnidirectional. A grid every
// 8 cells at 1 kHz (d about 1 m) gives directions up to about 50 Hz; every cell (d = 0.13 m) up to
// about 400 Hz. docs/auralization.md explains the choice.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "ardent/auralize/ir_grid.h"

namespace ardent::auralize {

inline constexpr double kSpeedOfSound = 343.0;  // m/s, the solver's default

// The listener's axes in the model's coordinates. `front` and `up` need not be unit length;
// `up` is made perpendicular to `front`. Left is up x front.
struct Orientation {
    Point front{1, 0, 0};
    Point up{0, 0, 1};
};

// ACN channel indices.
enum Acn : size_t { kW = 0, kY = 1, kZ = 2, kX = 3 };

struct FoaIr {
    std::array<std::vector<float>, 4> channels;  // W, Y, Z, X; equal lengths
    double sample_rate = 0;
    double directional_limit_hz = 0;  // dipoles faded out above this
    // Grid rendering only: the grid point used and how its gradient was formed per model axis:
    // 2 central difference, 1 one-sided (a neighbour is missing, e.g. at a wall), 0 none.
    size_t grid_point = 0;
    Point position{};
    std::array<int, 3> difference{};
};

// c / (2 pi d): where the central difference over +-d is 1.5 dB low (kd = 1).
double directional_limit_hz(double spacing, double speed_of_sound = kSpeedOfSound);

// From the pressure IR and the three gradient IRs along the model axes (same length and rate),
// the dipoles kept up to `limit_hz`. Throws std::invalid_argument for mismatched lengths or a
// degenerate orientation.
FoaIr encode_foa(std::span<const float> pressure, const std::array<std::vector<float>, 3>& gradient,
                 double sample_rate, double limit_hz, const Orientation& orientation,
                 double speed_of_sound = kSpeedOfSound);

// At the grid point nearest `listener`: its IR as W, the gradient from its neighbours (central
// differences, one-sided where a neighbour is missing). InputError naming the grid file when the
// listener is outside the grid (no point within one grid spacing) or no neighbour exists at all.
FoaIr encode_foa(const IrGrid& grid, const Point& listener, const Orientation& orientation,
                 double speed_of_sound = kSpeedOfSound);

}  // namespace ardent::auralize
