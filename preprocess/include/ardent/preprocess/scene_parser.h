// Reading and validating `ardent-scene/1` files (spec section 3). Every error is an InputError
// whose message starts with the file name and the key path (`scene.json: simulation.max_frequency:
// expected a positive number, got -5`); JSON syntax errors carry line and column; unknown keys are
// rejected with the nearest valid key suggested.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "ardent/preprocess/scene.h"

namespace ardent {

// Reads and validates a scene file. Mesh paths are resolved relative to the file's folder.
Scene load_scene(const std::filesystem::path& file);

// Parses scene text; `file` names it in messages and anchors relative mesh paths.
Scene parse_scene(std::string_view text, const std::filesystem::path& file);

// The closest of `candidates` to `word` by edit distance, or "" when none is reasonably close.
std::string nearest_word(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace ardent
