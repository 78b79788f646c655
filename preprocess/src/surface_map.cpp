#include "ardent/preprocess/surface_map.h"

#include <fnmatch.h>

#include "ardent/preprocess/errors.h"

namespace ardent {

bool glob_match(const std::string& pattern, const std::string& name) {
    return fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
}

std::vector<int> map_surfaces(const Scene& scene, const TriangleMesh& mesh) {
    std::vector<int> out(mesh.groups.size(), -1);
    std::string unmapped;
    size_t count = 0;
    for (size_t g = 0; g < mesh.groups.size(); ++g) {
        const SurfaceGroup& grp = mesh.groups[g];
        for (const SurfaceRule& rule : scene.surfaces) {
            if (glob_match(rule.pattern, grp.material) || glob_match(rule.pattern, grp.node)) {
                out[g] = scene.material_index(rule.material);
                break;
            }
        }
        if (out[g] < 0) {
            ++count;
            unmapped += "\n  " + grp.label();
        }
    }
    if (count > 0)
        throw InputError(scene.display_name() + ": surfaces: " + std::to_string(count) +
                         " surface group(s) of the model match no pattern (add them, or map "
                         "\"*\" to a material):" +
                         unmapped);
    return out;
}

}  // namespace ardent
