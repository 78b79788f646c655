#include "ardent/pipeline/simulate_output.h"

#include <hdf5.h>
#include <libdeflate.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include <nlohmann/json.hpp>

#include "ardent/auralize/resample.h"
#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/safe_output.h"

namespace ardent::pipeline {
namespace fs = std::filesystem;

static_assert(sizeof(hid_t) == sizeof(std::int64_t), "hid_t is 64 bits since HDF5 1.10");

namespace {

std::string quoted(const fs::path& p) {
    return quoted_path(p);
}

fs::path with_suffix(const fs::path& target, const std::string& suffix) {
    fs::path p = target;
    p += suffix;
    return p;
}

// Empty when `dir` is a results directory that ardent simulate wrote and nothing else: result.json
// of format ardent-result/1 and only ir/*.wav, ambix/*.wav and grid/*.h5 beside it. Otherwise
// what in it is not Ardent's, for the message.
std::string not_ours(const fs::path& dir) {
    std::error_code ec;
    // Not opened unless it is a regular file: opening a FIFO would wait for a writer for ever.
    if (!fs::is_regular_file(fs::symlink_status(dir / "result.json", ec)))
        return quoted(dir) + " holds no result.json of ardent simulate";
    try {
        std::ifstream in(dir / "result.json");
        const auto j = nlohmann::json::parse(
            in, [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
                if (depth > 32) throw std::runtime_error("too deep");
                return true;
            });
        if (!j.is_object() || j.value("format", "") != "ardent-result/1")
            return quoted(dir / "result.json") + " is not an ardent-result/1 file";
    } catch (const std::exception&) {
        return quoted(dir) + " holds no result.json of ardent simulate";
    }
    const std::map<std::string, std::string> folders = {
        {"ir", ".wav"}, {"ambix", ".wav"}, {"grid", ".h5"}};
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (name == "result.json" && e.is_regular_file(ec) && !e.is_symlink(ec)) continue;
        const auto f = folders.find(name);
        if (f == folders.end() || e.is_symlink(ec) || !e.is_directory(ec))
            return quoted(e.path()) + ", which ardent simulate did not write, is in it";
        for (const auto& g : fs::directory_iterator(e.path(), ec))
            if (g.is_symlink(ec) || !g.is_regular_file(ec) || g.path().extension() != f->second)
                return quoted(g.path()) + ", which ardent simulate did not write, is in it";
    }
    if (ec) return "cannot read " + quoted(dir) + ": " + ec.message();
    return {};
}

OutputRules simulate_rules(bool force, std::vector<fs::path> inputs) {
    OutputRules rules;
    rules.replace = force;
    rules.inputs = std::move(inputs);
    return rules;
}

}  // namespace

// ---- OutputDir --------------------------------------------------------------------------------

const FolderKind& results_directory() {
    static const FolderKind kind{"a results directory of ardent simulate", not_ours};
    return kind;
}

OutputDir::OutputDir(const fs::path& target, bool force, bool partial, std::vector<fs::path> inputs)
    : folder_(target, simulate_rules(force, std::move(inputs)), results_directory(),
              partial ? partial_path(target)
                      : with_suffix(target, ".tmp-" + std::to_string(::getpid()))),
      partial_(partial) {}

fs::path OutputDir::partial_path(const fs::path& target) {
    return with_suffix(target, ".tmp-partial");
}

void OutputDir::check_target(const fs::path& target, bool force,
                             const std::vector<fs::path>& inputs) {
    check_output_folder(target, simulate_rules(force, inputs), results_directory());
}

void OutputDir::check_partial(const fs::path& target, bool resume) {
    std::error_code ec;
    const fs::path partial = partial_path(target);
    const bool exists = fs::exists(fs::symlink_status(partial, ec));
    if (resume && !fs::is_directory(fs::symlink_status(partial, ec)))
        throw InputError("nothing to resume: no partial run at " + quoted(partial));
    if (!resume && exists)
        throw InputError("a checkpointed run of " + quoted(target) +
                         " was stopped and is kept in " + quoted(partial) +
                         ": continue it with --resume (the same scene and -o), or delete it to "
                         "start again: rm -r " +
                         shell_quoted(partial));
}

