#include "main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDesktopServices>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
#include <QUrl>
#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "ardent/editor/audition_panel.h"
#include "ardent/editor/results_panel.h"
#include "ardent/pipeline/simulate_output.h"
#include "ardent/preprocess/errors.h"
#include "emitters_panel.h"
#include "map_panel.h"
#include "materials_panel.h"
#include "scene_view.h"
#include "simulation_panel.h"

namespace ardent::editor {
namespace fs = std::filesystem;

namespace {
constexpr int kMaxRecent = 8;
const char* kModelFilter =
    "Models (*.obj *.fbx *.gltf *.glb *.dae *.ply *.stl *.3ds *.ac *.blend *.x3d *.dxf);;All files "
    "(*)";
}  // namespace

QString cli_message(const std::exception& e) {
    if (dynamic_cast<const ResourceError*>(&e))
        return QString("not enough resources: %1").arg(QString::fromUtf8(e.what()));
    if (dynamic_cast<const InputError*>(&e))
        return QString("error: %1").arg(QString::fromUtf8(e.what()));
    return QString("internal error: %1").arg(QString::fromUtf8(e.what()));
}

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    try {
        library_ = load_material_library(data_dir() / "materials" / "library.json");
    } catch (const InputError& e) {
        // The editor still works with the scene's own materials.
        last_error_ = cli_message(e);
    }
    view_ = new SceneView(&project_, this);
    setCentralWidget(view_);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);

    materials_ = new MaterialsPanel(&project_, &library_, this);
    emitters_ = new EmittersPanel(&project_, this);
    simulation_ = new SimulationPanel(&project_, this);
    results_ = new ResultsPanel(this);
    audition_ = new AuditionPanel(this);
    map_ = new MapPanel(this);

    auto dock = [this](QWidget* w, const QString& title, Qt::DockWidgetArea area) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(title);
        d->setWidget(w);
        addDockWidget(area, d);
        return d;
    };
    // The side columns run the window's full height (their tables show every row), the results
    // sit under the 3-D view between them, and the audition under the simulation settings.
    setCorner(Qt::TopLeftCorner, Qt::LeftDockWidgetArea);
    setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    setCorner(Qt::TopRightCorner, Qt::RightDockWidgetArea);
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    QDockWidget* mat = dock(materials_, tr("Materials"), Qt::LeftDockWidgetArea);
    QDockWidget* em = dock(emitters_, tr("Sources and receivers"), Qt::LeftDockWidgetArea);
    QDockWidget* sim = dock(simulation_, tr("Simulation"), Qt::RightDockWidgetArea);
    QDockWidget* res = dock(results_, tr("Results"), Qt::BottomDockWidgetArea);
    QDockWidget* aud = dock(audition_, tr("Audition"), Qt::RightDockWidgetArea);
    splitDockWidget(sim, aud, Qt::Vertical);
    QDockWidget* maps = dock(map_, tr("Room map"), Qt::RightDockWidgetArea);
    tabifyDockWidget(aud, maps);
    aud->raise();
    docks_ = {mat, em, sim, res, aud};

    status_ = new QLabel(this);
    statusBar()->addWidget(status_, 1);

    // View <-> panels.
    connect(view_, &SceneView::groupPicked, materials_, &MaterialsPanel::select_group);
    connect(materials_, &MaterialsPanel::groupSelected, view_, &SceneView::set_selected_group);
    connect(view_, &SceneView::emitterSelected, emitters_, &EmittersPanel::select);
    connect(emitters_, &EmittersPanel::emitterSelected, view_,
            [this](EmitterRef e) { view_->set_selected_emitter(e); });
    connect(emitters_, &EmittersPanel::placeRequested, this, [this](EmitterKind k) {
        view_->set_mode(k == EmitterKind::Source ? SceneView::Mode::AddSource
                                                 : SceneView::Mode::AddReceiver);
        status_->setText(tr("Click a surface in the 3-D view to place the %1 %2 m above it (Esc "
                            "cancels).")
                             .arg(k == EmitterKind::Source ? tr("source") : tr("receiver"))
                             .arg(view_->placement_height()));
        view_->setFocus();
    });
    connect(view_, &SceneView::modeReset, this, [this] { status_->clear(); });
    connect(emitters_, &EmittersPanel::heightChanged, view_, &SceneView::set_placement_height);
    connect(view_, &SceneView::statusText, status_, &QLabel::setText);
    connect(materials_, &MaterialsPanel::message, status_, &QLabel::setText);
    connect(emitters_, &EmittersPanel::message, this,
            [this](const QString& m) { show_error(tr("Cannot change that"), m); });
    // The green listener marker walks the listener grid: the audition panel cross-fades to the
    // nearest grid point's IR while it is dragged.
    connect(view_, &SceneView::listenerMoved, this,
            [this](Vec3 p) { audition_->setListenerPosition(p.x, p.y, p.z); });

    connect(map_, &MapPanel::mapChanged, view_, &SceneView::set_map);
    connect(simulation_, &SimulationPanel::overlayReady, view_, &SceneView::set_overlay);
    connect(simulation_, &SimulationPanel::saveRequested, this, [this] { save(); });
    connect(simulation_, &SimulationPanel::message, status_, &QLabel::setText);
    connect(simulation_, &SimulationPanel::errorMessage, this, &MainWindow::show_error);
    connect(simulation_, &SimulationPanel::resultsReady, this,
            // Of the scene just run (a saved copy of it, when it was modified or bundled).
            [this](const QString& dir) { open_results(dir, false); });

    connect(&project_, &Project::fileChanged, this, &MainWindow::update_title);
    connect(project_.undo_stack(), &QUndoStack::cleanChanged, this, &MainWindow::update_title);

    build_menus();
    update_title();
    fit_to_screen();
    if (!last_error_.isEmpty()) status_->setText(last_error_);
}

