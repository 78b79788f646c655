// The listener grid that `ardent simulate` writes (grid/<source>.h5, docs/output-format.md): the
// positions of the grid points, their impulse responses and (format 2) their pressure-gradient
// IRs from one-cell central differences, read through HDF5 one point at a time (a grid can hold
// thousands of IRs), and the lattice lookups the spatial rendering needs: the point nearest a
// listener and a point's neighbours one grid step away along each axis.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ardent::auralize {

using Point = std::array<double, 3>;  // metres, the model's axes

// True when the file starts with the HDF5 signature (a grid file rather than audio).
bool is_hdf5_file(const std::filesystem::path& file);

// The geometric acoustics part of a full-band grid (format 4, group /geometric,
// docs/output-format.md): what a reader synthesises a point's IR above the crossover from. It is
// small (per point a few image-source paths; envelopes per cell of a coarser lattice) and read
// whole when the grid is opened.
struct GridGeometric {
    static constexpr size_t kBands = 8;  // octaves 125 Hz - 16 kHz
    double crossover_hz = 0;
    double speed_of_sound = 343;
    double cell_size = 0;                      // m: the side of the envelopes' cubes
    std::vector<double> bin_edges;             // s, bins + 1, increasing from 0
    std::vector<Point> cell_centre;            // per cell
    std::vector<std::uint32_t> cell_of_point;  // per grid point
    std::vector<float> energy;  // [cell][bin][band]: fluence per bin (m^-2), unit source energy
    std::vector<float> flux;    // [cell][bin][axis]: net fluence towards the arrival direction
    // Per point its image-source paths: [path_offset[p], path_offset[p + 1]).
    std::vector<std::uint64_t> path_offset;
    std::vector<double> path_length;       // m
    std::vector<std::int32_t> path_order;  // reflections (0: the direct sound)
    std::vector<float> path_factor;        // [path][band]: pressure factor, air included
    std::vector<float> path_direction;     // [path][axis]: unit, towards the arrival

    size_t bins() const { return bin_edges.empty() ? 0 : bin_edges.size() - 1; }
    size_t cells() const { return cell_centre.size(); }
    size_t paths() const { return path_length.size(); }
};

class IrGrid {
  public:
    // Opens and checks the file: attribute format "ardent-grid/1" to "/4", /positions
    // N x 3 and /ir N x T with N, T > 0, positive sample_rate and grid_spacing, points on one
    // lattice; formats 2 and 3 also /gradient N x 3 x T, /gradient_kind N x 3 (values 0-2) and a
    // positive gradient_spacing; formats 3 and 4 a positive output_sample_rate; format 4 may have
    // a group /geometric (GridGeometric), checked whole. Throws InputError naming the file and
    // what is wrong.
    explicit IrGrid(const std::filesystem::path& file);
    ~IrGrid();
    IrGrid(const IrGrid&) = delete;
    IrGrid& operator=(const IrGrid&) = delete;

    const std::filesystem::path& file() const { return file_; }
    size_t size() const { return positions_.size(); }
    size_t samples() const { return samples_; }
    // The rate the IRs are stored at (format 3: the band's rate, below the output rate; readers
    // resample, resample.h) and the scene's output rate, the receiver WAVs' (formats 1 and 2:
    // the same).
    double sample_rate() const { return sample_rate_; }
    double output_sample_rate() const { return output_sample_rate_; }
    double spacing() const { return spacing_; }  // metres between neighbouring points
    const std::string& source() const { return source_; }
    // The scene_hash attribute of the run that wrote it (result.json's scene.hash); empty if none.
    const std::string& scene_hash() const { return scene_hash_; }
    const std::vector<Point>& positions() const { return positions_; }
    Point lower() const { return lower_; }  // bounding box of the points
    Point upper() const { return upper_; }

    // Row `point` of /ir (InputError if the read fails).
    std::vector<float> ir(size_t point) const;

    // Format 2: the gradient IRs dp/dx, dp/dy, dp/dz of a point (Pa/m, the IR convention), each
    // a difference over +-gradient_spacing() (central) or over one side (kind 1); kind 0: none.
    bool has_gradient() const { return gradient_id_ >= 0; }
    double gradient_spacing() const { return gradient_spacing_; }
    std::array<std::vector<float>, 3> gradient(size_t point) const;
    std::array<int, 3> gradient_kind(size_t point) const;

    // Format 4 written by a full-band run: the geometric part above the crossover; else null.
    const GridGeometric* geometric() const { return geometric_ ? &*geometric_ : nullptr; }

    // The point nearest `p` among those at most one grid spacing away, if any.
    std::optional<size_t> nearest(const Point& p) const;
    // Trilinear interpolation at `p` over the corners of the lattice cell that holds it: the
    // corners that are grid points (in the air) with weights > 0, the weights renormalised over
    // them to sum to 1. A coordinate within 1e-9 spacings of a lattice plane counts as on it, so
    // `p` at a grid point gives that point alone, weight 1. Empty when no corner is a grid point.
    struct Weight {
        size_t point;
        double weight;
    };
    std::vector<Weight> trilinear(const Point& p) const;
    // The point one grid step from `point` along `axis` (0, 1, 2) in direction `dir` (+1 or -1).
    std::optional<size_t> neighbour(size_t point, int axis, int dir) const;

  private:
    void open(const std::filesystem::path& file);
    std::optional<size_t> at(std::int64_t i, std::int64_t j, std::int64_t k) const;
    std::array<std::int64_t, 3> lattice(size_t point) const;

    std::filesystem::path file_;
    std::int64_t file_id_ = -1, ir_id_ = -1, gradient_id_ = -1;  // hid_t
    double gradient_spacing_ = 0;
    std::vector<std::array<std::int8_t, 3>> gradient_kind_;
    std::vector<Point> positions_;
    size_t samples_ = 0;
    double sample_rate_ = 0, output_sample_rate_ = 0, spacing_ = 0;
    std::string source_;
    std::string scene_hash_;
    Point lower_{}, upper_{};
    std::optional<GridGeometric> geometric_;
    std::unordered_map<std::uint64_t, size_t> index_;  // packed lattice coordinates -> point
};

}  // namespace ardent::auralize
