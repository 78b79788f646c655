// The editor's room maps (issue 25, "Maps of the room"): ISO 3382-1 parameters (T20, EDT, C80,
// D50, strength G) over a results directory's listener grid, analysed exactly as `ardent analyze
// --map` does it (pipeline/grid_map_setup.h, auralize/grid_maps.h), drawn on the grid's layer
// nearest a chosen height in the 3-D view with a colour key (dark blue the lowest value, yellow
// the highest, as the PNG maps). The grid's rows are read on the GUI thread (HDF5 is not
// thread-safe, and the audition reads grids there too) a slice at a time and analysed on a
// worker, so the window stays responsive while a large grid is analysed; each source's analysis is
// kept until other results open.
#pragma once

#include <QFutureWatcher>
#include <QWidget>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ardent/auralize/grid_maps.h"
#include "ardent/auralize/ir_grid.h"
#include "scene_view.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QProgressBar;

namespace ardent::editor {

class MapPanel : public QWidget {
    Q_OBJECT
  public:
    explicit MapPanel(QWidget* parent = nullptr);
    ~MapPanel() override;

    // The grids of a results directory (grid/<source>.h5); empty clears the panel. Nothing is
    // analysed until the map is switched on.
    void set_grids(const std::vector<std::filesystem::path>& grids);
    void set_visible_in_view(bool on);  // the "Show in the 3-D view" box
    void select(const QString& source, auralize::MapParameter parameter, double band_hz,
                double height);

    // For tests: whether an analysis is running, the analysis of the shown source (null until
    // done), the plane shown and the values drawn (one per grid point, the grid's order).
    bool analysing() const;
    const std::vector<auralize::Analysis>* analysis() const;
    const auralize::IrGrid* grid() const;
    std::optional<auralize::MapPlane> plane() const { return plane_; }
    const std::vector<std::optional<double>>& values() const { return values_; }
    QString status() const;

  signals:
    void mapChanged(std::vector<ardent::editor::MapTile> tiles,
                    std::optional<ardent::editor::MapKey> key);

  private:
    struct SourceMaps {
        std::unique_ptr<auralize::IrGrid> grid;
        auralize::GridAnalysisOptions options;
        std::optional<double> receiver_height;
        std::vector<auralize::Analysis> maps;
        size_t next = 0;  // rows analysed so far
        bool done = false;
        QString error;
    };
    SourceMaps* current();
    const SourceMaps* current() const;
    void start_or_show();
    void analyse_next_slice(const std::string& key);
    void slice_done();
    void redraw();
    void fill_bands();

    std::vector<std::filesystem::path> grids_;
    std::map<std::string, SourceMaps> sources_;  // by grid file
    std::string busy_;                           // the source whose slice is analysed
    QFutureWatcher<void> watcher_;
    std::vector<std::vector<float>> slice_rows_;
    std::optional<auralize::MapPlane> plane_;
    std::vector<std::optional<double>> values_;

    QComboBox* source_ = nullptr;
    QComboBox* parameter_ = nullptr;
    QComboBox* band_ = nullptr;
    QDoubleSpinBox* height_ = nullptr;
    QCheckBox* show_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* status_ = nullptr;
};

}  // namespace ardent::editor
