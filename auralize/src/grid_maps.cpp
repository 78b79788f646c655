#include "ardent/auralize/grid_maps.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <map>
#include <thread>

#include "ardent/preprocess/errors.h"

namespace ardent::auralize {
namespace {

double distance(const Point& a, const Point& b) {
    return std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                     (a[2] - b[2]) * (a[2] - b[2]));
}

// Lattice index of coordinate `v` along an axis (the grid's points sit on lower + spacing * i).
long long lattice(double v, double lower, double spacing) {
    return std::llround((v - lower) / spacing);
}

}  // namespace

Analysis analyze_grid_point(const IrGrid& grid, size_t point, const std::vector<float>& row,
                            const GridAnalysisOptions& options) {
    AnalysisOptions o;
    o.max_frequency_hz = options.max_frequency_hz;
    o.free_field_10m = options.free_field_10m;
    if (options.source)
        o.onset_s = distance(grid.positions()[point], *options.source) / options.speed_of_sound;
    try {
        if (options.ir_of_row)
            return analyze_ir(options.ir_of_row(point, row), options.ir_rate, options.bands, o);
        return analyze_ir(row, grid.sample_rate(), options.bands, o);
    } catch (const InputError& e) {
        throw InputError("cannot analyze grid point " + std::to_string(point) + " of '" +
                         grid.file().string() + "': " + e.what());
    }
}

std::vector<std::exception_ptr> analyze_grid_rows(const IrGrid& grid, size_t first,
                                                  std::span<const std::vector<float>> rows,
                                                  const GridAnalysisOptions& options,
                                                  std::vector<Analysis>& out) {
    const size_t count = rows.size();
    std::vector<std::exception_ptr> errors(count);
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const size_t workers =
        std::min<size_t>(count, options.threads > 0 ? static_cast<size_t>(options.threads) : cores);
    std::atomic<size_t> next{0};
    const auto work = [&] {
        for (size_t i; (i = next++) < count;) {
            try {
                out[first + i] = analyze_grid_point(grid, first + i, rows[i], options);
            } catch (...) {
                errors[i] = std::current_exception();  // each row its own slot
            }
        }
    };
    std::vector<std::thread> pool;
    for (size_t w = 1; w < workers; ++w)
        pool.emplace_back(work);
    work();
    for (auto& t : pool)
        t.join();
    return errors;
}

std::vector<Analysis> analyze_grid(const IrGrid& grid, const GridAnalysisOptions& options) {
    const size_t n = grid.size();
    std::vector<Analysis> out(n);
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const size_t workers = options.threads > 0 ? static_cast<size_t>(options.threads) : cores;
    // HDF5 reads stay on this thread (Debian's HDF5 is thread-safe, not every build is); the
    // analyses of a batch of IRs run on the workers.
    const size_t batch = 16 * workers;
    std::vector<std::vector<float>> irs(batch);
    for (size_t first = 0; first < n; first += batch) {
        if (options.stop && options.stop->load()) return {};
        const size_t count = std::min(batch, n - first);
        for (size_t i = 0; i < count; ++i)
            irs[i] = grid.ir(first + i);
        // The first point in the grid's order that failed, whichever thread met it first.
        for (const std::exception_ptr& e : analyze_grid_rows(
                 grid, first, std::span<const std::vector<float>>(irs.data(), count), options, out))
            if (e) std::rethrow_exception(e);
    }
    return out;
}

std::string name_of(MapParameter parameter) {
    switch (parameter) {
        case MapParameter::T20:
            return "t20";
        case MapParameter::Edt:
            return "edt";
        case MapParameter::C80:
            return "c80";
        case MapParameter::D50:
            return "d50";
        case MapParameter::G:
            return "g";
    }
    return "";
}

std::string unit_of(MapParameter parameter) {
    switch (parameter) {
        case MapParameter::T20:
        case MapParameter::Edt:
            return "s";
        case MapParameter::C80:
        case MapParameter::G:
            return "dB";
        case MapParameter::D50:
            return "";
    }
    return "";
}

std::optional<double> value_of(const BandResult& band, MapParameter parameter) {
    switch (parameter) {
        case MapParameter::T20:
            return band.t20_s;
        case MapParameter::Edt:
            return band.edt_s;
        case MapParameter::C80:
            return band.c80_db;
        case MapParameter::D50:
            return band.d50;
        case MapParameter::G:
            return band.g_db;
    }
    return std::nullopt;
}