std::vector<std::string> OutputDir::leftovers(const fs::path& target) {
    const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
    const std::string name = target.filename().string();
    const std::string own = std::to_string(::getpid());
    std::vector<std::pair<fs::path, std::string>> found;  // path, pid
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(parent, ec)) {
        const std::string n = e.path().filename().string();
        if (n.size() <= name.size() + 5 || n.compare(0, name.size(), name) != 0) continue;
        const std::string kind = n.substr(name.size(), 5), pid = n.substr(name.size() + 5);
        if ((kind != ".tmp-" && kind != ".old-") || pid == own ||
            pid.find_first_not_of("0123456789") != std::string::npos)
            continue;
        if (e.is_symlink(ec) || !e.is_directory(ec)) continue;
        found.emplace_back(target.has_parent_path() ? parent / n : fs::path(n), pid);
    }
    std::sort(found.begin(), found.end());
    std::vector<std::string> out;
    for (const auto& [path, pid] : found) {
        const bool old = path.filename().string().compare(name.size(), 5, ".old-") == 0;
        out.push_back(quoted(path) +
                      (old ? " holds the results that an earlier --force run (process " + pid +
                                 ") was replacing when it was stopped; keep what you need "
                                 "from it, then remove it: rm -r "
                           : " was left by an earlier run (process " + pid +
                                 ") that was killed before it could remove it; it holds no "
                                 "checkpoint to resume: remove it with rm -r ") +
                      shell_quoted(path));
    }
    return out;
}

void OutputDir::create(bool resume) {
    std::error_code ec;
    if (!resume && partial_ && fs::exists(fs::symlink_status(tmp(), ec)))
        throw InputError("a partial run of this output exists at " + quoted(tmp()) +
                         ": continue it with --resume, or delete it");
    folder_.create(resume);
    for (const char* sub : {"ir", "ambix", "grid"}) {
        fs::create_directories(tmp() / sub, ec);
        if (ec) throw_write_error(tmp() / sub, ec.value(), "a new folder");
    }
}

// ---- names and hashes -------------------------------------------------------------------------

std::string safe_name(const std::string& name) {
    std::string s = name;
    for (char& ch : s) {
        const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                        (ch >= '0' && ch <= '9') || ch == '.' || ch == '-' || ch == '_';
        if (!ok) ch = '_';
    }
    if (s.empty() || s == "." || s == "..") s = "_" + s;
    return s;
}

namespace {

struct Fnv1a {
    std::uint64_t h = 1469598103934665603ull;
    void add(const char* data, size_t n) {
        for (size_t i = 0; i < n; ++i) {
            h ^= static_cast<unsigned char>(data[i]);
            h *= 1099511628211ull;
        }
    }
    void add(const std::string& s) {
        add(s.data(), s.size());
        add("\0", 1);
    }
    void add_file(const fs::path& p) {
        std::ifstream in(p, std::ios::binary);
        char buf[65536];
        while (in) {
            in.read(buf, sizeof buf);
            add(buf, static_cast<size_t>(in.gcount()));
        }
        add("\0", 1);
    }
};

}  // namespace

std::string scene_hash(const Scene& scene) {
    Fnv1a f;
    if (!scene.file.empty()) f.add_file(scene.file);
    if (!scene.geometry.mesh.empty()) f.add_file(scene.geometry.mesh);
    const auto& s = scene.simulation;
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s|%s|%.17g|%.17g|%.17g|%.17g|%d|%d|%s", s.solver.c_str(),
                  s.device.c_str(), s.max_frequency, s.duration,
                  s.effective_points_per_wavelength(), s.speed_of_sound, scene.output_sample_rate,
                  scene.listener_grid_cells(), s.partition_sides.c_str());
    f.add(buf);
    std::snprintf(buf, sizeof buf, "air|%.17g|%.17g|%.17g|%d", scene.air.temperature_c,
                  scene.air.relative_humidity, scene.air.pressure_kpa,
                  scene.air.absorption ? 1 : 0);
    f.add(buf);
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(f.h));
    return buf;
}

// ---- IR delivery ------------------------------------------------------------------------------

namespace {
// Extra simulation samples after the delivered span so the resampler's filter has real data
// (not its zero padding) under the last delivered samples.
constexpr size_t kTailSamples = 64;
}  // namespace

