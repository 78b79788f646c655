// The editor's library of common materials: octave-band random-incidence absorption from
// published tables (data/materials/library.json, which cites its source), offered when the user
// assigns a material to a surface group. Qt-free so the tests can read it directly.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "ardent/preprocess/scene.h"

namespace ardent::editor {

struct LibraryMaterial {
    Material material;        // name and the six octave bands (per_band set)
    std::string description;  // what the table entry describes
};

struct MaterialLibrary {
    std::string source;  // the citation of the table
    std::vector<LibraryMaterial> materials;
    const LibraryMaterial* find(const std::string& name) const;
};

// Reads an `ardent-materials/1` file; throws InputError naming the file and the entry at fault.
MaterialLibrary load_material_library(const std::filesystem::path& file);

// The bundled data folder: $ARDENT_DATA_DIR, else `../share/ardent/data` or `../data` next to the
// executable's folder, else the source tree's data/ (a build that was never installed).
std::filesystem::path data_dir();

}  // namespace ardent::editor
