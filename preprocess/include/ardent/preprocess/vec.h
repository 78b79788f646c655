// Small 3-vector and axis-aligned box types in double precision, shared by the importer, the
// voxelizer and the decomposition. Geometry is kept in double so that cell classification does not
// depend on float rounding of model coordinates (models are often tens of metres with mm detail).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace ardent {

struct Vec3 {
    double x = 0, y = 0, z = 0;

    double& operator[](int a) { return a == 0 ? x : (a == 1 ? y : z); }
    double operator[](int a) const { return a == 0 ? x : (a == 1 ? y : z); }
    friend Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
    friend Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
    friend Vec3 operator*(Vec3 a, double s) { return {a.x * s, a.y * s, a.z * s}; }
    friend Vec3 operator*(double s, Vec3 a) { return a * s; }
    friend bool operator==(const Vec3&, const Vec3&) = default;
    friend auto operator<=>(const Vec3&, const Vec3&) = default;
};

inline double dot(Vec3 a, Vec3 b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
inline Vec3 cross(Vec3 a, Vec3 b) {
    return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline double norm(Vec3 a) {
    return std::sqrt(dot(a, a));
}

struct Box3 {
    Vec3 lo{std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
            std::numeric_limits<double>::infinity()};
    Vec3 hi{-std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
            -std::numeric_limits<double>::infinity()};

    void expand(Vec3 p) {
        for (int a = 0; a < 3; ++a) {
            lo[a] = std::min(lo[a], p[a]);
            hi[a] = std::max(hi[a], p[a]);
        }
    }
    bool empty() const { return !(lo.x <= hi.x && lo.y <= hi.y && lo.z <= hi.z); }
    Vec3 size() const { return hi - lo; }
    bool contains(Vec3 p) const {
        return p.x >= lo.x && p.x <= hi.x && p.y >= lo.y && p.y <= hi.y && p.z >= lo.z &&
               p.z <= hi.z;
    }
};

using Index3 = std::array<int, 3>;

}  // namespace ardent
