#include "simulation_panel.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QMessageBox>
#include <QSignalBlocker>
#include <QVBoxLayout>
#include <cmath>

#include "ardent/preprocess/estimate.h"

namespace ardent::editor {
namespace fs = std::filesystem;

SimulationPanel::SimulationPanel(Project* project, QWidget* parent)
    : QWidget(parent), project_(project) {
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout();
    solver_ = new QComboBox(this);
    solver_->addItems({"ard", "fdtd"});
    solver_->setToolTip(
        tr("ARD: adaptive rectangular decomposition (2.6 points per wavelength); "
           "FDTD: 7-point finite differences (10 points per wavelength)"));
    device_ = new QComboBox(this);
    device_->addItems({"auto", "cpu", "cuda"});
    frequency_ = new QDoubleSpinBox(this);
    frequency_->setRange(20, 20000);
    frequency_->setDecimals(0);
    frequency_->setSuffix(" Hz");
    frequency_->setSingleStep(50);
    duration_ = new QDoubleSpinBox(this);
    duration_->setRange(0.01, 3600);
    duration_->setDecimals(2);
    duration_->setSuffix(" s");
    duration_->setSingleStep(0.1);
    grid_ = new QSpinBox(this);
    grid_->setRange(0, 1024);
    grid_->setSpecialValueText(tr("off"));
    grid_->setToolTip(
        tr("Record an impulse response every N cells (the listener grid that the "
           "audition panel moves across); off: receivers only"));
    form->addRow(tr("Solver"), solver_);
    form->addRow(tr("Device"), device_);
    form->addRow(tr("Max frequency"), frequency_);
    form->addRow(tr("Duration"), duration_);
    form->addRow(tr("Listener grid every"), grid_);
    layout->addLayout(form);

    estimate_label_ = new QLabel(this);
    estimate_label_->setWordWrap(true);
    estimate_label_->setTextFormat(Qt::RichText);
    warning_ = new QLabel(this);
    warning_->setWordWrap(true);
    warning_->setStyleSheet("color: #c62828;");
    layout->addWidget(estimate_label_);
    layout->addWidget(warning_);

    auto* buttons = new QHBoxLayout();
    run_ = new QPushButton(tr("Run"), this);
    run_->setShortcut(QKeySequence(tr("Ctrl+R")));
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setEnabled(false);
    live_ = new QCheckBox(tr("Live slice"), this);
    live_->setChecked(true);
    buttons->addWidget(run_);
    buttons->addWidget(cancel_);
    buttons->addWidget(live_);
    layout->addLayout(buttons);
    progress_ = new QProgressBar(this);
    progress_->setRange(0, 1000);
    progress_->setValue(0);
    progress_->setTextVisible(false);
    eta_ = new QLabel(this);
    eta_->setWordWrap(true);
    layout->addWidget(progress_);
    layout->addWidget(eta_);
    slice_ = new QLabel(this);
    slice_->setMinimumSize(200, 150);
    slice_->setAlignment(Qt::AlignCenter);
    slice_->setStyleSheet("background: #2a2b2e;");
    slice_caption_ = new QLabel(this);
    slice_caption_->setAlignment(Qt::AlignCenter);
    layout->addWidget(slice_, 1);
    layout->addWidget(slice_caption_);

    for (QComboBox* c : {solver_, device_})
        connect(c, &QComboBox::currentTextChanged, this, &SimulationPanel::settings_edited);
    for (QDoubleSpinBox* b : {frequency_, duration_})
        connect(b, &QDoubleSpinBox::editingFinished, this, &SimulationPanel::settings_edited);
    connect(grid_, &QSpinBox::editingFinished, this, &SimulationPanel::settings_edited);
    connect(run_, &QPushButton::clicked, this, &SimulationPanel::run_clicked);
    connect(cancel_, &QPushButton::clicked, this, &SimulationPanel::cancel);
    connect(live_, &QCheckBox::toggled, this, [this](bool on) { runner_.set_live_slices(on); });
    connect(project_, &Project::sceneChanged, this, &SimulationPanel::load_from_scene);
    connect(&estimator_, &SceneEstimator::estimated, this, &SimulationPanel::show_estimate);

    connect(&runner_, &SimulationRunner::stage, this,
            [this](const QString& t) { eta_->setText(t); });
    connect(&runner_, &SimulationRunner::progress, this,
            [this](double f, double eta, const QString& text) {
                progress_->setValue(static_cast<int>(std::lround(1000 * f)));
                eta_->setText(
                    eta >= 0 ? tr("%1 — about %2 left").arg(text, to_qstring(describe_seconds(eta)))
                             : text);
            });
    connect(&runner_, &SimulationRunner::slice, this, [this](const QImage& img, const QString& c) {
        slice_->setPixmap(QPixmap::fromImage(img).scaled(slice_->size(), Qt::KeepAspectRatio,
                                                         Qt::FastTransformation));
        slice_caption_->setText(c);
    });
    connect(&runner_, &SimulationRunner::finished, this, [this](const QString& dir, double s) {
        set_running(false);
        progress_->setValue(1000);
        eta_->setText(tr("Done in %1: %2").arg(to_qstring(describe_seconds(s)), dir));
        emit resultsReady(dir);
    });
    connect(&runner_, &SimulationRunner::failed, this, [this](const QString& m) {
        set_running(false);
        eta_->setText(tr("Failed."));
        emit errorMessage(tr("Simulation failed"), m);
    });
    connect(&runner_, &SimulationRunner::cancelled, this, [this](const QString& m) {
        set_running(false);
        progress_->setValue(0);
        eta_->setText(tr("Cancelled: %1").arg(m));
    });
    setEnabled(false);
}

void SimulationPanel::load_from_scene() {
    setEnabled(project_->has_scene());
    const Scene& s = project_->scene();
    updating_ = true;
    {
        const QSignalBlocker b1(solver_), b2(device_), b3(frequency_), b4(duration_), b5(grid_);
        solver_->setCurrentText(to_qstring(s.simulation.solver));
        device_->setCurrentText(to_qstring(s.simulation.device));
        frequency_->setValue(s.simulation.max_frequency);
        duration_->setValue(s.simulation.duration);
        grid_->setValue(s.listener_grid_cells());
    }
    updating_ = false;
    if (project_->has_scene()) {
        estimate_label_->setText(tr("<i>Estimating…</i>"));
        estimator_.request(s);
    }
}

void SimulationPanel::settings_edited() {
    if (updating_ || !project_->has_scene()) return;
    SimulationSettings st = project_->scene().simulation;
    st.solver = to_std(solver_->currentText());
    st.device = to_std(device_->currentText());
    st.max_frequency = frequency_->value();
    st.duration = duration_->value();
    const int every = grid_->value();
    if (st.solver == project_->scene().simulation.solver &&
        st.device == project_->scene().simulation.device &&
        st.max_frequency == project_->scene().simulation.max_frequency &&
        st.duration == project_->scene().simulation.duration &&
        every == project_->scene().listener_grid_cells())
        return;
    project_->set_simulation(st, every);
}

void SimulationPanel::show_estimate(const SceneEstimate& e) {
    estimate_ = e;
    if (!e.ok) {
        estimate_label_->setText(
            tr("<b>Cannot simulate yet:</b> %1").arg(to_qstring(e.error).toHtmlEscaped()));
        warning_->clear();
        return;
    }
    estimate_label_->setText(
        tr("Grid %1 m: %2 air cells of %3, %4 partitions%5.<br>Memory %6, solve time about %7 "
           "on %8 (estimates).")
            .arg(e.cell_size, 0, 'f', 4)
            .arg(e.air_cells)
            .arg(e.grid_cells)
            .arg(e.partitions)
            .arg(e.listener_points ? tr(", %1 listener-grid points").arg(e.listener_points)
                                   : QString())
            .arg(to_qstring(format_bytes(e.memory_bytes)))
            .arg(to_qstring(describe_seconds(e.seconds)))
            .arg(e.device == "cuda" ? tr("the GPU") : tr("the CPU")));
    warning_->setText(e.warning.empty() ? QString()
                                        : tr("Will not run: %1").arg(to_qstring(e.warning)));
    emit overlayReady(e.partition_boxes);
}

fs::path SimulationPanel::default_output() const {
    fs::path f = project_->file();
    if (f.empty()) return {};
    return f.parent_path() / (f.stem().string() + ".ardent");
}

bool SimulationPanel::run(const fs::path& output, bool force, QString* why) {
    if (runner_.running()) {
        if (why) *why = tr("A simulation is running already.");
        return false;
    }
    pipeline::SimulateSettings st;
    st.output = output;
    st.force = force;
    runner_.set_live_slices(live_->isChecked());
    runner_.start(project_->scene(), st);
    set_running(true);
    progress_->setValue(0);
    slice_->clear();
    slice_caption_->clear();
    return true;
}

void SimulationPanel::run_clicked() {
    if (project_->file().empty() || project_->modified()) {
        emit saveRequested();  // the main window saves (asking for a name) and calls back
        if (project_->file().empty() || project_->modified()) return;
    }
    const fs::path out = default_output();
    bool force = false;
    if (fs::exists(out)) {
        const auto answer = QMessageBox::question(
            this, tr("Replace results?"),
            tr("%1 exists. Replace it with the new results once they are complete?")
                .arg(to_qstring(out.string())));
        if (answer != QMessageBox::Yes) return;
        force = true;
    }
    QString why;
    if (!run(out, force, &why)) emit message(why);
}

void SimulationPanel::cancel() {
    runner_.cancel();
    eta_->setText(tr("Cancelling…"));
}

void SimulationPanel::set_running(bool on) {
    run_->setEnabled(!on);
    cancel_->setEnabled(on);
    for (QWidget* w :
         std::initializer_list<QWidget*>{solver_, device_, frequency_, duration_, grid_})
        w->setEnabled(!on);
}

}  // namespace ardent::editor