size_t steps_needed(double dt, double delay, double duration) {
    return static_cast<size_t>(std::floor(delay / dt)) +
           static_cast<size_t>(std::ceil(duration / dt)) + kTailSamples;
}

IrDelivery::IrDelivery(double dt, double delay, double fs_out, double duration,
                       const Atmosphere& air, double speed_of_sound)
    : dt_(dt),
      fs_out_(fs_out),
      duration_(duration),
      skip_(static_cast<size_t>(std::floor(delay / dt))),
      filter_(1.0 / dt, air, speed_of_sound, delay - static_cast<double>(skip_) * dt) {}

std::vector<float> IrDelivery::advanced_and_filtered(std::span<const float> signal) const {
    const size_t skip = std::min(signal.size(), skip_);
    return filter_.apply(signal.subspan(skip));
}

std::vector<float> IrDelivery::deliver(std::span<const float> signal) const {
    const std::vector<float> ir = advanced_and_filtered(signal);
    std::vector<float> out = audio::resample_ir(std::span<const float>(ir), 1.0 / dt_, fs_out_);
    out.resize(static_cast<size_t>(std::llround(duration_ * fs_out_)), 0.0f);
    return out;
}

std::vector<float> IrDelivery::deliver(std::span<const float> signal,
                                       const audio::IrDecimator& band) const {
    return band.apply(advanced_and_filtered(signal),
                      static_cast<size_t>(std::llround(duration_ * band.rate_out())));
}

audio::IrDecimator grid_decimator(double dt, double max_frequency) {
    const double fs = 1.0 / dt;
    const size_t factor = audio::decimation_factor(fs, 2.5 * max_frequency);
    // The pass band: max_frequency, or a little less where the simulation rate itself is close
    // to it (a decimator needs its pass band below its output's Nyquist frequency).
    const double pass = std::min(max_frequency, 0.45 * fs / static_cast<double>(factor));
    return audio::IrDecimator(fs, factor, pass);
}

std::vector<float> IrDelivery::deliver(std::span<const double> signal) const {
    std::vector<float> f(signal.size());
    for (size_t i = 0; i < f.size(); ++i)
        f[i] = static_cast<float>(signal[i]);
    return deliver(std::span<const float>(f));
}

// ---- HDF5 -------------------------------------------------------------------------------------

namespace {

void h5_check(bool ok, const fs::path& file, const char* what) {
    if (!ok) throw InputError("cannot write " + quoted(file) + ": HDF5 failed to " + what);
}

// A creation property list of `cls` without HDF5's object time stamps (on by default), so that two
// runs of one scene write the same bytes (docs/output-format.md).
hid_t untimed(hid_t cls) {
    const hid_t plist = H5Pcreate(cls);
    H5Pset_obj_track_times(plist, 0);
    return plist;
}

void attr_double(hid_t obj, const char* name, double v, const fs::path& file) {
    const hid_t space = H5Screate(H5S_SCALAR);
    const hid_t a = H5Acreate2(obj, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT);
    const bool ok = a >= 0 && H5Awrite(a, H5T_NATIVE_DOUBLE, &v) >= 0;
    if (a >= 0) H5Aclose(a);
    H5Sclose(space);
    h5_check(ok, file, name);
}

void attr_int(hid_t obj, const char* name, int v, const fs::path& file) {
    const hid_t space = H5Screate(H5S_SCALAR);
    const hid_t a = H5Acreate2(obj, name, H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT);
    const bool ok = a >= 0 && H5Awrite(a, H5T_NATIVE_INT, &v) >= 0;
    if (a >= 0) H5Aclose(a);
    H5Sclose(space);
    h5_check(ok, file, name);
}

void attr_string(hid_t obj, const char* name, const std::string& v, const fs::path& file) {
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, std::max<size_t>(1, v.size()));
    H5Tset_strpad(type, H5T_STR_NULLTERM);
    H5Tset_cset(type, H5T_CSET_UTF8);
    const hid_t space = H5Screate(H5S_SCALAR);
    const hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    const bool ok = a >= 0 && H5Awrite(a, type, v.empty() ? "" : v.c_str()) >= 0;
    if (a >= 0) H5Aclose(a);
    H5Sclose(space);
    H5Tclose(type);
    h5_check(ok, file, name);
}

}  // namespace

