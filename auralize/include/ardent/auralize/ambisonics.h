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
// The limit: the central difference (p(x + d) - p(x - d)) / 2d of a plane wave along an axis is
// sin(kd)/d instead of k. Its sign stays right up to kd = pi, but the loss grows with kd and
// depends on the direction, which bends directions towards the diagonals. The loss is made up
// on average over directions (a diffuse-field gain, the same for the three axes, so directions
// are untouched), and the dipoles are kept up to kd = 2.4, faded out from kd = 1.92: plane-wave
// directions are then within 4.4 degrees at kd = 1.21 and 13 degrees at kd = 1.93. Listener grids
// of format 2 store the gradient from the cells next to each grid point (d = the simulation's
// cell size h = c / (2.6 f_max) for ARD), so kd = 1.93 is 0.8 f_max, the top of the band the IRs
// are flat in: directions across the band. Older grids (format 1) only have the grid points
// themselves, d = h * every; every 8 cells at 1 kHz (d about 1 m) gives directions up to about
// 120 Hz. A one-sided difference (at a wall) is also half a step off centre, a phase error of
// kd/2, so there the dipoles stop at kd = 1. docs/auralization.md explains the choices.
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

// The listener's unit front, left and up axes in the model's coordinates: `up` made perpendicular
// to `front`, left = up x front. Throws std::invalid_argument for a zero or non-finite axis (also
// `up` parallel to `front`).
struct ListenerAxes {
    Point front, left, up;
};
ListenerAxes listener_axes(const Orientation& orientation);

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
    // The grid points the IR was formed from and their weights (sum 1): the point alone for
    // encode_foa, the corners around the listener for encode_foa_interpolated; `grid_point` is
    // the heaviest of them.
    std::vector<IrGrid::Weight> blend;
};

// kd up to which the dipoles are kept: for central differences (faded out from 0.8 of it), and
// where any axis has a one-sided difference.
inline constexpr double kCentralKdLimit = 2.4;
inline constexpr double kOneSidedKdLimit = 1.0;

// kd_limit c / (2 pi d): the frequency where kd reaches `kd_limit` (default: kd = 1, where the
// central difference over +-d is 1.5 dB low).
double directional_limit_hz(double spacing, double speed_of_sound = kSpeedOfSound,
                            double kd_limit = 1.0);

// The diffuse-field gain that makes up the loss of a central difference over +-d:
// sqrt((kd)^2 / 3 / (1/2 - sin(2 kd) / (4 kd))), 1 at kd = 0 (the mean of sin^2(kd cos t) over
// the sphere against that of (kd cos t)^2).
double central_difference_gain(double kd);

// From the pressure IR and the three gradient IRs along the model axes (same length and rate),
// the dipoles kept up to `limit_hz`. When `difference_spacing` d > 0 the gradients are central
// differences over +-d and get central_difference_gain(kd). Throws std::invalid_argument for
// mismatched lengths or a degenerate orientation.
FoaIr encode_foa(std::span<const float> pressure, const std::array<std::vector<float>, 3>& gradient,
                 double sample_rate, double limit_hz, const Orientation& orientation,
                 double speed_of_sound = kSpeedOfSound, double difference_spacing = 0);

// A first-order AmbiX IR whose dipoles lie along the model's axes (X along x, Y along y, Z along
// z: how an AmbiX IR file is read) turned to the listener's frame: X' = front.(X, Y, Z),
// Y' = left.(X, Y, Z), Z' = up.(X, Y, Z); W and the other fields are kept. The default
// orientation (front +x, up +z) gives an exact copy. std::invalid_argument as listener_axes().
FoaIr rotate_foa(const FoaIr& model_axes, const Orientation& orientation);

// An AmbiX IR of any order up to 3 ((N + 1)^2 channels, ACN, SN3D, equal lengths) whose axes are
// the model's, turned to the listener's frame as rotate_foa turns a first-order one: each order's
// channels mix among themselves by the rotation's spherical-harmonic matrix (computed by
// quadrature over 4 000 directions; first order: exactly rotate_foa's). std::invalid_argument for a
// channel count that is no order's square, unequal lengths or a degenerate orientation.
std::vector<std::vector<float>> rotate_ambix(const std::vector<std::vector<float>>& model_axes,
                                             const Orientation& orientation);

// At the grid point nearest `listener`: its IR as W, and the gradient: the stored one-cell
// differences of a format-2 grid, else differences between grid points (central, one-sided where a
// neighbour is missing). InputError naming the grid file when the listener is outside the grid
// (no point within one grid spacing) or no gradient exists at all.
FoaIr encode_foa(const IrGrid& grid, const Point& listener, const Orientation& orientation,
                 double speed_of_sound = kSpeedOfSound);

// Between grid points: the pressure and gradient IRs interpolated trilinearly over the corners of
// the lattice cell around `listener` that are grid points (IrGrid::trilinear; weights
// renormalised over those in the air), then encoded as above. An axis's gradient is averaged over
// the corners that have one along it; the dipoles stop at the one-sided limit if any of those is
// one-sided. At a grid point this is encode_foa there, sample for sample. The IRs are summed, not
// shifted in time: the direct sound comes as up to 8 weighted copies at the corners' arrival
// times (docs/auralization.md). The listener must be within one spacing of a grid point, as for
// encode_foa (InputError otherwise); where no corner is in the air, that nearest point alone.
FoaIr encode_foa_interpolated(const IrGrid& grid, const Point& listener,
                              const Orientation& orientation,
                              double speed_of_sound = kSpeedOfSound);

}  // namespace ardent::auralize
