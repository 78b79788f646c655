// Synthetic listener grids for the spatial-rendering tests: a plane wave sampled on a small
// lattice of points, written as an `ardent simulate` grid file (grid/<source>.h5 layout,
// docs/output-format.md) with the HDF5 C API. Header-only, so that only the tests that need it
// compile it.
#pragma once

#include <hdf5.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <filesystem>
#include <numbers>
#include <string>
#include <vector>

namespace ardent::test {

struct GridPoint {
    std::array<double, 3> position;
    std::vector<float> ir;
};

// A band-pass pulse (difference of two Blackman-windowed sinc low-passes, `lo` to `hi` Hz) whose
// centre lies at `centre` seconds; evaluated analytically, so any fractional delay is exact.
inline double bandpass_pulse(double t, double lo, double hi, double half_width) {
    if (std::fabs(t) >= half_width) return 0;
    const double w = 0.42 + 0.5 * std::cos(std::numbers::pi * t / half_width) +
                     0.08 * std::cos(2 * std::numbers::pi * t / half_width);
    const auto lowpass = [](double f, double tt) {
        const double x = 2 * f * tt;
        return 2 * f *
               (std::fabs(x) < 1e-12 ? 1.0
                                     : std::sin(std::numbers::pi * x) / (std::numbers::pi * x));
    };
    return (lowpass(hi, t) - lowpass(lo, t)) * w;
}

// A plane wave from the unit direction `from` (pointing towards the source) at the points of a
// 3 x 3 x 3 lattice of spacing `d` around `centre`: p(x, t) = pulse(t - t0 + from . x / c), so
// points nearer the source hear it earlier. `samples` samples at `fs`, gain `gain`.
inline std::vector<GridPoint> plane_wave_grid(std::array<double, 3> from,
                                              std::array<double, 3> centre, double d, double fs,
                                              size_t samples, double lo = 100, double hi = 2000,
                                              double t0 = 0.02, double gain = 1e-3) {
    std::vector<GridPoint> pts;
    for (int i = -1; i <= 1; ++i)
        for (int j = -1; j <= 1; ++j)
            for (int k = -1; k <= 1; ++k) {
                GridPoint p;
                p.position = {centre[0] + i * d, centre[1] + j * d, centre[2] + k * d};
                const double lead = (from[0] * i * d + from[1] * j * d + from[2] * k * d) / 343.0;
                p.ir.resize(samples);
                for (size_t n = 0; n < samples; ++n)
                    p.ir[n] = static_cast<float>(
                        gain *
                        bandpass_pulse(static_cast<double>(n) / fs - t0 + lead, lo, hi, 0.015) /
                        fs);
                pts.push_back(std::move(p));
            }
    return pts;
}

// Writes the grid file (format 1: positions and IRs only; other formats get the same content,
// for files that must be refused); returns false if HDF5 fails.
inline bool write_grid_file(const std::filesystem::path& file, const std::vector<GridPoint>& pts,
                            double fs, double spacing, const std::string& source = "S1",
                            const std::string& format = "ardent-grid/1") {
    const hid_t f = H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0) return false;
    bool ok = true;
    const hsize_t n = pts.size(), t = pts.empty() ? 0 : pts[0].ir.size();
    std::vector<double> xyz;
    std::vector<float> ir;
    for (const auto& p : pts) {
        xyz.insert(xyz.end(), p.position.begin(), p.position.end());
        ir.insert(ir.end(), p.ir.begin(), p.ir.end());
    }
    const auto dataset = [&](const char* name, hid_t file_type, hid_t mem_type, hsize_t rows,
                             hsize_t cols, const void* data) {
        hsize_t dims[2] = {rows, cols};
        const hid_t space = H5Screate_simple(2, dims, nullptr);
        const hid_t ds =
            H5Dcreate2(f, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        ok = ok && ds >= 0 &&
             (rows * cols == 0 || H5Dwrite(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
        if (ds >= 0) H5Dclose(ds);
        H5Sclose(space);
    };
    dataset("positions", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, 3, xyz.data());
    dataset("ir", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, n, t, ir.data());
    const auto attr_double = [&](const char* name, double v) {
        const hid_t space = H5Screate(H5S_SCALAR);
        const hid_t a = H5Acreate2(f, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT);
        ok = ok && a >= 0 && H5Awrite(a, H5T_NATIVE_DOUBLE, &v) >= 0;
        if (a >= 0) H5Aclose(a);
        H5Sclose(space);
    };
    const auto attr_string = [&](const char* name, const std::string& v) {
        const hid_t type = H5Tcopy(H5T_C_S1);
        H5Tset_size(type, v.size());
        const hid_t space = H5Screate(H5S_SCALAR);
        const hid_t a = H5Acreate2(f, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
        ok = ok && a >= 0 && H5Awrite(a, type, v.c_str()) >= 0;
        if (a >= 0) H5Aclose(a);
        H5Sclose(space);
        H5Tclose(type);
    };
    attr_double("sample_rate", fs);
    attr_double("grid_spacing", spacing);
    attr_string("source", source);
    attr_string("format", format);
    ok = H5Fclose(f) >= 0 && ok;
    return ok;
}

}  // namespace ardent::test
