#include "ardent/preprocess/atmosphere.h"

#include <cmath>

namespace ardent {

double air_attenuation_db_per_m(double f_hz, const Atmosphere& air) {
    constexpr double kReferencePressure = 101.325;    // kPa
    constexpr double kReferenceTemperature = 293.15;  // K
    constexpr double kTriplePoint = 273.16;           // K, of water
    const double t = air.temperature_c + 273.15;
    const double p = air.pressure_kpa / kReferencePressure;
    const double tr = t / kReferenceTemperature;
    // Molar concentration of water vapour (percent) from relative humidity (Annex B).
    const double c_sat = -6.8346 * std::pow(kTriplePoint / t, 1.261) + 4.6151;
    const double h = air.relative_humidity * std::pow(10.0, c_sat) / p;
    // Relaxation frequencies of oxygen and nitrogen (eq. 3 and 4).
    const double fr_o = p * (24.0 + 4.04e4 * h * (0.02 + h) / (0.391 + h));
    const double fr_n =
        p / std::sqrt(tr) * (9.0 + 280.0 * h * std::exp(-4.170 * (std::cbrt(1.0 / tr) - 1.0)));
    const double f2 = f_hz * f_hz;
    const double classical = 1.84e-11 / p * std::sqrt(tr);
    const double relaxation =
        std::pow(tr, -2.5) * (0.01275 * std::exp(-2239.1 / t) / (fr_o + f2 / fr_o) +
                              0.1068 * std::exp(-3352.0 / t) / (fr_n + f2 / fr_n));
    return 8.686 * f2 * (classical + relaxation);
}

double speed_of_sound_at(double temperature_c) {
    return 331.3 * std::sqrt(1.0 + temperature_c / 273.15);
}

}  // namespace ardent
