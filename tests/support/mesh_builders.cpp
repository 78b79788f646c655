#include "mesh_builders.h"

#include <cmath>
#include <sstream>

namespace ardent::test {

void add_box(TriangleMesh& m, Vec3 lo, Vec3 hi, const std::string& group, bool inward, int n,
             const std::function<bool(int, int, int)>& skip) {
    uint32_t g = 0;
    while (g < m.groups.size() && m.groups[g].node != group)
        ++g;
    if (g == m.groups.size()) m.groups.push_back({group, group});
    int face = 0;
    for (int axis = 0; axis < 3; ++axis) {
        const int u = (axis + 1) % 3, v = (axis + 2) % 3;
        for (int side = 0; side < 2; ++side, ++face) {
            // Outward normal along +axis for side 1; (u, v, axis) is right-handed.
            const bool flip = (side == 0) != inward;
            for (int qv = 0; qv < n; ++qv)
                for (int qu = 0; qu < n; ++qu) {
                    if (skip && skip(face, qu, qv)) continue;
                    auto corner = [&](int du, int dv) {
                        Vec3 p;
                        p[axis] = side ? hi[axis] : lo[axis];
                        p[u] = lo[u] + (hi[u] - lo[u]) * (qu + du) / n;
                        p[v] = lo[v] + (hi[v] - lo[v]) * (qv + dv) / n;
                        m.vertices.push_back(p);
                        return static_cast<uint32_t>(m.vertices.size() - 1);
                    };
                    const uint32_t a = corner(0, 0), b = corner(1, 0), c = corner(1, 1),
                                   d = corner(0, 1);
                    if (flip) {
                        m.triangles.push_back({{a, c, b}, g});
                        m.triangles.push_back({{a, d, c}, g});
                    } else {
                        m.triangles.push_back({{a, b, c}, g});
                        m.triangles.push_back({{a, c, d}, g});
                    }
                }
        }
    }
}

void rotate(TriangleMesh& m, Vec3 c, double rz, double rx) {
    for (Vec3& p : m.vertices) {
        Vec3 q = p - c;
        Vec3 r{q.x * std::cos(rz) - q.y * std::sin(rz), q.x * std::sin(rz) + q.y * std::cos(rz),
               q.z};
        q = {r.x, r.y * std::cos(rx) - r.z * std::sin(rx), r.y * std::sin(rx) + r.z * std::cos(rx)};
        p = q + c;
    }
}

std::array<Vec3, 8> box_corners(Vec3 lo, Vec3 hi) {
    std::array<Vec3, 8> c;
    for (int i = 0; i < 8; ++i)
        c[static_cast<size_t>(i)] = {i & 4 ? hi.x : lo.x, i & 2 ? hi.y : lo.y, i & 1 ? hi.z : lo.z};
    return c;
}

std::string hexahedron_obj(const std::array<Vec3, 8>& corners, const std::string& material,
                           bool inward, int first_vertex) {
    std::ostringstream obj;
    obj.precision(10);
    obj << "usemtl " << material << "\n";
    for (const Vec3& c : corners)
        obj << "v " << c.x << " " << c.y << " " << c.z << "\n";
    const int quads[6][4] = {{0, 1, 3, 2}, {4, 6, 7, 5}, {0, 4, 5, 1},
                             {2, 3, 7, 6}, {0, 2, 6, 4}, {1, 5, 7, 3}};
    for (const auto& q : quads) {
        const int a = first_vertex + q[0] + 1, b = first_vertex + q[1] + 1,
                  c = first_vertex + q[2] + 1, d = first_vertex + q[3] + 1;
        if (inward)
            obj << "f " << a << " " << b << " " << c << "\nf " << a << " " << c << " " << d << "\n";
        else
            obj << "f " << a << " " << c << " " << b << "\nf " << a << " " << d << " " << c << "\n";
    }
    return obj.str();
}

Scene simple_scene(Vec3 source, double max_frequency, double alpha) {
    Scene s;
    s.name = "test";
    Material m;
    m.name = "wall";
    m.set_uniform(alpha);
    s.materials.push_back(m);
    s.surfaces.push_back({"*", "wall"});
    s.sources.push_back({"S1", source});
    s.simulation.max_frequency = max_frequency;
    s.simulation.band = "wave";  // the solvers' own band: what these tests judge
    return s;
}

}  // namespace ardent::test
