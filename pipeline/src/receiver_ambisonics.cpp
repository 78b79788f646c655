#include "receiver_ambisonics.h"

#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "ardent/auralize/ambisonics.h"

namespace ardent::pipeline {
namespace {

bool central(const std::array<int, 3>& kind) {
    return kind[0] != 1 && kind[1] != 1 && kind[2] != 1;
}

}  // namespace

ReceiverAmbisonics::ReceiverAmbisonics(const Preprocessed& p)
    : h_(p.air.grid.h),
      speed_of_sound_(p.scene.simulation.speed_of_sound),
      fs_out_(p.scene.output_sample_rate) {
    const ListenerCells rc = p.receiver_cells();
    signals_ = rc.cells.size();
    const Grid& g = p.air.grid;
    std::unordered_map<size_t, size_t> row_of;
    for (size_t r = rc.cells.size(); r-- > 0;)
        row_of[g.index(rc.cells[r])] = r;  // a cell two receivers share: the first's row
    const auto row = [&](Index3 c, int axis, int d) -> std::optional<size_t> {
        c[static_cast<size_t>(axis)] += d;
        if (!g.contains(c)) return std::nullopt;
        const auto it = row_of.find(g.index(c));
        if (it == row_of.end()) return std::nullopt;
        return it->second;
    };
    for (size_t r = 0; r < rc.points; ++r) {
        std::array<std::array<size_t, 2>, 3> ends{};
        std::array<int, 3> kind{};
        for (int a = 0; a < 3; ++a) {
            const auto minus = row(rc.cells[r], a, -1), plus = row(rc.cells[r], a, 1);
            const auto ua = static_cast<size_t>(a);
            ends[ua] = {minus.value_or(r), plus.value_or(r)};
            kind[ua] = (minus ? 1 : 0) + (plus ? 1 : 0);
        }
        ends_.push_back(ends);
        kinds_.push_back(kind);
    }
}

double ReceiverAmbisonics::directional_limit_hz(size_t r) const {
    // As for the listener grid's points (ambisonics.h): central differences keep directions to
    // kd = 2.4 with the diffuse-field gain, a one-sided one (half a step off centre) to kd = 1.
    return auralize::directional_limit_hz(
        h_, speed_of_sound_,
        central(kinds_[r]) ? auralize::kCentralKdLimit : auralize::kOneSidedKdLimit);
}

std::array<std::vector<float>, 4> ReceiverAmbisonics::wave(
    size_t r, const std::vector<std::vector<double>>& signals, const std::vector<float>& pressure,
    const IrDelivery& delivery) const {
    if (signals.size() != signals_)
        throw std::logic_error("the solver recorded " + std::to_string(signals.size()) +
                               " receiver cells, expected " + std::to_string(signals_));
    const auto& kind = kinds_[r];
    std::array<std::vector<float>, 3> gradient;
    std::vector<double> diff;
    for (size_t a = 0; a < 3; ++a) {
        const auto& lo = signals[ends_[r][a][0]];
        const auto& hi = signals[ends_[r][a][1]];
        // Central: (p(x+h) - p(x-h)) / 2h; one-sided: over h; none (no air next to it): zero.
        const double span = kind[a] == 2 ? 2 * h_ : h_;
        diff.assign(lo.size(), 0.0);
        if (kind[a] > 0)
            for (size_t n = 0; n < diff.size(); ++n)
                diff[n] = (hi[n] - lo[n]) / span;
        gradient[a] = delivery.deliver(std::span<const double>(diff));
    }
    const double limit = std::min(directional_limit_hz(r), 0.5 * fs_out_);
    auralize::FoaIr foa =
        auralize::encode_foa(pressure, gradient, fs_out_, limit, auralize::Orientation{},
                             speed_of_sound_, central(kind) ? h_ : 0.0);
    return std::move(foa.channels);
}

}  // namespace ardent::pipeline
