// Mapping a mesh's surface groups to the scene's materials by the `surfaces` globs (first match
// in file order wins; a glob matches a group's material name or its node name).
#pragma once

#include <string>
#include <vector>

#include "ardent/preprocess/mesh.h"
#include "ardent/preprocess/scene.h"

namespace ardent {

// Material index (into scene.materials) per mesh group. Throws InputError listing every group no
// pattern matches.
std::vector<int> map_surfaces(const Scene& scene, const TriangleMesh& mesh);

// What in the scene's `surfaces` and `materials` assigns nothing, one warning each (not errors:
// the run is still well defined): a pattern that matches no group of the model ("Floor" for a
// group "floor"; the group it was probably meant for is suggested), a pattern whose groups earlier
// patterns all take, a material that no group gets. `group_material` is map_surfaces' answer.
std::vector<std::string> surface_warnings(const Scene& scene, const TriangleMesh& mesh,
                                          const std::vector<int>& group_material);

// True when `name` matches the glob `pattern` (*, ?, [...]).
bool glob_match(const std::string& pattern, const std::string& name);

}  // namespace ardent
