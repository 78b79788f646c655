// Maps of a room: the ISO 3382-1 parameters (T20, EDT, C80, D50) of every listener-grid point's
// IR, analysed exactly as `ardent analyze` analyses one IR (analysis.h), and pictures of one
// parameter in one band over the grid's horizontal layer nearest a listener height, coloured on a
// scale from the lowest value to the highest. `ardent analyze --map` writes them as CSV and PNG
// (docs/analysis.md, "Maps").
#pragma once

#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ardent/auralize/analysis.h"
#include "ardent/auralize/ir_grid.h"
#include "ardent/preprocess/slice_image.h"

namespace ardent::auralize {

struct GridAnalysisOptions {
    Bands bands = Bands::Octave;
    // The highest frequency the grid's IRs hold (a simulation's flat band): bands above it are
    // left out, as AnalysisOptions::max_frequency_hz. 0: none.
    double max_frequency_hz = 0;
    // The source, when known: each point's onset is then its distance to it over
    // speed_of_sound (as `analyze` takes a simulated receiver's); otherwise ISO 3382-1's rule.
    std::optional<Point> source;
    double speed_of_sound = 343.0;
    // AnalysisOptions::free_field_10m for every point (strength G); 0: no G.
    double free_field_10m = 0;
    int threads = 0;  // 0: every core
    // A full-band grid: each point's IR made from its stored (wave-band) row, at `ir_rate`, on
    // the worker threads (pipeline::grid_point_ir joins the grid's geometric part above the
    // crossover). Empty: the row as stored, at the grid's rate.
    std::function<std::vector<float>(size_t point, const std::vector<float>& row)> ir_of_row;
    double ir_rate = 0;
    // Raised: the analysis stops after the batch in hand and returns nothing (a stop signal).
    const std::atomic<bool>* stop = nullptr;
};

// One Analysis per grid point, in the grid's order, each analyze_ir of that point's IR at the
// grid's sample rate (or options.ir_of_row's at options.ir_rate). Throws InputError naming the grid
// file and the point for an IR that cannot be analysed (silent, or no band fits).
std::vector<Analysis> analyze_grid(const IrGrid& grid, const GridAnalysisOptions& options);

// One point's analysis from its stored row (IrGrid::ir), as analyze_grid does it; no HDF5 call,
// so it may run on any thread while the rows are read on one (the editor's map does). Throws
// InputError naming the grid file and the point as analyze_grid does.
Analysis analyze_grid_point(const IrGrid& grid, size_t point, const std::vector<float>& row,
                            const GridAnalysisOptions& options);

// The analyses of the rows [first, first + rows.size()) already read (IrGrid::ir), on
// options.threads threads, into out[first + i] (`out` holds every point). Per row, the error of a
// point that could not be analysed, null where it was: `analyze_grid` stops at the first, the
// editor's map leaves those points without values.
std::vector<std::exception_ptr> analyze_grid_rows(const IrGrid& grid, size_t first,
                                                  std::span<const std::vector<float>> rows,
                                                  const GridAnalysisOptions& options,
                                                  std::vector<Analysis>& out);

enum class MapParameter { T20, Edt, C80, D50, G };
inline constexpr MapParameter kMapParameters[] = {
    MapParameter::T20, MapParameter::Edt, MapParameter::C80, MapParameter::D50, MapParameter::G};
std::string name_of(MapParameter parameter);  // "t20", "edt", "c80", "d50", "g"
std::string unit_of(MapParameter parameter);  // "s", "s", "dB", "", "dB"
// The band's value of `parameter`; empty where the band does not allow it.
std::optional<double> value_of(const BandResult& band, MapParameter parameter);

// The grid's horizontal layer (its points of one z) nearest `height`; the lower of two equally
// near.
struct MapPlane {
    double z = 0;
    std::vector<size_t> points;  // grid indices
};
MapPlane plane_nearest(const IrGrid& grid, double height);

// One pixel block per lattice position of the plane, x to the right and y up; a block whose point
// has a value is coloured from dark blue (`lo`) through green to yellow (`hi`), positions with no
// grid point (not air) or no value are grey. A colour bar runs along the bottom edge, lo on the
// left. `values` holds one entry per grid point (the grid's order).
RgbImage map_image(const IrGrid& grid, const MapPlane& plane,
                   const std::vector<std::optional<double>>& values, double lo, double hi);

// The colour of `t` in [0, 1] on the map's scale (clamped).
std::array<uint8_t, 3> map_colour(double t);

}  // namespace ardent::auralize
