#include "ardent/preprocess/info.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "ardent/preprocess/number_text.h"
#include "ardent/preprocess/wall_admittance.h"

namespace ardent {
namespace {

nlohmann::ordered_json vec(Vec3 v) {
    return {v.x, v.y, v.z};
}

nlohmann::ordered_json emitters(const std::vector<PlacedEmitter>& list) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& e : list)
        out.push_back({{"name", e.name},
                       {"position", vec(e.position)},
                       {"cell", {e.cell[0], e.cell[1], e.cell[2]}},
                       {"cell_centre", vec(e.cell_centre)}});
    return out;
}

// Each material's fitted wall (docs/materials.md): per band the random-incidence absorption asked
// for and the fitted wall's, whether the band lies in the simulated range, and the admittance.
nlohmann::ordered_json materials_json(const Scene& scene) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const WallFit& f : fit_walls(scene)) {
        nlohmann::ordered_json bands = nlohmann::ordered_json::array();
        for (const FittedBand& b : f.bands)
            bands.push_back({{"centre_hz", b.hz},
                             {"band_hz", {b.lo_hz, b.hi_hz}},
                             {"alpha", b.target},
                             {"fitted_alpha", b.fitted},
                             {"fitted_alpha_at_centre", b.fitted_centre},
                             {"residual", b.residual()},
                             {"in_range", b.judged}});
        nlohmann::ordered_json branches = nlohmann::ordered_json::array();
        for (const AdmittanceBranch& b : f.admittance.branches)
            branches.push_back({{"conductance", b.conductance},
                                {"mass_s", b.mass},
                                {"stiffness_per_s", b.stiffness},
                                {"resonance_hz", b.resonance() / (2 * std::numbers::pi)}});
        const Material& m = scene.materials[static_cast<size_t>(scene.material_index(f.material))];
        out.push_back(
            {{"name", f.material},
             {"given_as", !m.lab ? "absorption"
                          : m.lab->kind == MaterialLabData::Kind::NormalAbsorption
                              ? "normal_absorption"
                              : "impedance"},
             {"wall", f.open                 ? "open"
                      : f.admittance.rigid() ? "rigid"
                                             : "admittance"},
             {"fit_range_hz", {f.lowest_hz, f.highest_hz}},
             {"bands", bands},
             {"admittance", {{"conductance", f.admittance.conductance}, {"branches", branches}}},
             {"warnings", f.warnings}});
    }
    return out;
}

// The planes the mesh's triangles lie on (coplanar triangles once, normals within ~1e-4 and
// offsets within a millimetre): the image sources' candidates of order one are at most these.
size_t distinct_planes(const TriangleMesh& mesh) {
    std::unordered_set<std::string> planes;
    for (const Triangle& t : mesh.triangles) {
        const Vec3 a = mesh.vertices[t.v[0]], b = mesh.vertices[t.v[1]], c = mesh.vertices[t.v[2]];
        Vec3 n = cross(b - a, c - a);
        const double len = norm(n);
        if (!(len > 0)) continue;
        n = n * (1 / len);
        // One orientation per plane: the first clearly non-zero component positive.
        const double lead = std::abs(n.x) > 1e-6 ? n.x : (std::abs(n.y) > 1e-6 ? n.y : n.z);
        if (lead < 0) n = n * -1.0;
        char key[96];
        std::snprintf(key, sizeof key, "%ld %ld %ld %ld", std::lround(n.x * 1e4),
                      std::lround(n.y * 1e4), std::lround(n.z * 1e4), std::lround(dot(n, a) * 1e3));
        planes.insert(key);
    }
    return planes.size();
}

