// The air a scene's sound travels through: temperature, humidity and pressure (the scene's `air`
// keys), the speed of sound they give, and the pure-tone attenuation coefficient of ISO 9613-1:1993
// (section 6, equations 3 to 5), which the wave solvers' outputs are filtered with after the solve
// (docs/materials.md, "Air absorption") and the geometric engine applies per band. The standard's
// formulae hold to +-10 % from 50 Hz to 10 kHz at 0-40 degrees C, 10-100 % humidity; they are used
// beyond that range as they stand, like every room-acoustics tool does.
#pragma once

namespace ardent {

struct Atmosphere {
    double temperature_c = 20.0;      // degrees Celsius
    double relative_humidity = 50.0;  // percent
    double pressure_kpa = 101.325;    // ambient pressure
    bool absorption = true;           // filter the outputs with the attenuation below
    bool operator==(const Atmosphere&) const = default;
};

// Attenuation of a plane pure tone of frequency f_hz, in decibels per metre (ISO 9613-1, eq. 5).
double air_attenuation_db_per_m(double f_hz, const Atmosphere& air);

// The speed of sound in dry air at a temperature, 331.3 sqrt(1 + T / 273.15) m/s (343.2 at
// 20 degrees C); humidity adds less than 0.4 % below 30 degrees C and is left out.
double speed_of_sound_at(double temperature_c);

}  // namespace ardent
