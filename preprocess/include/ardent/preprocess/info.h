// The report of `ardent info`: grid, cell counts, volumes, decomposition and PML statistics,
// memory and run-time estimates, as one JSON object (keys documented in docs/info.md) and as text.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ardent/preprocess/preprocess.h"

namespace ardent {

// Per material, the mesh's surface where it meets the air (its triangles within a cell of an air
// cell) and the cell faces the wave solvers give it, weighted as they absorb
// (AirModel::face_area: a slanted wall counts once). Parts thinner than a cell, and a surface
// whose faces another material's nearer surface claims, have far fewer faces than surface: the
// wave band then absorbs less there than the geometric band, which uses the mesh.
struct MaterialSurface {
    double mesh_m2 = 0, faces_m2 = 0;
};
std::vector<MaterialSurface> material_surfaces(const Preprocessed& p);
// A warning when a material with at least 1 m^2 of surface keeps less than a quarter of it as
// faces; empty otherwise.
std::string material_surface_warning(const MaterialSurface& s, double h);

nlohmann::ordered_json info_json(const Preprocessed& p);
std::string info_text(const Preprocessed& p);

}  // namespace ardent
