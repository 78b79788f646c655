#include "ardent/preprocess/preprocess.h"

#include <chrono>
#include <set>
#include <thread>
#include <unordered_set>

#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/mesh_import.h"
#include "ardent/preprocess/number_text.h"
#include "ardent/preprocess/surface_map.h"

namespace ardent {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

Grid scene_grid(const Scene& scene, const TriangleMesh& mesh) {
    const double h = scene.simulation.cell_size();
    const Box3 b = mesh.bounds();
    double cells = 1;
    for (int a = 0; a < 3; ++a)
        cells *= std::ceil((b.hi[a] - b.lo[a]) / h) + 2 * kGridPadding;
    check_preprocess_memory(scene, cells);
    return make_grid(b, h, kGridPadding);
}

size_t Preprocessed::listener_points() const {
    const int every = scene.listener_grid_cells();
    if (every <= 0) return 0;
    size_t n = 0;
    const Grid& g = air.grid;
    for (int k = 0; k < g.dims[2]; k += every)
        for (int j = 0; j < g.dims[1]; j += every)
            for (int i = 0; i < g.dims[0]; i += every)
                n += air.air[g.index(i, j, k)];
    return n;
}

ListenerCells Preprocessed::listener_cells() const {
    ListenerCells out;
    const int every = scene.listener_grid_cells();
    if (every <= 0) return out;
    const Grid& g = air.grid;
    for (int k = 0; k < g.dims[2]; k += every)
        for (int j = 0; j < g.dims[1]; j += every)
            for (int i = 0; i < g.dims[0]; i += every)
                if (air.air[g.index(i, j, k)]) out.cells.push_back({i, j, k});
    out.points = out.cells.size();
    // Neighbours that are grid points already are recorded as such (every = 1: all of them).
    const auto on_grid = [&](const Index3& c) {
        return c[0] % every == 0 && c[1] % every == 0 && c[2] % every == 0;
    };
    std::unordered_set<size_t> added;
    for (size_t p = 0; p < out.points; ++p)
        for (int a = 0; a < 3; ++a)
            for (int d : {-1, 1}) {
                Index3 c = out.cells[p];
                c[static_cast<size_t>(a)] += d;
                if (!g.contains(c) || on_grid(c) || !air.air[g.index(c)]) continue;
                if (added.insert(g.index(c)).second) out.cells.push_back(c);
            }
    return out;
}

ListenerCells Preprocessed::receiver_cells() const {
    ListenerCells out;
    const Grid& g = air.grid;
    std::unordered_set<size_t> added;
    for (const PlacedEmitter& r : air.receivers) {
        out.cells.push_back(r.cell);
        added.insert(g.index(r.cell));
    }
    out.points = out.cells.size();
    for (size_t p = 0; p < out.points; ++p)
        for (int a = 0; a < 3; ++a)
            for (int d : {-1, 1}) {
                Index3 c = out.cells[p];
                c[static_cast<size_t>(a)] += d;
                if (!g.contains(c) || !air.air[g.index(c)]) continue;
                if (added.insert(g.index(c)).second) out.cells.push_back(c);
            }
    return out;
}

ResourceEstimate Preprocessed::estimate() const {
    EstimateInputs in;
    in.h = air.grid.h;
    in.c = scene.simulation.speed_of_sound;
    in.duration = scene.simulation.duration;
    in.grid_cells = air.grid.count();
    in.partition_cells = decomposition.cells_in_partitions();
    in.pml_cells = decomposition.pml_cells();
    in.pml_depth = static_cast<size_t>(std::max(decomposition.pml_depth, 0));
    for (const Interface& f : decomposition.interfaces) {
        size_t area = 1;
        for (int a = 0; a < 3; ++a)
            if (a != f.axis)
                area *= static_cast<size_t>(f.hi[static_cast<size_t>(a)] -
                                            f.lo[static_cast<size_t>(a)]);
        in.interface_face_cells += area;
    }
    std::set<std::array<int, 3>> shapes;
    for (const auto& p : decomposition.partitions) {
        if (shapes.insert(p.size).second) in.distinct_shape_cells += p.cells();
        in.largest_partition_cells = std::max(in.largest_partition_cells, p.cells());
    }
    in.sources = scene.sources.size();
    in.receivers = receiver_cells().cells.size();  // with the cells next to them
    // Memory counts every recorded cell: the grid points and their neighbours.
    in.listener_points = listener_cells().cells.size();
    const Box3 b = mesh.bounds();
    for (int a = 0; a < 3; ++a)
        in.bbox_cells[a] = cells_for_extent(b.hi[a] - b.lo[a], in.h);
    in.receiver_count = scene.receivers.size();
    in.grid_points = listener_points();
    in.output_rate = scene.output_sample_rate;
    in.full_band = scene.simulation.band == "full";
    in.threads = std::max(1u, std::thread::hardware_concurrency());
    return estimate_resources(in);
}

Preprocessed preprocess(const Scene& scene, const PreprocessOptions& options) {
    Preprocessed p;
    p.scene = scene;
    auto t0 = std::chrono::steady_clock::now();
    p.mesh = load_geometry(scene);
    p.group_material = map_surfaces(scene, p.mesh);
    p.warnings = surface_warnings(scene, p.mesh, p.group_material);
    p.times.import_s = seconds_since(t0);

    t0 = std::chrono::steady_clock::now();
    const Grid grid = scene_grid(scene, p.mesh);
    p.air = build_air_model(scene, p.mesh, p.group_material, grid);
    p.times.voxelize_s = seconds_since(t0);
    // A listener grid coarser than the room has no point in its air, and the run wrote a grid
    // file of none, which every reader refuses.
    if (const int every = scene.listener_grid_cells(); every > 0 && p.listener_points() == 0) {
        const bool metres = scene.listener_grid_spacing_m > 0;
        const Vec3 size = p.mesh.bounds().size();
        const std::string key = metres ? "listener_grid.spacing_m" : "listener_grid.every";
        // The cells follow max_frequency (an override too): said, as a cause besides the key.
        throw InputError(scene.display_name() + ": " + key + ": the listener grid (points " +
                             number_text(every * grid.h, 2) + " m apart, every " +
                             std::to_string(every) + " cells of " + number_text(grid.h, 3) +
                             " m at max_frequency " +
                             number_text(scene.simulation.max_frequency, 0) +
                             " Hz) has no point in the room's air (the model spans " +
                             number_text(size.x, 2) + " x " + number_text(size.y, 2) + " x " +
                             number_text(size.z, 2) + " m): give a smaller " +
                             (metres ? "spacing" : "step") + " or a higher max_frequency",
                         {scene.file.string(), key, {}});
    }

    if (options.decompose) {
        t0 = std::chrono::steady_clock::now();
        DecompositionOptions d = options.decomposition;
        d.sides = scene.simulation.partition_sides == "power_of_two" ? PartitionSides::PowerOfTwo
                                                                     : PartitionSides::Smooth;
        p.decomposition = decompose(p.air, scene, d);
        p.times.decompose_s = seconds_since(t0);
    }
    return p;
}

}  // namespace ardent
