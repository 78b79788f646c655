// Time steps, memory and run-time estimates for a decomposed scene, and the memory check made
// before the voxel grid is allocated. Memory figures count the arrays each solver allocates per
// cell; run-time figures divide the work per simulated second by nominal throughputs (documented in
// docs/info.md) until bench/ measures the solvers.
#pragma once

#include <cstddef>
#include <string>

#include "ardent/preprocess/grid.h"
#include "ardent/preprocess/scene.h"

namespace ardent {

// ARD's time step, c*dt/h. Inside a partition the update is exact for any dt; the explicit parts
// are the interface coupling and the PML lines, which are 1-D leapfrog (stable to 2/sqrt(S) =
// 0.765 for the stencil's largest symbol S = 6.83), and the field filter phi needs
// w dt < pi for every mode, c*dt/h < 1/sqrt(3). bench/scan_ard_stability measured no growth from
// 0.25 to 0.55 on every bundled scene and on boxes with 1- and 2-cell partitions (40 000 steps
// from a random field). Accuracy sets the value: 0.5 since 2026-11-28, once the PML junction's and
// the frequency-dependent walls' time errors were corrected (the fully absorbing wall -49.8 dB,
// the oblique-incidence walls within 0.016); 0.4 before. docs/ard.md, "Time step".
inline constexpr double kArdCourant = 0.5;
// FDTD 7-point leapfrog at its 3-D stability limit, 1/sqrt(3).
inline constexpr double kFdtdCourant = 0.57735026918962576;
inline constexpr double kFdtdPointsPerWavelength = 10.0;

inline double ard_time_step(double h, double c, double courant = kArdCourant) {
    return courant * h / c;
}
inline double fdtd_time_step(double h, double c) {
    return kFdtdCourant * h / c;
}

// Bytes preprocessing needs per grid cell (classification, surface band, air, owner, runs).
inline constexpr double kPreprocessBytesPerCell = 24.0;

// "1.2 GB": a byte count for messages (decimal units).
std::string format_bytes(double bytes);

// Physical memory available to this process in bytes (MemAvailable), or 0 if unknown.
size_t available_memory_bytes();

// Throws ResourceError when a grid of `cells` cells (a double: it may not fit in size_t) needs more
// memory than the machine has; the message gives the estimate and the largest max_frequency that
// would fit.
void check_preprocess_memory(const Scene& scene, double cells);

// Memory in bytes: the peak host memory of a run (the process, the preprocessed scene, the
// solver's state and one source's recorded signals as the write stage holds them: sources run
// one after another), and for the GPU backends their device memory. Calibrated against
// result.json's peak_rss_bytes (docs/info.md).
struct ResourceEstimate {
    double dt_ard = 0, dt_fdtd = 0;
    double fdtd_h = 0;
    double fdtd_cells = 0;  // cells of the FDTD grid (the whole bounding box at FDTD resolution)
    double memory_ard_cpu = 0;       // host peak, ARD on the CPU
    double memory_ard_gpu = 0;       // GPU memory, ARD on a GPU
    double memory_ard_gpu_host = 0;  // host peak beside it
    double memory_fdtd = 0;  // host peak, FDTD on the CPU (its GPU memory is about the same)
    // One source's recorded signals per time step, as the write stage holds them (the samples
    // and their written copies): times the steps, the part of a peak that grows with duration.
    double signal_bytes_per_step = 0;
    // What else grows with the duration, at the output rate: the receivers' delivered IRs and
    // AmbiX channels as the write stage holds them, and in a full-band run the geometric
    // stage's IRs (third-order AmbiX per receiver) and its synthesis' scratch on every thread.
    // Included in the memory_* peaks above (host).
    double output_bytes = 0;
    // Seconds per source of the write stage on the CPU: each receiver's IR and AmbiX files
    // (delivered, joined in a full-band run, analysed for result.json) and each listener-grid
    // point's four IRs.
    double write_seconds = 0;
    double sps_ard_cpu = 0, sps_ard_gpu = 0, sps_fdtd_cpu = 0, sps_fdtd_gpu = 0;  // s per sim s
};

struct EstimateInputs {
    double h = 0, c = 343;
    double duration = 1;
    size_t grid_cells = 0;  // the voxel grid, air or not
    size_t partition_cells = 0, pml_cells = 0, distinct_shape_cells = 0;
    size_t interface_face_cells = 0;  // cells on air-air interfaces (ARD's coupling lines)
    size_t pml_depth = 0;
    size_t receivers = 0, sources = 1, listener_points = 0;  // recorded cells, with neighbours
    size_t largest_partition_cells = 0;
    Index3 bbox_cells{};  // model bounding box in cells of size h, without padding
    // The outputs: receivers (not their cells), listener-grid points, the output rate, a
    // full-band run (the geometric stage) and the threads that synthesise and write.
    size_t receiver_count = 0, grid_points = 0;
    double output_rate = 48000;
    bool full_band = false;
    double threads = 1;
};

// Bytes of the process before any scene (the program and its libraries).
inline constexpr double kProcessBaseBytes = 30e6;

ResourceEstimate estimate_resources(const EstimateInputs& in);

}  // namespace ardent