// The geometric stage of a full-band run (docs/full-band.md), from the room's statistics: a ray
// reflects c S / (4 V) times a second and ends at the duration or when its least absorbed band
// is 10^-7 down (then Russian roulette); each reflection costs one ray query plus one per
// receiver (the diffuse rain's visibility). The rate, 2.7 M queries per second per thread, was
// measured with bench_geometric on BRAS CR2 on the 2-core dev machine under load (2026-11-26).
nlohmann::ordered_json geometric_estimate(const Preprocessed& p) {
    constexpr double kQueriesPerSecondPerThread = 2.7e6;
    const Scene& s = p.scene;
    double area = 0, least = 1;
    std::vector<double> material_area(s.materials.size(), 0.0);
    for (const Triangle& t : p.mesh.triangles) {
        const Vec3 a = p.mesh.vertices[t.v[0]], b = p.mesh.vertices[t.v[1]],
                   c = p.mesh.vertices[t.v[2]];
        const double ta = 0.5 * norm(cross(b - a, c - a));
        area += ta;
        const int m = p.group_material[t.group];
        if (m >= 0) material_area[static_cast<size_t>(m)] += ta;
    }
    for (double hz = 125; hz <= 16000; hz *= 2) {
        double absorbed = 0;
        for (size_t m = 0; m < s.materials.size(); ++m)
            absorbed += material_area[m] * s.materials[m].absorption_at(hz);
        least = std::min(least, area > 0 ? absorbed / area : 1.0);
    }
    const double volume = std::max(p.air.air_volume(), 1e-9);
    const double per_second = s.simulation.speed_of_sound * area / (4 * volume);
    const double to_threshold = least > 0 ? std::log(1e-7) / std::log(1 - least) / 0.9 : 1e30;
    const double reflections = std::min(per_second * s.simulation.duration, to_threshold);
    const size_t ray_count = s.geometric.rays_for(p.air.mesh_volume);
    const double rays = static_cast<double>(ray_count);
    const double queries = rays * reflections * (1.0 + static_cast<double>(s.receivers.size()));
    const double threads = std::max(1u, std::thread::hardware_concurrency());
    const double bins = std::ceil(s.simulation.duration / 1e-3);
    const double samples = s.simulation.duration * s.output_sample_rate;
    nlohmann::ordered_json out = {
        {"rays", ray_count},
        {"reflections_per_ray", reflections},
        {"ray_queries", queries},
        {"threads", threads},
        {"seconds_per_source", queries / (kQueriesPerSecondPerThread * threads)},
        // Per thread: the receivers' histograms and the energy each triangle's sides received
        // (two doubles a triangle, for the narrow gaps' survey).
        {"memory_bytes",
         threads * static_cast<double>(s.receivers.size()) * bins * 64 +
             (100.0 + 16 * (threads + 1)) * static_cast<double>(p.mesh.triangles.size()) +
             48 * (samples + 0.1 * s.output_sample_rate)}};
    // The listener grid's part (docs/full-band.md, "The listener grid"): more rays, one query per
    // reflection (the cubes a leg crosses cost about as much again: 2.2 M queries per second per
    // thread measured on a 6 x 4.5 x 3 m box, 648 points, 2026-11-27), first-order image sources
    // at every point (about two queries per plane of the mesh), and each
    // thread's envelopes of the cubes (8 bands and a flux vector per bin, about 90 bins a second).
    if (const size_t points = p.listener_points(); points > 0) {
        constexpr double kGridQueriesPerSecondPerThread = 2.2e6;
        const double grid_rays = static_cast<double>(s.geometric.grid_rays_for(p.air.mesh_volume));
        const double grid_queries =
            grid_rays * reflections +
            2.0 * static_cast<double>(points) * static_cast<double>(distinct_planes(p.mesh));
        const double radius = std::clamp(std::cbrt(volume) / 10, 0.1, 1.0);
        const double spacing = p.air.grid.h * s.listener_grid_cells();
        const double m = std::max(1.0, std::ceil(2 * radius / spacing - 1e-9));
        // Cubes over the grid's box (a bound: some hold no grid point).
        double cells = 1;
        for (int a = 0; a < 3; ++a)
            cells *= std::ceil((std::floor(p.air.grid.dims[static_cast<size_t>(a)] /
                                           static_cast<double>(s.listener_grid_cells())) +
                                1) /
                               m);
        cells = std::min(cells, static_cast<double>(points));
        const double grid_bins =
            20 + std::log(std::max(1.0, s.simulation.duration / 0.04)) / std::log(1.05);
        const double grid_seconds = grid_queries / (kGridQueriesPerSecondPerThread * threads);
        out["listener_grid"] = {{"rays", grid_rays},
                                {"ray_queries", grid_queries},
                                {"cells", std::llround(cells)},
                                {"seconds_per_source", grid_seconds},
                                {"memory_bytes", (threads + 1) * cells * grid_bins * 11 * 4}};
        out["seconds_per_source"] = out["seconds_per_source"].get<double>() + grid_seconds;
    }
    return out;
}