void MainWindow::fit_to_screen() {
    // The screen's work area up to 1920 x 1080, and the docks in proportion: about a quarter of
    // the width for each side column, two fifths of the height for the results.
    QSize size(1500, 950);
    if (const QScreen* s = QGuiApplication::primaryScreen()) {
        const QRect area = s->availableGeometry();
        size = QSize(std::min(area.width(), 1920), std::min(area.height(), 1080));
        move(area.topLeft());
    }
    resize(size);
    const int side = std::clamp(size.width() * 27 / 100, 300, 520);
    resizeDocks({docks_[0], docks_[2]}, {side, side * 9 / 10}, Qt::Horizontal);
    resizeDocks({docks_[3]}, {size.height() * 42 / 100}, Qt::Vertical);
}

MainWindow::~MainWindow() = default;

void MainWindow::build_menus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open scene or model…"), QKeySequence::Open, this,
                    &MainWindow::open_dialog);
    file->addAction(tr("&Import model…"), QKeySequence(tr("Ctrl+I")), this,
                    &MainWindow::import_dialog);
    recent_menu_ = file->addMenu(tr("Open &recent"));
    update_recent_menu();
    file->addSeparator();
    file->addAction(tr("&Save"), QKeySequence::Save, this, &MainWindow::save);
    file->addAction(tr("Save &as…"), QKeySequence::SaveAs, this, &MainWindow::save_as);
    file->addSeparator();
    file->addAction(tr("Open r&esults…"), QKeySequence(tr("Ctrl+Shift+O")), this,
                    &MainWindow::open_results_dialog);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = project_.undo_stack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = project_.undo_stack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    edit->addAction(tr("Remove selected source/receiver"), QKeySequence::Delete, this, [this] {
        if (const auto e = emitters_->selected()) project_.remove_emitter(e->kind, e->index);
    });

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(tr("&Fit to model"), QKeySequence(tr("F")), view_, &SceneView::fit);
    QAction* overlay = view->addAction(tr("Show &partitions (voxel grid)"));
    overlay->setCheckable(true);
    overlay->setShortcut(QKeySequence(tr("Ctrl+G")));
    connect(overlay, &QAction::toggled, view_, &SceneView::set_overlay_visible);
    QAction* cull = view->addAction(tr("See through &near walls"));
    cull->setCheckable(true);
    cull->setChecked(true);
    connect(cull, &QAction::toggled, view_, &SceneView::set_cull_near_walls);
    QAction* notes = view->addAction(tr("&Legend, scale and axes"));
    notes->setCheckable(true);
    notes->setChecked(true);
    connect(notes, &QAction::toggled, view_, &SceneView::set_annotations_visible);

    QMenu* sim = menuBar()->addMenu(tr("&Simulate"));
    sim->addAction(tr("&Run"), QKeySequence(tr("Ctrl+R")), simulation_,
                   &SimulationPanel::run_clicked);
    sim->addAction(tr("&Cancel"), QKeySequence(tr("Ctrl+.")), simulation_,
                   &SimulationPanel::cancel);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Editor guide"), QKeySequence::HelpContents, this,
                    [this] { open_doc("editor.md"); });
    help->addAction(tr("&Scene file reference"), this, [this] { open_doc("scene-format.md"); });
    help->addAction(tr("&Materials and walls"), this, [this] { open_doc("materials.md"); });
    help->addAction(tr("&Reading the results (ISO 3382-1)"), this,
                    [this] { open_doc("analysis.md"); });
    help->addAction(tr("&Full band and its limits"), this, [this] { open_doc("full-band.md"); });
    help->addSeparator();
    help->addAction(tr("&About Ardent"), this, [this] {
        QMessageBox::about(
            this, tr("About Ardent"),
            tr("<b>Ardent %1</b><br>Room-acoustics simulation and auralization: a wave solver "
               "(ARD or FDTD) below a crossover, geometric acoustics above it.<br>The same "
               "libraries as the <tt>ardent</tt> command line; documentation in %2.")
                .arg(QApplication::applicationVersion(), to_qstring(docs_dir().string())));
    });

    QToolBar* tb = addToolBar(tr("Main"));
    tb->setObjectName("main toolbar");
    tb->addAction(undo);
    tb->addAction(redo);
    tb->addSeparator();
    tb->addAction(overlay);
    tb->addAction(tr("Fit"), view_, &SceneView::fit);
}

