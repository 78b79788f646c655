// Scaling a loaded scene for the benchmarks: the paper's benchmark needs about 7000-7500 m^3 of
// air, so the bundled rooms are scaled about the origin, geometry and every emitter alike.
#pragma once

#include "ardent/preprocess/scene.h"

namespace ardent::bench {

inline void scale_scene(Scene& scene, double scale) {
    scene.geometry.scale *= scale;
    for (auto& s : scene.sources)
        s.position = s.position * scale;
    for (auto& r : scene.receivers)
        r.position = r.position * scale;
}

}  // namespace ardent::bench
