#include "fit_table.h"

#include <QHeaderView>
#include <QStringList>
#include <algorithm>
#include <array>
#include <cmath>

#include "ardent/preprocess/wall_admittance.h"
#include "project.h"

namespace ardent::editor {

namespace {

constexpr int kColumns = 4;
constexpr int kMaxVisibleRows = 10;  // third-octave materials scroll beyond this
constexpr int kMinVisibleRows = 3;

QString alpha_text(double a) {
    return QString::number(a, 'f', 3);
}

// Signed, so the sign of the miss reads at a glance; "0.000" when it rounds away.
QString difference_text(double d) {
    QString t = QString::number(std::abs(d), 'f', 3);
    if (t == "0.000") return t;
    return (d > 0 ? "+" : "\u2212") + t;
}

QTableWidgetItem* cell(const QString& text, Qt::Alignment align = Qt::AlignRight) {
    auto* item = new QTableWidgetItem(text);
    item->setTextAlignment(align | Qt::AlignVCenter);
    return item;
}

}  // namespace

FitTable::FitTable(QWidget* parent) : QTableWidget(0, kColumns, parent) {
    setHorizontalHeaderLabels({tr("Hz"), tr("asked"), tr("fitted"), tr("Δ")});
    const QStringList tips{tr("Band centre"), tr("Random-incidence absorption asked for"),
                           tr("Random-incidence absorption of the fitted wall (Paris' integral)"),
                           tr("Fitted minus asked")};
    for (int c = 0; c < kColumns; ++c)
        horizontalHeaderItem(c)->setToolTip(tips[c]);
    horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    horizontalHeader()->setHighlightSections(false);
    verticalHeader()->hide();
    // Small fixed rows (and header) keep octave bands beside the six spin boxes, even squeezed.
    const int row = fontMetrics().height() + 2;
    horizontalHeader()->setFixedHeight(row + 2);
    verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    verticalHeader()->setMinimumSectionSize(row);
    verticalHeader()->setDefaultSectionSize(row);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionMode(QAbstractItemView::NoSelection);
    setFocusPolicy(Qt::NoFocus);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Maximum);
    warnings_ = new QLabel(parent ? parent : this);  // never a window of its own
    warnings_->setWordWrap(true);
    warnings_->setStyleSheet("color: #b85c00; font-size: small;");
    show_nothing();
}

void FitTable::show_nothing() {
    material_.reset();
    clearSpans();
    setRowCount(0);
    warnings_->clear();
    warnings_->hide();
    emit cleared();  // the panel hides the fit's tabs
}

void FitTable::show_fit(const Material& m, double max_frequency) {
    // Emitter drags and other edits refresh the panel too: refit only what changed.
    if (material_ && max_frequency_ == max_frequency && material_->name == m.name &&
        material_->absorption == m.absorption && material_->per_band == m.per_band)
        return;
    material_ = m;
    max_frequency_ = max_frequency;
    const WallFit fit = fit_wall(m, max_frequency);
    ++fits_;

    clearSpans();
    if (fit.open) {
        setRowCount(1);
        setSpan(0, 0, 1, kColumns);
        auto* item = cell(tr("open boundary (absorbing layer)"), Qt::AlignHCenter);
        item->setToolTip(tr("Absorption 1 in every band: the absorbing layer, not a fitted wall."));
        setItem(0, 0, item);
        for (int c = 1; c < kColumns; ++c)
            setItem(0, c, nullptr);
    } else {
        setRowCount(static_cast<int>(fit.bands.size()));
        const QString outside =
            tr("Outside the simulated band (0.05–1 × max_frequency: %1–%2 Hz): not judged.")
                .arg(fit.lowest_hz, 0, 'g', 4)
                .arg(fit.highest_hz, 0, 'g', 4);
        const QString miss =
            tr("Misses the tolerance (0.02 absolute or 10 % relative, whichever is larger).");
        const QColor grey = palette().color(QPalette::Disabled, QPalette::Text);
        for (int r = 0; r < rowCount(); ++r) {
            const FittedBand& b = fit.bands[static_cast<size_t>(r)];
            const std::array<QTableWidgetItem*, kColumns> items{
                cell(QString::number(b.hz, 'g', 10)), cell(alpha_text(b.target)),
                cell(alpha_text(b.fitted)), cell(difference_text(b.residual()))};
            items[1]->setData(Qt::UserRole, b.target);
            items[2]->setData(Qt::UserRole, b.fitted);
            for (int c = 0; c < kColumns; ++c) {
                if (!b.judged) {
                    items[c]->setForeground(grey);
                    items[c]->setToolTip(outside);
                } else if (!b.within_tolerance()) {
                    items[c]->setBackground(QColor(255, 196, 120));
                    items[c]->setForeground(Qt::black);  // readable on orange in dark themes too
                    items[c]->setToolTip(miss);
                }
                setItem(r, c, items[c]);
            }
        }
    }
    QStringList lines;
    for (const std::string& w : fit.warnings)
        lines << to_qstring(w);
    warnings_->setText(lines.join('\n'));
    warnings_->setVisible(!lines.isEmpty());
    setMaximumHeight(height_for_rows(std::min(rowCount(), kMaxVisibleRows)));
    updateGeometry();
    emit fitted(fit);
}

int FitTable::height_for_rows(int rows) const {
    return 2 * frameWidth() + horizontalHeader()->height() +
           rows * verticalHeader()->defaultSectionSize();
}

QSize FitTable::sizeHint() const {
    return {minimumSizeHint().width(), height_for_rows(std::min(rowCount(), kMaxVisibleRows))};
}

// Four columns of "+0.000", and the header with three rows: a squeezed panel scrolls the rest.
QSize FitTable::minimumSizeHint() const {
    const int column = fontMetrics().horizontalAdvance("+0.000") + 12;
    return {2 * frameWidth() + kColumns * column,
            height_for_rows(std::min(rowCount(), kMinVisibleRows))};
}

}  // namespace ardent::editor
