#include "map_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QProgressBar>
#include <QSignalBlocker>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cmath>

#include "ardent/pipeline/grid_map_setup.h"

namespace ardent::editor {
namespace fs = std::filesystem;

namespace {

// Rows read per slice on the GUI thread: a few milliseconds of HDF5 at a time.
constexpr size_t kSliceRows = 64;

QString band_text(double hz) {
    return hz >= 1000 ? QStringLiteral("%1 kHz").arg(hz / 1000) : QStringLiteral("%1 Hz").arg(hz);
}

QString parameter_text(auralize::MapParameter m) {
    switch (m) {
        case auralize::MapParameter::T20:
            return QObject::tr("T20 (s)");
        case auralize::MapParameter::Edt:
            return QObject::tr("EDT (s)");
        case auralize::MapParameter::C80:
            return QObject::tr("C80 (dB)");
        case auralize::MapParameter::D50:
            return QObject::tr("D50");
        case auralize::MapParameter::G:
            return QObject::tr("G, strength (dB)");
    }
    return {};
}

}  // namespace

MapPanel::MapPanel(QWidget* parent) : QWidget(parent) {
    source_ = new QComboBox;
    parameter_ = new QComboBox;
    for (const auto m : auralize::kMapParameters)
        parameter_->addItem(parameter_text(m), static_cast<int>(m));
    band_ = new QComboBox;
    height_ = new QDoubleSpinBox;
    height_->setRange(-1000, 1000);
    height_->setDecimals(2);
    height_->setSingleStep(0.1);
    height_->setSuffix(" m");
    height_->setToolTip(tr("The grid's layer nearest this height is drawn"));
    show_ = new QCheckBox(tr("Show in the 3-D view"));
    progress_ = new QProgressBar;
    progress_->setTextVisible(true);
    progress_->hide();
    status_ = new QLabel;
    status_->setWordWrap(true);

    auto* form = new QFormLayout;
    form->addRow(tr("Source"), source_);
    form->addRow(tr("Parameter"), parameter_);
    form->addRow(tr("Octave band"), band_);
    form->addRow(tr("Height"), height_);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(show_);
    layout->addLayout(form);
    layout->addWidget(progress_);
    layout->addWidget(status_);
    layout->addStretch(1);

    connect(show_, &QCheckBox::toggled, this, [this] { start_or_show(); });
    connect(source_, &QComboBox::currentIndexChanged, this, [this] { start_or_show(); });
    for (QComboBox* c : {parameter_, band_})
        connect(c, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
    connect(height_, &QDoubleSpinBox::valueChanged, this, [this] { redraw(); });
    connect(&watcher_, &QFutureWatcher<void>::finished, this, &MapPanel::slice_done);
    set_grids({});
}

MapPanel::~MapPanel() {
    watcher_.waitForFinished();
}

void MapPanel::set_grids(const std::vector<fs::path>& grids) {
    watcher_.waitForFinished();
    grids_ = grids;
    sources_.clear();
    busy_.clear();
    plane_.reset();
    values_.clear();
    {
        const QSignalBlocker block(source_);
        source_->clear();
        for (const fs::path& g : grids)
            source_->addItem(QString::fromStdString(g.stem().string()),
                             QString::fromStdString(g.string()));
    }
    const bool any = !grids.empty();
    for (QWidget* w : {static_cast<QWidget*>(source_), static_cast<QWidget*>(parameter_),
                       static_cast<QWidget*>(band_), static_cast<QWidget*>(height_),
                       static_cast<QWidget*>(show_)})
        w->setEnabled(any);
    status_->setText(any ? tr("Switch the map on to analyse the listener grid.")
                         : tr("No listener grid in these results (or none open)."));
    progress_->hide();
    start_or_show();
}

void MapPanel::set_visible_in_view(bool on) {
    show_->setChecked(on);
}

void MapPanel::select(const QString& source, auralize::MapParameter parameter, double band_hz,
                      double height) {
    source_->setCurrentIndex(std::max(0, source_->findText(source)));
    parameter_->setCurrentIndex(parameter_->findData(static_cast<int>(parameter)));
    const int b = band_->findData(band_hz);
    if (b >= 0) band_->setCurrentIndex(b);
    height_->setValue(height);
    redraw();
}

MapPanel::SourceMaps* MapPanel::current() {
    const std::string key = source_->currentData().toString().toStdString();
    const auto it = sources_.find(key);
    return it == sources_.end() ? nullptr : &it->second;
}

const MapPanel::SourceMaps* MapPanel::current() const {
    return const_cast<MapPanel*>(this)->current();
}

bool MapPanel::analysing() const {
    return watcher_.isRunning();
}

const std::vector<auralize::Analysis>* MapPanel::analysis() const {
    const SourceMaps* s = current();
    return s && s->done ? &s->maps : nullptr;
}

const auralize::IrGrid* MapPanel::grid() const {
    const SourceMaps* s = current();
    return s ? s->grid.get() : nullptr;
}

QString MapPanel::status() const {
    return status_->text();
}

void MapPanel::start_or_show() {
    if (!show_->isChecked() || source_->currentIndex() < 0) {
        emit mapChanged({}, std::nullopt);
        return;
    }
    const std::string key = source_->currentData().toString().toStdString();
    if (!sources_.count(key)) {
        SourceMaps s;
        try {
            s.grid = std::make_unique<auralize::IrGrid>(key);
            std::optional<pipeline::GridProvenance> prov;
            try {
                prov = pipeline::grid_provenance(key, s.grid->source());
            } catch (const std::exception&) {
                // As `ardent analyze --map`: the grid is then analysed alone.
            }
            s.options = pipeline::grid_map_options(*s.grid, prov);
            if (prov) s.receiver_height = prov->receiver_height;
            s.maps.resize(s.grid->size());
        } catch (const std::exception& e) {
            s.error = QString::fromUtf8(e.what());
        }
        auto& added = sources_[key] = std::move(s);
        if (added.grid) {
            const QSignalBlocker block(height_);
            height_->setValue(added.receiver_height.value_or(added.grid->lower()[2] + 1.2));
        }
    }
    SourceMaps& s = sources_[key];
    if (!s.error.isEmpty()) {
        status_->setText(tr("Cannot map this grid: %1").arg(s.error));
        emit mapChanged({}, std::nullopt);
        return;
    }
    if (s.done) {
        fill_bands();
        redraw();
        return;
    }
    if (!watcher_.isRunning()) analyse_next_slice(key);
}

void MapPanel::analyse_next_slice(const std::string& key) {
    busy_ = key;
    SourceMaps* s = &sources_[key];
    if (s->done || !s->grid || !s->error.isEmpty()) return;
    const size_t n = s->grid->size(), first = s->next;
    const size_t count = std::min(kSliceRows, n - first);
    slice_rows_.resize(count);
    try {
        for (size_t i = 0; i < count; ++i)
            slice_rows_[i] = s->grid->ir(first + i);  // HDF5, on this (the GUI) thread
    } catch (const std::exception& e) {
        // A damaged grid file: say so and draw nothing (no exception may leave a slot).
        s->error = QString::fromUtf8(e.what());
        progress_->hide();
        status_->setText(tr("Cannot map this grid: %1").arg(s->error));
        emit mapChanged({}, std::nullopt);
        return;
    }
    status_->setText(tr("Analysing the listener grid of %1 (%2 points)…")
                         .arg(QString::fromStdString(s->grid->source()))
                         .arg(n));
    progress_->setRange(0, static_cast<int>(n));
    progress_->setValue(static_cast<int>(first));
    progress_->setFormat(tr("analysing %v of %m grid points"));
    progress_->show();
    const auralize::IrGrid* grid = s->grid.get();
    const auralize::GridAnalysisOptions* options = &s->options;
    std::vector<auralize::Analysis>* out = &s->maps;
    const std::vector<std::vector<float>>* rows = &slice_rows_;
    watcher_.setFuture(QtConcurrent::run([grid, options, out, rows, first] {
        // A point that cannot be analysed (silent) stays without values: grey.
        auralize::analyze_grid_rows(*grid, first, *rows, *options, *out);
    }));
    s->next = first + count;
}

void MapPanel::slice_done() {
    // Results replaced while the slice ran (set_grids waited for it): nothing to go on with.
    const auto it = sources_.find(busy_);
    if (it == sources_.end() || !it->second.grid) return;
    SourceMaps& s = it->second;
    if (s.next < s.grid->size()) {
        analyse_next_slice(busy_);
        return;
    }
    s.done = true;
    progress_->hide();
    // The source shown may have changed meanwhile: analyse it now, or draw it.
    if (current() && !current()->done) {
        start_or_show();
        return;
    }
    fill_bands();
    redraw();
}

void MapPanel::fill_bands() {
    const SourceMaps* s = current();
    const double keep = band_->currentData().toDouble();
    const QSignalBlocker block(band_);
    band_->clear();
    if (!s || !s->done) return;
    for (const auralize::Analysis& a : s->maps)
        if (!a.results.empty()) {
            for (const auto& b : a.results)
                band_->addItem(band_text(b.nominal_hz), b.nominal_hz);
            break;
        }
    const int at = band_->findData(keep > 0 ? keep : 1000.0);
    band_->setCurrentIndex(at >= 0 ? at : band_->count() / 2);
}

void MapPanel::redraw() {
    const SourceMaps* s = current();
    if (!show_->isChecked() || !s || !s->done || band_->count() == 0) {
        if (!show_->isChecked()) emit mapChanged({}, std::nullopt);
        return;
    }
    const auto parameter = static_cast<auralize::MapParameter>(parameter_->currentData().toInt());
    const double band_hz = band_->currentData().toDouble();
    const auralize::IrGrid& grid = *s->grid;
    plane_ = auralize::plane_nearest(grid, height_->value());
    values_.assign(grid.size(), std::nullopt);
    for (size_t i = 0; i < grid.size(); ++i)
        for (const auto& b : s->maps[i].results)
            if (b.nominal_hz == band_hz) values_[i] = auralize::value_of(b, parameter);
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    size_t with_value = 0;
    for (size_t i : plane_->points)
        if (values_[i] && std::isfinite(*values_[i])) {
            lo = std::min(lo, *values_[i]);
            hi = std::max(hi, *values_[i]);
            ++with_value;
        }
    std::vector<MapTile> tiles;
    for (size_t i : plane_->points) {
        QColor colour(128, 128, 128);
        if (values_[i] && std::isfinite(*values_[i])) {
            const auto c = auralize::map_colour(hi > lo ? (*values_[i] - lo) / (hi - lo) : 0.5);
            colour = QColor(c[0], c[1], c[2]);
        }
        const auto& p = grid.positions()[i];
        tiles.push_back({Vec3{p[0], p[1], p[2]}, grid.spacing(), colour});
    }
    const QString name = parameter_->currentText() + QStringLiteral(", ") + band_->currentText();
    if (with_value == 0) {
        status_->setText(tr("%1: no point of the layer at z = %2 m has a value.")
                             .arg(name)
                             .arg(plane_->z, 0, 'f', 2));
        emit mapChanged(std::move(tiles), std::nullopt);
        return;
    }
    status_->setText(tr("%1 at z = %2 m: %3 to %4 over %5 of %6 grid points (grey: none).")
                         .arg(name)
                         .arg(plane_->z, 0, 'f', 2)
                         .arg(lo, 0, 'g', 4)
                         .arg(hi, 0, 'g', 4)
                         .arg(with_value)
                         .arg(plane_->points.size()));
    emit mapChanged(std::move(tiles), MapKey{name, lo, hi});
}

}  // namespace ardent::editor