// The whole run: the pipeline solves one source after another, each for the scene's duration, and
// in a full-band run traces its rays after the wave solve, so the parts add up.
// What every run takes besides its stages: the program's start, the geometric engine's and the
// solver's set-up, result.json (about a second on the 2-core development machine, 2026-12-07,
// bench/estimate_check.py).
constexpr double kRunSeconds = 1.0;

nlohmann::ordered_json total_estimate(const Scene& s, const nlohmann::ordered_json& per_second,
                                      const nlohmann::ordered_json& geometric, double write) {
    const double sources = static_cast<double>(s.sources.size()), duration = s.simulation.duration;
    const double geo = geometric.is_null() ? 0.0 : geometric["seconds_per_source"].get<double>();
    nlohmann::ordered_json wave, total;
    for (const auto& [backend, sps] : per_second.items()) {
        const double w = sps.get<double>() * duration;
        wave[backend] = w;
        // On a GPU the rays trace on the CPU beside the solve (docs/full-band.md, "Cost"), and
        // every source's files but the last are written during the next source's solve.
        const bool gpu = backend.ends_with("_gpu");
        total[backend] =
            kRunSeconds + (gpu ? sources * std::max(w, geo) + write : sources * (w + geo + write));
    }
    return {{"sources", s.sources.size()}, {"duration_s", duration},    {"wave_per_source", wave},
            {"geometric_per_source", geo}, {"write_per_source", write}, {"total", total}};
}

// "0.149 s", "19.7 s", "3.2 min", "2.4 h": a duration as a reader takes it in.
std::string format_seconds(double s) {
    char b[32];
    if (s < 120)
        std::snprintf(b, sizeof b, "%.3g s", s);
    else if (s < 7200)
        std::snprintf(b, sizeof b, "%.3g min", s / 60);
    else
        std::snprintf(b, sizeof b, "%.3g h", s / 3600);
    return b;
}

}  // namespace

std::vector<MaterialSurface> material_surfaces(const Preprocessed& p) {
    const AirModel& air = p.air;
    const Grid& g = air.grid;
    const size_t materials = p.scene.materials.size();
    std::vector<MaterialSurface> out(materials);
    const double face = g.h * g.h;
    const long sy = g.dims[0], sz = static_cast<long>(g.dims[0]) * g.dims[1];
    const long offsets[6] = {-1, 1, -sy, sy, -sz, sz};
#pragma omp parallel
    {
        std::vector<double> faces(materials, 0.0);
#pragma omp for schedule(static)
        for (long i = 0; i < static_cast<long>(g.count()); ++i) {
            const auto a = static_cast<size_t>(i);
            if (!air.air[a]) continue;
            const uint8_t blocked = air.blocked_links(a);  // thin faces: walls between air cells
            for (int k = 0; k < 6; ++k) {
                // In range: air never touches the grid's edge.
                const auto b = static_cast<size_t>(i + offsets[k]);
                if (air.air[b] && !(blocked >> k & 1)) continue;
                const int m = air.face_material(a, b);
                if (m >= 0) faces[static_cast<size_t>(m)] += air.face_area(a, b) * face;
            }
        }
#pragma omp critical
        for (size_t m = 0; m < materials; ++m)
            out[m].faces_m2 += faces[m];
    }
    for (const Triangle& t : p.mesh.triangles) {
        const int m = p.group_material[t.group];
        if (m < 0) continue;
        const Vec3 a = p.mesh.vertices[t.v[0]], b = p.mesh.vertices[t.v[1]],
                   c = p.mesh.vertices[t.v[2]];
        const Vec3 centre = (a + b + c) * (1.0 / 3);
        Index3 q;
        for (int k = 0; k < 3; ++k)
            q[k] = static_cast<int>(std::floor((centre[k] - g.origin[k]) / g.h));
        bool meets_air = false;
        for (int dz = -1; dz <= 1 && !meets_air; ++dz)
            for (int dy = -1; dy <= 1 && !meets_air; ++dy)
                for (int dx = -1; dx <= 1 && !meets_air; ++dx)
                    meets_air = air.is_air({q[0] + dx, q[1] + dy, q[2] + dz});
        if (meets_air) out[static_cast<size_t>(m)].mesh_m2 += norm(cross(b - a, c - a)) / 2;
    }
    return out;
}

