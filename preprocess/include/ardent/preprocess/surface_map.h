// Mapping a mesh's surface groups to the scene's materials by the `surfaces` globs (first match
// in file order wins; a glob matches a group's material name or its node name).
#pragma once

#include <vector>

#include "ardent/preprocess/mesh.h"
#include "ardent/preprocess/scene.h"

namespace ardent {

// Material index (into scene.materials) per mesh group. Throws InputError listing every group no
// pattern matches.
std::vector<int> map_surfaces(const Scene& scene, const TriangleMesh& mesh);

// True when `name` matches the glob `pattern` (*, ?, [...]).
bool glob_match(const std::string& pattern, const std::string& name);

}  // namespace ardent
