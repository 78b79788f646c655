#include "ardent/editor/results_panel.h"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QTextStream>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <fstream>
#include <functional>

#include "ardent/auralize/crossover.h"
#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/safe_output.h"
#include "chart_points.h"
#include "iso_parameters.h"

namespace ardent::editor {
namespace {

QString arrow(const ResultPair& p) {
    return QString::fromStdString(p.source) + QStringLiteral(" \u2192 ") +
           QString::fromStdString(p.receiver);
}

// The tab names the chart: no title, so that the plot keeps the height.
QChartView* make_view(const QString& name) {
    auto* chart = new QChart;
    chart->setObjectName(name);
    chart->legend()->hide();
    chart->setMargins(QMargins(4, 4, 4, 4));
    auto* view = new QChartView(chart);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumHeight(180);
    return view;
}

// Ticks a reader can read: a step of 1, 2 or 5 times a power of ten giving about `target`
// intervals over [lo, hi], anchored at zero, labelled without trailing digits ("0.13 s" and
// "-26.3" came from splitting the range into equal parts).
void set_nice_ticks(QValueAxis* axis, double lo, double hi, int target) {
    const double raw = (hi - lo) / std::max(1, target);
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    double step = 10 * power;
    for (const double m : {1.0, 2.0, 5.0})
        if (raw <= m * power * 1.0001) {
            step = m * power;
            break;
        }
    axis->setRange(lo, hi);
    axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTickAnchor(0);
    axis->setTickInterval(step);
    axis->setLabelFormat("%g");
}

// The table's height that shows every row without scrolling.
int all_rows_height(const QTableWidget* t) {
    int h = t->horizontalHeader()->sizeHint().height() + 2 * t->frameWidth() + 2;
    for (int r = 0; r < t->rowCount(); ++r)
        h += t->verticalHeader()->sectionSize(r);
    if (t->horizontalScrollBar()->isVisible()) h += t->horizontalScrollBar()->sizeHint().height();
    return h;
}

// Replaces every series and axis of a chart.
void reset_chart(QChart* chart) {
    chart->removeAllSeries();
    for (QAbstractAxis* axis : chart->axes()) {
        chart->removeAxis(axis);
        delete axis;
    }
}

}  // namespace

ResultsPanel::ResultsPanel(QWidget* parent) : QWidget(parent) {
    pairs_ = new QComboBox;
    pairs_->setToolTip(tr("Source and receiver whose impulse response is shown"));
    info_ = new QLabel;
    info_->setWordWrap(true);
    notice_ = new QLabel;
    notice_->setWordWrap(true);
    notice_->setStyleSheet("QLabel { background: #fde2c4; color: #5a2d00; padding: 4px; }");
    notice_->hide();
    compare_ = new QComboBox;
    differences_ = new QCheckBox(tr("Differences"));
    differences_->setToolTip(tr("The table shows this run's values minus the compared run's"));
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Pair:")));
    top->addWidget(pairs_, 2);
    top->addWidget(new QLabel(tr("Compare with:")));
    top->addWidget(compare_, 1);
    top->addWidget(differences_);

    waveform_view_ = make_view(tr("Impulse response"));
    spectrum_view_ = make_view(tr("Magnitude spectrum"));
    decay_view_ = make_view(tr("Energy decay (Schroeder) per octave band"));
    decay_view_->chart()->legend()->show();
    decay_view_->chart()->legend()->setAlignment(Qt::AlignRight);
    waveform_view_->installEventFilter(this);
    auto* tabs = new QTabWidget;
    tabs->addTab(waveform_view_, tr("Impulse response"));
    tabs->addTab(spectrum_view_, tr("Magnitude spectrum"));
    tabs->addTab(decay_view_, tr("Decay per octave (Schroeder)"));

    table_ = new QTableWidget;
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 8);
    table_->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    export_ = new QPushButton(tr("Export CSV\u2026"));
    export_->setEnabled(false);
    auto* table_box = new QWidget;
    auto* tl = new QVBoxLayout(table_box);
    tl->setContentsMargins(0, 0, 0, 0);
    auto* tl_top = new QHBoxLayout;
    tl_top->addWidget(new QLabel(tr("ISO 3382-1 parameters (* below the dynamic range the "
                                    "standard asks for; blank: not measurable)")),
                      1);
    tl_top->addWidget(export_);
    tl->addLayout(tl_top);
    tl->addWidget(table_);

    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(tabs);
    split->addWidget(table_box);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 0);
    split->setChildrenCollapsible(false);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(notice_);
    layout->addWidget(info_);
    layout->addWidget(split, 1);

    connect(pairs_, &QComboBox::currentIndexChanged, this, &ResultsPanel::onPairIndex);
    connect(export_, &QPushButton::clicked, this, &ResultsPanel::onExportClicked);
    connect(compare_, &QComboBox::activated, this, &ResultsPanel::onCompareIndex);
    connect(differences_, &QCheckBox::toggled, this, &ResultsPanel::setShowDifferences);
    clear();
}