std::string material_surface_warning(const MaterialSurface& s, double h) {
    if (s.mesh_m2 < 1 || s.faces_m2 >= 0.25 * s.mesh_m2) return "";
    char text[400];
    std::snprintf(text, sizeof text,
                  "the wave solver's cell faces hold %.1f m^2 of its %.1f m^2 of surface (%.0f "
                  "%%): parts thinner than a cell (%.3f m) or behind another material's nearer "
                  "surface absorb that much less in the wave band (the geometric band uses the "
                  "mesh's surface); a higher max_frequency resolves more of them",
                  s.faces_m2, s.mesh_m2, 100 * s.faces_m2 / s.mesh_m2, h);
    return text;
}

nlohmann::ordered_json info_json(const Preprocessed& p) {
    const Grid& g = p.air.grid;
    const Decomposition& d = p.decomposition;
    const ResourceEstimate e = p.estimate();
    const bool fdtd = p.scene.simulation.solver == "fdtd";
    nlohmann::ordered_json j;
    j["scene"] = p.scene.name;
    j["solver"] = p.scene.simulation.solver;
    j["max_frequency"] = p.scene.simulation.max_frequency;
    j["points_per_wavelength"] = p.scene.simulation.effective_points_per_wavelength();
    j["h"] = g.h;
    j["dt"] = fdtd ? fdtd_time_step(g.h, p.scene.simulation.speed_of_sound)
                   : ard_time_step(g.h, p.scene.simulation.speed_of_sound);
    j["origin"] = vec(g.origin);
    j["dims"] = {g.dims[0], g.dims[1], g.dims[2]};
    j["grid_cells"] = g.count();
    j["air_cells"] = p.air.air_cells;
    j["boundary_cells"] = p.air.boundary_cells;
    j["cells_in_partitions"] = d.cells_in_partitions();
    j["air_volume_m3"] = p.air.air_volume();
    j["mesh_volume_m3"] = p.air.mesh_volume;
    j["air_convention"] = p.air.cavity ? "cavity" : "shell";
    j["partitions"] = d.partitions.size();
    nlohmann::ordered_json shapes = nlohmann::ordered_json::object();
    for (const auto& [shape, n] : d.shape_counts())
        shapes[shape] = n;
    j["partition_shapes"] = shapes;
    j["share_in_partitions_16"] = d.share_in_partitions_at_least(16);
    j["partition_sides"] = p.scene.simulation.partition_sides;
    j["thinnest_partition"] = d.thinnest_partition();
    const AirLineStats lines = air_lines_touching_thin(d, g);
    j["air_lines"] = lines.lines;
    j["air_lines_touching_thin_partitions"] = lines.touching_thin;
    j["share_of_air_lines_touching_thin_partitions"] = lines.share();
    j["interfaces"] = d.interfaces.size();
    j["interfaces_by_axis"] = {{"x", d.interfaces_on_axis(0)},
                               {"y", d.interfaces_on_axis(1)},
                               {"z", d.interfaces_on_axis(2)}};
    j["interface_colors_by_axis"] = {
        {"x", d.colors_on_axis(0)}, {"y", d.colors_on_axis(1)}, {"z", d.colors_on_axis(2)}};
    j["pml_slabs"] = d.pml.size();
    j["pml_cells"] = d.pml_cells();
    j["pml_depth"] = d.pml_depth;
    j["rigid_faces"] = d.rigid_faces;
    j["memory_bytes"] = {{"ard_cpu", e.memory_ard_cpu},
                         {"ard_gpu", e.memory_ard_gpu},
                         {"ard_gpu_host", e.memory_ard_gpu_host},
                         {"fdtd", e.memory_fdtd}};
    j["seconds_per_simulated_second"] = {{"ard_cpu", e.sps_ard_cpu},
                                         {"ard_gpu", e.sps_ard_gpu},
                                         {"fdtd_cpu", e.sps_fdtd_cpu},
                                         {"fdtd_gpu", e.sps_fdtd_gpu}};
    j["fdtd_grid"] = {{"h", e.fdtd_h}, {"dt", e.dt_fdtd}, {"cells", e.fdtd_cells}};
    if (p.scene.simulation.band == "full") j["geometric"] = geometric_estimate(p);
    j["estimated_total_seconds"] = total_estimate(
        p.scene, j["seconds_per_simulated_second"],
        j.contains("geometric") ? j["geometric"] : nlohmann::ordered_json(), e.write_seconds);
    j["listener_points"] = p.listener_points();
    if (const int cells = p.scene.listener_grid_cells(); cells > 0) {
        j["listener_grid"] = {{"every", cells}, {"spacing_m", cells * p.air.grid.h}};
        if (p.scene.listener_grid_spacing_m > 0)
            j["listener_grid"]["requested_spacing_m"] = p.scene.listener_grid_spacing_m;
    }
    j["sources"] = emitters(p.air.sources);
    j["receivers"] = emitters(p.air.receivers);
    const MeshReport& m = p.mesh.report;
    const Classification& c = p.air.classification;
    j["mesh"] = {{"triangles", p.mesh.triangles.size()},
                 {"surface_groups", p.mesh.groups.size()},
                 {"degenerate_removed", m.degenerate_removed},
                 {"duplicates_removed", m.duplicates_removed},
                 {"boundary_edges", m.boundary_edges},
                 {"non_manifold_edges", m.non_manifold_edges},
                 {"odd_parity_rays", c.odd_rays[0] + c.odd_rays[1] + c.odd_rays[2]},
                 {"disputed_cells", c.disputed_cells},
                 {"uncovered_boundary_faces", p.air.uncovered_faces},
                 {"thin_faces", p.air.thin_faces.size()}};
    j["materials"] = materials_json(p.scene);
    const std::vector<MaterialSurface> surfaces = material_surfaces(p);
    for (auto& mat : j["materials"]) {
        const MaterialSurface& s =
            surfaces[static_cast<size_t>(p.scene.material_index(mat["name"].get<std::string>()))];
        mat["surface_m2"] = s.mesh_m2;
        mat["wave_faces_m2"] = s.faces_m2;
        if (const std::string w = material_surface_warning(s, g.h); !w.empty())
            mat["warnings"].push_back(w);
    }
    j["timings_s"] = {{"import", p.times.import_s},
                      {"voxelize", p.times.voxelize_s},
                      {"decompose", p.times.decompose_s}};
    return j;
}

