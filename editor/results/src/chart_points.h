// The points the results panel's IR chart draws for a signal, shared by the shown run and the
// run it is compared with: every sample when they fit the columns, else a zig-zag from each
// pixel column's minimum to its maximum, which draws the envelope of the samples.
#pragma once

#include <QList>
#include <QPointF>
#include <cmath>
#include <span>

#include "ardent/editor/results_data.h"

namespace ardent::editor {

inline QList<QPointF> envelope_points(std::span<const float> ir, double fs, size_t columns) {
    const std::vector<MinMax> cols = min_max_columns(ir, columns);
    QList<QPointF> pts;
    pts.reserve(static_cast<qsizetype>(2 * cols.size()));
    if (cols.size() == ir.size()) {
        for (size_t i = 0; i < cols.size(); ++i)
            pts.append(QPointF(static_cast<double>(i) / fs, cols[i].max));
        return pts;
    }
    const double per = std::ceil(static_cast<double>(ir.size()) / static_cast<double>(columns));
    for (size_t i = 0; i < cols.size(); ++i) {
        const double t = static_cast<double>(i) * per / fs;
        pts.append(QPointF(t, cols[i].min));
        pts.append(QPointF(t, cols[i].max));
    }
    return pts;
}

}  // namespace ardent::editor
