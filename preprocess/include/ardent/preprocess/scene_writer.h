// Writing a Scene back as an `ardent-scene/1` file (spec section 3): what the editor saves is what
// `ardent simulate` reads. Keys come out in the order of the spec's example, surfaces in rule
// order (the first match wins, so order is meaning), absorption as one number or per band as it
// was given, and the mesh path relative to the file's folder when it can be, so a project folder
// can be moved as a whole. Reading the written text gives back an equal Scene.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "ardent/preprocess/safe_output.h"
#include "ardent/preprocess/scene.h"

namespace ardent {

// The scene as ordered JSON, with the mesh path written relative to `file`'s folder when the
// mesh lies below it or nearby (absolute otherwise).
nlohmann::ordered_json scene_json(const Scene& scene, const std::filesystem::path& file);

// The file's text: scene_json() indented by two spaces, with a final newline.
std::string scene_text(const Scene& scene, const std::filesystem::path& file);

// Writes the scene to `file` through an OutputFile (safe_output.h): a failure never leaves a
// half-written scene, and an existing file is replaced only as `rules` allow (a regular file, with
// rules.replace). Throws InputError naming the file when it cannot be written.
void save_scene(const Scene& scene, const std::filesystem::path& file, const OutputRules& rules);

// True when the two scenes would be written as the same file (everything but `file`).
bool same_scene(const Scene& a, const Scene& b);

}  // namespace ardent
