#include "ardent/geometric/room.h"

#include <embree3/rtcore.h>

#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>

#include "ardent/preprocess/errors.h"

namespace ardent::geometric {

struct Room::Embree {
    RTCDevice device = nullptr;
    RTCScene scene = nullptr;
    ~Embree() {
        if (scene) rtcReleaseScene(scene);
        if (device) rtcReleaseDevice(device);
    }
};

namespace {

// Planes are merged when their normals agree to 1e-6 and their offsets to a micrometre per
// metre of room: coplanar triangles of a modelled wall (a polygon split into triangles).
using PlaneKey = std::tuple<long long, long long, long long, long long>;

PlaneKey plane_key(const Plane& p, double size) {
    const auto q = [](double v, double step) { return std::llround(v / step); };
    return {q(p.normal.x, 1e-6), q(p.normal.y, 1e-6), q(p.normal.z, 1e-6),
            q(p.offset, 1e-6 * size)};
}

// The plane with its normal's first non-zero component positive, so both windings give one key.
Plane canonical_plane(Vec3 n, Vec3 on) {
    const double s = n.x != 0 ? n.x : (n.y != 0 ? n.y : n.z);
    if (s < 0) n = n * -1.0;
    return {n, dot(n, on)};
}

}  // namespace

Room::Room(const TriangleMesh& mesh, const std::vector<int>& group_material,
           const std::vector<Material>& materials, double volume)
    : embree_(std::make_unique<Embree>()) {
    for (const Material& m : materials)
        surfaces_.push_back(surface_bands(m));
    bounds_ = mesh.bounds();
    const double size = std::max(1.0, norm(bounds_.size()));
    epsilon_ = 1e-6 * size + 1e-5;
    volume_ = volume > 0 ? volume : mesh.enclosed_volume();

    embree_->device = rtcNewDevice(nullptr);
    if (!embree_->device) throw ResourceError("Embree could not start (rtcNewDevice failed)");
    embree_->scene = rtcNewScene(embree_->device);
    rtcSetSceneFlags(embree_->scene, RTC_SCENE_FLAG_ROBUST);
    RTCGeometry geom = rtcNewGeometry(embree_->device, RTC_GEOMETRY_TYPE_TRIANGLE);
    auto* v = static_cast<float*>(rtcSetNewGeometryBuffer(geom, RTC_BUFFER_TYPE_VERTEX, 0,
                                                          RTC_FORMAT_FLOAT3, 3 * sizeof(float),
                                                          mesh.vertices.size()));
    for (size_t i = 0; i < mesh.vertices.size(); ++i)
        for (int a = 0; a < 3; ++a)
            v[3 * i + static_cast<size_t>(a)] = static_cast<float>(mesh.vertices[i][a]);
    auto* idx = static_cast<unsigned*>(
        rtcSetNewGeometryBuffer(geom, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3,
                                3 * sizeof(unsigned), mesh.triangles.size()));
    std::map<PlaneKey, uint32_t> plane_ids;
    for (size_t t = 0; t < mesh.triangles.size(); ++t) {
        const Triangle& tri = mesh.triangles[t];
        for (size_t k = 0; k < 3; ++k)
            idx[3 * t + k] = tri.v[k];
        const Vec3 a = mesh.vertices[tri.v[0]], b = mesh.vertices[tri.v[1]],
                   c = mesh.vertices[tri.v[2]];
        const Vec3 n = cross(b - a, c - a);
        const double len = norm(n);
        area_ += 0.5 * len;
        const Vec3 unit = len > 0 ? n * (1.0 / len) : Vec3{0, 0, 1};
        normals_.push_back(unit);
        corners_.push_back({a, b, c});
        const Plane p = canonical_plane(unit, a);
        const auto [it, added] =
            plane_ids.emplace(plane_key(p, size), static_cast<uint32_t>(planes_.size()));
        if (added) planes_.push_back(p);
        triangle_plane_.push_back(it->second);
        const int m = group_material.at(tri.group);
        triangle_surface_.push_back(static_cast<uint32_t>(std::max(0, m)));
    }
    // The highest quality of hierarchy (spatial splits): a room's few thousand triangles build in
    // milliseconds, and every one of a run's millions of queries traverses it faster.
    rtcSetGeometryBuildQuality(geom, RTC_BUILD_QUALITY_HIGH);
    rtcCommitGeometry(geom);
    rtcAttachGeometry(embree_->scene, geom);
    rtcReleaseGeometry(geom);
    rtcSetSceneBuildQuality(embree_->scene, RTC_BUILD_QUALITY_HIGH);
    rtcCommitScene(embree_->scene);
    if (rtcGetDeviceError(embree_->device) != RTC_ERROR_NONE)
        throw ResourceError("Embree could not build the room's ray-query structure (" +
                            std::to_string(mesh.triangles.size()) + " triangles)");
}

Room::~Room() = default;

std::optional<Hit> Room::intersect(Vec3 origin, Vec3 direction, double max_distance) const {
    RTCIntersectContext context;
    rtcInitIntersectContext(&context);
    RTCRayHit rh{};
    rh.ray.org_x = static_cast<float>(origin.x);
    rh.ray.org_y = static_cast<float>(origin.y);
    rh.ray.org_z = static_cast<float>(origin.z);
    rh.ray.dir_x = static_cast<float>(direction.x);
    rh.ray.dir_y = static_cast<float>(direction.y);
    rh.ray.dir_z = static_cast<float>(direction.z);
    rh.ray.tnear = static_cast<float>(epsilon_);
    rh.ray.tfar = static_cast<float>(max_distance);
    rh.ray.mask = 0xffffffffu;
    rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
    rtcIntersect1(embree_->scene, &context, &rh);
    if (rh.hit.geomID == RTC_INVALID_GEOMETRY_ID) return std::nullopt;
    Hit h;
    h.distance = static_cast<double>(rh.ray.tfar);
    h.triangle = rh.hit.primID;
    h.normal = normals_[h.triangle];
    if (dot(h.normal, direction) > 0) h.normal = h.normal * -1.0;
    return h;
}

bool Room::occluded(Vec3 a, Vec3 b) const {
    const Vec3 d = b - a;
    const double len = norm(d);
    if (len <= 2 * epsilon_) return false;
    RTCIntersectContext context;
    rtcInitIntersectContext(&context);
    RTCRay ray{};
    ray.org_x = static_cast<float>(a.x);
    ray.org_y = static_cast<float>(a.y);
    ray.org_z = static_cast<float>(a.z);
    ray.dir_x = static_cast<float>(d.x / len);
    ray.dir_y = static_cast<float>(d.y / len);
    ray.dir_z = static_cast<float>(d.z / len);
    ray.tnear = static_cast<float>(epsilon_);
    ray.tfar = static_cast<float>(len - epsilon_);
    ray.mask = 0xffffffffu;
    rtcOccluded1(embree_->scene, &context, &ray);
    return ray.tfar < 0;  // Embree sets tfar to -inf on a hit
}

void Room::occluded_from(Vec3 a, const Vec3* b, size_t n, uint8_t* hidden) const {
    for (size_t first = 0; first < n; first += kPacket) {
        const size_t count = std::min(kPacket, n - first);
        alignas(64) int valid[kPacket];
        RTCRay16 rays{};
        for (size_t i = 0; i < kPacket; ++i) {
            valid[i] = 0;
            if (i >= count) continue;
            const Vec3 d = b[first + i] - a;
            const double len = norm(d);
            hidden[first + i] = 0;
            if (len <= 2 * epsilon_) continue;
            valid[i] = -1;
            rays.org_x[i] = static_cast<float>(a.x);
            rays.org_y[i] = static_cast<float>(a.y);
            rays.org_z[i] = static_cast<float>(a.z);
            rays.dir_x[i] = static_cast<float>(d.x / len);
            rays.dir_y[i] = static_cast<float>(d.y / len);
            rays.dir_z[i] = static_cast<float>(d.z / len);
            rays.tnear[i] = static_cast<float>(epsilon_);
            rays.tfar[i] = static_cast<float>(len - epsilon_);
            rays.mask[i] = 0xffffffffu;
        }
        RTCIntersectContext context;
        rtcInitIntersectContext(&context);
        rtcOccluded16(valid, embree_->scene, &context, &rays);
        for (size_t i = 0; i < count; ++i)
            if (valid[i]) hidden[first + i] = rays.tfar[i] < 0 ? 1 : 0;
    }
}

}  // namespace ardent::geometric
