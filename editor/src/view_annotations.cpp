#include "view_annotations.h"

#include <QFontMetrics>
#include <QLinearGradient>
#include <QPainter>
#include <algorithm>
#include <array>
#include <cmath>

#include "ardent/auralize/grid_maps.h"

namespace ardent::editor {
namespace {

// A unit vector across the line of sight, level with the scene's up axis where it can be.
Vec3 across_view(const OrbitCamera& camera) {
    const Vec3 d = camera.target() - camera.eye();
    Vec3 up{};
    (camera.up_axis() == 0 ? up.x : camera.up_axis() == 1 ? up.y : up.z) = 1;
    Vec3 a = cross(d, up);
    if (norm(a) < 1e-9 * norm(d)) a = cross(d, Vec3{1, 0, 0});
    if (norm(a) < 1e-9 * norm(d)) a = cross(d, Vec3{0, 1, 0});
    return a * (1 / norm(a));
}

}  // namespace

std::optional<ScaleBar> scale_bar(const OrbitCamera& camera, QSize viewport, double target_pixels) {
    const Vec3 t = camera.target();
    const auto p0 = camera.project(t, viewport);
    const auto p1 = camera.project(t + across_view(camera), viewport);
    if (!p0 || !p1) return std::nullopt;
    const double per_metre = std::hypot(p1->x() - p0->x(), p1->y() - p0->y());
    if (!(per_metre > 0) || !std::isfinite(per_metre)) return std::nullopt;
    // The longest 1-2-5 length not longer than the target.
    const double want = target_pixels / per_metre;
    const double power = std::pow(10.0, std::floor(std::log10(want)));
    double metres = power;
    for (const double m : {2.0, 5.0})
        if (m * power <= want) metres = m * power;
    return ScaleBar{metres, metres * per_metre};
}

std::array<QPointF, 3> axis_directions(const OrbitCamera& camera, QSize viewport) {
    std::array<QPointF, 3> out{};
    const Vec3 t = camera.target();
    const double step = 0.05 * std::max(camera.distance(), 1e-6);
    const auto p0 = camera.project(t, viewport);
    const auto across = camera.project(t + across_view(camera) * step, viewport);
    if (!p0 || !across) return out;
    // An axis drawn at its full length is as long as a step across the view.
    const QPointF a0 = *across - *p0;
    const double full = std::hypot(a0.x(), a0.y());
    for (int a = 0; a < 3; ++a) {
        Vec3 e{};
        (a == 0 ? e.x : a == 1 ? e.y : e.z) = step;
        const auto p = camera.project(t + e, viewport);
        if (!p) continue;
        const QPointF d = *p - *p0;
        const double len = std::hypot(d.x(), d.y());
        // Foreshortened to under a sixth: the axis points (nearly) at the viewer.
        if (len > full / 6) out[static_cast<size_t>(a)] = d * (len / full) / len;
    }
    return out;
}

void paint_annotations(QPainter& p, QSize viewport, const std::vector<LegendEntry>& legend,
                       const std::optional<ScaleBar>& bar, const std::array<QPointF, 3>& axes,
                       const std::optional<MapKey>& map) {
    p.setRenderHint(QPainter::Antialiasing);
    const QFontMetrics fm = p.fontMetrics();
    const int line = fm.height() + 4, pad = 8, swatch = fm.height() - 2;
    const QColor text(235, 235, 235), panel(20, 22, 26, 190);

    if (!legend.empty()) {
        int width = 0;
        for (const auto& e : legend)
            width = std::max(width, fm.horizontalAdvance(e.label));
        const QRect box(pad, pad, width + swatch + 3 * pad,
                        static_cast<int>(legend.size()) * line + pad);
        p.setPen(Qt::NoPen);
        p.setBrush(panel);
        p.drawRoundedRect(box, 4, 4);
        int y = box.top() + pad / 2;
        for (const auto& e : legend) {
            const QRect sw(box.left() + pad, y + (line - swatch) / 2, swatch, swatch);
            p.setPen(QPen(QColor(0, 0, 0, 160), 1));
            p.setBrush(e.colour);
            if (e.marker)
                p.drawEllipse(sw);
            else
                p.drawRect(sw);
            p.setPen(text);
            p.drawText(QRect(sw.right() + pad, y, width + pad, line), Qt::AlignVCenter, e.label);
            y += line;
        }
    }
    if (bar) {
        const QString label = bar->metres >= 1 ? QStringLiteral("%1 m").arg(bar->metres)
                                               : QStringLiteral("%1 cm").arg(bar->metres * 100);
        const int x0 = pad + 4, y0 = viewport.height() - pad - 6;
        const int x1 = x0 + static_cast<int>(std::lround(bar->pixels));
        p.setPen(Qt::NoPen);
        p.setBrush(panel);
        p.drawRoundedRect(
            QRect(pad - 4, y0 - line - 6, x1 - x0 + 16 + fm.horizontalAdvance(label), line + 12), 4,
            4);
        p.setPen(QPen(text, 2));
        p.drawLine(x0, y0, x1, y0);
        p.drawLine(x0, y0 - 5, x0, y0);
        p.drawLine(x1, y0 - 5, x1, y0);
        p.drawText(QPoint(x1 + 6, y0), label);
    }
    if (map) {
        // The colour bar, its ends' values below it and the title above.
        const int w = 180, h = 12;
        const QRect box(viewport.width() - w - 3 * pad, pad, w + 2 * pad, 2 * line + h + pad);
        p.setPen(Qt::NoPen);
        p.setBrush(panel);
        p.drawRoundedRect(box, 4, 4);
        const QRect bar_rect(box.left() + pad, box.top() + line, w, h);
        QLinearGradient g(bar_rect.topLeft(), bar_rect.topRight());
        for (int i = 0; i <= 8; ++i) {
            const auto c = auralize::map_colour(i / 8.0);
            g.setColorAt(i / 8.0, QColor(c[0], c[1], c[2]));
        }
        p.fillRect(bar_rect, g);
        p.setPen(text);
        p.drawText(QRect(box.left() + pad, box.top(), w, line), Qt::AlignVCenter, map->title);
        const QRect under(box.left() + pad, bar_rect.bottom() + 2, w, line);
        p.drawText(under, Qt::AlignLeft | Qt::AlignVCenter, QString::number(map->lo, 'g', 3));
        p.drawText(under, Qt::AlignRight | Qt::AlignVCenter, QString::number(map->hi, 'g', 3));
    }
    const std::array<QColor, 3> colours{QColor(235, 80, 70), QColor(90, 200, 90),
                                        QColor(90, 140, 255)};
    const std::array<const char*, 3> names{"x", "y", "z"};
    const QPointF origin(viewport.width() - 50, viewport.height() - 45);
    for (size_t a = 0; a < 3; ++a) {
        const QPointF d = axes[a] * 30;
        p.setPen(QPen(colours[a], 2));
        p.drawLine(origin, origin + d);
        p.drawText(
            origin + d * 1.25 - QPointF(fm.horizontalAdvance(names[a]) / 2.0, -fm.ascent() / 2.0),
            names[a]);
    }
}

}  // namespace ardent::editor
