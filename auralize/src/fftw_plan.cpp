#include "fftw_plan.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "ardent/auralize/fft_plan_cache.h"
#include "ardent/preprocess/fftw_planner.h"
#include "ardent/preprocess/safe_output.h"

namespace ardent::auralize::detail {
// FFTW's planner keeps global state (wisdom, twiddle caches): one plan at a time per process,
// under the lock every library that plans shares (fftw_planner.h).
std::mutex& planner_mutex() {
    return fftw_planner_mutex();
}

void DoublePlanFree::operator()(fftw_plan_s* p) const noexcept {
    std::lock_guard lock(planner_mutex());
    fftw_destroy_plan(p);
}

DoublePlan plan_r2c(size_t n, double* in, fftw_complex* out) {
    std::lock_guard lock(planner_mutex());
    return DoublePlan(fftw_plan_dft_r2c_1d(static_cast<int>(n), in, out, FFTW_ESTIMATE));
}

DoublePlan plan_c2r(size_t n, fftw_complex* in, double* out) {
    std::lock_guard lock(planner_mutex());
    return DoublePlan(fftw_plan_dft_c2r_1d(static_cast<int>(n), in, out, FFTW_ESTIMATE));
}

namespace {

namespace fs = std::filesystem;

// The plan cache's state; guarded by planner_mutex(), like the wisdom it mirrors.
struct PlanCache {
    bool enabled = false;
    fs::path dir;
    std::string saved;  // the wisdom as last read or written: unchanged wisdom is not rewritten
    std::vector<std::string> warnings;
    size_t measured = 0;
    double measuring_seconds = 0;
    std::vector<size_t> to_measure;  // sizes planned by Learn with no measured plan yet
};

PlanCache& cache() {
    static PlanCache c;
    return c;
}

// Measured plans an administrator stored with fftwf-wisdom serve every later plan of those sizes,
// estimated ones included. Read once, before the user's cache (imports merge into the wisdom).
void import_system_wisdom_once() {
    static const bool imported = fftwf_import_system_wisdom() != 0;
    (void)imported;
}

std::string errno_text() {
    return std::strerror(errno);
}

std::string export_wisdom() {
    char* s = fftwf_export_wisdom_to_string();
    if (!s) return {};
    std::string out(s);
    std::free(s);
    return out;
}

// Writes the current wisdom to the cache file through an OutputFile (safe_output.h): a reader
// (another ardent process) sees the old file or the new one, never half of one, and anything at
// the cache's path that is not a regular file (a FIFO, a link) is left alone. A failure is a
// warning: the plans are measured again next time.
void save_wisdom(PlanCache& c) {
    const std::string text = export_wisdom();
    if (text.empty() || text == c.saved) return;
    const fs::path file = plan_cache_file(c.dir);
    OutputRules rules;
    rules.replace = true;
    try {
        write_output_file(file, rules, [&](const fs::path& tmp) {
            std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
            out << text;
            out.flush();
            if (!out) throw_write_error(file, errno);
        });
    } catch (const std::exception& e) {
        c.warnings.push_back("the FFT plan cache is not saved (" + std::string(e.what()) +
                             "); plans will be measured again next time");
        return;
    }
    c.saved = text;
}

// mkdir -m 0700 for every missing component of `dir` (XDG: created directories are private).
bool make_private_dirs(const fs::path& dir, std::string& why) {
    fs::path sofar;
    for (const auto& part : dir) {
        sofar /= part;
        if (::mkdir(sofar.c_str(), 0700) != 0 && errno != EEXIST) {
            why = "cannot create '" + sofar.string() + "': " + errno_text();
            return false;
        }
    }
    return true;
}

// A directory we may trust with plans: a real directory (not a link), ours, not writable by
// others.
bool safe_dir(const fs::path& dir, std::string& why) {
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0) {
        why = "cannot use '" + dir.string() + "': " + errno_text();
        return false;
    }
    if (!S_ISDIR(st.st_mode)) {
        why = "'" + dir.string() + "' is not a directory (a symbolic link is not followed)";
        return false;
    }
    if (st.st_uid != ::geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
        why = "'" + dir.string() + "' belongs to another user or is writable by others";
        return false;
    }
    return true;
}

// Reads the cache file into FFTW's wisdom; returns a warning, empty when fine or absent.
std::string load_wisdom(PlanCache& c) {
    const fs::path file = plan_cache_file(c.dir);
    // O_NONBLOCK: a FIFO at the cache's path made open() wait for a writer, and auralize hung for
    // ever; it opens at once and fails the regular-file check below.
    const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENOENT) return {};
        return "ignoring the FFT plan cache '" + file.string() + "': " + errno_text();
    }
    struct stat st {};
    std::string text;
    std::string why;
    constexpr off_t kMaxBytes = 16 << 20;  // wisdom is a few kB per size
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        why = "it is not a regular file";
    else if (st.st_uid != ::geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
        why = "it belongs to another user or is writable by others";
    else if (st.st_size > kMaxBytes)
        why = "too large to be FFTW wisdom";
    else {
        text.resize(static_cast<size_t>(st.st_size));
        size_t done = 0;
        while (done < text.size()) {
            const ssize_t n = ::read(fd, text.data() + done, text.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            done += static_cast<size_t>(n);
        }
        if (done != text.size()) why = "it could not be read";
    }
    ::close(fd);
    if (why.empty() && fftwf_import_wisdom_from_string(text.c_str()) == 0) {
        // A failed import leaves FFTW's wisdom as it was; start clean anyway, so nothing of
        // the bad file survives, and keep the system's wisdom.
        fftwf_forget_wisdom();
        fftwf_import_system_wisdom();
        why = "it is not valid FFTW wisdom (it will be replaced)";
    }
    if (!why.empty()) return "ignoring the FFT plan cache '" + file.string() + "': " + why;
    c.saved = text;
    return {};
}

fftwf_complex* as_fftw(std::complex<float>* p) {
    // std::complex<float> is layout-compatible with float[2] ([complex.numbers]), which is what
    // fftwf_complex is.
    return reinterpret_cast<fftwf_complex*>(p);
}

}  // namespace

