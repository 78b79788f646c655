#include "ardent/preprocess/surface_map.h"

#include <fnmatch.h>

#include <algorithm>

#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/scene_parser.h"

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

std::vector<std::string> surface_warnings(const Scene& scene, const TriangleMesh& mesh,
                                          const std::vector<int>& group_material) {
    std::vector<std::string> out;
    const std::string where = scene.display_name() + ": ";
    std::vector<std::string> names;  // the groups' node and material names, each once
    for (const SurfaceGroup& g : mesh.groups)
        for (const std::string* n : {&g.node, &g.material})
            if (!n->empty() && std::find(names.begin(), names.end(), *n) == names.end())
                names.push_back(*n);
    std::vector<bool> taken(mesh.groups.size(), false);
    for (const SurfaceRule& rule : scene.surfaces) {
        bool matches = false, assigns = false;
        for (size_t g = 0; g < mesh.groups.size(); ++g) {
            const SurfaceGroup& grp = mesh.groups[g];
            if (!glob_match(rule.pattern, grp.material) && !glob_match(rule.pattern, grp.node))
                continue;
            matches = true;
            assigns = assigns || !taken[g];
            taken[g] = true;
        }
        const std::string pattern = "surfaces: \"" + printable_text(rule.pattern) + "\"";
        if (!matches) {
            // Globs match case-sensitively: "Floor" for a group "floor" is the usual slip.
            std::string meant;
            for (const std::string& n : names)
                if (fnmatch(rule.pattern.c_str(), n.c_str(), FNM_CASEFOLD) == 0) {
                    meant = n;
                    break;
                }
            if (meant.empty()) meant = nearest_word(rule.pattern, names);
            std::string list;
            for (size_t i = 0; i < names.size() && i < 8; ++i)
                list += (i ? ", \"" : "\"") + printable_text(names[i]) + "\"";
            if (names.size() > 8) list += ", ...";
            out.push_back(where + pattern + " matches no surface group of the model, so \"" +
                          printable_text(rule.material) + "\" is not put on anything by it" +
                          (meant.empty() ? " (the model's groups: " + list + ")"
                                         : " (did you mean \"" + printable_text(meant) +
                                               "\"? patterns are case-sensitive)"));
        } else if (!assigns) {
            out.push_back(where + pattern +
                          " assigns nothing: every group it matches is taken by an earlier "
                          "pattern (the first match in file order wins)");
        }
    }
    for (size_t m = 0; m < scene.materials.size(); ++m)
        if (std::find(group_material.begin(), group_material.end(), static_cast<int>(m)) ==
            group_material.end())
            out.push_back(where + "materials: \"" + printable_text(scene.materials[m].name) +
                          "\" is used by no surface (no pattern of \"surfaces\" gives it a "
                          "group of the model)");
    return out;
}

}  // namespace ardent
