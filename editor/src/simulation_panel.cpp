#include "simulation_panel.h"

#include <QDateTime>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QMessageBox>
#include <QSignalBlocker>
#include <QStandardPaths>
#include <QVBoxLayout>
#include <cmath>

#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/estimate.h"
#include "ardent/preprocess/scene_writer.h"
#include "material_library.h"

namespace ardent::editor {
namespace fs = std::filesystem;

namespace {

// Whether `file` lies in the bundled data folder: an example scene (the repository's or the
// installation's copy), which a run must neither save over nor fill with results.
bool is_bundled(const fs::path& file) {
    std::error_code ec;
    const fs::path data = fs::weakly_canonical(data_dir(), ec);
    if (ec) return false;
    const fs::path rel = fs::weakly_canonical(file, ec).lexically_relative(data);
    return !ec && !rel.empty() && *rel.begin() != "..";
}

// `<dir>/<stem>-<yyyyMMdd-HHmmss>` (then -2, -3, ... within one second) with neither a `.json`
// nor an `.ardent` of that name present: a new run's name beside the earlier ones.
fs::path run_name(const fs::path& dir, const std::string& stem) {
    const std::string t = to_std(QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss"));
    for (int n = 1;; ++n) {
        const fs::path base = dir / (stem + "-" + t + (n > 1 ? "-" + std::to_string(n) : ""));
        std::error_code ec;
        if (!fs::exists(base.string() + ".json", ec) && !fs::exists(base.string() + ".ardent", ec))
            return base;
    }
}

}  // namespace

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
    grid_ = new QDoubleSpinBox(this);
    grid_->setRange(0, 1000);
    grid_->setDecimals(2);
    grid_->setSingleStep(0.25);
    grid_->setSuffix(" m");
    grid_->setSpecialValueText(tr("off"));
    grid_->setToolTip(
        tr("Metres between the listener grid's points (the grid that the audition panel moves "
           "across and maps are drawn on), rounded to whole simulation cells; off: receivers "
           "only. A scene that gives its grid in cells keeps it so until this is edited."));
    form->addRow(tr("Solver"), solver_);
    form->addRow(tr("Device"), device_);
    form->addRow(tr("Max frequency"), frequency_);
    form->addRow(tr("Duration"), duration_);
    form->addRow(tr("Listener grid spacing"), grid_);
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
    run_warnings_ = new QLabel(this);
    run_warnings_->setWordWrap(true);
    run_warnings_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    run_warnings_->setStyleSheet("color: #b26a00;");
    layout->addWidget(progress_);
    layout->addWidget(eta_);
    layout->addWidget(run_warnings_);
    slice_ = new QLabel(this);
    slice_->setMinimumSize(200, 150);
    slice_->setAlignment(Qt::AlignCenter);
    slice_->setStyleSheet("background: #2a2b2e; color: #9a9ca3;");
    slice_->setWordWrap(true);
    // Until a run starts the square is empty: say what will appear there.
    slice_->setText(
        tr("The pressure in the source's plane appears here while a run goes (Live "
           "slice)."));
    slice_caption_ = new QLabel(this);
    slice_caption_->setAlignment(Qt::AlignCenter);
    layout->addWidget(slice_, 1);
    layout->addWidget(slice_caption_);