FftwArray<float> alloc_floats(size_t n) {
    auto* p = fftwf_alloc_real(n == 0 ? 1 : n);
    if (!p) throw std::bad_alloc();
    for (size_t i = 0; i < n; ++i)
        p[i] = 0.0f;
    return FftwArray<float>(p);
}

FftwArray<std::complex<float>> alloc_complex(size_t n) {
    auto* p = reinterpret_cast<std::complex<float>*>(fftwf_alloc_complex(n == 0 ? 1 : n));
    if (!p) throw std::bad_alloc();
    for (size_t i = 0; i < n; ++i)
        p[i] = {};
    return FftwArray<std::complex<float>>(p);
}

RealFft::RealFft(size_t n, Planning planning, bool in_place) : n_(n) {
    if (n < 2 || n > static_cast<size_t>(INT_MAX))
        throw std::invalid_argument("RealFft: size " + std::to_string(n) + " out of range");
    // Measuring runs the transforms on the arrays, so plan on scratch arrays of the right
    // alignment; the plans are later executed on other arrays of the same alignment.
    FftwArray<float> real = alloc_floats(n);
    FftwArray<std::complex<float>> spectrum = alloc_complex(bins());
    const unsigned flags = planning == Planning::Measure ? FFTW_MEASURE : FFTW_ESTIMATE;
    const int size = static_cast<int>(n);
    std::lock_guard lock(planner_mutex());
    import_system_wisdom_once();
    const auto t0 = std::chrono::steady_clock::now();
    const auto make = [&](unsigned f) {
        if (in_place) {
            auto* data = reinterpret_cast<float*>(spectrum.get());
            forward_ = fftwf_plan_dft_r2c_1d(size, data, as_fftw(spectrum.get()), f);
            inverse_ = fftwf_plan_dft_c2r_1d(size, as_fftw(spectrum.get()), data, f);
        } else {
            forward_ = fftwf_plan_dft_r2c_1d(size, real.get(), as_fftw(spectrum.get()), f);
            inverse_ = fftwf_plan_dft_c2r_1d(size, as_fftw(spectrum.get()), real.get(), f);
        }
    };
    PlanCache& c = cache();
    bool from_wisdom = false;
    if (planning != Planning::Estimate && c.enabled) {
        // Plans already in the wisdom come back at once; only new sizes are measured and saved
        // (Measure) or noted for measuring later (Learn).
        make(FFTW_MEASURE | FFTW_WISDOM_ONLY);
        from_wisdom = forward_ && inverse_;
        if (!from_wisdom) {
            if (forward_) fftwf_destroy_plan(forward_);
            if (inverse_) fftwf_destroy_plan(inverse_);
            forward_ = inverse_ = nullptr;
        }
    }
    if (!from_wisdom) make(flags);
    if (planning == Planning::Learn && c.enabled && !from_wisdom &&
        std::find(c.to_measure.begin(), c.to_measure.end(), n) == c.to_measure.end())
        c.to_measure.push_back(n);
    if (planning == Planning::Measure && c.enabled && !from_wisdom && forward_ && inverse_) {
        ++c.measured;
        c.measuring_seconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        save_wisdom(c);
    }
    if (!forward_ || !inverse_) {
        if (forward_) fftwf_destroy_plan(forward_);
        if (inverse_) fftwf_destroy_plan(inverse_);
        throw std::runtime_error("FFTW could not plan a real transform of size " +
                                 std::to_string(n));
    }
}

