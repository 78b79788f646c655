// What the 3-D view draws over the model so that a reader can tell what they see: a legend of the
// material colours (and "unassigned") and of the markers, a scale bar in metres at the orbit
// target, the model's x/y/z axes as a small triad, and a room map's colour key. Computed apart from
// the painting so that tests can check the entries and the bar's length without a display.
#pragma once

#include <array>
#include <optional>
#include <vector>

#include <QColor>
#include <QPointF>
#include <QSize>
#include <QString>

#include "camera.h"

class QPainter;

namespace ardent::editor {

struct LegendEntry {
    QColor colour;
    QString label;
    bool marker = false;  // a round swatch (source, receiver, listener), else a square
};

// A room map's colour key: its title ("T20, 1 kHz, s") and the values at the scale's ends
// (auralize::map_colour's dark blue and yellow).
struct MapKey {
    QString title;
    double lo = 0, hi = 0;
};

// The scale bar: `metres` (1, 2 or 5 times a power of ten) drawn `pixels` long.
struct ScaleBar {
    double metres = 0;
    double pixels = 0;
};

// The bar for the camera's view at its target, about `target_pixels` long; nothing when the
// target is behind the eye.
std::optional<ScaleBar> scale_bar(const OrbitCamera& camera, QSize viewport,
                                  double target_pixels = 110);

// Screen directions (unit length, y down) of the model's x, y and z axes at the camera's target;
// a component is (0, 0) when the axis points straight at the viewer.
std::array<QPointF, 3> axis_directions(const OrbitCamera& camera, QSize viewport);

// Paints the legend (top left), the scale bar (bottom left), the axis triad (bottom right) and a
// room map's colour key (top right).
void paint_annotations(QPainter& painter, QSize viewport, const std::vector<LegendEntry>& legend,
                       const std::optional<ScaleBar>& bar, const std::array<QPointF, 3>& axes,
                       const std::optional<MapKey>& map = std::nullopt);

}  // namespace ardent::editor