GridWriter::GridWriter(const fs::path& file, const std::vector<Vec3>& positions,
                       const std::vector<GradientKinds>& kinds, size_t samples,
                       const GridFileInfo& info)
    : file_(file), rows_(positions.size()), samples_(samples) {
    h5_check(kinds.size() == rows_, file, "match gradient kinds to points");
    // A file whose write failed (a full disk, ulimit -f) cannot be closed, and HDF5's own close
    // of it at exit crashed the process after its message: our files are closed or removed by us.
    // (Only effective before HDF5's first call, which this usually is.)
    H5dont_atexit();
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors become exceptions, not stderr dumps
    const hid_t fcpl = untimed(H5P_FILE_CREATE);  // the root group's times
    file_id_ = H5Fcreate(file.c_str(), H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    H5Pclose(fcpl);
    h5_check(file_id_ >= 0, file, "create the file");
    const hid_t f = file_id_;

    hsize_t pdims[2] = {rows_, 3};
    hid_t space = H5Screate_simple(2, pdims, nullptr);
    hid_t dcpl = untimed(H5P_DATASET_CREATE);
    hid_t ds = H5Dcreate2(f, "positions", H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    std::vector<double> xyz(rows_ * 3);
    for (size_t i = 0; i < rows_; ++i)
        for (int a = 0; a < 3; ++a)
            xyz[3 * i + static_cast<size_t>(a)] = positions[i][a];
    bool ok = ds >= 0 && (rows_ == 0 || H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
                                                 H5P_DEFAULT, xyz.data()) >= 0);
    if (ds >= 0) attr_string(ds, "units", "m", file);
    if (ds >= 0) H5Dclose(ds);
    H5Sclose(space);
    h5_check(ok, file, "write /positions");

    // /gradient_kind N x 3 int8.
    space = H5Screate_simple(2, pdims, nullptr);
    dcpl = untimed(H5P_DATASET_CREATE);
    ds = H5Dcreate2(f, "gradient_kind", H5T_STD_I8LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    std::vector<std::int8_t> flat(rows_ * 3);
    for (size_t i = 0; i < rows_; ++i)
        for (size_t a = 0; a < 3; ++a)
            flat[3 * i + a] = kinds[i][a];
    ok = ds >= 0 && (rows_ == 0 || H5Dwrite(ds, H5T_NATIVE_INT8, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                            flat.data()) >= 0);
    if (ds >= 0) H5Dclose(ds);
    H5Sclose(space);
    h5_check(ok, file, "write /gradient_kind");

    // /ir N x T and /gradient N x 3 x T, chunked by point (rows are written and typically read one
    // point at a time), shuffled and deflated at level 1 (most of the gain for little time; HDF5's
    // own filters, which h5py reads without plugins). encode() compresses on the caller's threads
    // and write_point() stores the chunks as they are.
    compressed_ =
        H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0 && H5Zfilter_avail(H5Z_FILTER_SHUFFLE) > 0;
    const auto compress = [this](hid_t plist) {
        if (!compressed_) return;
        H5Pset_shuffle(plist);
        H5Pset_deflate(plist, 1);
    };
    hsize_t idims[2] = {rows_, samples_};
    space = H5Screate_simple(2, idims, nullptr);
    dcpl = untimed(H5P_DATASET_CREATE);
    if (rows_ > 0 && samples_ > 0) {
        hsize_t chunk[2] = {1, samples_};
        H5Pset_chunk(dcpl, 2, chunk);
        compress(dcpl);
    }
    ir_id_ = H5Dcreate2(f, "ir", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    h5_check(ir_id_ >= 0, file, "create /ir");

    hsize_t gdims[3] = {rows_, 3, samples_};
    space = H5Screate_simple(3, gdims, nullptr);
    dcpl = untimed(H5P_DATASET_CREATE);
    if (rows_ > 0 && samples_ > 0) {
        hsize_t chunk[3] = {1, 3, samples_};
        H5Pset_chunk(dcpl, 3, chunk);
        compress(dcpl);
    }
    gradient_id_ = H5Dcreate2(f, "gradient", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    h5_check(gradient_id_ >= 0, file, "create /gradient");

    attr_double(f, "sample_rate", info.sample_rate, file);
    attr_double(f, "output_sample_rate", info.output_sample_rate, file);
    attr_double(f, "max_frequency", info.max_frequency, file);
    attr_double(f, "grid_spacing", info.grid_spacing, file);
    attr_double(f, "gradient_spacing", info.gradient_spacing, file);
    attr_string(f, "scene_hash", info.scene_hash, file);
    attr_string(f, "source", info.source, file);
    attr_int(f, "every", info.every, file);
    attr_string(f, "format", "ardent-grid/4", file);
}

namespace {
constexpr int kDeflateLevel = 2;
}  // namespace

std::vector<unsigned char> GridWriter::encode_chunk(std::span<const float> values) const {
    const size_t bytes = values.size() * sizeof(float);
    std::vector<unsigned char> raw(bytes);
    const auto* in = reinterpret_cast<const unsigned char*>(values.data());
    if (!compressed_) {
        std::memcpy(raw.data(), in, bytes);
        return raw;
    }
    // HDF5's shuffle filter: byte j of every element together, then deflate (a zlib stream, as
    // H5Z_FILTER_DEFLATE writes and reads it).
    const size_t n = values.size();
    for (size_t e = 0; e < n; ++e)
        for (size_t j = 0; j < sizeof(float); ++j)
            raw[j * n + e] = in[e * sizeof(float) + j];
    // libdeflate: the same zlib stream as zlib's compress2, 2.2 times as fast at level 2 on such
    // data (docs/benchmarks.md); one compressor per writer thread.
    struct FreeCompressor {
        void operator()(libdeflate_compressor* c) const { libdeflate_free_compressor(c); }
    };
    thread_local const std::unique_ptr<libdeflate_compressor, FreeCompressor> deflater(
        libdeflate_alloc_compressor(kDeflateLevel));
    h5_check(deflater != nullptr, file_, "allocate a compressor");
    std::vector<unsigned char> out(libdeflate_zlib_compress_bound(deflater.get(), bytes));
    const size_t size =
        libdeflate_zlib_compress(deflater.get(), raw.data(), bytes, out.data(), out.size());
    h5_check(size > 0, file_, "compress a chunk");
    out.resize(size);
    return out;
}

GridWriter::EncodedPoint GridWriter::encode(
    std::span<const float> ir, const std::array<std::span<const float>, 3>& gradient) const {
    h5_check(ir.size() == samples_, file_, "encode an IR row");
    EncodedPoint p;
    p.ir = encode_chunk(ir);
    std::vector<float> g(3 * samples_);
    for (size_t a = 0; a < 3; ++a) {
        h5_check(gradient[a].size() == samples_, file_, "encode a gradient row");
        std::copy(gradient[a].begin(), gradient[a].end(),
                  g.begin() + static_cast<long>(a * samples_));
    }
    p.gradient = encode_chunk(g);
    return p;
}

void GridWriter::write_point(size_t i, const EncodedPoint& point) {
    h5_check(i < rows_ && ir_id_ >= 0 && gradient_id_ >= 0, file_, "write a point");
    if (samples_ == 0) return;
    // Chunks of one point: /ir {1, T} at (i, 0), /gradient {1, 3, T} at (i, 0, 0); filter mask 0
    // (every filter of the dataset applied).
    const hsize_t ir_at[2] = {i, 0}, g_at[3] = {i, 0, 0};
    bool ok = H5Dwrite_chunk(ir_id_, H5P_DEFAULT, 0, ir_at, point.ir.size(), point.ir.data()) >= 0;
    h5_check(ok, file_, "write /ir");
    ok = H5Dwrite_chunk(gradient_id_, H5P_DEFAULT, 0, g_at, point.gradient.size(),
                        point.gradient.data()) >= 0;
    h5_check(ok, file_, "write /gradient");
}

namespace {

// A whole dataset of `dims` (deflated when the filters exist and it is not tiny).
void write_array(hid_t group, const char* name, hid_t file_type, hid_t mem_type,
                 const std::vector<hsize_t>& dims, const void* data, bool compress,
                 const fs::path& file) {
    const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
    const hid_t dcpl = untimed(H5P_DATASET_CREATE);
    hsize_t count = 1;
    for (hsize_t d : dims)
        count *= d;
    if (compress && count >= 1024) {
        // Chunks along the first axis of about 256 KB.
        std::vector<hsize_t> chunk = dims;
        const hsize_t row = count / std::max<hsize_t>(1, dims[0]);
        chunk[0] = std::clamp<hsize_t>(65536 / std::max<hsize_t>(1, row), 1, dims[0]);
        H5Pset_chunk(dcpl, static_cast<int>(chunk.size()), chunk.data());
        H5Pset_shuffle(dcpl);
        H5Pset_deflate(dcpl, 4);
    }
    const hid_t ds = H5Dcreate2(group, name, file_type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    const bool ok =
        ds >= 0 && (count == 0 || H5Dwrite(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
    if (ds >= 0) H5Dclose(ds);
    H5Pclose(dcpl);
    H5Sclose(space);
    h5_check(ok, file, (std::string("write /geometric/") + name).c_str());
}

}  // namespace

void GridWriter::write_geometric(const auralize::GridGeometric& g) {
    h5_check(file_id_ >= 0, file_, "write /geometric");
    const hid_t gcpl = untimed(H5P_GROUP_CREATE);
    const hid_t grp = H5Gcreate2(file_id_, "geometric", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    H5Pclose(gcpl);
    h5_check(grp >= 0, file_, "create /geometric");
    try {
        constexpr hsize_t B = auralize::GridGeometric::kBands;
        const hsize_t cells = g.cells(), bins = g.bins(), n = g.paths();
        attr_double(grp, "crossover_hz", g.crossover_hz, file_);
        attr_double(grp, "speed_of_sound", g.speed_of_sound, file_);
        attr_double(grp, "cell_size", g.cell_size, file_);
        const std::vector<double> bands = {125, 250, 500, 1000, 2000, 4000, 8000, 16000};
        write_array(grp, "band_hz", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {B}, bands.data(), false,
                    file_);
        write_array(grp, "bin_edges", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {bins + 1},
                    g.bin_edges.data(), false, file_);
        write_array(grp, "cell_centre", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {cells, 3},
                    g.cell_centre.data(), false, file_);
        write_array(grp, "cell_of_point", H5T_STD_U32LE, H5T_NATIVE_UINT32,
                    {g.cell_of_point.size()}, g.cell_of_point.data(), compressed_, file_);
        write_array(grp, "energy", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, {cells, bins, B},
                    g.energy.data(), compressed_, file_);
        write_array(grp, "flux", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, {cells, bins, 3}, g.flux.data(),
                    compressed_, file_);
        write_array(grp, "path_offset", H5T_STD_U64LE, H5T_NATIVE_UINT64, {g.path_offset.size()},
                    g.path_offset.data(), compressed_, file_);
        write_array(grp, "path_length", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {n},
                    g.path_length.data(), compressed_, file_);
        write_array(grp, "path_order", H5T_STD_I32LE, H5T_NATIVE_INT32, {n}, g.path_order.data(),
                    compressed_, file_);
        write_array(grp, "path_factor", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, {n, B},
                    g.path_factor.data(), compressed_, file_);
        write_array(grp, "path_direction", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, {n, 3},
                    g.path_direction.data(), compressed_, file_);
    } catch (...) {
        H5Gclose(grp);
        throw;
    }
    h5_check(H5Gclose(grp) >= 0, file_, "close /geometric");
}

void GridWriter::close() {
    bool ok = true;
    if (gradient_id_ >= 0) ok = H5Dclose(gradient_id_) >= 0 && ok;
    if (ir_id_ >= 0) ok = H5Dclose(ir_id_) >= 0 && ok;
    if (file_id_ >= 0) ok = H5Fclose(file_id_) >= 0 && ok;
    gradient_id_ = ir_id_ = file_id_ = -1;
    h5_check(ok, file_, "close the file");
}

GridWriter::~GridWriter() {
    if (gradient_id_ >= 0) H5Dclose(gradient_id_);
    if (ir_id_ >= 0) H5Dclose(ir_id_);
    if (file_id_ >= 0) H5Fclose(file_id_);
}

}  // namespace ardent::pipeline
