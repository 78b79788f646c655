// What `ardent info` would say about the scene at the simulation panel's current settings (cells,
// memory, run time for the chosen solver and device), plus the ARD partitions for the view's
// overlay, computed by the same preprocessing the run uses. The editor computes it on a worker
// thread whenever a setting changes, keeping only the newest request.
#pragma once

#include <string>
#include <vector>

#include <QFutureWatcher>
#include <QObject>
#include <QTimer>

#include "ardent/preprocess/scene.h"
#include "ardent/preprocess/vec.h"

namespace ardent::editor {

struct SceneEstimate {
    bool ok = false;
    std::string error;     // why the scene cannot be preprocessed (the CLI's message)
    std::string warning;   // it preprocesses but the run will not fit (memory) or has no device
    std::string device;    // the device the run would use: "cpu" or "cuda"
    double cell_size = 0;  // m
    size_t grid_cells = 0, air_cells = 0, partitions = 0, listener_points = 0;
    double memory_bytes = 0;            // of one source's run on the chosen device
    double seconds = 0;                 // estimated solve time, every source
    std::vector<Box3> partition_boxes;  // model coordinates
};

// Preprocesses a copy of the scene and estimates its run (Qt-free; may take seconds on a large
// scene at a high max_frequency). A scene the run would refuse (no source yet, surfaces without a
// material, ...) gives ok = false and the reason in `error`; nothing here throws.
SceneEstimate estimate_scene(const Scene& scene);

// Debounces requests and runs estimate_scene() off the GUI thread.
class SceneEstimator : public QObject {
    Q_OBJECT
  public:
    explicit SceneEstimator(QObject* parent = nullptr);
    ~SceneEstimator() override;
    void request(const Scene& scene);  // the newest request wins
    bool busy() const { return watcher_.isRunning() || timer_.isActive() || pending_; }

  signals:
    void estimated(const ardent::editor::SceneEstimate& e);

  private:
    void start();
    QTimer timer_;
    QFutureWatcher<SceneEstimate> watcher_;
    Scene next_;
    bool pending_ = false;
};

std::string describe_seconds(double s);

}  // namespace ardent::editor
