#include "receiver_ambisonics.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

#include "ardent/auralize/ambisonics.h"

namespace ardent::pipeline {
namespace {

bool central(const std::array<std::int8_t, 3>& kind) {
    return kind[0] != 1 && kind[1] != 1 && kind[2] != 1;
}

}  // namespace

ReceiverAmbisonics::ReceiverAmbisonics(const Preprocessed& p)
    : h_(p.air.grid.h),
      speed_of_sound_(p.scene.simulation.speed_of_sound),
      fs_out_(p.scene.output_sample_rate) {
    const ListenerCells rc = p.receiver_cells();
    signals_ = rc.cells.size();
    stencil_ = gradient_stencils(p.air, rc);
}

double ReceiverAmbisonics::directional_limit_hz(size_t r) const {
    // As for the listener grid's points (ambisonics.h): central differences keep directions to
    // kd = 2.4 with the diffuse-field gain, a one-sided one (half a step off centre) to kd = 1.
    return auralize::directional_limit_hz(
        h_, speed_of_sound_,
        central(stencil_[r].kinds) ? auralize::kCentralKdLimit : auralize::kOneSidedKdLimit);
}

std::array<std::vector<float>, 4> ReceiverAmbisonics::wave(
    size_t r, const std::vector<std::vector<double>>& signals, const std::vector<float>& pressure,
    const IrDelivery& delivery) const {
    if (signals.size() != signals_)
        throw std::logic_error("the solver recorded " + std::to_string(signals.size()) +
                               " receiver cells, expected " + std::to_string(signals_));
    const GradientStencil& st = stencil_[r];
    std::array<std::vector<float>, 3> gradient;
    std::vector<double> diff;
    for (size_t a = 0; a < 3; ++a) {
        one_cell_difference(signals[st.ends[a][0]], signals[st.ends[a][1]], st.kinds[a], h_, diff);
        gradient[a] = delivery.deliver(std::span<const double>(diff));
    }
    const double limit = std::min(directional_limit_hz(r), 0.5 * fs_out_);
    auralize::FoaIr foa =
        auralize::encode_foa(pressure, gradient, fs_out_, limit, auralize::Orientation{},
                             speed_of_sound_, central(st.kinds) ? h_ : 0.0);
    return std::move(foa.channels);
}

}  // namespace ardent::pipeline
