// The geometric part of a listener grid (docs/full-band.md, "The listener grid"), in a compact
// form that a reader synthesises a point's IR from at render time: a grid holds thousands of
// points, too many to store a full-band IR for each or to rain every reflection onto. Per grid
// point: its direct sound and first-order specular reflections as image-source paths (exact
// arrival times, per-band factors, directions). Per cell of a coarser lattice of cubes (at least
// the receivers' detection diameter on a side, so that enough rays cross each): the energy of
// everything else as a fluence envelope per octave band in time bins that widen with time, and a
// net arrival direction per bin. The envelope is a track-length estimate: every ray leg that
// crosses a cube adds its energy times its chord over the cube's air volume, which is unbiased
// and needs no visibility query (the rain of the receivers' tracer would need one per point and
// reflection).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ardent/geometric/bands.h"
#include "ardent/geometric/image_sources.h"
#include "ardent/geometric/ray_tracer.h"
#include "ardent/geometric/room.h"
#include "ardent/preprocess/atmosphere.h"
#include "ardent/preprocess/vec.h"

namespace ardent::geometric {

// The cubes the envelopes are counted in: an axis-aligned lattice of `dims` cubes of side `size`
// from `lower`; `index` maps a lattice cube (x fastest) to its cell (-1: none, no grid point in
// it), and each cell has its air volume (m^3, the part of the cube inside the room, which the
// track length is divided by) and its centre.
struct GridCells {
    Vec3 lower;
    double size = 0;
    std::array<size_t, 3> dims{};
    std::vector<int32_t> index;
    std::vector<double> air_volume;
    std::vector<Vec3> centre;
    std::vector<uint32_t> cell_of_point;  // per grid point
};

struct GridFieldSettings {
    size_t rays = 100000;
    int image_source_order = 1;  // per point: the direct sound (0) and first-order reflections
    double max_time = 1.0;       // s
    double speed_of_sound = 343.0;
    Atmosphere air;  // air absorption at the band centres, applied to what is stored
    bool air_absorption = true;
    uint64_t seed = 1;
    int threads = 0;  // 0: every core
};

// The time bins of the envelopes: 2 ms up to 40 ms, then 5 % of their start time wide (the
// late envelope is smoothed over +-10 % of its time anyway), up to `max_time`.
std::vector<double> grid_bin_edges(double max_time);

struct GridField {
    std::vector<double> bin_edges;  // s, bins + 1
    size_t cells = 0;
    // [cell][bin][band]: the fluence (m^-2) arriving in the bin for a source of unit energy, air
    // absorption included, the image-source paths left out (they are in `paths`).
    std::vector<float> energy;
    // [cell][bin][axis]: the net fluence vector summed over the bands, pointing towards where the
    // energy arrives from (its length over the bin's total fluence is 1 for sound from one
    // direction, 0 for a diffuse field).
    std::vector<float> flux;
    // Per grid point its image-source paths, air absorption included in the factors:
    // paths[path_offset[p] .. path_offset[p + 1]).
    std::vector<size_t> path_offset;
    std::vector<SpecularPath> paths;
    size_t candidates = 0;  // plane sequences tried per point
    RayTracingStats rays;
    double image_source_seconds = 0;

    size_t bins() const { return bin_edges.empty() ? 0 : bin_edges.size() - 1; }
};

// Traces the field of `source` for grid points `points` (each in cells.cell_of_point's cell).
// `candidates`: plane sequences (candidate_sequences), of which those up to the settings' order
// are tried at every point. `rays_done` counts rays as they finish; on `stop` the result is
// incomplete (the caller checks).
GridField trace_grid(const Room& room, Vec3 source, const std::vector<Vec3>& points,
                     const GridCells& cells, const std::vector<std::vector<uint32_t>>& candidates,
                     const GridFieldSettings& settings, std::atomic<size_t>* rays_done = nullptr,
                     const std::atomic<bool>* stop = nullptr);

// A grid point's (or a blend of points') diffuse part as the synthesis takes it: the envelope of
// its cell resampled to 1 ms bins (the energy density interpolated between bin centres on a log
// scale), and directional bins of `direction_bin` whose kDirections shares put the bin's net
// flux share r in the direction nearest the flux and spread 1 - r evenly (a diffuse field).
// `weights` blend several cells' envelopes (cell index, weight).
EnergyHistogram grid_histogram(const GridField& field,
                               const std::vector<std::pair<size_t, double>>& weights,
                               double direction_bin = 0.01);

// The same from the stored arrays (a reader that has them without a GridField).
EnergyHistogram grid_histogram(const std::vector<double>& bin_edges, const float* energy,
                               const float* flux, size_t cells,
                               const std::vector<std::pair<size_t, double>>& weights,
                               double direction_bin = 0.01);

}  // namespace ardent::geometric
