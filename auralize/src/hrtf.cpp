#include "ardent/auralize/hrtf.h"

#include <mysofa.h>

#include <cmath>
#include <memory>
#include <string>

#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/input_file.h"
#include "ardent/preprocess/number_text.h"

namespace ardent::auralize {
namespace {

std::string reason(int err) {
    switch (err) {
        case MYSOFA_INVALID_FORMAT:
            return "not a valid SOFA file";
        case MYSOFA_UNSUPPORTED_FORMAT:
            return "a SOFA convention or layout libmysofa does not support";
        case MYSOFA_NO_MEMORY:
            return "out of memory";
        case MYSOFA_READ_ERROR:
            return "read error";
        case MYSOFA_INVALID_ATTRIBUTES:
            return "missing or invalid SOFA attributes";
        case MYSOFA_INVALID_DIMENSIONS:
        case MYSOFA_INVALID_DIMENSION_LIST:
            return "invalid SOFA dimensions";
        case MYSOFA_INVALID_COORDINATE_TYPE:
            return "invalid coordinate type";
        case MYSOFA_ONLY_EMITTER_WITH_ECI_SUPPORTED:
        case MYSOFA_ONLY_DELAYS_WITH_IR_OR_MR_SUPPORTED:
        case MYSOFA_ONLY_THE_SAME_SAMPLING_RATE_SUPPORTED:
        case MYSOFA_RECEIVERS_WITH_RCI_SUPPORTED:
        case MYSOFA_RECEIVERS_WITH_CARTESIAN_SUPPORTED:
        case MYSOFA_INVALID_RECEIVER_POSITIONS:
        case MYSOFA_ONLY_SOURCES_WITH_MC_SUPPORTED:
            return "not a SimpleFreeFieldHRIR set libmysofa can use (error " + std::to_string(err) +
                   ")";
        case MYSOFA_INTERNAL_ERROR:
            return "libmysofa failed on it (internal error, code -1)";
        default:
            // libmysofa's HDF5 reader hands back errno when a read stops short, which at that point
            // is often a stale value (1, 3): what it means is a structure it could not follow.
            if (err > 0 && err < MYSOFA_INVALID_FORMAT)
                return "not a readable SOFA file: libmysofa could not follow its HDF5 structure "
                       "(a damaged or cut-off file, or HDF5 features it does not read; code " +
                       std::to_string(err) + ")";
            return "not a readable SOFA file (libmysofa error code " + std::to_string(err) + ")";
    }
}

// Sample rates a SOFA set may be stored at. libmysofa resamples a set to the rate asked for, and
// its output grows with the ratio: a set claiming 1 Hz grew past 0.9 GB for minutes.
constexpr double kMinSofaRate = 8000, kMaxSofaRate = 768000;

// The set as stored, checked before libmysofa's open resamples it: a sample rate within
// [kMinSofaRate, kMaxSofaRate], and impulse responses that are finite and not all zero (an
// all-zero or NaN set rendered a silent or all-NaN WAV, with exit 0).
void check_stored(const std::filesystem::path& file, const std::string& q) {
    int err = 0;
    MYSOFA_HRTF* h = mysofa_load(file.c_str(), &err);
    if (!h || err != MYSOFA_OK) {
        if (h) mysofa_free(h);
        throw InputError("cannot read HRTF set " + q + ": " + reason(err));
    }
    const std::unique_ptr<MYSOFA_HRTF, void (*)(MYSOFA_HRTF*)> hold(h, mysofa_free);
    const MYSOFA_ARRAY& rate = h->DataSamplingRate;
    if (rate.elements < 1 || !rate.values)
        throw InputError("cannot use HRTF set " + q +
                         ": it has no sample rate (Data.SamplingRate)");
    for (unsigned i = 0; i < rate.elements; ++i) {
        const double fs = static_cast<double>(rate.values[i]);
        if (!(fs >= kMinSofaRate && fs <= kMaxSofaRate))
            throw InputError(
                "cannot use HRTF set " + q + ": its sample rate (Data.SamplingRate) is " +
                number_text(fs, fs == std::floor(fs) ? 0 : 3) + " Hz, outside " +
                number_text(kMinSofaRate, 0) + " to " + number_text(kMaxSofaRate, 0) + " Hz");
    }
    const MYSOFA_ARRAY& ir = h->DataIR;
    bool sound = false;
    for (unsigned i = 0; ir.values && i < ir.elements; ++i) {
        if (!std::isfinite(ir.values[i]))
            throw InputError("cannot use HRTF set " + q +
                             ": its impulse responses (Data.IR) hold NaN or infinite samples");
        sound = sound || ir.values[i] != 0;
    }
    if (!sound)
        throw InputError("cannot use HRTF set " + q +
                         ": its impulse responses (Data.IR) are all zero");
}

std::string attribute(MYSOFA_HRTF* h, const char* name) {
    for (MYSOFA_ATTRIBUTE* a = h->attributes; a; a = a->next)
        if (a->name && a->value && std::string(a->name) == name) return a->value;
    return {};
}

}  // namespace

std::filesystem::path HrtfSet::default_file() {
    return "/usr/share/libmysofa/default.sofa";
}

void HrtfSet::check_file(const std::filesystem::path& file) {
    const std::string q = "'" + file.string() + "'";
    std::error_code ec;
    if (const std::string kind = special_file_kind(file); !kind.empty())
        throw InputError("cannot read HRTF set " + q + ": it is " + kind + ", not a file");
    if (std::filesystem::is_directory(file, ec))
        throw InputError("cannot read HRTF set " + q + ": it is a directory");
    if (!std::filesystem::is_regular_file(file, ec))
        throw InputError("cannot read HRTF set " + q + ": no such file" +
                         (file == default_file()
                              ? " (Debian's libmysofa1 package installs it; run scripts/setup)"
                              : ""));
    // SOFA files are netCDF-4, i.e. HDF5: anything else is refused before libmysofa parses it.
    if (!is_hdf5_file(file))
        throw InputError("cannot read HRTF set " + q +
                         ": not a SOFA file (SOFA files are HDF5/netCDF-4)");
}

HrtfSet::HrtfSet(const std::filesystem::path& file, double sample_rate)
    : file_(file), sample_rate_(sample_rate) {
    const std::string q = "'" + file.string() + "'";
    check_file(file);
    if (!(sample_rate >= 1000 && sample_rate <= 1e6))
        throw InputError("cannot use HRTF set " + q + " at " + std::to_string(sample_rate) + " Hz");
    check_stored(file, q);
    int len = 0, err = 0;
    easy_ = mysofa_open_no_norm(file.c_str(), static_cast<float>(sample_rate), &len, &err);
    if (!easy_ || err != MYSOFA_OK) {
        if (easy_) mysofa_close(easy_);
        easy_ = nullptr;
        throw InputError("cannot read HRTF set " + q + ": " + reason(err));
    }
    if (len <= 0 || easy_->hrtf->R != 2) {
        mysofa_close(easy_);
        easy_ = nullptr;
        throw InputError("cannot use HRTF set " + q +
                         ": it needs two receivers (ears) and "
                         "non-empty impulse responses");
    }
    length_ = static_cast<size_t>(len);
    const std::string db = attribute(easy_->hrtf, "DatabaseName");
    const std::string who = attribute(easy_->hrtf, "ListenerShortName");
    description_ = db.empty() ? who : (who.empty() ? db : db + " " + who);
    if (description_.empty()) description_ = file.filename().string();
}

HrtfSet::~HrtfSet() {
    if (easy_) mysofa_close(easy_);
}

std::array<std::vector<float>, 2> HrtfSet::hrir(const Point& direction) const {
    std::vector<float> left(length_), right(length_);
    float delay_left = 0, delay_right = 0;
    mysofa_getfilter_float(easy_, static_cast<float>(direction[0]),
                           static_cast<float>(direction[1]), static_cast<float>(direction[2]),
                           left.data(), right.data(), &delay_left, &delay_right);
    // Delays (seconds) of sets stored as minimum-phase filters plus delays, to the nearest sample.
    const auto shift = [&](std::vector<float>& v, float delay) {
        const auto n = static_cast<long>(std::lround(static_cast<double>(delay) * sample_rate_));
        if (n > 0) v.insert(v.begin(), static_cast<size_t>(n), 0.0f);
    };
    shift(left, delay_left);
    shift(right, delay_right);
    return {std::move(left), std::move(right)};
}

}  // namespace ardent::auralize
