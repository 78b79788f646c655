// The editor's main window: the 3-D view in the middle, the material, source/receiver and
// simulation panels in columns beside it, the results below it and the audition (with the room
// map as a tab beside it) under the simulation settings, sized to the screen; File (new from a
// model, open, recent, save, save as, open results), Edit (undo/redo), View, Simulate and Help (the
// docs) menus with the usual shortcuts. Errors in what the user opens appear in a dialog with the
// message the command line prints, and the editor carries on with what it had.
#pragma once

#include <array>
#include <filesystem>
#include <memory>

#include <QMainWindow>
#include <QStringList>

#include "material_library.h"
#include "project.h"

class QAction;
class QDockWidget;
class QMenu;
class QLabel;

namespace ardent::editor {

class SceneView;
class MaterialsPanel;
class EmittersPanel;
class SimulationPanel;
class ResultsPanel;
class AuditionPanel;
class MapPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens a scene file (.json) or imports any model the CLI takes; false (and an error dialog)
    // when it cannot, keeping the current project.
    bool open_path(const QString& path);
    bool save_to(const QString& path);
    // Loads a results directory into the results and audition panels; with `check_scene`, marks it
    // (ResultsPanel::setNotice and the status bar) when its result.json names another scene hash
    // than the scene shown (another scene, or this one changed since).
    bool open_results(const QString& dir, bool check_scene = true);

    Project* project() { return &project_; }
    SceneView* view() { return view_; }
    MaterialsPanel* materials() { return materials_; }
    EmittersPanel* emitters() { return emitters_; }
    SimulationPanel* simulation() { return simulation_; }
    ResultsPanel* results() { return results_; }
    AuditionPanel* audition() { return audition_; }
    MapPanel* map() { return map_; }
    const MaterialLibrary& library() const { return library_; }
    QStringList recent_files() const;
    // The text of the last error dialog (tests read it; the dialog does not block).
    const QString& last_error() const { return last_error_; }
    // The page the Help menu last opened (tests read it).
    const QString& last_doc() const { return last_doc_; }
    // Sizes the window to the screen's work area (up to 1920 x 1080) and the docks to it.
    void fit_to_screen();

  public slots:
    void open_dialog();
    void import_dialog();
    bool save();
    bool save_as();
    void open_results_dialog();

  protected:
    void closeEvent(QCloseEvent* e) override;

  private:
    QString other_scene_notice(const QString& dir) const;
    void build_menus();
    void add_recent(const QString& path);
    void update_recent_menu();
    void update_title();
    bool maybe_save();
    void show_error(const QString& title, const QString& text);
    std::filesystem::path docs_dir() const;
    void open_doc(const QString& page);

    Project project_;
    MaterialLibrary library_;
    SceneView* view_ = nullptr;
    MaterialsPanel* materials_ = nullptr;
    EmittersPanel* emitters_ = nullptr;
    SimulationPanel* simulation_ = nullptr;
    ResultsPanel* results_ = nullptr;
    AuditionPanel* audition_ = nullptr;
    MapPanel* map_ = nullptr;
    QMenu* recent_menu_ = nullptr;
    QLabel* status_ = nullptr;
    QString last_error_;
    QString last_doc_;
    std::array<QDockWidget*, 5> docks_{};  // materials, emitters, simulation, results, audition
};

// The message `ardent` prints for an exception from the libraries, without the "ardent: " prefix:
// "error: ..." for bad input, "not enough resources: ..." for memory or a missing GPU.
QString cli_message(const std::exception& e);

}  // namespace ardent::editor
