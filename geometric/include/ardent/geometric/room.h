// The room as the geometric engine sees it: the scene's triangles in an Embree scene (ray
// queries, thread-safe), each with its material's octave-band absorption and scattering, and the
// planes the triangles lie on (image sources reflect across planes, not triangles). Coordinates
// are the scene's model coordinates in metres, as for sources and receivers.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "ardent/geometric/bands.h"
#include "ardent/preprocess/mesh.h"
#include "ardent/preprocess/scene.h"
#include "ardent/preprocess/vec.h"

namespace ardent::geometric {

struct Plane {
    Vec3 normal;    // unit
    double offset;  // normal . x = offset on the plane
    Vec3 mirror(Vec3 p) const { return p - normal * (2 * (dot(normal, p) - offset)); }
};

struct Hit {
    double distance = 0;  // along the ray's unit direction
    uint32_t triangle = 0;
    Vec3 normal;  // the triangle's unit normal, facing the ray's origin
};

class Room {
  public:
    // `group_material`: the material index of each mesh group (map_surfaces). `volume` (m^3): the
    // room's air, where the caller knows it (preprocessing's mesh_volume: a model whose walls
    // have two skins encloses only the walls' own volume by the divergence theorem); 0: the
    // volume the mesh's triangles enclose.
    Room(const TriangleMesh& mesh, const std::vector<int>& group_material,
         const std::vector<Material>& materials, double volume = 0);
    ~Room();
    Room(const Room&) = delete;
    Room& operator=(const Room&) = delete;

    // The nearest surface along `direction` (unit) within (epsilon(), max_distance].
    std::optional<Hit> intersect(Vec3 origin, Vec3 direction, double max_distance) const;
    // True when a surface lies strictly between a and b (ends excluded by epsilon()).
    bool occluded(Vec3 a, Vec3 b) const;
    // The same from one point `a` to each of n points, as packets of up to kPacket rays (a
    // reflection's rain to its receivers: one origin, so they traverse the hierarchy together).
    static constexpr size_t kPacket = 16;
    void occluded_from(Vec3 a, const Vec3* b, size_t n, uint8_t* hidden) const;  // 1: occluded

    const SurfaceBands& surface(uint32_t triangle) const {
        return surfaces_[triangle_surface_[triangle]];
    }
    uint32_t plane_of(uint32_t triangle) const { return triangle_plane_[triangle]; }
    Vec3 normal(uint32_t triangle) const { return normals_[triangle]; }  // unit, as wound
    const std::array<Vec3, 3>& corners(uint32_t triangle) const { return corners_[triangle]; }
    const Plane& plane(uint32_t id) const { return planes_[id]; }
    size_t plane_count() const { return planes_.size(); }
    size_t triangle_count() const { return triangle_plane_.size(); }

    // Distance a query starts past its origin, so a ray leaving a surface does not hit it again.
    double epsilon() const { return epsilon_; }
    double volume() const { return volume_; }  // the room's air (m^3)
    double area() const { return area_; }      // of all triangles (m^2)
    const Box3& bounds() const { return bounds_; }

  private:
    struct Embree;
    std::unique_ptr<Embree> embree_;
    std::vector<SurfaceBands> surfaces_;      // per material
    std::vector<uint32_t> triangle_surface_;  // material index per triangle
    std::vector<uint32_t> triangle_plane_;    // plane id per triangle
    std::vector<Plane> planes_;
    std::vector<Vec3> normals_;  // unit normal per triangle (as wound)
    std::vector<std::array<Vec3, 3>> corners_;
    double epsilon_ = 1e-4, volume_ = 0, area_ = 0;
    Box3 bounds_;
};

}  // namespace ardent::geometric
