// A receiver's first-order ambisonic IR from the wave solver (docs/output-format.md, "Ambisonic
// receiver IRs"): the pressure at its cell is W, and the dipoles X, Y, Z come from the pressure
// gradient, a one-cell difference of the cells next to it, which every solver records after the
// receivers (Preprocessed::receiver_cells). The channels are AmbiX (ACN order W, Y, Z, X; SN3D)
// in the model's axes (X along +x, Y along +y, Z along +z), so that `ardent auralize` turns them
// to any listener orientation.
#pragma once

#include <array>
#include <vector>

#include "ardent/pipeline/simulate_output.h"
#include "ardent/preprocess/preprocess.h"
#include "gradient_cells.h"

namespace ardent::pipeline {

class ReceiverAmbisonics {
  public:
    explicit ReceiverAmbisonics(const Preprocessed& p);

    // Receiver r's channels at the output rate from the solver's receiver signals (the receivers,
    // then the cells next to them); `pressure` is its delivered pressure IR (W).
    std::array<std::vector<float>, 4> wave(size_t r,
                                           const std::vector<std::vector<double>>& signals,
                                           const std::vector<float>& pressure,
                                           const IrDelivery& delivery) const;
    // The highest frequency receiver r's dipoles hold (less next to a wall).
    double directional_limit_hz(size_t r) const;

  private:
    double h_, speed_of_sound_, fs_out_;
    size_t signals_ = 0;
    std::vector<GradientStencil> stencil_;  // per receiver
};

}  // namespace ardent::pipeline
