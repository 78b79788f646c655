// A small, fast random stream for Monte Carlo rays: SplitMix64 (Steele, Lea, Flood 2014), one
// stream per ray so that the rays' paths do not depend on which thread traced them.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>
#include <utility>

#include "ardent/preprocess/vec.h"

namespace ardent::geometric {

// Two unit vectors that make an orthonormal basis with the unit vector n (Duff et al. 2017).
inline std::pair<Vec3, Vec3> basis_around(Vec3 n) {
    const double s = std::copysign(1.0, n.z), a = -1 / (s + n.z), b = n.x * n.y * a;
    return {Vec3{1 + s * n.x * n.x * a, s * b, -s * n.x}, Vec3{b, s + n.y * n.y * a, -n.y}};
}

class Random {
  public:
    Random(uint64_t seed, uint64_t stream) : state_(seed ^ (stream * 0x9E3779B97F4A7C15ull)) {
        next();
    }
    uint64_t next() {
        uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
    // A direction uniform on the sphere.
    Vec3 sphere() {
        const double z = 2 * uniform() - 1, phi = 2 * std::numbers::pi * uniform();
        const double r = std::sqrt(std::max(0.0, 1 - z * z));
        return {r * std::cos(phi), r * std::sin(phi), z};
    }
    // A direction in the hemisphere around the unit normal n, with density cos(theta) / pi.
    Vec3 lambert(Vec3 n) {
        const double u = uniform(), phi = 2 * std::numbers::pi * uniform();
        const double r = std::sqrt(u), z = std::sqrt(std::max(0.0, 1 - u));
        const auto [t1, t2] = basis_around(n);
        return t1 * (r * std::cos(phi)) + t2 * (r * std::sin(phi)) + n * z;
    }

  private:
    uint64_t state_;
};

inline Vec3 reflect(Vec3 d, Vec3 n) {
    return d - n * (2 * dot(d, n));
}

inline Vec3 unit(Vec3 v) {
    return v * (1.0 / norm(v));
}

}  // namespace ardent::geometric
