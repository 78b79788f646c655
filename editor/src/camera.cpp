#include "camera.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace ardent::editor {

std::optional<MeshHit> pick_mesh(const TriangleMesh& mesh, const Ray& ray, int cull) {
    std::optional<MeshHit> best;
    for (size_t t = 0; t < mesh.triangles.size(); ++t) {
        const auto& tri = mesh.triangles[t];
        const Vec3 a = mesh.vertices[tri.v[0]], b = mesh.vertices[tri.v[1]],
                   c = mesh.vertices[tri.v[2]];
        const Vec3 e1 = b - a, e2 = c - a;
        const Vec3 p = cross(ray.direction, e2);
        const double det = dot(e1, p);
        if (std::abs(det) < 1e-14) continue;
        const double inv = 1.0 / det;
        const Vec3 s = ray.origin - a;
        const double u = dot(s, p) * inv;
        if (u < 0 || u > 1) continue;
        const Vec3 q = cross(s, e1);
        const double v = dot(ray.direction, q) * inv;
        if (v < 0 || u + v > 1) continue;
        const double d = dot(e2, q) * inv;
        if (d <= 1e-9 || (best && d >= best->distance)) continue;
        Vec3 n = cross(e1, e2);
        n = n * (1.0 / norm(n));
        if (cull != 0 && cull * dot(n, ray.direction) > 0) continue;
        if (dot(n, ray.direction) > 0) n = n * -1.0;
        best = MeshHit{t, ray.origin + ray.direction * d, n, d};
    }
    return best;
}

int winding_orientation(const TriangleMesh& mesh) {
    double v = 0;
    for (const auto& t : mesh.triangles)
        v += dot(mesh.vertices[t.v[0]], cross(mesh.vertices[t.v[1]], mesh.vertices[t.v[2]]));
    return v > 0 ? 1 : (v < 0 ? -1 : 0);
}

// World frame: x, y horizontal, z up. The model's up axis maps to world z with a cyclic
// permutation, so the model is never mirrored.
QVector3D OrbitCamera::to_world(Vec3 p) const {
    const int a = (up_ + 1) % 3, b = (up_ + 2) % 3;
    return QVector3D(static_cast<float>(p[a]), static_cast<float>(p[b]),
                     static_cast<float>(p[up_]));
}

Vec3 OrbitCamera::from_world(QVector3D w) const {
    Vec3 p;
    p[(up_ + 1) % 3] = w.x();
    p[(up_ + 2) % 3] = w.y();
    p[up_] = w.z();
    return p;
}

void OrbitCamera::fit(const Box3& box) {
    if (box.empty()) return;
    target_ = (box.lo + box.hi) * 0.5;
    const double radius = std::max(0.5 * norm(box.size()), 0.1);
    scene_size_ = 2 * radius;
    distance_ = radius / std::sin(0.5 * fov_ * std::numbers::pi / 180.0) * 1.05;
    yaw_ = -35;
    pitch_ = 35;
}

void OrbitCamera::orbit(double dyaw, double dpitch) {
    yaw_ = std::fmod(yaw_ + dyaw, 360.0);
    pitch_ = std::clamp(pitch_ + dpitch, -89.0, 89.0);
}

void OrbitCamera::zoom(double factor) {
    distance_ = std::clamp(distance_ * factor, 1e-3 * scene_size_, 100.0 * scene_size_);
}

void OrbitCamera::pan(QPointF px, QSize vp) {
    // Moves the target in the view plane so the point under the cursor follows it.
    const double per_pixel = 2.0 * distance_ * std::tan(0.5 * fov_ * std::numbers::pi / 180.0) /
                             std::max(1, vp.height());
    const QMatrix4x4 v = view();
    const QVector3D right(v(0, 0), v(0, 1), v(0, 2));
    const QVector3D up(v(1, 0), v(1, 1), v(1, 2));
    const QVector3D shift = right * static_cast<float>(-px.x() * per_pixel) +
                            up * static_cast<float>(px.y() * per_pixel);
    target_ = from_world(to_world(target_) + shift);
}

Vec3 OrbitCamera::eye() const {
    const double y = yaw_ * std::numbers::pi / 180.0, p = pitch_ * std::numbers::pi / 180.0;
    const QVector3D dir(static_cast<float>(std::cos(p) * std::cos(y)),
                        static_cast<float>(std::cos(p) * std::sin(y)),
                        static_cast<float>(std::sin(p)));
    return from_world(to_world(target_) + dir * static_cast<float>(distance_));
}

QMatrix4x4 OrbitCamera::view() const {
    QMatrix4x4 m;
    m.lookAt(to_world(eye()), to_world(target_), QVector3D(0, 0, 1));
    QMatrix4x4 axes;  // model -> world permutation
    axes.fill(0);
    const int a = (up_ + 1) % 3, b = (up_ + 2) % 3;
    axes(0, a) = 1;
    axes(1, b) = 1;
    axes(2, up_) = 1;
    axes(3, 3) = 1;
    return m * axes;
}

QMatrix4x4 OrbitCamera::projection(QSize vp) const {
    QMatrix4x4 m;
    const double aspect = vp.height() > 0 ? double(vp.width()) / vp.height() : 1.0;
    m.perspective(static_cast<float>(fov_), static_cast<float>(aspect),
                  static_cast<float>(std::max(1e-3, distance_ * 0.01)),
                  static_cast<float>(distance_ + 4 * scene_size_));
    return m;
}

Ray OrbitCamera::ray(QPointF px, QSize vp) const {
    const QMatrix4x4 inv = (projection(vp) * view()).inverted();
    const float x = static_cast<float>(2.0 * px.x() / std::max(1, vp.width()) - 1.0);
    const float y = static_cast<float>(1.0 - 2.0 * px.y() / std::max(1, vp.height()));
    const QVector3D n = inv.map(QVector3D(x, y, -1)), f = inv.map(QVector3D(x, y, 1));
    const Vec3 o{n.x(), n.y(), n.z()}, e{f.x(), f.y(), f.z()};
    Vec3 d = e - o;
    d = d * (1.0 / norm(d));
    // Start at the eye itself (not the near plane) so nothing in front is skipped.
    return Ray{eye(), d};
}

std::optional<QPointF> OrbitCamera::project(Vec3 p, QSize vp) const {
    const QVector4D c =
        projection(vp) * view() *
        QVector4D(static_cast<float>(p.x), static_cast<float>(p.y), static_cast<float>(p.z), 1);
    if (c.w() <= 0) return std::nullopt;
    const double x = c.x() / c.w(), y = c.y() / c.w();
    return QPointF((x + 1) * 0.5 * vp.width(), (1 - y) * 0.5 * vp.height());
}

}  // namespace ardent::editor
