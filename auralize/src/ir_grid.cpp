#include "ardent/auralize/ir_grid.h"

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <type_traits>

#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/input_file.h"
#include "ardent/preprocess/number_text.h"

namespace ardent::auralize {
namespace fs = std::filesystem;

static_assert(sizeof(hid_t) == sizeof(std::int64_t), "hid_t is 64 bits since HDF5 1.10");

namespace {

std::string quoted(const fs::path& p) {
    return "'" + p.string() + "'";
}

// A path that is not a file to read at all.
[[noreturn]] void unreadable(const fs::path& file, const std::string& what) {
    throw InputError("cannot read " + quoted(file) + " as a listener grid: " + what);
}

// A file that is not a grid, or a damaged one: said as such (a damaged .h5 was reported as
// "cannot read ... as audio"), with what is wrong in it.
[[noreturn]] void bad(const fs::path& file, const std::string& what) {
    throw InputError(quoted(file) +
                     " is not a readable Ardent grid file (a listener grid, grid/<source>.h5 of "
                     "ardent simulate): " +
                     what);
}

// Closes an HDF5 object of any kind when it goes out of scope.
struct H5Handle {
    hid_t id = -1;
    herr_t (*close)(hid_t) = nullptr;
    H5Handle(hid_t i, herr_t (*c)(hid_t)) : id(i), close(c) {}
    ~H5Handle() {
        if (id >= 0) close(id);
    }
    H5Handle(const H5Handle&) = delete;
    H5Handle& operator=(const H5Handle&) = delete;
};

std::optional<double> attr_double(hid_t obj, const char* name) {
    if (H5Aexists(obj, name) <= 0) return std::nullopt;
    H5Handle a(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
    if (a.id < 0) return std::nullopt;
    H5Handle space(H5Aget_space(a.id), H5Sclose);
    if (H5Sget_simple_extent_npoints(space.id) != 1) return std::nullopt;
    double v = 0;
    if (H5Aread(a.id, H5T_NATIVE_DOUBLE, &v) < 0) return std::nullopt;
    return v;
}

std::optional<std::string> attr_string(hid_t obj, const char* name) {
    if (H5Aexists(obj, name) <= 0) return std::nullopt;
    H5Handle a(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
    if (a.id < 0) return std::nullopt;
    H5Handle type(H5Aget_type(a.id), H5Tclose);
    if (H5Tget_class(type.id) != H5T_STRING) return std::nullopt;
    // Memory types copy the file's type so its character set (ASCII or UTF-8) is kept: HDF5 does
    // not convert between the two.
    if (H5Tis_variable_str(type.id) > 0) {
        H5Handle mem(H5Tcopy(type.id), H5Tclose);
        char* s = nullptr;
        if (H5Aread(a.id, mem.id, &s) < 0 || !s) return std::nullopt;
        std::string out(s);
        H5free_memory(s);
        return out;
    }
    const size_t n = H5Tget_size(type.id);
    if (n == 0 || n > (1u << 20)) return std::nullopt;
    std::string buf(n + 1, '\0');
    if (H5Aread(a.id, type.id, buf.data()) < 0) return std::nullopt;
    buf.resize(std::strlen(buf.c_str()));
    return buf;
}

// A dataset's stored numbers must be of the class it holds and a few bytes each: a damaged
// header claiming another type made HDF5 allocate gigabytes for its conversion buffer before
// reading (found by fuzz_grid_reader, 2026-11-27).
void check_type(hid_t ds, H5T_class_t want, const std::string& what, const fs::path& file) {
    H5Handle type(H5Dget_type(ds), H5Tclose);
    if (type.id < 0 || H5Tget_class(type.id) != want || H5Tget_size(type.id) == 0 ||
        H5Tget_size(type.id) > 8)
        bad(file, what + " does not hold " +
                      (want == H5T_FLOAT ? "floating-point numbers" : "integers") +
                      " of at most 8 bytes");
}

// Lattice coordinates fit in 21 bits each (a grid of two million points per axis).
constexpr std::int64_t kCoordBits = 21;
constexpr std::int64_t kCoordMax = (std::int64_t{1} << kCoordBits) - 1;

// The sample rates a grid may claim (an output rate is 8 to 768 kHz, as auralize's; a band's
// rate, formats 3 and 4, may be lower; formats 1 and 2 at least the analysis' 1 kHz), and the
// longest IR, a little over simulation.duration's 3600 s for the filters' tails.
constexpr double kMinGridOutputRate = 8000, kMinGridBandRate = 100, kMinGridRate = 1000,
                 kMaxGridRate = 768000, kMaxGridSeconds = 3700;

std::uint64_t pack(std::int64_t i, std::int64_t j, std::int64_t k) {
    return static_cast<std::uint64_t>(i) | (static_cast<std::uint64_t>(j) << kCoordBits) |
           (static_cast<std::uint64_t>(k) << (2 * kCoordBits));
}

// A whole dataset of `rank` dimensions whose shape `expect` gives (0: any, set on return), read as
// `mem_type`; the file's size bounds what it may claim (`budget` bytes).
template <typename T>
std::vector<T> read_array(hid_t group, const char* name, hid_t mem_type,
                          std::vector<hsize_t>& expect, double budget, const fs::path& file) {
    const std::string where = std::string("/geometric/") + name;
    if (H5Lexists(group, name, H5P_DEFAULT) <= 0) bad(file, "no dataset " + where);
    H5Handle ds(H5Dopen2(group, name, H5P_DEFAULT), H5Dclose);
    if (ds.id < 0) bad(file, where + " cannot be opened");
    check_type(ds.id, std::is_floating_point_v<T> ? H5T_FLOAT : H5T_INTEGER, where, file);
    H5Handle space(H5Dget_space(ds.id), H5Sclose);
    const int rank = H5Sget_simple_extent_ndims(space.id);
    std::vector<hsize_t> dims(static_cast<size_t>(std::max(rank, 0)));
    if (rank != static_cast<int>(expect.size()) ||
        H5Sget_simple_extent_dims(space.id, dims.data(), nullptr) != rank)
        bad(file, where + " is not a " + std::to_string(expect.size()) + "-dimensional array");
    double count = 1;
    for (size_t a = 0; a < dims.size(); ++a) {
        if (expect[a] != 0 && dims[a] != expect[a])
            bad(file, where + " has " + std::to_string(dims[a]) + " where " +
                          std::to_string(expect[a]) + " were expected along axis " +
                          std::to_string(a));
        expect[a] = dims[a];
        count *= static_cast<double>(dims[a]);
    }
    if (count * sizeof(T) > budget)
        bad(file, where + " claims more data than a file of this size can hold (damaged?)");
    std::vector<T> out(static_cast<size_t>(count));
    if (!out.empty() && H5Dread(ds.id, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
        bad(file, where + " cannot be read");
    return out;
}

template <typename T>
void all_finite(const std::vector<T>& v, const std::string& what, const fs::path& file) {
    for (const T& x : v)
        if (!std::isfinite(static_cast<double>(x))) bad(file, what + " holds NaN or infinity");
}

// Group /geometric of a full-band grid (format 4), checked whole: shapes that agree, finite
// values, increasing bin edges from 0, paths of each point in order, cells that exist.
GridGeometric read_geometric(hid_t f, size_t points, double duration, double sample_rate,
                             double budget, const fs::path& file) {
    H5Handle g(H5Gopen2(f, "geometric", H5P_DEFAULT), H5Gclose);
    if (g.id < 0) bad(file, "/geometric cannot be opened");
    GridGeometric out;
    const auto positive = [&](const char* name) {
        const auto v = attr_double(g.id, name);
        if (!v || !std::isfinite(*v) || *v <= 0)
            bad(file, std::string("attribute /geometric ") + name + " is missing or not positive");
        return *v;
    };
    out.crossover_hz = positive("crossover_hz");
    // Below the stored band's Nyquist frequency (a run's crossover lies below its max_frequency,
    // which the band rate exceeds 2.5 times), and not below 10 Hz, under the lowest octave band:
    // the join's padding grows as its inverse (fuzz_grid_reader: 6e-136 Hz asked for 1e140
    // samples), and at 10 Hz stays within join_at_crossover's bound at any output rate.
    if (out.crossover_hz < 10 || out.crossover_hz >= sample_rate / 2)
        bad(file,
            "attribute /geometric crossover_hz is not between 10 Hz and half the sample rate");
    out.speed_of_sound = positive("speed_of_sound");
    out.cell_size = positive("cell_size");
    constexpr size_t B = GridGeometric::kBands;
    std::vector<hsize_t> d1{0};
    out.bin_edges = read_array<double>(g.id, "bin_edges", H5T_NATIVE_DOUBLE, d1, budget, file);
    const size_t bins = out.bin_edges.size() < 2 ? 0 : out.bin_edges.size() - 1;
    if (bins == 0 || out.bin_edges[0] != 0) bad(file, "/geometric/bin_edges must start at 0");
    all_finite(out.bin_edges, "/geometric/bin_edges", file);
    for (size_t k = 0; k < bins; ++k)
        if (!(out.bin_edges[k + 1] > out.bin_edges[k]))
            bad(file, "/geometric/bin_edges do not increase");
    // The envelopes end with the IRs (the last bin may reach 5 % past them).
    if (out.bin_edges.back() > 1.1 * duration + 0.05)
        bad(file, "/geometric/bin_edges reach past the IRs' duration");
    std::vector<hsize_t> dc{0, 3};
    const auto centres =
        read_array<double>(g.id, "cell_centre", H5T_NATIVE_DOUBLE, dc, budget, file);
    all_finite(centres, "/geometric/cell_centre", file);
    const size_t cells = dc[0];
    if (cells == 0) bad(file, "/geometric has no cells");
    for (size_t c = 0; c < cells; ++c)
        out.cell_centre.push_back({centres[3 * c], centres[3 * c + 1], centres[3 * c + 2]});
    std::vector<hsize_t> dp{points};
    out.cell_of_point =
        read_array<std::uint32_t>(g.id, "cell_of_point", H5T_NATIVE_UINT32, dp, budget, file);
    for (std::uint32_t c : out.cell_of_point)
        if (c >= cells) bad(file, "/geometric/cell_of_point names a cell that does not exist");
    std::vector<hsize_t> de{cells, bins, B};
    out.energy = read_array<float>(g.id, "energy", H5T_NATIVE_FLOAT, de, budget, file);
    all_finite(out.energy, "/geometric/energy", file);
    for (float v : out.energy)
        if (v < 0) bad(file, "/geometric/energy is negative");
    std::vector<hsize_t> dfl{cells, bins, 3};
    out.flux = read_array<float>(g.id, "flux", H5T_NATIVE_FLOAT, dfl, budget, file);
    all_finite(out.flux, "/geometric/flux", file);
    std::vector<hsize_t> doff{points + 1};
    out.path_offset =
        read_array<std::uint64_t>(g.id, "path_offset", H5T_NATIVE_UINT64, doff, budget, file);
    std::vector<hsize_t> dl{0};
    out.path_length = read_array<double>(g.id, "path_length", H5T_NATIVE_DOUBLE, dl, budget, file);
    const size_t n = dl[0];
    all_finite(out.path_length, "/geometric/path_length", file);
    // A path's pressure is factor / (4 pi length): no source lies within a millimetre of a grid
    // point (distinct cell centres); a crafted 7e-285 m made the IR infinite (fuzz_grid_reader).
    for (double v : out.path_length)
        if (!(v >= 1e-3)) bad(file, "/geometric/path_length holds a path shorter than 1 mm");
    if (out.path_offset[0] != 0 || out.path_offset[points] != n)
        bad(file, "/geometric/path_offset does not span /geometric/path_length");
    for (size_t p = 0; p < points; ++p)
        if (out.path_offset[p + 1] < out.path_offset[p])
            bad(file, "/geometric/path_offset decreases");
    std::vector<hsize_t> dor{n};
    out.path_order =
        read_array<std::int32_t>(g.id, "path_order", H5T_NATIVE_INT32, dor, budget, file);
    std::vector<hsize_t> dpf{n, B};
    out.path_factor = read_array<float>(g.id, "path_factor", H5T_NATIVE_FLOAT, dpf, budget, file);
    all_finite(out.path_factor, "/geometric/path_factor", file);
    for (float v : out.path_factor)  // shares of a reflection and the air's, multiplied
        if (v < 0 || v > 1) bad(file, "/geometric/path_factor holds a factor outside [0, 1]");
    std::vector<hsize_t> dpd{n, 3};
    out.path_direction =
        read_array<float>(g.id, "path_direction", H5T_NATIVE_FLOAT, dpd, budget, file);
    all_finite(out.path_direction, "/geometric/path_direction", file);
    for (size_t i = 0; i < n; ++i) {  // a zero vector has no direction to render from
        const double x = out.path_direction[3 * i], y = out.path_direction[3 * i + 1],
                     z = out.path_direction[3 * i + 2];
        if (std::abs(std::sqrt(x * x + y * y + z * z) - 1) > 1e-3)
            bad(file, "/geometric/path_direction holds a vector that is not of unit length");
    }
    return out;
}

}  // namespace

bool is_hdf5_file(const fs::path& file) {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) return false;  // a FIFO would block the open
    std::ifstream in(file, std::ios::binary);
    char sig[8] = {};
    in.read(sig, 8);
    return in.gcount() == 8 && std::memcmp(sig, "\x89HDF\r\n\x1a\n", 8) == 0;
}

IrGrid::IrGrid(const fs::path& file) : file_(file) {
    // A constructor that throws runs no destructor: close what was opened before rethrowing.
    try {
        open(file);
    } catch (...) {
        if (gradient_id_ >= 0) H5Dclose(gradient_id_);
        if (ir_id_ >= 0) H5Dclose(ir_id_);
        if (file_id_ >= 0) H5Fclose(file_id_);
        throw;
    }
}

void IrGrid::open(const fs::path& file) {
    std::error_code ec;
    if (const std::string kind = special_file_kind(file); !kind.empty())
        unreadable(file, "it is " + kind + ", not a file");
    if (fs::is_directory(file, ec)) unreadable(file, "it is a directory");
    if (!fs::is_regular_file(file, ec)) unreadable(file, "no such file");
    if (!is_hdf5_file(file)) bad(file, "not an HDF5 file");
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors become exceptions, not stderr dumps
    file_id_ = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file_id_ < 0) bad(file, "HDF5 cannot open it (damaged or cut off?)");
    const hid_t f = file_id_;
    const auto format = attr_string(f, "format");
    if (!format || (*format != "ardent-grid/1" && *format != "ardent-grid/2" &&
                    *format != "ardent-grid/3" && *format != "ardent-grid/4"))
        bad(file,
            "attribute 'format' is not \"ardent-grid/1\" to \"ardent-grid/4\" (not written by "
            "ardent simulate?)");
    // Format 3 is format 2 stored at the band's rate (compressed), with the output rate beside.
    const bool v2 = *format != "ardent-grid/1";
    const auto fs_attr = attr_double(f, "sample_rate");
    const auto spacing = attr_double(f, "grid_spacing");
    if (!fs_attr || !std::isfinite(*fs_attr) || *fs_attr <= 0)
        bad(file, "attribute 'sample_rate' is missing or not positive");
    if (!spacing || !std::isfinite(*spacing) || *spacing <= 0)
        bad(file, "attribute 'grid_spacing' is missing or not positive");
    sample_rate_ = *fs_attr;
    output_sample_rate_ = sample_rate_;
    const bool band_rate = *format == "ardent-grid/3" || *format == "ardent-grid/4";
    if (band_rate) {
        const auto out_fs = attr_double(f, "output_sample_rate");
        if (!out_fs || !std::isfinite(*out_fs) || *out_fs <= 0)
            bad(file, "attribute 'output_sample_rate' is missing or not positive");
        output_sample_rate_ = *out_fs;
    }
    // Rates an IR can be played and resampled at, checked before anything is sized by them: a
    // grid claiming 1e12 Hz had its rows resampled to it until memory ran out. Formats 3 and 4
    // store the wave band at its own rate (2.5 max_frequency and up, so it may lie below audio
    // rates, down to 100 Hz for a 40 Hz run), with the output rate beside; formats 1 and 2 are at
    // their one rate, at least the 1 kHz the analysis reads.
    const auto rate_problem = [&](const char* name, double v, double lo) {
        char given[32];
        std::snprintf(given, sizeof given, "%g", v);
        if (!(v >= lo && v <= kMaxGridRate))
            bad(file, std::string("attribute '") + name + "' is " + given + " Hz, outside " +
                          number_text(lo, 0) + " to " + number_text(kMaxGridRate, 0) + " Hz");
    };
    rate_problem("sample_rate", sample_rate_, band_rate ? kMinGridBandRate : kMinGridRate);
    if (band_rate) rate_problem("output_sample_rate", output_sample_rate_, kMinGridOutputRate);
    spacing_ = *spacing;
    source_ = attr_string(f, "source").value_or("");
    scene_hash_ = attr_string(f, "scene_hash").value_or("");

    // /positions: N x 3 float64.
    if (H5Lexists(f, "positions", H5P_DEFAULT) <= 0) bad(file, "no dataset /positions");
    H5Handle pos(H5Dopen2(f, "positions", H5P_DEFAULT), H5Dclose);
    if (pos.id < 0) bad(file, "/positions cannot be opened");
    hsize_t pdims[2] = {0, 0};
    {
        H5Handle space(H5Dget_space(pos.id), H5Sclose);
        if (H5Sget_simple_extent_ndims(space.id) != 2 ||
            H5Sget_simple_extent_dims(space.id, pdims, nullptr) != 2 || pdims[1] != 3)
            bad(file, "/positions is not an N x 3 array");
    }
    if (pdims[0] == 0) bad(file, "the grid has no points");
    // What the dimensions claim must fit in the file: deflate, the writer's only filter, packs at
    // most 1032 bytes into one. A damaged header claimed 1.6e11 samples an IR, and the reader
    // asked for 635 GB (found by fuzz_grid_reader).
    std::error_code size_ec;
    const double budget = 1032.0 * static_cast<double>(fs::file_size(file, size_ec));
    const auto claims_too_much = [&](const std::string& what, double bytes) {
        if (bytes > budget)
            bad(file, what + " claims more data than a file of this size can hold (damaged?)");
    };
    claims_too_much("/positions", 24.0 * static_cast<double>(pdims[0]));
    check_type(pos.id, H5T_FLOAT, "/positions", file);
    std::vector<double> xyz(pdims[0] * 3);
    if (H5Dread(pos.id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, xyz.data()) < 0)
        bad(file, "/positions cannot be read");

    // /ir: N x T float32.
    if (H5Lexists(f, "ir", H5P_DEFAULT) <= 0) bad(file, "no dataset /ir");
    ir_id_ = H5Dopen2(f, "ir", H5P_DEFAULT);
    if (ir_id_ < 0) bad(file, "/ir cannot be opened");
    hsize_t idims[2] = {0, 0};
    {
        H5Handle space(H5Dget_space(ir_id_), H5Sclose);
        if (H5Sget_simple_extent_ndims(space.id) != 2 ||
            H5Sget_simple_extent_dims(space.id, idims, nullptr) != 2)
            bad(file, "/ir is not a two-dimensional array");
    }
    if (idims[0] != pdims[0])
        bad(file, "/ir has " + std::to_string(idims[0]) + " rows for " + std::to_string(pdims[0]) +
                      " positions");
    if (idims[1] == 0) bad(file, "the impulse responses have no samples");
    claims_too_much("/ir", 4.0 * static_cast<double>(idims[0]) * static_cast<double>(idims[1]));
    // No run simulates more than 3600 s; an IR at the output rate is what the readers make of a
    // row, and a longer one only sized their allocations.
    if (static_cast<double>(idims[1]) / sample_rate_ > kMaxGridSeconds)
        bad(file, "/ir holds " + number_text(static_cast<double>(idims[1]) / sample_rate_, 0) +
                      " s at the attribute 'sample_rate' of " + number_text(sample_rate_, 0) +
                      " Hz, longer than any simulation (at most 3600 s)");
    check_type(ir_id_, H5T_FLOAT, "/ir", file);
    samples_ = idims[1];

    if (v2) {
        // /gradient N x 3 x T float32, /gradient_kind N x 3 int8, attribute gradient_spacing.
        const auto gs = attr_double(f, "gradient_spacing");
        if (!gs || !std::isfinite(*gs) || *gs <= 0)
            bad(file, "attribute 'gradient_spacing' is missing or not positive");
        gradient_spacing_ = *gs;
        if (H5Lexists(f, "gradient", H5P_DEFAULT) <= 0) bad(file, "no dataset /gradient");
        gradient_id_ = H5Dopen2(f, "gradient", H5P_DEFAULT);
        if (gradient_id_ < 0) bad(file, "/gradient cannot be opened");
        check_type(gradient_id_, H5T_FLOAT, "/gradient", file);
        hsize_t gdims[3] = {0, 0, 0};
        {
            H5Handle space(H5Dget_space(gradient_id_), H5Sclose);
            if (H5Sget_simple_extent_ndims(space.id) != 3 ||
                H5Sget_simple_extent_dims(space.id, gdims, nullptr) != 3 || gdims[0] != pdims[0] ||
                gdims[1] != 3 || gdims[2] != samples_)
                bad(file, "/gradient is not an N x 3 x T array matching /ir");
        }
        if (H5Lexists(f, "gradient_kind", H5P_DEFAULT) <= 0) bad(file, "no dataset /gradient_kind");
        H5Handle kind(H5Dopen2(f, "gradient_kind", H5P_DEFAULT), H5Dclose);
        if (kind.id < 0) bad(file, "/gradient_kind cannot be opened");
        check_type(kind.id, H5T_INTEGER, "/gradient_kind", file);
        hsize_t kdims[2] = {0, 0};
        {
            H5Handle space(H5Dget_space(kind.id), H5Sclose);
            if (H5Sget_simple_extent_ndims(space.id) != 2 ||
                H5Sget_simple_extent_dims(space.id, kdims, nullptr) != 2 || kdims[0] != pdims[0] ||
                kdims[1] != 3)
                bad(file, "/gradient_kind is not an N x 3 array");
        }
        gradient_kind_.resize(pdims[0]);
        if (H5Dread(kind.id, H5T_NATIVE_INT8, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                    gradient_kind_.data()) < 0)
            bad(file, "/gradient_kind cannot be read");
        for (size_t i = 0; i < gradient_kind_.size(); ++i)
            for (std::int8_t k : gradient_kind_[i])
                if (k < 0 || k > 2)
                    bad(file, "/gradient_kind of point " + std::to_string(i) + " is not 0, 1 or 2");
    }

    positions_.resize(pdims[0]);
    for (size_t i = 0; i < positions_.size(); ++i)
        for (size_t a = 0; a < 3; ++a) {
            const double v = xyz[3 * i + a];
            if (!std::isfinite(v)) bad(file, "position " + std::to_string(i) + " is not finite");
            positions_[i][a] = v;
        }
    lower_ = upper_ = positions_[0];
    for (const Point& p : positions_)
        for (size_t a = 0; a < 3; ++a) {
            lower_[a] = std::min(lower_[a], p[a]);
            upper_[a] = std::max(upper_[a], p[a]);
        }
    // Every point must sit on the lattice lower + spacing * (i, j, k).
    for (size_t i = 0; i < positions_.size(); ++i) {
        std::array<std::int64_t, 3> q{};
        for (size_t a = 0; a < 3; ++a) {
            const double u = (positions_[i][a] - lower_[a]) / spacing_;
            q[a] = std::llround(u);
            if (std::fabs(u - static_cast<double>(q[a])) > 1e-3 || q[a] > kCoordMax)
                bad(file, "position " + std::to_string(i) +
                              " is not on the grid lattice (spacing " + std::to_string(spacing_) +
                              " m)");
        }
        index_[pack(q[0], q[1], q[2])] = i;
    }
    if (*format == "ardent-grid/4" && H5Lexists(f, "geometric", H5P_DEFAULT) > 0)
        geometric_ =
            read_geometric(f, positions_.size(), static_cast<double>(samples_) / sample_rate_,
                           sample_rate_, budget, file);
}

IrGrid::~IrGrid() {
    if (gradient_id_ >= 0) H5Dclose(gradient_id_);
    if (ir_id_ >= 0) H5Dclose(ir_id_);
    if (file_id_ >= 0) H5Fclose(file_id_);
}

std::vector<float> IrGrid::ir(size_t point) const {
    std::vector<float> row(samples_);
    if (point >= positions_.size())
        throw InputError("cannot read " + quoted(file_) + ": no grid point " +
                         std::to_string(point));
    H5Handle fspace(H5Dget_space(ir_id_), H5Sclose);
    hsize_t start[2] = {point, 0}, count[2] = {1, samples_};
    H5Sselect_hyperslab(fspace.id, H5S_SELECT_SET, start, nullptr, count, nullptr);
    H5Handle mspace(H5Screate_simple(2, count, nullptr), H5Sclose);
    if (H5Dread(ir_id_, H5T_NATIVE_FLOAT, mspace.id, fspace.id, H5P_DEFAULT, row.data()) < 0)
        bad(file_, "HDF5 failed to read /ir row " + std::to_string(point) + " (damaged?)");
    for (float v : row)
        if (!std::isfinite(v))
            throw InputError("cannot use " + quoted(file_) + ": the IR of grid point " +
                             std::to_string(point) + " holds NaN or infinite samples");
    return row;
}

std::array<std::vector<float>, 3> IrGrid::gradient(size_t point) const {
    std::array<std::vector<float>, 3> out;
    if (point >= positions_.size() || gradient_id_ < 0)
        throw InputError("cannot read " + quoted(file_) + ": no gradient of grid point " +
                         std::to_string(point));
    std::vector<float> rows(3 * samples_);
    H5Handle fspace(H5Dget_space(gradient_id_), H5Sclose);
    hsize_t start[3] = {point, 0, 0}, count[3] = {1, 3, samples_};
    H5Sselect_hyperslab(fspace.id, H5S_SELECT_SET, start, nullptr, count, nullptr);
    H5Handle mspace(H5Screate_simple(3, count, nullptr), H5Sclose);
    if (H5Dread(gradient_id_, H5T_NATIVE_FLOAT, mspace.id, fspace.id, H5P_DEFAULT, rows.data()) < 0)
        bad(file_,
            "HDF5 failed to read /gradient of point " + std::to_string(point) + " (damaged?)");
    for (size_t a = 0; a < 3; ++a) {
        out[a].assign(rows.begin() + static_cast<std::ptrdiff_t>(a * samples_),
                      rows.begin() + static_cast<std::ptrdiff_t>((a + 1) * samples_));
        for (float v : out[a])
            if (!std::isfinite(v))
                throw InputError("cannot use " + quoted(file_) + ": the gradient of grid point " +
                                 std::to_string(point) + " holds NaN or infinite samples");
    }
    return out;
}

std::array<int, 3> IrGrid::gradient_kind(size_t point) const {
    if (point >= gradient_kind_.size()) return {0, 0, 0};
    return {gradient_kind_[point][0], gradient_kind_[point][1], gradient_kind_[point][2]};
}

std::array<std::int64_t, 3> IrGrid::lattice(size_t point) const {
    std::array<std::int64_t, 3> q{};
    for (size_t a = 0; a < 3; ++a)
        q[a] = std::llround((positions_[point][a] - lower_[a]) / spacing_);
    return q;
}

std::optional<size_t> IrGrid::at(std::int64_t i, std::int64_t j, std::int64_t k) const {
    if (i < 0 || j < 0 || k < 0 || i > kCoordMax || j > kCoordMax || k > kCoordMax)
        return std::nullopt;
    const auto it = index_.find(pack(i, j, k));
    if (it == index_.end()) return std::nullopt;
    return it->second;
}

std::optional<size_t> IrGrid::nearest(const Point& p) const {
    std::array<double, 3> u{};
    for (size_t a = 0; a < 3; ++a) {
        if (!std::isfinite(p[a])) return std::nullopt;
        u[a] = (p[a] - lower_[a]) / spacing_;
        if (u[a] < -1.5 || u[a] > static_cast<double>(kCoordMax)) return std::nullopt;
    }
    std::optional<size_t> best;
    double best_d2 = spacing_ * spacing_ * (1 + 1e-9);  // at most one spacing away
    for (std::int64_t di = -1; di <= 1; ++di)
        for (std::int64_t dj = -1; dj <= 1; ++dj)
            for (std::int64_t dk = -1; dk <= 1; ++dk) {
                const auto q =
                    at(std::llround(u[0]) + di, std::llround(u[1]) + dj, std::llround(u[2]) + dk);
                if (!q) continue;
                double d2 = 0;
                for (size_t a = 0; a < 3; ++a)
                    d2 += (positions_[*q][a] - p[a]) * (positions_[*q][a] - p[a]);
                if (d2 <= best_d2) {
                    best_d2 = d2;
                    best = q;
                }
            }
    return best;
}

std::vector<IrGrid::Weight> IrGrid::trilinear(const Point& p) const {
    std::array<std::int64_t, 3> base{};
    std::array<double, 3> t{};
    for (size_t a = 0; a < 3; ++a) {
        if (!std::isfinite(p[a])) return {};
        double u = (p[a] - lower_[a]) / spacing_;
        if (u < -2 || u > static_cast<double>(kCoordMax)) return {};
        // Rounding in (p - lower) / spacing must not give a far corner a weight of 1e-13.
        if (std::fabs(u - std::round(u)) < 1e-9) u = std::round(u);
        base[a] = static_cast<std::int64_t>(std::floor(u));
        t[a] = u - static_cast<double>(base[a]);
    }
    std::vector<Weight> out;
    double sum = 0;
    for (std::int64_t dk = 0; dk <= 1; ++dk)
        for (std::int64_t dj = 0; dj <= 1; ++dj)
            for (std::int64_t di = 0; di <= 1; ++di) {
                const double w =
                    (di ? t[0] : 1 - t[0]) * (dj ? t[1] : 1 - t[1]) * (dk ? t[2] : 1 - t[2]);
                if (!(w > 0)) continue;
                const auto q = at(base[0] + di, base[1] + dj, base[2] + dk);
                if (!q) continue;
                out.push_back({*q, w});
                sum += w;
            }
    for (Weight& w : out)
        w.weight /= sum;
    return out;
}

std::optional<size_t> IrGrid::neighbour(size_t point, int axis, int dir) const {
    if (point >= positions_.size() || axis < 0 || axis > 2) return std::nullopt;
    auto q = lattice(point);
    q[static_cast<size_t>(axis)] += dir;
    return at(q[0], q[1], q[2]);
}

}  // namespace ardent::auralize
