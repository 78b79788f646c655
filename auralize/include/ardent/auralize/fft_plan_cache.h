// A per-user cache of measured FFTW plans ("wisdom") for the offline convolution, so that
// `ardent auralize` runs with measured plans, up to twice as fast as FFTW's estimated ones,
// without paying the seconds FFTW needs to measure a large transform: the first run that meets a
// transform size uses an estimated plan and has the size measured in the background (a separate
// process) for later runs, which read the stored plan back. The
// cache is never required: a missing directory or file, or one that cannot be written, only costs
// speed, and a corrupt file is reported, ignored and replaced by the next measurement.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace ardent::auralize {

// $XDG_CACHE_HOME/ardent, else $HOME/.cache/ardent; empty when neither gives an absolute path
// (the XDG base directory specification says to ignore relative ones).
std::filesystem::path default_plan_cache_dir();

// The wisdom file inside a cache directory.
std::filesystem::path plan_cache_file(const std::filesystem::path& dir);

// Enables the cache in `dir` for this process: creates the directory if needed (mode 0700),
// refuses one that is a symbolic link, is not owned by the user or is writable by others (another
// user could plant plans there), and reads the wisdom file into FFTW. While enabled, every
// transform planned with measurement (ConvolutionOptions::measure_fft) that adds to the wisdom
// writes the file again, atomically (a temporary file in the same directory, renamed). Returns
// the warnings to show the user (empty when all went well); never throws for file problems. When
// the directory is unusable, the cache stays disabled and the warning says why.
std::vector<std::string> enable_plan_cache(const std::filesystem::path& dir);

// Stops writing the cache (the wisdom already read stays in FFTW). For tests.
void disable_plan_cache();

bool plan_cache_enabled();

// What the cache did since the last call: transform sizes measured (and saved) in this process,
// the seconds that took, and warnings about writing the file.
struct PlanCacheReport {
    size_t measured = 0;
    double measuring_seconds = 0;
    std::vector<std::string> warnings;
    // Transform sizes the convolution planned with ConvolutionOptions::learn_fft and no measured
    // plan in the cache: estimated this time, to be measured (measure_plans) for later runs.
    std::vector<size_t> to_measure;
};
PlanCacheReport take_plan_cache_report();

// Measures the convolution's transforms of these sizes and, with the cache enabled, saves them:
// what `ardent auralize` runs in a background process after a first call of a new size.
// Returns how many sizes were planned.
size_t measure_plans(const std::vector<size_t>& sizes);

}  // namespace ardent::auralize
