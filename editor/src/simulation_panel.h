// The simulation panel: solver, device, max frequency, duration and listener-grid spacing (edits
// of the scene's simulation block, undoable and saved with it), the `ardent info` estimate for
// those settings updated as they change with a warning when the run will not fit, and the run
// itself: Run / Cancel, a progress bar with the ETA, the run's warnings and the live pressure
// slice through the source. Results go to `<scene>.ardent` next to the scene file, as `ardent
// simulate` would write them. Run never writes a file the user has not agreed to: unsaved changes
// are saved only when the user says so, or run as a copy (`<scene>-<time>.json` beside the scene
// with its results in `<scene>-<time>.ardent`); an existing results directory is kept and the new
// run goes beside it unless the user chooses to replace it. A bundled example scene is never
// written: its runs and copies go to runs_dir().
#pragma once

#include <filesystem>
#include <optional>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QWidget>

#include "project.h"
#include "scene_estimate.h"
#include "simulation_runner.h"

namespace ardent::editor {

class SimulationPanel : public QWidget {
    Q_OBJECT
  public:
    explicit SimulationPanel(Project* project, QWidget* parent = nullptr);

    SimulationRunner* runner() { return &runner_; }
    SceneEstimator* estimator() { return &estimator_; }
    const SceneEstimate& last_estimate() const { return estimate_; }
    // The default results directory of the project: <scene file without .json>.ardent.
    std::filesystem::path default_output() const;
    // Starts a run into `output` (no questions asked: the caller has asked). False with a
    // message when it cannot start.
    bool run(const std::filesystem::path& output, bool force, QString* why = nullptr);
    // Where runs of a bundled example scene (data_dir()) and their scene copies go: the user's
    // Documents/Ardent unless set.
    std::filesystem::path runs_dir() const;
    void set_runs_dir(const std::filesystem::path& dir) { runs_dir_ = dir; }
    // The results directory the last run_clicked() started (empty when none started).
    const std::filesystem::path& last_output() const { return last_output_; }

    QComboBox* solver_box() { return solver_; }
    QDoubleSpinBox* frequency_box() { return frequency_; }
    QDoubleSpinBox* duration_box() { return duration_; }
    QDoubleSpinBox* grid_box() { return grid_; }
    QLabel* estimate_label() { return estimate_label_; }
    QLabel* slice_label() { return slice_; }
    QLabel* run_warnings_label() { return run_warnings_; }
    QProgressBar* progress_bar() { return progress_; }

  public slots:
    void run_clicked();  // asks where needed (unsaved changes, existing results), then run()
    void cancel();

  signals:
    void resultsReady(const QString& dir);
    void saveRequested();  // the project has no file yet
    void message(const QString& text);
    void errorMessage(const QString& title, const QString& text);
    void overlayReady(const std::vector<ardent::Box3>& partitions);

  private:
    void load_from_scene();
    void settings_edited();
    void show_estimate(const SceneEstimate& e);
    void set_running(bool on);
    // The scene file and results directory for a run of the project as it stands, after asking
    // about unsaved changes and existing results; nullopt when the user cancelled or a copy could
    // not be written (said through errorMessage).
    struct RunTarget {
        std::filesystem::path output;
        bool force = false;
        std::filesystem::path scene_copy;  // the copy the run is of, when it is of one
    };
    bool start(const Scene& scene, const std::filesystem::path& output, bool force, QString* why);
    std::optional<RunTarget> choose_run_target();

    Project* project_;
    SimulationRunner runner_;
    SceneEstimator estimator_;
    SceneEstimate estimate_;
    QComboBox *solver_, *device_;
    QDoubleSpinBox *frequency_, *duration_;
    QDoubleSpinBox* grid_;
    QLabel *estimate_label_, *warning_, *eta_, *run_warnings_, *slice_, *slice_caption_;
    QProgressBar* progress_;
    QPushButton *run_, *cancel_;
    QCheckBox* live_;
    bool updating_ = false;
    std::filesystem::path runs_dir_, last_output_;
};

}  // namespace ardent::editor