std::string info_text(const Preprocessed& p) {
    const auto j = info_json(p);
    const Grid& g = p.air.grid;
    std::ostringstream o;
    char b[512];
// A macro so the compiler checks each format string against its arguments.
#define line(...)                                \
    do {                                         \
        std::snprintf(b, sizeof b, __VA_ARGS__); \
        o << b << "\n";                          \
    } while (0)
    line("scene            %s (%s)", p.scene.name.c_str(), p.scene.display_name().c_str());
    line("solver           %s, max frequency %.0f Hz, %.2f points per wavelength",
         p.scene.simulation.solver.c_str(), p.scene.simulation.max_frequency,
         p.scene.simulation.effective_points_per_wavelength());
    line("grid             h = %.4f m, dt = %.4g s, %d x %d x %d cells (%zu)", g.h,
         j["dt"].get<double>(), g.dims[0], g.dims[1], g.dims[2], g.count());
    line("air              %zu cells (%zu on the boundary), %.2f m^3; mesh encloses %.2f m^3",
         p.air.air_cells, p.air.boundary_cells, p.air.air_volume(), p.air.mesh_volume);
    const Decomposition& d = p.decomposition;
    line("partitions       %zu holding %zu cells, %.1f %% of them in partitions of 16^3 or more",
         d.partitions.size(), d.cells_in_partitions(), 100 * d.share_in_partitions_at_least(16));
    // The most common shapes, by cells held.
    std::vector<std::pair<size_t, std::string>> by_cells;
    for (const auto& [shape, n] : d.shape_counts()) {
        size_t x = 0, y = 0, z = 0;
        std::sscanf(shape.c_str(), "%zux%zux%zu", &x, &y, &z);
        by_cells.push_back({n * x * y * z, shape + " x" + std::to_string(n)});
    }
    std::sort(by_cells.rbegin(), by_cells.rend());
    std::string top;
    for (size_t i = 0; i < std::min<size_t>(6, by_cells.size()); ++i)
        top += (i ? ", " : "") + by_cells[i].second;
    line("  largest shapes %s", top.c_str());
    line(
        "  thin slabs     sides %s; thinnest partition %d cells; %zu of %zu air lines (%.1f %%) "
        "cross a partition thinner than 3 cells",
        p.scene.simulation.partition_sides.c_str(), d.thinnest_partition(),
        j["air_lines_touching_thin_partitions"].get<size_t>(), j["air_lines"].get<size_t>(),
        100 * j["share_of_air_lines_touching_thin_partitions"].get<double>());
    line("interfaces       %zu (x %zu, y %zu, z %zu)", d.interfaces.size(), d.interfaces_on_axis(0),
         d.interfaces_on_axis(1), d.interfaces_on_axis(2));
    line("PML              %zu slabs, %zu cells (depth %d); %zu rigid wall faces", d.pml.size(),
         d.pml_cells(), d.pml_depth, d.rigid_faces);
    const auto& mem = j["memory_bytes"];
    line(
        "memory           ARD CPU %.2f GB, ARD GPU %.2f GB (and %.2f GB host), FDTD %.2f GB "
        "(estimates; peaks, one source at a time)",
        mem["ard_cpu"].get<double>() / 1e9, mem["ard_gpu"].get<double>() / 1e9,
        mem["ard_gpu_host"].get<double>() / 1e9, mem["fdtd"].get<double>() / 1e9);
    const auto& t = j["seconds_per_simulated_second"];
    line(
        "time per sim. s  ARD CPU %.3g s, ARD GPU %.3g s, FDTD CPU %.3g s, FDTD GPU %.3g s "
        "(estimates)",
        t["ard_cpu"].get<double>(), t["ard_gpu"].get<double>(), t["fdtd_cpu"].get<double>(),
        t["fdtd_gpu"].get<double>());
    if (j.contains("geometric")) {
        const auto& geo = j["geometric"];
        line(
            "geometric        %zu rays per source, about %.0f reflections each: %.3g s per source "
            "on %.0f threads, %.2f GB (estimates)",
            geo["rays"].get<size_t>(), geo["reflections_per_ray"].get<double>(),
            geo["seconds_per_source"].get<double>(), geo["threads"].get<double>(),
            geo["memory_bytes"].get<double>() / 1e9);
        if (geo.contains("listener_grid")) {
            const auto& lg = geo["listener_grid"];
            line("  listener grid  %.0f rays, %lld cubes: %.3g s of the above, %.2f GB (estimates)",
                 lg["rays"].get<double>(), lg["cells"].get<long long>(),
                 lg["seconds_per_source"].get<double>(), lg["memory_bytes"].get<double>() / 1e9);
        }
    }
    // The scene's own solver, on the CPU and on a GPU: what a run of this scene would take.
    const auto& tot = j["estimated_total_seconds"];
    const std::string solver = p.scene.simulation.solver, upper = solver == "fdtd" ? "FDTD" : "ARD";
    const double geo = tot["geometric_per_source"].get<double>();
    const std::string geo_part = (geo > 0 ? " + geometric " + format_seconds(geo) : std::string()) +
                                 " + write " +
                                 format_seconds(tot["write_per_source"].get<double>());
    line(
        "total            %zu source%s x %g s simulated: %s CPU %s, %s GPU %s (per source: wave %s "
        "or %s%s; "
        "estimates)",
        tot["sources"].get<size_t>(), tot["sources"].get<size_t>() == 1 ? "" : "s",
        tot["duration_s"].get<double>(), upper.c_str(),
        format_seconds(tot["total"][solver + "_cpu"].get<double>()).c_str(), upper.c_str(),
        format_seconds(tot["total"][solver + "_gpu"].get<double>()).c_str(),
        format_seconds(tot["wave_per_source"][solver + "_cpu"].get<double>()).c_str(),
        format_seconds(tot["wave_per_source"][solver + "_gpu"].get<double>()).c_str(),
        geo_part.c_str());
    const MeshReport& m = p.mesh.report;
    line(
        "mesh             %zu triangles in %zu groups; removed %zu degenerate, %zu duplicate; "
        "%zu open and %zu non-manifold edges",
        p.mesh.triangles.size(), p.mesh.groups.size(), m.degenerate_removed, m.duplicates_removed,
        m.boundary_edges, m.non_manifold_edges);
    for (const auto& s : p.air.sources)
        line("source           %s at (%.3f, %.3f, %.3f) -> cell centre (%.3f, %.3f, %.3f)",
             s.name.c_str(), s.position.x, s.position.y, s.position.z, s.cell_centre.x,
             s.cell_centre.y, s.cell_centre.z);
    for (const auto& s : p.air.receivers)
        line("receiver         %s at (%.3f, %.3f, %.3f) -> cell centre (%.3f, %.3f, %.3f)",
             s.name.c_str(), s.position.x, s.position.y, s.position.z, s.cell_centre.x,
             s.cell_centre.y, s.cell_centre.z);
    if (j.contains("listener_grid")) {
        const auto& lg = j["listener_grid"];
        const std::string asked =
            lg.contains("requested_spacing_m")
                ? " (asked " + number_text(lg["requested_spacing_m"].get<double>(), 3) + " m)"
                : std::string();
        line("listener grid    %zu points every %d cells: %.4f m apart%s",
             j["listener_points"].get<size_t>(), lg["every"].get<int>(),
             lg["spacing_m"].get<double>(), asked.c_str());
    }
    for (const auto& mat : j["materials"]) {
        const std::string name = mat["name"].get<std::string>(),
                          wall = mat["wall"].get<std::string>();
        if (wall != "admittance") {
            line("material         %s: %s", name.c_str(), wall.c_str());
            continue;
        }
        std::string bands;
        for (const auto& band : mat["bands"]) {
            if (!band["in_range"].get<bool>()) continue;
            char one[96];
            std::snprintf(one, sizeof one, "%s%g Hz %.3f -> %.3f", bands.empty() ? "" : ", ",
                          band["centre_hz"].get<double>(), band["alpha"].get<double>(),
                          band["fitted_alpha"].get<double>());
            bands += one;
        }
        const std::string given = mat["given_as"].get<std::string>();
        line("material         %s: random-incidence alpha asked%s -> fitted: %s", name.c_str(),
             given == "absorption" ? "" : (" (from " + given + ")").c_str(),
             bands.empty() ? "(no band in the simulated range)" : bands.c_str());
        for (const auto& w : mat["warnings"])
            line("  warning        %s: %s", name.c_str(), w.get<std::string>().c_str());
    }
    line("timings          import %.2f s, voxelize %.2f s, decompose %.2f s", p.times.import_s,
         p.times.voxelize_s, p.times.decompose_s);
#undef line
    return o.str();
}

}  // namespace ardent