RealFft::~RealFft() {
    std::lock_guard lock(planner_mutex());
    fftwf_destroy_plan(forward_);
    fftwf_destroy_plan(inverse_);
}

void RealFft::forward(const float* in, std::complex<float>* out) const {
    // An out-of-place real-to-complex transform never writes its input (FFTW's default
    // FFTW_PRESERVE_INPUT for r2c), so dropping const is safe.
    fftwf_execute_dft_r2c(forward_, const_cast<float*>(in), as_fftw(out));
}

void RealFft::inverse(std::complex<float>* in, float* out) const {
    fftwf_execute_dft_c2r(inverse_, as_fftw(in), out);
}

void RealFft::forward_in_place(float* data) const {
    fftwf_execute_dft_r2c(forward_, data, reinterpret_cast<fftwf_complex*>(data));
}

void RealFft::inverse_in_place(float* data) const {
    fftwf_execute_dft_c2r(inverse_, reinterpret_cast<fftwf_complex*>(data), data);
}

}  // namespace ardent::auralize::detail

namespace ardent::auralize {

std::filesystem::path default_plan_cache_dir() {
    namespace fs = std::filesystem;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x && fs::path(x).is_absolute())
        return fs::path(x) / "ardent";
    if (const char* home = std::getenv("HOME"); home && *home && fs::path(home).is_absolute())
        return fs::path(home) / ".cache" / "ardent";
    return {};
}

std::filesystem::path plan_cache_file(const std::filesystem::path& dir) {
    // Named apart from the solvers' wisdom (fftw-wisdom-*) in the same directory: single
    // precision, one-dimensional real transforms only.
    return dir / "fftwf-wisdom-convolution";
}

std::vector<std::string> enable_plan_cache(const std::filesystem::path& dir) {
    std::lock_guard lock(detail::planner_mutex());
    detail::PlanCache& c = detail::cache();
    c.enabled = false;
    std::vector<std::string> warnings;
    std::string why;
    if (dir.empty())
        why = "no cache directory (neither XDG_CACHE_HOME nor HOME is an absolute path)";
    else if (detail::make_private_dirs(dir, why) && detail::safe_dir(dir, why))
        why.clear();
    if (!why.empty()) {
        warnings.push_back("FFT plan cache not used: " + why + "; plans are estimated");
        return warnings;
    }
    detail::import_system_wisdom_once();
    c.dir = dir;
    c.saved.clear();
    if (std::string w = detail::load_wisdom(c); !w.empty()) warnings.push_back(w);
    c.enabled = true;
    return warnings;
}

void disable_plan_cache() {
    std::lock_guard lock(detail::planner_mutex());
    detail::cache().enabled = false;
}

bool plan_cache_enabled() {
    std::lock_guard lock(detail::planner_mutex());
    return detail::cache().enabled;
}

PlanCacheReport take_plan_cache_report() {
    std::lock_guard lock(detail::planner_mutex());
    detail::PlanCache& c = detail::cache();
    PlanCacheReport r{c.measured, c.measuring_seconds, std::move(c.warnings),
                      std::move(c.to_measure)};
    c.warnings.clear();
    c.to_measure.clear();
    c.measured = 0;
    c.measuring_seconds = 0;
    return r;
}

size_t measure_plans(const std::vector<size_t>& sizes) {
    size_t done = 0;
    for (size_t n : sizes) {
        // In place, as the convolution plans them (fft_convolution.cpp).
        const detail::RealFft fft(n, detail::Planning::Measure, true);
        ++done;
    }
    return done;
}

}  // namespace ardent::auralize