ResultsPanel::~ResultsPanel() = default;

std::optional<ResultsData> ResultsPanel::read(const QString& results_dir, QString* error) {
    try {
        return read_results(results_dir.toStdString());
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
    }
    return std::nullopt;
}

bool ResultsPanel::load(const QString& results_dir, QString* error) {
    std::optional<ResultsData> loaded = read(results_dir, error);
    if (!loaded) return false;
    if (!data_.dir.empty()) rememberDir(QString::fromStdString(data_.dir.string()));
    data_ = std::move(*loaded);
    current_ = -1;
    setNotice({});
    if (reference_.dir == data_.dir) clearReference();
    updateCompareList();
    const QSignalBlocker block(pairs_);
    pairs_->clear();
    for (const ResultPair& p : data_.pairs)
        pairs_->addItem(arrow(p));
    pairs_->setEnabled(true);
    pairs_->setCurrentIndex(0);
    showPair(0);
    return true;
}

void ResultsPanel::clear() {
    if (!data_.dir.empty()) rememberDir(QString::fromStdString(data_.dir.string()));
    data_ = {};
    setNotice({});
    reference_ = {};
    reference_analysis_.reset();
    differences_->setChecked(false);
    differences_->setEnabled(false);
    updateCompareList();
    current_ = -1;
    analysis_.reset();
    analysis_error_.clear();
    {
        const QSignalBlocker block(pairs_);
        pairs_->clear();
    }
    pairs_->setEnabled(false);
    info_->setText(tr("No results loaded: run a simulation or open a results directory."));
    for (QChartView* v : {waveform_view_, spectrum_view_, decay_view_})
        reset_chart(v->chart());
    waveform_ = spectrum_ = nullptr;
    table_->clear();
    table_->setRowCount(0);
    table_->setColumnCount(0);
    export_->setEnabled(false);
}

QString ResultsPanel::resultsDir() const {
    return QString::fromStdString(data_.dir.string());
}

void ResultsPanel::select(const QString& source, const QString& receiver) {
    for (size_t i = 0; i < data_.pairs.size(); ++i)
        if (QString::fromStdString(data_.pairs[i].source) == source &&
            QString::fromStdString(data_.pairs[i].receiver) == receiver) {
            if (pairs_->currentIndex() == static_cast<int>(i))
                emit pairSelected(source, receiver);
            else
                pairs_->setCurrentIndex(static_cast<int>(i));  // onPairIndex emits
            return;
        }
}

int ResultsPanel::pairCount() const {
    return static_cast<int>(data_.pairs.size());
}

QString ResultsPanel::currentSource() const {
    return current_ < 0 ? QString() : QString::fromStdString(data_.pairs[current_].source);
}

QString ResultsPanel::currentReceiver() const {
    return current_ < 0 ? QString() : QString::fromStdString(data_.pairs[current_].receiver);
}

void ResultsPanel::onPairIndex(int index) {
    if (index < 0 || index >= pairCount()) return;
    showPair(index);
}