std::filesystem::path MainWindow::docs_dir() const {
    // The docs beside the data directory: the source tree's, or the installed share/ardent's.
    return data_dir().parent_path() / "docs";
}

void MainWindow::open_doc(const QString& page) {
    const fs::path file = docs_dir() / to_std(page);
    if (!fs::exists(file)) {
        show_error(tr("No documentation"),
                   tr("'%1' was not found; the documentation is in the docs/ folder of Ardent's "
                      "source.")
                       .arg(to_qstring(file.string())));
        return;
    }
    last_doc_ = to_qstring(file.string());
    if (!QDesktopServices::openUrl(QUrl::fromLocalFile(last_doc_)))
        status_->setText(tr("Open %1 in a viewer for Markdown.").arg(last_doc_));
}

QStringList MainWindow::recent_files() const {
    return QSettings().value("recent").toStringList();
}

void MainWindow::add_recent(const QString& path) {
    QStringList list = recent_files();
    const QString abs = QFileInfo(path).absoluteFilePath();
    list.removeAll(abs);
    list.prepend(abs);
    while (list.size() > kMaxRecent)
        list.removeLast();
    QSettings().setValue("recent", list);
    update_recent_menu();
}

void MainWindow::update_recent_menu() {
    recent_menu_->clear();
    for (const QString& f : recent_files())
        recent_menu_->addAction(f, this, [this, f] {
            if (maybe_save()) open_path(f);
        });
    recent_menu_->setEnabled(!recent_menu_->isEmpty());
}

void MainWindow::update_title() {
    QString name =
        project_.has_scene()
            ? (project_.file().empty() ? tr("untitled (%1)").arg(to_qstring(project_.scene().name))
                                       : to_qstring(project_.file().filename().string()))
            : tr("no scene");
    setWindowTitle(QString("%1%2 — Ardent").arg(name, project_.modified() ? " *" : ""));
}

