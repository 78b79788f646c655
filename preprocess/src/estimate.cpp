#include "ardent/preprocess/estimate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "ardent/preprocess/errors.h"

namespace ardent {
namespace {

// Throughputs in cell-steps (air + PML) per second, measured where the solver exists. ARD on 2
// CPU cores: 4.5e7 and 18 us per step besides, fitted to the solves of every bundled scene at
// 300 Hz (bench/estimate_check.py, 2-core development machine, 2026-12-07: within 0.7-1.25 of
// each; the Musikverein at 500 Hz ran 5.3e7 there), where small rooms' steps are mostly the
// step's own cost; ARD on an H100 (bench_ard_cuda, Musikverein x 0.843 at 1650 Hz: 1.19e10; the
// L-shaped room x 4.02 runs 1.31e10) and FDTD on an H100 (bench_fdtd_cuda, López's 512^3 box:
// 1.79e11 air cells/s); docs/measurements/gpu-check-h100-2026-11-22.log; FDTD on 2 CPU cores
// (bench_fdtd_cpu, 256^3 box: 1.44-1.57e9; L-shaped room at 1 kHz: 2.3e9).
constexpr double kArdCpuRate = 4.5e7;
constexpr double kArdCpuStepSeconds = 18e-6;
constexpr double kArdGpuRate = 1.2e10;
constexpr double kFdtdCpuRate = 1.5e9;
constexpr double kFdtdGpuRate = 1.8e11;

// The outputs' memory per output sample (docs/info.md, "Memory"), fitted to the peaks of
// bench/estimate_check.py on the 2-core development machine (2026-12-07): per receiver, its
// delivered IR and first-order AmbiX channels and their copies in the write (wave band), or the
// geometric stage's third-order AmbiX IR and the joined files (full band); per thread of a
// full-band run, the synthesis' noise (32 directions) and its 16 channels' spectra.
constexpr double kWaveBytesPerReceiverSample = 32;
constexpr double kFullBytesPerReceiverSample = 140;
constexpr double kSynthesisBytesPerThreadSample = 220;
// The write stage's time per receiver and second of IR (its IR and AmbiX files delivered from
// the simulation rate, joined to the geometric part in a full-band run, and its ISO 3382 row),
// and per listener-grid point and second (four IRs filtered, decimated and compressed); fitted as
// above, on one thread of the 2-core machine.
constexpr double kWriteSecondsPerReceiverSecond = 0.37;
constexpr double kWriteSecondsPerGridPointSecond = 0.0007;
// Besides, per receiver (its ISO 3382 analysis and files, whatever the duration).
constexpr double kWriteSecondsPerReceiver = 0.15;

}  // namespace

std::string format_bytes(double b) {
    const char* unit[] = {"B", "KB", "MB", "GB", "TB", "PB"};
    int u = 0;
    while (b >= 1000 && u < 5) {
        b /= 1000;
        ++u;
    }
    if (!std::isfinite(b)) return "an unbounded amount of memory";
    char buf[48];
    std::snprintf(buf, sizeof buf, b < 1000 ? "%.1f %s" : "%.3g %s", b, unit[u]);
    return buf;
}

size_t available_memory_bytes() {
    std::ifstream in("/proc/meminfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("MemAvailable:", 0) == 0) {
            std::istringstream ss(line.substr(13));
            size_t kb = 0;
            ss >> kb;
            return kb * 1024;
        }
    }
    return 0;
}

void check_preprocess_memory(const Scene& scene, double cells) {
    const double need = cells * kPreprocessBytesPerCell;
    const double have = static_cast<double>(available_memory_bytes());
    // Grid indices are 64-bit but a side beyond 2^30 cells is beyond any machine anyway.
    if (have > 0 && need <= 0.9 * have && cells < 1e15) return;
    if (have == 0 && cells < 2e9) return;
    const double fit = scene.simulation.max_frequency * std::cbrt(0.9 * have / need) * 0.98;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f", std::floor(fit));
    char cellbuf[32];
    std::snprintf(cellbuf, sizeof cellbuf, "%.3g", cells);
    // Below the audible range lowering the frequency is no answer: the model is far too large
    // for its settings, most often because its units are not metres.
    const std::string advice =
        std::isfinite(fit) && fit >= 20
            ? std::string("Lower simulation.max_frequency to at most ") + buf +
                  " Hz (or points_per_wavelength), or use a machine with more memory."
            : std::string(
                  "Even 20 Hz would not fit: check the model's size and units "
                  "(geometry.scale), simulation.max_frequency and "
                  "simulation.speed_of_sound.");
    throw ResourceError(scene.display_name() + ": the voxel grid is too large for this machine: " +
                        cellbuf + " cells need about " + format_bytes(need) +
                        " to preprocess, and " + format_bytes(have) + " is available. " + advice);
}