MapPlane plane_nearest(const IrGrid& grid, double height) {
    // The layers by lattice index, so that rounding in the stored positions cannot split one.
    std::map<long long, std::vector<size_t>> layers;
    for (size_t i = 0; i < grid.size(); ++i)
        layers[lattice(grid.positions()[i][2], grid.lower()[2], grid.spacing())].push_back(i);
    MapPlane best;
    double best_d = HUGE_VAL;
    for (auto& [k, points] : layers) {
        const double z = grid.lower()[2] + static_cast<double>(k) * grid.spacing();
        if (std::fabs(z - height) < best_d) {
            best_d = std::fabs(z - height);
            best.z = z;
            best.points = points;
        }
    }
    return best;
}

std::array<uint8_t, 3> map_colour(double t) {
    // Dark blue, blue, green, yellow-green, yellow: lightness rises steadily, so the order of
    // values reads in grey too.
    static constexpr double stops[5][3] = {
        {40, 20, 90}, {40, 90, 170}, {30, 150, 130}, {130, 200, 70}, {250, 230, 40}};
    t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0) * 4;
    const int i = std::min(3, static_cast<int>(t));
    const double f = t - i;
    std::array<uint8_t, 3> c{};
    for (size_t k = 0; k < 3; ++k)
        c[k] = static_cast<uint8_t>(std::lround(stops[i][k] + f * (stops[i + 1][k] - stops[i][k])));
    return c;
}

RgbImage map_image(const IrGrid& grid, const MapPlane& plane,
                   const std::vector<std::optional<double>>& values, double lo, double hi) {
    long long i0 = 0, i1 = 0, j0 = 0, j1 = 0;
    bool first = true;
    for (size_t p : plane.points) {
        const long long i = lattice(grid.positions()[p][0], grid.lower()[0], grid.spacing());
        const long long j = lattice(grid.positions()[p][1], grid.lower()[1], grid.spacing());
        i0 = first ? i : std::min(i0, i);
        i1 = first ? i : std::max(i1, i);
        j0 = first ? j : std::min(j0, j);
        j1 = first ? j : std::max(j1, j);
        first = false;
    }
    const long long nx = i1 - i0 + 1, ny = j1 - j0 + 1;
    // Blocks of at least 4 pixels, the long side about 600 pixels.
    const int block = static_cast<int>(std::max(4LL, 600 / std::max(nx, ny)));
    const int bar = std::max(12, block / 2), gap = 4;
    RgbImage img;
    img.width = static_cast<int>(nx) * block;
    img.height = static_cast<int>(ny) * block + gap + bar;
    img.rgb.assign(static_cast<size_t>(img.width) * static_cast<size_t>(img.height) * 3, 255);
    const auto fill = [&](int x0, int y0, int w, int h, std::array<uint8_t, 3> c) {
        for (int y = y0; y < y0 + h; ++y)
            for (int x = x0; x < x0 + w; ++x) {
                const size_t k = (static_cast<size_t>(y) * static_cast<size_t>(img.width) +
                                  static_cast<size_t>(x)) *
                                 3;
                img.rgb[k] = c[0];
                img.rgb[k + 1] = c[1];
                img.rgb[k + 2] = c[2];
            }
    };
    const std::array<uint8_t, 3> grey = {150, 150, 150};
    fill(0, 0, img.width, static_cast<int>(ny) * block, grey);
    const double span = hi > lo ? hi - lo : 1.0;
    for (size_t p : plane.points) {
        const long long i = lattice(grid.positions()[p][0], grid.lower()[0], grid.spacing()) - i0;
        const long long j = lattice(grid.positions()[p][1], grid.lower()[1], grid.spacing()) - j0;
        if (!values[p] || !std::isfinite(*values[p])) continue;
        // y up: the highest j is the top row.
        fill(static_cast<int>(i) * block, static_cast<int>(ny - 1 - j) * block, block, block,
             map_colour((*values[p] - lo) / span));
    }
    const int bar_top = static_cast<int>(ny) * block + gap;
    for (int x = 0; x < img.width; ++x)
        fill(x, bar_top, 1, bar,
             map_colour(img.width > 1 ? static_cast<double>(x) / (img.width - 1) : 0.0));
    return img;
}

}  // namespace ardent::auralize