void ResultsPanel::showPair(int index) {
    current_ = index;
    const ResultPair& p = data_.pairs[index];
    const double fs = data_.sample_rate;
    analysis_.reset();
    analysis_error_.clear();
    try {
        analysis_ =
            analyze_pair(p.ir, fs, data_.full_band ? 0.0 : data_.max_frequency_hz, p.direct_s);
    } catch (const std::exception& e) {
        // A silent IR (the source cannot reach the receiver within the duration) still draws.
        analysis_error_ =
            QStringLiteral("'%1': %2")
                .arg(QString::fromStdString(p.ir_file.string()), QString::fromStdString(e.what()));
    }
    analyzeReference();
    info_->setText(
        tr("%1: %2 samples at %3 Hz (%4 s); simulated up to %5 Hz, flat to %6 Hz.%7")
            .arg(QString::fromStdString(p.ir_file.filename().string()))
            .arg(p.ir.size())
            .arg(fs)
            .arg(static_cast<double>(p.ir.size()) / fs, 0, 'f', 3)
            .arg(data_.max_frequency_hz)
            .arg(0.8 * data_.max_frequency_hz)
            .arg(analysis_error_.isEmpty() ? QString() : QStringLiteral(" ") + analysis_error_));

    // Waveform (drawn at the view's width; redrawn when it changes).
    {
        QChart* chart = waveform_view_->chart();
        reset_chart(chart);
        waveform_ = new QLineSeries;
        chart->addSeries(waveform_);
        auto* x = new QValueAxis;
        x->setTitleText(tr("time (s)"));
        set_nice_ticks(x, 0, static_cast<double>(p.ir.size()) / fs, 8);
        auto* y = new QValueAxis;
        y->setTitleText(tr("pressure"));
        const auto [lo, hi] = std::minmax_element(p.ir.begin(), p.ir.end());
        const double m =
            static_cast<double>(std::max({std::abs(*lo), std::abs(*hi), 1e-12f})) * 1.05;
        set_nice_ticks(y, -m, m, 4);
        chart->addAxis(x, Qt::AlignBottom);
        chart->addAxis(y, Qt::AlignLeft);
        waveform_->attachAxis(x);
        waveform_->attachAxis(y);
        drawWaveform();
    }
    // Spectrum, up to a little beyond f_max to show the roll-off.
    {
        QChart* chart = spectrum_view_->chart();
        reset_chart(chart);
        const double top = std::min(fs / 2, 1.25 * data_.max_frequency_hz);
        const Spectrum s = magnitude_spectrum_db(p.ir, fs, 10, top);
        spectrum_ = new QLineSeries;
        QList<QPointF> pts;
        pts.reserve(static_cast<qsizetype>(s.hz.size()));
        for (size_t i = 0; i < s.hz.size(); ++i)
            pts.append(QPointF(s.hz[i], s.db[i]));
        spectrum_->replace(pts);
        chart->addSeries(spectrum_);
        auto* x = new QLogValueAxis;
        x->setBase(10);
        x->setLabelFormat("%g");
        x->setTitleText(tr("frequency (Hz)"));
        x->setMinorTickCount(8);
        if (!s.hz.empty()) x->setRange(s.hz.front(), s.hz.back());
        auto* y = new QValueAxis;
        y->setTitleText(tr("magnitude (dB)"));
        if (!s.db.empty()) {
            const double peak = *std::max_element(s.db.begin(), s.db.end());
            set_nice_ticks(y, std::ceil(peak / 10) * 10 - 80, std::ceil(peak / 10) * 10 + 5, 8);
        }
        chart->addAxis(x, Qt::AlignBottom);
        chart->addAxis(y, Qt::AlignLeft);
        spectrum_->attachAxis(x);
        spectrum_->attachAxis(y);
    }
    // Decay curves: the Schroeder curves the table's times were fitted to.
    {
        QChart* chart = decay_view_->chart();
        reset_chart(chart);
        auto* x = new QValueAxis;
        x->setTitleText(tr("time (s)"));
        set_nice_ticks(x, 0, static_cast<double>(p.ir.size()) / fs, 8);
        auto* y = new QValueAxis;
        y->setTitleText(tr("level (dB)"));
        double lowest = -60;
        chart->addAxis(x, Qt::AlignBottom);
        chart->addAxis(y, Qt::AlignLeft);
        if (analysis_)
            for (const auralize::BandResult& b : analysis_->results) {
                if (b.decay_db.empty()) continue;
                auto* series = new QLineSeries;
                series->setName(band_name(b.nominal_hz));
                // The curve is monotonic: every k-th point draws it as well as all of them.
                const size_t stride = std::max<size_t>(1, b.decay_db.size() / 1500);
                QList<QPointF> pts;
                for (size_t i = 0; i < b.decay_db.size(); i += stride)
                    pts.append(
                        QPointF(analysis_->onset_s + static_cast<double>(i) / b.decay_rate_hz,
                                b.decay_db[i]));
                pts.append(QPointF(analysis_->onset_s +
                                       static_cast<double>(b.decay_db.size() - 1) / b.decay_rate_hz,
                                   b.decay_db.back()));
                series->replace(pts);
                lowest = std::min(lowest, static_cast<double>(b.decay_db.back()));
                chart->addSeries(series);
                series->attachAxis(x);
                series->attachAxis(y);
            }
        set_nice_ticks(y, std::max(-120.0, std::floor(lowest / 10) * 10), 5, 8);
    }
    drawReference();
    fillTable();
    emit pairSelected(QString::fromStdString(p.source), QString::fromStdString(p.receiver));
}

