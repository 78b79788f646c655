// The 3-D view's orbit camera and picking: orbit about a target with the scene's up axis kept
// vertical on screen, pan, zoom, fit to a box, and the ray under a pixel with its first hit on
// the mesh. Kept apart from the OpenGL widget so tests can check picking without a display.
#pragma once

#include <optional>

#include <QMatrix4x4>
#include <QPointF>
#include <QSize>
#include <QVector3D>

#include "ardent/preprocess/mesh.h"
#include "ardent/preprocess/vec.h"

namespace ardent::editor {

struct Ray {
    Vec3 origin, direction;  // direction of unit length
};

struct MeshHit {
    size_t triangle = 0;
    Vec3 point;
    Vec3 normal;  // unit, facing the ray's origin
    double distance = 0;
};

// First triangle the ray meets (Moller-Trumbore on every triangle: fast enough for the 30 000
// triangles of a concert hall at click and drag rates). `cull` ignores the triangles the view
// culls to show the room's inside through its near walls: +1 those whose winding normal points
// along the ray (away from the eye), -1 those whose normal points back at the eye, 0 none.
std::optional<MeshHit> pick_mesh(const TriangleMesh& mesh, const Ray& ray, int cull = 0);

// +1 when the mesh's winding normals point out of the volume it encloses, -1 when they point in
// (the sign of the divergence-theorem volume), 0 for an empty or flat mesh.
int winding_orientation(const TriangleMesh& mesh);

class OrbitCamera {
  public:
    void set_up_axis(int axis) { up_ = axis; }
    int up_axis() const { return up_; }
    // Looks at the whole box from an elevated three-quarter view.
    void fit(const Box3& box);
    void orbit(double dyaw_deg, double dpitch_deg);
    void pan(QPointF pixels, QSize viewport);
    void zoom(double factor);  // < 1 moves closer

    QMatrix4x4 view() const;
    QMatrix4x4 projection(QSize viewport) const;
    Vec3 eye() const;
    Vec3 target() const { return target_; }
    double distance() const { return distance_; }
    // The ray through a pixel (origin at the eye).
    Ray ray(QPointF pixel, QSize viewport) const;
    // Screen position of a model point (pixels; y down), or nothing when behind the eye.
    std::optional<QPointF> project(Vec3 p, QSize viewport) const;

  private:
    // Model axes -> a right-handed frame whose third axis is the scene's up.
    QVector3D to_world(Vec3 p) const;
    Vec3 from_world(QVector3D w) const;

    int up_ = 2;
    Vec3 target_{};
    double distance_ = 10, yaw_ = -35, pitch_ = 30, fov_ = 45, scene_size_ = 10;
};

}  // namespace ardent::editor