void MainWindow::show_error(const QString& title, const QString& text) {
    last_error_ = text;
    auto* box = new QMessageBox(QMessageBox::Critical, title, text, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();  // window-modal, never blocks the event loop
}

bool MainWindow::open_path(const QString& path) {
    const fs::path p = to_std(path);
    try {
        if (p.extension() == ".json")
            project_.open_scene(p);
        else
            project_.import_model(p);
    } catch (const std::exception& e) {
        show_error(tr("Cannot open %1").arg(QFileInfo(path).fileName()), cli_message(e));
        return false;
    }
    add_recent(path);
    results_->clear();
    map_->set_grids({});
    const size_t unassigned = project_.unassigned_groups().size();
    status_->setText(
        unassigned ? tr("%1 surface groups need a material (Materials panel).").arg(unassigned)
                   : tr("Opened %1.").arg(path));
    return true;
}

bool MainWindow::save_to(const QString& path) {
    try {
        project_.save(to_std(path));
    } catch (const std::exception& e) {
        show_error(tr("Cannot save"), cli_message(e));
        return false;
    }
    add_recent(path);
    status_->setText(tr("Saved %1.").arg(path));
    update_title();
    return true;
}

QString MainWindow::other_scene_notice(const QString& dir) const {
    if (!project_.has_scene()) return {};
    std::string hash, file;
    try {
        std::ifstream in(std::filesystem::path(dir.toStdString()) / "result.json");
        const auto j = nlohmann::json::parse(in);
        hash = j.at("scene").value("hash", "");
        file = j.at("scene").value("file", "");
    } catch (const std::exception&) {
        return {};  // load() read it; a result.json without its scene says nothing either way
    }
    const std::string mine = pipeline::scene_hash(project_.scene());
    if (hash.empty() || hash == mine) return {};
    return tr("These results are not of the scene shown: they were computed for %1 (scene hash "
              "%2; the scene in the editor, with its settings, has %3). Their pairs, maps and "
              "audition are of that run.")
        .arg(file.empty() ? tr("another scene") : QString::fromStdString(file),
             QString::fromStdString(hash), QString::fromStdString(mine));
}

bool MainWindow::open_results(const QString& dir, bool check_scene) {
    QString error;
    if (!results_->load(dir, &error)) {
        show_error(tr("Cannot open the results"), error);
        return false;
    }
    results_->setNotice(check_scene ? other_scene_notice(dir) : QString());
    if (!results_->notice().isEmpty()) status_->setText(results_->notice());
    audition_->setResults(dir);
    map_->set_grids(audition_->engine().results().grids);
    // Put the listener marker on the first receiver (or the grid's first point) when the results
    // have a listener grid to move across.
    view_->set_listener(std::nullopt);
    const auto& engine = audition_->engine();
    if (!engine.grid_sources().empty()) {
        if (!project_.scene().receivers.empty()) {
            view_->set_listener(project_.scene().receivers.front().position);
        } else if (const auto* g = engine.grid(engine.grid_sources().front()); g && g->size() > 0) {
            const auto& q = g->positions().front();
            view_->set_listener(Vec3{q[0], q[1], q[2]});
        }
    }
    return true;
}

void MainWindow::open_dialog() {
    if (!maybe_save()) return;
    const QString f = QFileDialog::getOpenFileName(
        this, tr("Open scene or model"), QString(),
        tr("Scenes and models (*.json *.obj *.fbx *.gltf *.glb *.dae *.ply *.stl *.3ds *.ac);;All "
           "files (*)"));
    if (!f.isEmpty()) open_path(f);
}

void MainWindow::import_dialog() {
    if (!maybe_save()) return;
    const QString f =
        QFileDialog::getOpenFileName(this, tr("Import model"), QString(), kModelFilter);
    if (!f.isEmpty()) open_path(f);
}

bool MainWindow::save() {
    if (!project_.has_scene()) return false;
    if (project_.file().empty()) return save_as();
    return save_to(to_qstring(project_.file().string()));
}

bool MainWindow::save_as() {
    if (!project_.has_scene()) return false;
    QString start = to_qstring(project_.file().string());
    if (start.isEmpty() && !project_.scene().geometry.mesh.empty()) {
        const fs::path m = project_.scene().geometry.mesh;
        start = to_qstring((m.parent_path() / (m.stem().string() + ".json")).string());
    }
    // QFileDialog asks before replacing an existing file.
    const QString f =
        QFileDialog::getSaveFileName(this, tr("Save scene"), start, tr("Scenes (*.json)"));
    if (f.isEmpty()) return false;
    return save_to(f.endsWith(".json") ? f : f + ".json");
}

void MainWindow::open_results_dialog() {
    const QString d = QFileDialog::getExistingDirectory(this, tr("Open results directory"));
    if (!d.isEmpty()) open_results(d);
}

bool MainWindow::maybe_save() {
    if (!project_.has_scene() || !project_.modified()) return true;
    const auto answer = QMessageBox::question(
        this, tr("Unsaved changes"), tr("Save the changes to the scene first?"),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    if (answer == QMessageBox::Save) return save();
    return answer == QMessageBox::Discard;
}

void MainWindow::closeEvent(QCloseEvent* e) {
    if (maybe_save()) {
        simulation_->runner()->cancel();
        e->accept();
    } else {
        e->ignore();
    }
}

}  // namespace ardent::editor