void ResultsPanel::drawWaveform() {
    if (!waveform_ || current_ < 0) return;
    const size_t columns = static_cast<size_t>(std::clamp(waveform_view_->width(), 400, 4096));
    waveform_->replace(envelope_points(data_.pairs[current_].ir, data_.sample_rate, columns));
    for (QAbstractSeries* s : waveform_view_->chart()->series())
        if (s != waveform_)
            if (const ResultPair* r = referencePair())
                static_cast<QLineSeries*>(s)->replace(
                    envelope_points(r->ir, reference_.sample_rate, columns));
}

bool ResultsPanel::eventFilter(QObject* watched, QEvent* event) {
    if (watched == waveform_view_ && event->type() == QEvent::Resize) drawWaveform();
    return QWidget::eventFilter(watched, event);
}

void ResultsPanel::fillTable() {
    table_->clear();
    if (!analysis_) {
        table_->setRowCount(0);
        table_->setColumnCount(0);
        export_->setEnabled(false);
        return;
    }
    const auto& bands = analysis_->results;
    const auto& params = parameters();
    table_->setRowCount(static_cast<int>(params.size()));
    table_->setColumnCount(static_cast<int>(bands.size()));
    QStringList headers, rows;
    // A full-band run's bands say which solver they came from (docs/full-band.md).
    for (const auto& b : bands) {
        QString h = band_name(b.nominal_hz);
        if (data_.crossover_hz > 0)
            h += QLatin1Char('\n') +
                 QString::fromLatin1(auralize::to_string(auralize::band_origin(
                                         b.lower_hz, b.upper_hz, data_.crossover_hz)))
                     .replace(QLatin1Char('+'), QStringLiteral(" +\n"));
        headers << h;
    }
    for (const auto& p : params)
        rows << tr(p.name);
    table_->setHorizontalHeaderLabels(headers);
    table_->setVerticalHeaderLabels(rows);
    for (size_t r = 0; r < params.size(); ++r)
        for (size_t c = 0; c < bands.size(); ++c) {
            const std::optional<double> v = params[r].value(bands[c]);
            QString text;
            auto* item = new QTableWidgetItem;
            if (v && std::isfinite(*v)) {
                text = QString::number(*v * params[r].scale, 'f', params[r].decimals);
                if (params[r].reliable && !params[r].reliable(bands[c])) {
                    text += QLatin1Char('*');
                    item->setToolTip(
                        tr("The band's peak stands less than the range ISO 3382-1 "
                           "asks for above its noise floor"));
                }
            }
            item->setText(text);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            table_->setItem(static_cast<int>(r), static_cast<int>(c), item);
        }
    // Every parameter in view (it showed two rows at 1600 x 1000) where the screen has the height
    // for it: the charts take what is left; on a low screen the table scrolls.
    const QScreen* screen = QGuiApplication::primaryScreen();
    const bool tall = !screen || screen->availableGeometry().height() >= 1000;
    table_->setMinimumHeight(tall ? all_rows_height(table_) : 0);
    describeCells();
    export_->setEnabled(true);
}

