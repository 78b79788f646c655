// A set of head-related impulse responses from a SOFA file (AES69, SimpleFreeFieldHRIR), read and
// resampled by libmysofa, which also interpolates between the measured directions. The default set
// is the MIT KEMAR dummy head (normal pinna; Gardner and Martin, MIT Media Lab, 1994) that Debian's
// libmysofa1 installs. Directions are in the listener's frame: x front, y left, z up.
#pragma once

#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "ardent/auralize/ir_grid.h"

struct MYSOFA_EASY;

namespace ardent::auralize {

class HrtfSet {
  public:
    // /usr/share/libmysofa/default.sofa.
    static std::filesystem::path default_file();

    // Opens `file` and resamples it to `sample_rate`. InputError naming the file when it is
    // missing, not a SOFA file, or not a two-ear HRIR set libmysofa accepts.
    HrtfSet(const std::filesystem::path& file, double sample_rate);
    // The checks that need no parsing, for a front end to make before any work: InputError naming
    // the file when it is missing, a directory, a FIFO or device (never opened: a FIFO would
    // block), or not HDF5 (SOFA files are netCDF-4, i.e. HDF5).
    static void check_file(const std::filesystem::path& file);
    ~HrtfSet();
    HrtfSet(const HrtfSet&) = delete;
    HrtfSet& operator=(const HrtfSet&) = delete;

    double sample_rate() const { return sample_rate_; }
    size_t length() const { return length_; }  // taps of each HRIR (before delays)
    // The set's name from its attributes (e.g. "MIT KEMAR, normal pinna").
    const std::string& description() const { return description_; }

    // Left and right HRIRs for a direction (any non-zero length), interpolated by libmysofa
    // between the nearest measurements, with the set's delays applied. Not thread-safe (libmysofa
    // interpolates into one scratch buffer).
    std::array<std::vector<float>, 2> hrir(const Point& direction) const;

  private:
    std::filesystem::path file_;
    MYSOFA_EASY* easy_ = nullptr;
    double sample_rate_ = 0;
    size_t length_ = 0;
    std::string description_;
};

}  // namespace ardent::auralize
