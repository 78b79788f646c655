// Runs ardent::pipeline::simulate() — the code `ardent simulate` runs — on a worker thread and
// turns its observer calls into Qt signals: stage text, progress with an ETA, and the live
// pressure slice through the source as an image at most five times a second (the solver pauses
// only to gather one plane, see docs/editor.md for the measured cost), and the warnings the CLI
// prints (a folder an earlier, killed run left beside the output). cancel() stops the run at the
// next check; nothing is left behind.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include <QImage>
#include <QObject>
#include <QString>

#include "ardent/pipeline/simulate.h"
#include "ardent/preprocess/scene.h"

namespace ardent::editor {

// The slice as a picture: blue (negative) - white - red (positive), scaled to the largest |p| in
// it, grey where not air, v up.
QImage slice_image(const pipeline::PressureSlice& s);

class SimulationRunner : public QObject {
    Q_OBJECT
  public:
    explicit SimulationRunner(QObject* parent = nullptr);
    ~SimulationRunner() override;  // cancels and joins a running simulation

    bool running() const { return running_; }
    void start(const Scene& scene, const pipeline::SimulateSettings& settings);
    void cancel();
    void set_live_slices(bool on) { live_slices_ = on; }

  signals:
    void stage(const QString& text);
    // fraction of the whole run (every source), seconds left (negative: not known yet).
    void progress(double fraction, double eta_s, const QString& text);
    void slice(const QImage& image, const QString& caption);
    // Something the user should see that does not stop the run (SimulateObserver::warning).
    void warning(const QString& text);
    void finished(const QString& results_dir, double seconds);
    void failed(const QString& message);
    void cancelled(const QString& message);

  private:
    class Observer;
    void join();

    std::thread thread_;
    std::atomic<bool> stop_{false};
    std::atomic<bool> live_slices_{true};
    bool running_ = false;
};

}  // namespace ardent::editor
