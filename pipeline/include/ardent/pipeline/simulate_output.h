// What `ardent simulate` writes (docs/output-format.md): the output directory that appears only
// when complete, impulse responses cut and resampled to the IR convention, the listener-grid
// HDF5 file and the scene hash that ties results to their scene.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "ardent/auralize/air_absorption.h"
#include "ardent/auralize/decimate.h"
#include "ardent/auralize/ir_grid.h"
#include "ardent/preprocess/safe_output.h"
#include "ardent/preprocess/scene.h"
#include "ardent/preprocess/vec.h"

namespace ardent::pipeline {

// A results directory written atomically (an OutputFolder, safe_output.h): everything goes into
// a temporary sibling, renamed onto the target by commit(). The destructor removes the temporary
// directory unless it was committed or keep() was called (a checkpointed run's partial directory
// survives a failure).
class OutputDir {
  public:
    // `partial`: the temporary directory is `<target>.tmp-partial` (found again by --resume),
    // else `<target>.tmp-<pid>`. Refuses (InputError) an existing target unless `force`, and any
    // target that holds or is one of `inputs` (the scene and mesh).
    OutputDir(const std::filesystem::path& target, bool force, bool partial,
              std::vector<std::filesystem::path> inputs = {});

    static std::filesystem::path partial_path(const std::filesystem::path& target);
    // Checks the target could be written (InputError if it exists without force, or, with
    // force, if it is anything but a results directory of ardent simulate: --force never
    // deletes what a user made), without creating anything.
    static void check_target(const std::filesystem::path& target, bool force,
                             const std::vector<std::filesystem::path>& inputs = {});
    // Checks the partial directory against the run asked for (InputError): --resume needs one,
    // and any other run is refused while one exists, saying how to continue it or start again.
    static void check_partial(const std::filesystem::path& target, bool resume);
    // What earlier runs that did not end cleanly left beside `target`: `<target>.tmp-<pid>`
    // (killed before its temporary directory could be removed) and `<target>.old-<pid>` (killed
    // while --force replaced a results directory), one warning each with the command that removes
    // it. They are reported, never removed: only its owner knows whether a folder of that name
    // is Ardent's litter or something kept. Call it holding the OutputLock of `target`: then no
    // run to `target` is still writing them.
    static std::vector<std::string> leftovers(const std::filesystem::path& target);

    // Creates the temporary directory (and its `ir/`, `ambix/`, `grid/` folders). With `resume`,
    // the partial directory must exist already and is reused.
    void create(bool resume);
    const std::filesystem::path& target() const { return folder_.target(); }
    const std::filesystem::path& tmp() const { return folder_.tmp(); }
    // Moves the finished directory into place (replacing an old one only now, with force).
    void commit() { folder_.commit(); }
    void keep() { folder_.keep(); }
    void discard() { folder_.discard(); }  // removes the temporary directory now

  private:
    OutputFolder folder_;
    bool partial_ = false;
};

// What a results directory of ardent simulate holds, for OutputFolder.
const FolderKind& results_directory();

// A file-name-safe version of a source or receiver name: characters other than letters, digits,
// '.', '-' and '_' become '_'.
std::string safe_name(const std::string& name);

// Hex digest (FNV-1a, 64 bits) of the scene file, its mesh file and the effective settings the
// results depend on: identical inputs give identical hashes.
std::string scene_hash(const Scene& scene);

// Turns receiver signals at the simulation rate 1/dt into delivered IRs (docs/output-format.md):
// advanced by the excitation's delay (whole steps dropped, the fraction of a step left by a
// band-limited sub-sample advance, so that time zero is the emission to a small fraction of a
// step), filtered by the air's absorption over the travel time (auralize::PropagationFilter),
// resampled to `fs_out` keeping the IR convention (resample_ir), cut to round(duration * fs_out)
// samples. Made once per source; deliver() is thread-safe. The listener grid is delivered at its
// band rate instead: decimated by `band` (designed once per run), round(duration * its rate)
// samples.
class IrDelivery {
  public:
    IrDelivery(double dt, double delay, double fs_out, double duration, const Atmosphere& air,
               double speed_of_sound);
    std::vector<float> deliver(std::span<const double> signal) const;
    std::vector<float> deliver(std::span<const float> signal) const;
    std::vector<float> deliver(std::span<const float> signal, const audio::IrDecimator& band) const;

  private:
    // The signal advanced by the excitation's delay and filtered by the air, at 1 / dt.
    std::vector<float> advanced_and_filtered(std::span<const float> signal) const;

    double dt_, fs_out_, duration_;
    size_t skip_;
    auralize::PropagationFilter filter_;
};
size_t steps_needed(double dt, double delay, double duration);

// The listener grid's rate: the simulation rate 1 / dt divided by the largest whole number that
// keeps it at least 2.5 max_frequency (docs/output-format.md).
audio::IrDecimator grid_decimator(double dt, double max_frequency);

struct GridFileInfo {
    std::string source;
    double sample_rate = 0;         // the stored rate (the band rate)
    double output_sample_rate = 0;  // the scene's output.sample_rate, the receiver WAVs' rate
    double max_frequency = 0;
    double grid_spacing = 0;      // m: h * listener_grid.every
    double gradient_spacing = 0;  // m: h, the half-width of the gradient's central difference
    int every = 0;
    std::string scene_hash;
};

// How a point's gradient along one axis was formed: 2 central difference over +-h, 1 one-sided
// (a neighbour is not air), 0 none (neither is).
using GradientKinds = std::array<std::int8_t, 3>;

// Writes `grid/<source>.h5` (format ardent-grid/4, docs/output-format.md): /positions N x 3
// float64, /ir N x T float32, /gradient N x 3 x T float32 (chunked by point, shuffled and
// deflated) and /gradient_kind N x 3 int8, attributes sample_rate, output_sample_rate,
// max_frequency, grid_spacing, gradient_spacing, scene_hash, source, every, format.
// Errors are InputErrors naming the file.
class GridWriter {
  public:
    GridWriter(const std::filesystem::path& file, const std::vector<Vec3>& positions,
               const std::vector<GradientKinds>& kinds, size_t samples, const GridFileInfo& info);
    ~GridWriter();
    GridWriter(const GridWriter&) = delete;
    GridWriter& operator=(const GridWriter&) = delete;
    // One point's rows as the file stores them: its IR and its three gradient IRs (Pa/m, the IR
    // convention; model axes x, y, z), each T samples, shuffled and deflated as HDF5's filters
    // would (zlib, level 1). Thread-safe: the worker threads compress, and write_point() hands
    // the chunks to HDF5 as they are (one thread), so compression does not serialise the write.
    struct EncodedPoint {
        std::vector<unsigned char> ir, gradient;
    };
    EncodedPoint encode(std::span<const float> ir,
                        const std::array<std::span<const float>, 3>& gradient) const;
    void write_point(size_t i, const EncodedPoint& point);
    // A full-band run's geometric part: group /geometric (docs/output-format.md, format 4).
    void write_geometric(const auralize::GridGeometric& g);
    void close();

  private:
    std::vector<unsigned char> encode_chunk(std::span<const float> values) const;

    std::filesystem::path file_;
    std::int64_t file_id_ = -1, ir_id_ = -1, gradient_id_ = -1;  // hid_t
    size_t rows_ = 0, samples_ = 0;
    bool compressed_ = false;
};

}  // namespace ardent::pipeline
