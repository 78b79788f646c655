#include "fit_chart.h"

#include <QAreaSeries>
#include <QChart>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QValueAxis>
#include <cmath>
#include <numbers>

namespace ardent::editor {
namespace {

constexpr double kLowHz = 50, kHighHz = 10000;
constexpr int kCurvePoints = 160;

QXYSeries* find_series(const QChart* chart, const QString& name) {
    for (QAbstractSeries* s : chart->series())
        if (s->name() == name) return qobject_cast<QXYSeries*>(s);
    return nullptr;
}

}  // namespace

FitChart::FitChart(QWidget* parent) : QChartView(parent) {
    auto* c = new QChart;
    // Narrow beside the spin boxes: no legend or axis titles (the tooltip says what is what),
    // small labels.
    c->setMargins(QMargins(0, 0, 0, 0));
    c->setBackgroundRoundness(0);
    c->legend()->hide();
    setChart(c);
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(150);
    setToolTip(
        tr("Random-incidence absorption α against frequency (Hz): asked for per band "
           "(orange points) and what the fitted wall gives (blue curve); shaded: the "
           "simulated range, where the fit is judged"));
}

void FitChart::show_nothing() {
    chart()->removeAllSeries();
    for (QAbstractAxis* a : chart()->axes()) {
        chart()->removeAxis(a);
        delete a;
    }
}

void FitChart::show_fit(const WallFit& fit) {
    show_nothing();
    QChart* c = chart();
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.8);
    auto* x = new QLogValueAxis;
    x->setBase(10);
    x->setLabelFormat("%g");
    x->setMinorTickCount(0);
    x->setRange(kLowHz, kHighHz);
    x->setLabelsFont(small);
    auto* y = new QValueAxis;
    y->setRange(0, 1);
    y->setTickCount(3);
    y->setLabelFormat("%.1f");
    y->setLabelsFont(small);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);

    // The simulated range, shaded from 0 to 1.
    const double lo = std::max(kLowHz, fit.lowest_hz), hi = std::min(kHighHz, fit.highest_hz);
    if (hi > lo) {
        auto *top = new QLineSeries, *bottom = new QLineSeries;
        top->append({QPointF(lo, 1), QPointF(hi, 1)});
        bottom->append({QPointF(lo, 0), QPointF(hi, 0)});
        auto* range = new QAreaSeries(top, bottom);
        range->setName(tr("simulated"));
        range->setColor(QColor(120, 170, 230, 45));
        range->setBorderColor(Qt::transparent);
        c->addSeries(range);
        range->attachAxis(x);
        range->attachAxis(y);
    }
    auto* fitted = new QLineSeries;
    fitted->setName(tr("fitted wall"));
    fitted->setPen(QPen(QColor(40, 110, 200), 2));
    for (int i = 0; i < kCurvePoints; ++i) {
        const double hz = kLowHz * std::pow(kHighHz / kLowHz, i / (kCurvePoints - 1.0));
        const double a =
            fit.open ? 1.0 : paris_absorption(fit.admittance.at(2 * std::numbers::pi * hz));
        fitted->append(hz, a);
    }
    c->addSeries(fitted);
    fitted->attachAxis(x);
    fitted->attachAxis(y);
    auto* asked = new QScatterSeries;
    asked->setName(tr("asked"));
    asked->setMarkerSize(7);
    asked->setColor(QColor(240, 150, 30));
    asked->setBorderColor(QColor(120, 70, 10));
    for (const FittedBand& b : fit.bands)
        asked->append(b.hz, b.target);
    c->addSeries(asked);
    asked->attachAxis(x);
    asked->attachAxis(y);
}

QList<QPointF> FitChart::curve() const {
    const QXYSeries* s = find_series(chart(), tr("fitted wall"));
    return s ? s->points() : QList<QPointF>{};
}

QList<QPointF> FitChart::asked() const {
    const QXYSeries* s = find_series(chart(), tr("asked"));
    return s ? s->points() : QList<QPointF>{};
}

}  // namespace ardent::editor
