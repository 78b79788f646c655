// Pictures of one slice of the voxel grid for `ardent voxelize --slice`: walls, air, boundary cells
// coloured by material, partition outlines, sources and receivers. PNG output through libpng is
// written to a temporary file and renamed, so a failed run leaves nothing behind.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

#include "ardent/preprocess/preprocess.h"
#include "ardent/preprocess/safe_output.h"

namespace ardent {

struct SliceSpec {
    int axis = 2;  // 0 x, 1 y, 2 z
    double coordinate = 0;
};

// Parses "z=1.2" (also x=, y=); InputError naming the text otherwise.
SliceSpec parse_slice(std::string_view text);

struct RgbImage {
    int width = 0, height = 0;
    std::vector<uint8_t> rgb;  // row-major, top row first
    std::array<uint8_t, 3> at(int x, int y) const {
        const size_t i = (static_cast<size_t>(y) * width + x) * 3;
        return {rgb[i], rgb[i + 1], rgb[i + 2]};
    }
};

// A distinct colour for each material index.
std::array<uint8_t, 3> material_colour(int material);

// Renders the cell layer containing the slice plane; at most about `max_pixels` on the long side.
RgbImage render_slice(const Preprocessed& p, const SliceSpec& slice, int max_pixels = 1600);

// Writes a PNG through an OutputFile (safe_output.h): whole or not at all, replacing an existing
// file only as `rules` allow.
void write_png(const std::filesystem::path& file, const RgbImage& image, const OutputRules& rules);

}  // namespace ardent