    for (QComboBox* c : {solver_, device_})
        connect(c, &QComboBox::currentTextChanged, this, &SimulationPanel::settings_edited);
    for (QDoubleSpinBox* b : {frequency_, duration_, grid_})
        connect(b, &QDoubleSpinBox::editingFinished, this, &SimulationPanel::settings_edited);
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
    connect(&runner_, &SimulationRunner::warning, this, [this](const QString& w) {
        const QString shown = run_warnings_->text();
        run_warnings_->setText(shown.isEmpty() ? w : shown + "\n" + w);
        emit message(tr("Warning: %1").arg(w));
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
        // The spacing the grid has: as given in metres, or its cells times the cell size.
        grid_->setValue(s.listener_grid_spacing_m > 0
                            ? s.listener_grid_spacing_m
                            : s.listener_grid_cells() * s.simulation.cell_size());
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
    const Scene& scene = project_->scene();
    const double spacing = grid_->value();
    const double shown = scene.listener_grid_spacing_m > 0
                             ? scene.listener_grid_spacing_m
                             : scene.listener_grid_cells() * scene.simulation.cell_size();
    // The field shows two decimals: a value it rounded is not an edit.
    const bool grid_same = std::abs(spacing - shown) < 0.005;
    if (st.solver == scene.simulation.solver && st.device == scene.simulation.device &&
        st.max_frequency == scene.simulation.max_frequency &&
        st.duration == scene.simulation.duration && grid_same)
        return;
    if (grid_same)  // the grid stays as the scene gives it, in cells or metres
        project_->set_simulation(st, scene.listener_grid_cells());
    else
        project_->set_simulation_spacing(st, spacing);
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
    return start(project_->scene(), output, force, why);
}

bool SimulationPanel::start(const Scene& scene, const fs::path& output, bool force, QString* why) {
    if (runner_.running()) {
        if (why) *why = tr("A simulation is running already.");
        return false;
    }
    pipeline::SimulateSettings st;
    st.output = output;
    st.force = force;
    runner_.set_live_slices(live_->isChecked());
    runner_.start(scene, st);
    set_running(true);
    progress_->setValue(0);
    run_warnings_->clear();
    slice_->clear();
    slice_caption_->clear();
    return true;
}

fs::path SimulationPanel::runs_dir() const {
    if (!runs_dir_.empty()) return runs_dir_;
    return fs::path(to_std(QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation))) /
           "Ardent";
}

std::optional<SimulationPanel::RunTarget> SimulationPanel::choose_run_target() {
    const fs::path file = project_->file();
    const bool bundled = is_bundled(file);
    const fs::path dir = bundled ? runs_dir() : file.parent_path();
    const std::string stem = file.stem().string();
    fs::path output = dir / (stem + ".ardent");
    fs::path scene_copy;
    if (project_->modified()) {
        // Saving over the scene is the user's call; a copy keeps the file as it is and the run
        // reproducible from what it ran.
        const fs::path copy = run_name(dir, stem).string() + ".json";
        const QString name = to_qstring(file.filename().string());
        QMessageBox box(QMessageBox::Question, tr("Unsaved changes"),
                        bundled ? tr("%1 is a bundled example, which the editor does not change. "
                                     "Run the scene as it is now from a copy, %2?")
                                      .arg(name, to_qstring(copy.string()))
                                : tr("%1 has changes that are not saved. Save them over %1 and "
                                     "run, or run the scene as it is now from a copy, %2, and "
                                     "leave %1 as it is?")
                                      .arg(name, to_qstring(copy.string())),
                        QMessageBox::NoButton, this);
        QPushButton* save =
            bundled ? nullptr : box.addButton(tr("Save and run"), QMessageBox::AcceptRole);
        QPushButton* run_copy = box.addButton(tr("Run a copy"), QMessageBox::ActionRole);
        box.addButton(QMessageBox::Cancel);
        box.setDefaultButton(run_copy);
        box.exec();
        if (save && box.clickedButton() == save) {
            emit saveRequested();
            if (project_->modified()) return std::nullopt;  // not saved: its dialog said why
        } else if (box.clickedButton() == run_copy) {
            try {
                fs::create_directories(dir);
                OutputRules rules;
                rules.replace = true;  // the copy beside the run's results is the editor's own
                save_scene(project_->scene(), copy, rules);
            } catch (const std::exception& e) {
                emit errorMessage(tr("Cannot write the copy"),
                                  tr("error: %1").arg(QString::fromUtf8(e.what())));
                return std::nullopt;
            }
            emit message(tr("Saved the scene as run to %1.").arg(to_qstring(copy.string())));
            output = fs::path(copy).replace_extension(".ardent");
            scene_copy = copy;
        } else {
            return std::nullopt;
        }
    }
    std::error_code ec;
    if (bundled) fs::create_directories(dir, ec);  // the run says so if this failed
    if (!fs::exists(output, ec)) return RunTarget{output, false, scene_copy};
    // Earlier results stay unless the user replaces them: the new run goes beside them.
    QMessageBox box(QMessageBox::Question, tr("Results exist"),
                    tr("%1 holds the results of an earlier run. Keep them and write the new "
                       "results beside them, or replace them once the new ones are complete?")
                        .arg(to_qstring(output.string())),
                    QMessageBox::NoButton, this);
    QPushButton* keep = box.addButton(tr("Keep both"), QMessageBox::AcceptRole);
    QPushButton* replace = box.addButton(tr("Replace"), QMessageBox::DestructiveRole);
    box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(keep);
    box.exec();
    if (box.clickedButton() == keep)
        return RunTarget{
            run_name(output.parent_path(), output.stem().string()).string() + ".ardent", false,
            scene_copy};
    if (box.clickedButton() == replace) return RunTarget{output, true, scene_copy};
    return std::nullopt;
}

void SimulationPanel::run_clicked() {
    if (!project_->has_scene() || runner_.running()) return;
    if (project_->scene().sources.empty()) {
        emit errorMessage(tr("Cannot run yet"),
                          tr("The scene has no source: place one with Add source (Sources and "
                             "receivers) first."));
        return;
    }
    if (project_->file().empty()) {
        emit saveRequested();  // a new project: the main window asks for a name (Save as)
        if (project_->file().empty() || project_->modified()) return;
    }
    const auto target = choose_run_target();
    if (!target) return;
    // A run of a copy records the copy as its scene (result.json), which is what it ran.
    Scene scene = project_->scene();
    if (!target->scene_copy.empty()) scene.file = target->scene_copy;
    QString why;
    if (!start(scene, target->output, target->force, &why)) {
        emit message(why);
        return;
    }
    last_output_ = target->output;
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