const auralize::Analysis* ResultsPanel::analysis() const {
    return analysis_ ? &*analysis_ : nullptr;
}

int ResultsPanel::waveformPointCount() const {
    return waveform_ ? static_cast<int>(waveform_->count()) : 0;
}

int ResultsPanel::spectrumPointCount() const {
    return spectrum_ ? static_cast<int>(spectrum_->count()) : 0;
}

QStringList ResultsPanel::decayBands() const {
    QStringList names;
    for (QAbstractSeries* s : decay_view_->chart()->series())
        names << s->name();
    return names;
}

bool ResultsPanel::export_csv(const QString& file, QString* error) const {
    auto fail = [&](const QString& why) {
        if (error) *error = QStringLiteral("cannot write '%1': %2").arg(file, why);
        return false;
    };
    if (!analysis_) return fail(tr("no analysed source/receiver pair is shown"));
    QString text;
    QTextStream s(&text);
    const auto& bands = analysis_->results;
    s << "parameter";
    for (const auto& b : bands)
        s << ',' << band_name(b.nominal_hz);
    s << '\n';
    auto number = [](const std::optional<double>& v, double scale) {
        return v && std::isfinite(*v) ? QString::number(*v * scale, 'g', 8) : QString();
    };
    for (const auto& p : parameters()) {
        s << p.name;
        for (const auto& b : bands)
            s << ',' << number(p.value(b), p.scale);
        s << '\n';
    }
    for (const auto& p : parameters()) {
        if (!p.reliable) continue;
        s << QString::fromLatin1(p.name).section(' ', 0, 0) << " reliable (1/0)";
        for (const auto& b : bands)
            s << ',' << (p.value(b) ? (p.reliable(b) ? "1" : "0") : "");
        s << '\n';
    }
    if (data_.crossover_hz > 0) {
        s << "from";
        for (const auto& b : bands)
            s << ','
              << auralize::to_string(
                     auralize::band_origin(b.lower_hz, b.upper_hz, data_.crossover_hz));
        s << '\n';
    }
    s.flush();
    // Through the one safe-output module: the dialog asked before replacing a regular file, and
    // nothing else (a FIFO, a device, a folder) is ever replaced.
    OutputRules rules;
    rules.replace = true;
    const QByteArray bytes = text.toUtf8();
    try {
        write_output_file(file.toStdString(), rules, [&](const std::filesystem::path& tmp) {
            std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
            out.write(bytes.constData(), bytes.size());
            out.flush();
            if (!out) throw_write_error(file.toStdString(), errno);
        });
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        return false;
    }
    return true;
}

void ResultsPanel::onExportClicked() {
    if (current_ < 0) return;
    const ResultPair& p = data_.pairs[current_];
    const QString suggested = QDir(resultsDir())
                                  .filePath(QString::fromStdString(file_name_part(p.source) + "_" +
                                                                   file_name_part(p.receiver)) +
                                            QStringLiteral("_iso3382.csv"));
    // The dialog asks before replacing an existing file.
    const QString file = QFileDialog::getSaveFileName(this, tr("Export ISO 3382-1 table"),
                                                      suggested, tr("CSV files (*.csv)"));
    if (file.isEmpty()) return;
    QString error;
    if (!export_csv(file, &error)) QMessageBox::warning(this, tr("Export CSV"), error);
}

void ResultsPanel::setNotice(const QString& text) {
    notice_->setText(text);
    notice_->setVisible(!text.isEmpty());
}

QString ResultsPanel::notice() const {
    return notice_->text();
}

}  // namespace ardent::editor
