// The material panel's drawing of one material's wall fit (fit_wall, docs/materials.md): the
// random-incidence absorption asked for per band as points, and what the fitted passive wall gives
// by Paris' integral as a curve over frequency (log axis), with the simulated range
// (0.05-1 x max_frequency) shaded. It shows the same fit as the FitTable beside it.
#pragma once

#include <QChartView>
#include <QStringList>

#include "ardent/preprocess/wall_admittance.h"

namespace ardent::editor {

class FitChart : public QChartView {
    Q_OBJECT
  public:
    explicit FitChart(QWidget* parent = nullptr);

    void show_fit(const WallFit& fit);
    void show_nothing();

    // What is drawn, for tests: the curve's points (Hz, alpha) and the asked points.
    QList<QPointF> curve() const;
    QList<QPointF> asked() const;

    QSize sizeHint() const override { return {320, 170}; }
};

}  // namespace ardent::editor