ResourceEstimate estimate_resources(const EstimateInputs& in) {
    ResourceEstimate e;
    e.dt_ard = ard_time_step(in.h, in.c);
    e.fdtd_h = in.h * 2.6 / kFdtdPointsPerWavelength;  // same max_frequency at 10 points/wavelength
    e.dt_fdtd = fdtd_time_step(e.fdtd_h, in.c);
    const double ratio = in.h / e.fdtd_h;
    e.fdtd_cells = 1;
    for (int a = 0; a < 3; ++a)
        e.fdtd_cells *= std::ceil(in.bbox_cells[a] * ratio) + 2;

    const double cells = static_cast<double>(in.partition_cells);
    const double pml = static_cast<double>(in.pml_cells);
    const double grid = static_cast<double>(in.grid_cells);
    const double steps_ard = std::ceil(in.duration / e.dt_ard);
    const double steps_fdtd = std::ceil(in.duration / e.dt_fdtd);
    // One source's signals: receivers in float64, grid cells in float32, and the write stage's
    // copies of them (resampled IRs, the grid's decimated rows and compressed chunks): 1.5 times
    // the samples, fitted to the peaks of a hall's run on a GPU and of small rooms on the CPU.
    e.signal_bytes_per_step = 1.5 * (8.0 * static_cast<double>(in.receivers) +
                                     4.0 * static_cast<double>(in.listener_points));
    const double samples = in.duration * in.output_rate;
    const double receivers = static_cast<double>(in.receiver_count);
    e.output_bytes = samples * (in.full_band ? kFullBytesPerReceiverSample * receivers +
                                                   kSynthesisBytesPerThreadSample * in.threads
                                             : kWaveBytesPerReceiverSample * receivers);
    e.write_seconds =
        (in.duration * (kWriteSecondsPerReceiverSecond * receivers +
                        kWriteSecondsPerGridPointSecond * static_cast<double>(in.grid_points)) +
         kWriteSecondsPerReceiver * receivers) /
        in.threads;
    // What the preprocessed scene keeps (about 10 B per grid cell), and ARD's layout on the host:
    // each grid cell's index (4 B) and per coupling line (one per interface face cell and per PML
    // line) its indices, its ghosts' terms and weights: about 120 B.
    const double pml_lines = in.pml_depth > 0 ? pml / static_cast<double>(in.pml_depth) : 0;
    const double lines = static_cast<double>(in.interface_face_cells) + pml_lines;
    const double scene = kProcessBaseBytes + 10 * grid;
    const double layout = 4 * grid + 120 * lines;
    // ARD's state per air cell: pressure, forcing and two mode levels (float32); per PML cell:
    // the field, its previous level, the auxiliary field and its acceleration (the PML's time
    // correction); the mode tables per distinct shape;
    // FFTW scratch for the largest partition.
    e.memory_ard_cpu = scene + layout + 16 * cells + 16 * pml +
                       12 * static_cast<double>(in.distinct_shape_cells) +
                       8 * static_cast<double>(in.largest_partition_cells) +
                       e.signal_bytes_per_step * steps_ard + e.output_bytes;
    // On the GPU: the same fields, the lines' tables, terms and gathers (about 170 B a line) and
    // the samples' ring (at most 64 MB, pinned on the host too). A hall at 1650 Hz: 1.47 GB
    // measured (bench_ard_cuda), 1.5 GB estimated.
    const double ring =
        std::min(64e6, 512 * 4.0 * static_cast<double>(in.receivers + in.listener_points));
    e.memory_ard_gpu = 16 * cells + 16 * pml + 12 * static_cast<double>(in.distinct_shape_cells) +
                       170 * lines + ring;
    e.memory_ard_gpu_host =
        scene + layout + ring + e.signal_bytes_per_step * steps_ard + e.output_bytes;
    // FDTD: two pressure arrays and a flag byte per cell of its (finer) bounding-box grid.
    e.memory_fdtd =
        scene + 9 * e.fdtd_cells + e.signal_bytes_per_step * steps_fdtd + e.output_bytes;

    const double ard_work = (cells + pml) * steps_ard;
    const double fdtd_work = e.fdtd_cells * steps_fdtd;
    e.sps_ard_cpu = (ard_work / kArdCpuRate + steps_ard * kArdCpuStepSeconds) / in.duration;
    e.sps_ard_gpu = ard_work / kArdGpuRate / in.duration;
    e.sps_fdtd_cpu = fdtd_work / kFdtdCpuRate / in.duration;
    e.sps_fdtd_gpu = fdtd_work / kFdtdGpuRate / in.duration;
    return e;
}

}  // namespace ardent
