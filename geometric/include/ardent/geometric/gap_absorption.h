// Absorbers in narrow gaps (docs/full-band.md, "Absorbers in narrow gaps"). A surface that faces
// another across a gap narrower than a quarter wavelength (a panel's back 0.1 m off a wall, the
// underside of a seat) lies in the room's sound pressure: the gap has no cross mode below half a
// wavelength, so a plane wave runs into it from its mouth and the surface absorbs what it brings.
// Rays reach it only through the mouth. The share of its diffuse-field irradiation that the rays
// missed (the energy they brought per triangle and side) times its exposure (1 for gaps up to a
// quarter wavelength, falling to 0 at half a wavelength, times the gap's own losses on the way
// in from the mouth) times its absorption is an absorption area per band, which the diffuse part
// of the IR decays with on top of the rays' own losses: its energy falls by exp(-c A t / (4 V))
// more (Sabine's rate for the extra area).
#pragma once

#include <cstdint>
#include <vector>

#include "ardent/geometric/bands.h"
#include "ardent/geometric/ray_tracer.h"
#include "ardent/geometric/room.h"

namespace ardent::geometric {

struct GapAbsorption {
    BandValues area_m2{};       // the absorption area the rays missed, per band
    BandValues rate_per_s{};    // the diffuse energy's extra decay rate: c A / (4 V)
    double gap_surface_m2 = 0;  // the surface in gaps (exposure > 0 at 125 Hz) rays reached less
};

// `incident`: RayTracingStats::incident of a run from one source (two per triangle). Triangles
// no ray reached are left out (which side faces the air is not known there).
GapAbsorption gap_absorption(const Room& room, const std::vector<double>& incident,
                             double speed_of_sound, int threads);

// The diffuse energy's factor at time t (s): gain exp(-rate t) per band (`gain`:
// boundary_gain.h's).
BandValues diffuse_factor(const BandValues& rate_per_s, const BandValues& gain, double t);

// The diffuse energy after the extra decay: every bin times diffuse_factor at its mid-time
// (`gain`: source times receiver).
void apply_gap_absorption(EnergyHistogram& h, const BandValues& rate_per_s, const BandValues& gain);

}  // namespace ardent::geometric
