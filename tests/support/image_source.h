// Image-source reference for a rigid rectangular room [0, Lx] x [0, Ly] x [0, Lz]: the exact
// solution of the wave equation with sound-hard walls for a point monopole, as the sum over the
// mirror images of the source (at (+-xs + 2 l Lx, +-ys + 2 m Ly, +-zs + 2 n Lz)) of free-field
// pulses. With a source signal G (the solver's band-limited excitation, c^2 G(t) delta(x)) the
// pressure at the receiver is  p(t) = sum_i G(t - r_i / c) / (4 pi r_i).
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "ardent/preprocess/vec.h"

namespace ardent::test {

struct ImageSourceSetup {
    Vec3 box;       // room sides Lx, Ly, Lz (m), corner at the origin
    Vec3 source;    // inside the room
    Vec3 receiver;  // inside the room
    double c = 343.0;
    // The source signal G(t), zero outside [0, length]; evaluated once on a fine table.
    std::function<double(double)> signal;
    double signal_length = 0;  // s
    double dt = 0;             // sample period of the result
    size_t samples = 0;
    double t0 = 0;  // time of sample 0 (sample n is at t0 + n dt)
};

struct ImageSourceResult {
    std::vector<double> p;  // pressure per sample
    size_t images = 0;      // images that contributed
};

// Sums every image whose pulse reaches the receiver before the last sample. Each image adds G
// only over its support; G is tabulated at dt / oversample and interpolated with a cubic
// (Catmull-Rom): relative error ~3e-5 for the solver excitation at oversample 128.
ImageSourceResult image_source_ir(const ImageSourceSetup& setup, int oversample = 128);

// Free-field pulse alone (the direct sound): one image.
std::vector<double> free_field_ir(const ImageSourceSetup& setup, int oversample = 128);

}  // namespace ardent::test
