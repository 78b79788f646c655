// A geometric Room of one rigid, non-scattering material over a whole mesh: for the tests of the
// image sources' geometry (test_fresnel, test_reflection_edges), where every path's factor is
// then what the geometry leaves of it.
#pragma once

#include <memory>
#include <vector>

#include "ardent/geometric/room.h"
#include "ardent/preprocess/mesh.h"
#include "ardent/preprocess/scene.h"

namespace ardent::test {

inline std::unique_ptr<geometric::Room> rigid_room(const TriangleMesh& mesh) {
    Material m;
    m.name = "hard";
    m.set_uniform(0.0);
    m.scattering = {{0, 0.0}};
    return std::make_unique<geometric::Room>(mesh, std::vector<int>(mesh.groups.size(), 0),
                                             std::vector<Material>{m});
}

}  // namespace ardent::test
