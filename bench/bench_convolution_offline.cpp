// Offline convolution speed beside the references users know, in one run on the same files:
// 60 s of stereo noise at 48 kHz through a 3 s IR (exponentially decaying noise, the same IR for
// both channels, because SoX's `fir` applies one filter to every channel). Times Ardent's library
// (convolve_audio, the call `ardent auralize` makes, with its FFT plan cache and without) on one
// thread and on every core, `ardent auralize` end to end on one thread, SoX's `fir` effect
// (and a plain SoX copy, its file overhead), and SciPy's fftconvolve and oaconvolve (the
// convolution call alone); checks that all outputs agree; prints JSON (bench/README.md).
// Usage: bench_convolution_offline [--seconds S] [--ir-seconds S] [--repeats R] [--keep DIR]
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "ardent/auralize/audio_io.h"
#include "ardent/auralize/fft_convolution.h"
#include "ardent/auralize/fft_plan_cache.h"
#include "ardent/auralize/render.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Runs a shell command; returns its wall time, or a negative value if it failed.
double timed_command(const std::string& cmd) {
    const auto t0 = Clock::now();
    const int status = std::system((cmd + " >/dev/null 2>&1").c_str());
    const double t = seconds_since(t0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? t : -1;
}

std::string python() {
    // Debian's SciPy belongs to the system interpreter, which a user's PATH may shadow.
    return fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

// max |a - b| / max |b| in dB over the common length; channel-interleaved Audio.
double difference_db(const ardent::audio::Audio& a, const ardent::audio::Audio& b) {
    double err = 0, peak = 0;
    const size_t n = std::min(a.samples.size(), b.samples.size());
    for (size_t i = 0; i < n; ++i) {
        err = std::max(
            err, std::fabs(static_cast<double>(a.samples[i]) - static_cast<double>(b.samples[i])));
        peak = std::max(peak, std::fabs(static_cast<double>(b.samples[i])));
    }
    return 20 * std::log10(std::max(err, 1e-300) / peak);
}

double load_average() {
    double l[3] = {0, 0, 0};
    return ::getloadavg(l, 3) > 0 ? l[0] : -1;
}

}  // namespace

int main(int argc, char** argv) {
    double seconds = 60, ir_seconds = 3;
    int repeats = 3;
    std::string keep;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--seconds") && i + 1 < argc)
            seconds = std::atof(argv[++i]);
        else if (!std::strcmp(argv[i], "--ir-seconds") && i + 1 < argc)
            ir_seconds = std::atof(argv[++i]);
        else if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc)
            repeats = std::max(1, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--keep") && i + 1 < argc)
            keep = argv[++i];
    }
    const int fs_hz = 48000;
    const fs::path dir =
        keep.empty() ? fs::temp_directory_path() / ("ardent-bench-" + std::to_string(::getpid()))
                     : fs::path(keep);
    fs::create_directories(dir);

    // The files: noise at -20 dB RMS; the IR's RMS gain is about 1, so nothing clips (SoX works in
    // 32-bit integers and would clip).
    const auto frames = static_cast<size_t>(seconds * fs_hz);
    const auto taps = static_cast<size_t>(ir_seconds * fs_hz);
    std::mt19937 rng(2024);
    std::normal_distribution<double> g;
    ardent::audio::Audio dry, ir;
    dry.sample_rate = ir.sample_rate = fs_hz;
    dry.channels = 2;
    dry.samples.resize(2 * frames);
    for (float& v : dry.samples)
        v = static_cast<float>(0.1 * g(rng));
    ir.samples.resize(taps);
    const double decay = static_cast<double>(taps) / 6.9;  // 60 dB over the IR
    double energy = 0;
    for (size_t i = 0; i < taps; ++i) {
        ir.samples[i] = static_cast<float>(g(rng) * std::exp(-static_cast<double>(i) / decay));
        energy += static_cast<double>(ir.samples[i]) * static_cast<double>(ir.samples[i]);
    }
    for (float& v : ir.samples)
        v = static_cast<float>(static_cast<double>(v) / std::sqrt(energy));
    ardent::audio::write_wav_float(dir / "dry.wav", dry);
    ardent::audio::write_wav_float(dir / "ir.wav", ir);
    {
        std::ofstream coefs(dir / "ir.txt");
        coefs.precision(9);
        for (float v : ir.samples)
            coefs << v << "\n";
    }

    nlohmann::ordered_json out;
    out["signal"] = {
        {"seconds", seconds},   {"channels", 2},
        {"sample_rate", fs_hz}, {"ir_seconds", ir_seconds},
        {"ir_taps", taps},      {"fft_size", ardent::auralize::choose_fft_size(frames, taps)}};
    out["load_average_1min_before"] = load_average();
    out["cores"] = std::thread::hardware_concurrency();

    // Ardent, library, through convolve_audio, the call `ardent auralize` makes, on the stereo
    // file as read: both channels, one thread, then every core; median of the repeats. With the
    // FFT plan cache as the command line uses it (measured plans, kept in $XDG_CACHE_HOME/ardent;
    // here a fresh directory, so its first use measures the plans, timed apart), then with FFTW's
    // estimated plans (--no-fft-cache).
    const fs::path cache_home = dir / "cache";
    ::setenv("XDG_CACHE_HOME", cache_home.c_str(), 1);
    const std::vector<std::vector<float>> irs = {ir.samples};
    ardent::audio::Audio ours, estimated;
    const auto run_library = [&](int threads, bool measure) {
        std::vector<double> t;
        for (int r = 0; r < repeats; ++r) {
            const auto t0 = Clock::now();
            auto rendered =
                ardent::auralize::convolve_audio(dry, irs, ardent::auralize::Pairing::ByChannel,
                                                 {.threads = threads, .measure_fft = measure});
            t.push_back(seconds_since(t0));
            if (r == 0 && threads == 1 && measure) ours = std::move(rendered.audio);
            if (r == 0 && threads == 1 && !measure) estimated = std::move(rendered.audio);
        }
        return median(t);
    };
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    // Estimated plans first: once a measured plan of the size is in FFTW's wisdom, estimated
    // planning returns it too.
    const double est1 = run_library(1, false), est_all = run_library(cores, false);
    const auto plan0 = Clock::now();
    const auto cache_warnings =
        ardent::auralize::enable_plan_cache(ardent::auralize::default_plan_cache_dir());
    // The first convolution of this size measures its plans and writes the cache.
    ardent::auralize::convolve_audio(dry, irs, ardent::auralize::Pairing::ByChannel,
                                     {.measure_fft = true});
    const double first_run = seconds_since(plan0);
    const auto cache_report = ardent::auralize::take_plan_cache_report();
    const double mea1 = run_library(1, true), mea_all = run_library(cores, true);
    const auto report = [&](double one, double all) {
        return nlohmann::ordered_json{{"seconds_one_thread", one},
                                      {"realtime_factor_one_thread", seconds / one},
                                      {"seconds_all_cores", all},
                                      {"realtime_factor_per_core", seconds / all / cores}};
    };
    out["ardent_library_plan_cache"] = report(mea1, mea_all);
    out["ardent_library_plan_cache"]["first_run_seconds"] = first_run;
    out["ardent_library_plan_cache"]["measuring_seconds_once"] = cache_report.measuring_seconds;
    out["ardent_library_plan_cache"]["sizes_measured"] = cache_report.measured;
    out["ardent_library_plan_cache"]["cache_warnings"] = cache_warnings;
    out["ardent_library_estimated_plans"] = report(est1, est_all);
    out["ardent_library_estimated_plans"]["difference_to_measured_db"] =
        difference_db(estimated, ours);

    // Ardent, command line, one thread (reading, checks, convolving, writing), with the plan
    // cache the library run above filled (the command line's state from its second run on), and
    // with --no-fft-cache.
    const auto cli_times = [&](const std::string& extra) {
        std::vector<double> t;
        for (int r = 0; r < repeats; ++r)
            t.push_back(timed_command("cd '" + dir.string() + "' && XDG_CACHE_HOME='" +
                                      cache_home.string() + "' '" + ARDENT_CLI +
                                      "' auralize dry.wav ir.wav -o ardent.wav --force "
                                      "--threads 1" +
                                      extra));
        return median(t);
    };
    const double cli = cli_times(""), cli_est = cli_times(" --no-fft-cache");
    out["ardent_cli"] = {{"seconds", cli},
                         {"realtime_factor", seconds / cli},
                         {"seconds_no_fft_cache", cli_est},
                         {"realtime_factor_no_fft_cache", seconds / cli_est}};

    // SoX: the fir effect, and a plain copy for its file overhead.
    std::vector<double> sox, sox_copy;
    for (int r = 0; r < repeats; ++r) {
        sox.push_back(timed_command("cd '" + dir.string() +
                                    "' && sox --single-threaded dry.wav sox.wav fir ir.txt"));
        sox_copy.push_back(
            timed_command("cd '" + dir.string() + "' && sox --single-threaded dry.wav copy.wav"));
    }
    if (median(sox) > 0) {
        const auto sox_out = ardent::audio::read_audio(dir / "sox.wav");
        // SoX's fir advances its output by (taps - 1) / 2 samples (the delay of a linear-phase
        // filter) and stops at the input's length: compare it with ours shifted the same way.
        ardent::audio::Audio shifted = ours;
        const size_t shift = 2 * ((taps - 1) / 2);
        shifted.samples.erase(shifted.samples.begin(),
                              shifted.samples.begin() + static_cast<std::ptrdiff_t>(shift));
        out["sox_fir"] = {{"seconds", median(sox)},
                          {"copy_seconds", median(sox_copy)},
                          {"realtime_factor", seconds / median(sox)},
                          {"output_advance_samples", (taps - 1) / 2},
                          {"difference_to_ardent_db", difference_db(sox_out, shifted)}};
    } else {
        out["sox_fir"] = "sox not found or failed";
    }

    // SciPy: the convolution call alone, median of the repeats.
    const std::string script = R"(
import sys, time, json
import numpy as np
from scipy.io import wavfile
from scipy import signal
d = sys.argv[1]; repeats = int(sys.argv[2])
_, x = wavfile.read(d + '/dry.wav'); _, h = wavfile.read(d + '/ir.wav')
res = {}
for name, f in (('fftconvolve', signal.fftconvolve), ('oaconvolve', signal.oaconvolve)):
    t = []
    for r in range(repeats):
        t0 = time.perf_counter(); y = f(x, h[:, None], axes=0); t.append(time.perf_counter() - t0)
    res[name] = sorted(t)[len(t) // 2]
    if name == 'fftconvolve': wavfile.write(d + '/scipy.wav', 48000, y.astype(np.float32))
print(json.dumps(res))
)";
    {
        std::ofstream(dir / "scipy_bench.py") << script;
        const std::string cmd = python() + " '" + (dir / "scipy_bench.py").string() + "' '" +
                                dir.string() + "' " + std::to_string(repeats) + " > '" +
                                (dir / "scipy.json").string() + "' 2>/dev/null";
        if (std::system(cmd.c_str()) == 0) {
            std::ifstream in(dir / "scipy.json");
            const auto res = nlohmann::json::parse(in);
            const auto sp = ardent::audio::read_audio(dir / "scipy.wav");
            for (const char* name : {"fftconvolve", "oaconvolve"})
                out["scipy_" + std::string(name)] = {
                    {"seconds", res[name]}, {"realtime_factor", seconds / res[name].get<double>()}};
            out["scipy_fftconvolve"]["difference_to_ardent_db"] = difference_db(sp, ours);
        } else {
            out["scipy_fftconvolve"] = "python3 with numpy and scipy not found or failed";
        }
    }
    out["load_average_1min_after"] = load_average();
    std::printf("%s\n", out.dump(2).c_str());
    if (keep.empty()) fs::remove_all(dir);
    return 0;
}
