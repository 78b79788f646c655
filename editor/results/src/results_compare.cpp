// The results panel's comparison with another run (results_panel.h, "Comparison"): reading the
// reference directory, its analysis of the shown pair, its curves behind the shown ones, and the
// table's differences.
#include <QAbstractAxis>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMessageBox>
#include <QSignalBlocker>
#include <QTableWidget>
#include <algorithm>
#include <cmath>

#include "ardent/editor/results_panel.h"
#include "iso_parameters.h"

namespace ardent::editor {
namespace {

constexpr int kMaxRemembered = 10;
const QString kBrowse = QStringLiteral("\x01browse");  // the list's "Other results folder…"

// Adds `s` to `chart` on its first horizontal and vertical axes.
void add_on_axes(QChart* chart, QLineSeries* s) {
    chart->addSeries(s);
    for (Qt::Orientation o : {Qt::Horizontal, Qt::Vertical})
        if (!chart->axes(o).isEmpty()) s->attachAxis(chart->axes(o).first());
}

const QColor kReferenceGrey(150, 150, 150, 170);

}  // namespace

bool ResultsPanel::setReference(const QString& results_dir, QString* error) {
    std::optional<ResultsData> loaded = read(results_dir, error);
    if (!loaded) return false;
    reference_ = std::move(*loaded);
    reference_analysis_.reset();
    rememberDir(results_dir);
    updateCompareList();
    differences_->setEnabled(true);
    if (current_ >= 0) showPair(current_);
    return true;
}

void ResultsPanel::clearReference() {
    reference_ = {};
    reference_analysis_.reset();
    {
        const QSignalBlocker block(differences_);
        differences_->setChecked(false);
    }
    differences_->setEnabled(false);
    updateCompareList();
    if (current_ >= 0) showPair(current_);
}

QString ResultsPanel::referenceDir() const {
    return QString::fromStdString(reference_.dir.string());
}

const auralize::Analysis* ResultsPanel::referenceAnalysis() const {
    return reference_analysis_ ? &*reference_analysis_ : nullptr;
}

void ResultsPanel::setShowDifferences(bool on) {
    {
        const QSignalBlocker block(differences_);
        differences_->setChecked(on && reference_analysis_);
    }
    if (current_ >= 0) fillTable();
}

QStringList ResultsPanel::comparisonChoices() const {
    QStringList out;
    for (const QString& d : seen_dirs_)
        if (d != resultsDir()) out << d;
    return out;
}

const ResultPair* ResultsPanel::referencePair() const {
    if (current_ < 0 || reference_.pairs.empty()) return nullptr;
    const ResultPair& p = data_.pairs[static_cast<size_t>(current_)];
    for (const ResultPair& r : reference_.pairs)
        if (r.source == p.source && r.receiver == p.receiver) return &r;
    return nullptr;
}

void ResultsPanel::analyzeReference() {
    reference_analysis_.reset();
    const ResultPair* r = referencePair();
    if (!r) return;
    try {
        reference_analysis_ =
            analyze_pair(r->ir, reference_.sample_rate,
                         reference_.full_band ? 0.0 : reference_.max_frequency_hz, r->direct_s);
    } catch (const std::exception&) {
        // A silent IR in the reference draws, without a table to compare.
    }
}

void ResultsPanel::drawReference() {
    if (reference_.dir.empty()) return;
    const QString name = QFileInfo(referenceDir()).fileName();
    const ResultPair* r = referencePair();
    if (!r) {
        info_->setText(info_->text() +
                       tr(" The compared run (%1) has no pair %2 \u2192 %3.")
                           .arg(name, QString::fromStdString(data_.pairs[current_].source),
                                QString::fromStdString(data_.pairs[current_].receiver)));
        return;
    }
    // One line of information stays one line: the key to the overlay goes in the tooltip.
    compare_->setToolTip(tr("Compared with %1: its IR and spectrum in grey, its decay curves "
                            "dashed; the table's tooltips give its values")
                             .arg(referenceDir()));
    // The IR: its points follow the view's width with the shown IR's (drawWaveform).
    auto* ir = new QLineSeries;
    ir->setName(tr("compared"));
    ir->setPen(QPen(kReferenceGrey, 1));
    add_on_axes(waveform_view_->chart(), ir);
    drawWaveform();
    // The spectrum, over the shown one's range.
    if (spectrum_ && !spectrum_->points().isEmpty()) {
        const Spectrum s =
            magnitude_spectrum_db(r->ir, reference_.sample_rate, spectrum_->points().front().x(),
                                  spectrum_->points().back().x());
        auto* sp = new QLineSeries;
        sp->setName(tr("compared"));
        sp->setPen(QPen(kReferenceGrey, 1.5));
        for (size_t i = 0; i < s.hz.size(); ++i)
            sp->append(s.hz[i], s.db[i]);
        add_on_axes(spectrum_view_->chart(), sp);
    }
    // The decay curves, dashed in the colour of the shown run's band; out of the legend.
    if (!reference_analysis_) return;
    QChart* chart = decay_view_->chart();
    const auto shown = chart->series();
    for (const auralize::BandResult& b : reference_analysis_->results) {
        if (b.decay_db.empty()) continue;
        QColor colour = kReferenceGrey;
        for (QAbstractSeries* s : shown)
            if (s->name() == band_name(b.nominal_hz))
                colour = static_cast<QLineSeries*>(s)->color();
        auto* series = new QLineSeries;
        series->setName(band_name(b.nominal_hz) + tr(" (compared)"));
        series->setPen(QPen(colour, 1.5, Qt::DashLine));
        const size_t stride = std::max<size_t>(1, b.decay_db.size() / 1500);
        for (size_t i = 0; i < b.decay_db.size(); i += stride)
            series->append(reference_analysis_->onset_s + static_cast<double>(i) / b.decay_rate_hz,
                           b.decay_db[i]);
        add_on_axes(chart, series);
        for (QLegendMarker* m : chart->legend()->markers(series))
            m->setVisible(false);
    }
}

void ResultsPanel::describeCells() {
    if (!analysis_ || !reference_analysis_) return;
    const auto& params = parameters();
    const auto& bands = analysis_->results;
    const bool differences = differences_->isChecked();
    for (size_t c = 0; c < bands.size(); ++c) {
        const auralize::BandResult* ref = nullptr;
        for (const auto& b : reference_analysis_->results)
            if (b.nominal_hz == bands[c].nominal_hz) ref = &b;
        for (size_t r = 0; r < params.size(); ++r) {
            QTableWidgetItem* item = table_->item(static_cast<int>(r), static_cast<int>(c));
            if (!item) continue;
            const Parameter& p = params[r];
            const std::optional<double> v = p.value(bands[c]);
            const std::optional<double> w = ref ? p.value(*ref) : std::nullopt;
            const bool both = v && w && std::isfinite(*v) && std::isfinite(*w);
            const QString ref_text = w && std::isfinite(*w)
                                         ? QString::number(*w * p.scale, 'f', p.decimals)
                                         : tr("none");
            QString tip = tr("Compared run: %1").arg(ref_text);
            if (both)
                tip += tr("; difference %1")
                           .arg(QString::number((*v - *w) * p.scale, 'f', p.decimals));
            if (!item->toolTip().isEmpty()) tip = item->toolTip() + QLatin1Char('\n') + tip;
            item->setToolTip(tip);
            if (differences) {
                const double d = both ? (*v - *w) * p.scale : 0;
                item->setText(both ? (d > 0 ? QStringLiteral("+") : QString()) +
                                         QString::number(d, 'f', p.decimals)
                                   : QString());
            }
        }
    }
}

void ResultsPanel::rememberDir(const QString& dir) {
    seen_dirs_.removeAll(dir);
    seen_dirs_.prepend(dir);
    while (seen_dirs_.size() > kMaxRemembered)
        seen_dirs_.removeLast();
}

void ResultsPanel::updateCompareList() {
    const QSignalBlocker block(compare_);
    compare_->clear();
    compare_->addItem(tr("nothing"), QString());
    for (const QString& d : comparisonChoices()) {
        compare_->addItem(QFileInfo(d).fileName(), d);
        compare_->setItemData(compare_->count() - 1, d, Qt::ToolTipRole);
    }
    compare_->addItem(tr("Other results folder\u2026"), kBrowse);
    const int at = compare_->findData(referenceDir());
    compare_->setCurrentIndex(reference_.dir.empty() || at < 0 ? 0 : at);
    compare_->setEnabled(!data_.dir.empty());
    if (reference_.dir.empty())
        compare_->setToolTip(tr("Another run's results, drawn with these for the same pair"));
}

void ResultsPanel::onCompareIndex(int index) {
    QString dir = compare_->itemData(index).toString();
    if (dir.isEmpty()) {
        clearReference();
        return;
    }
    if (dir == kBrowse) {
        dir = QFileDialog::getExistingDirectory(this, tr("Compare with results"));
        if (dir.isEmpty()) {
            updateCompareList();
            return;
        }
    }
    QString error;
    if (!setReference(dir, &error)) {
        updateCompareList();
        QMessageBox::warning(this, tr("Cannot compare"), error);
    }
}

}  // namespace ardent::editor
