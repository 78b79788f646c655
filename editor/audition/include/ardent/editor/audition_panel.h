// The editor's audition panel (issue 7, item 5): pick a dry recording (the bundled samples are
// offered), play/stop/loop it through the room, switch dry/wet (A/B), go binaural, choose the
// listener (a receiver, or any position of the listener grid, which the 3D view sets while the
// user drags the listener marker), and export what would be heard. Sound goes out through Qt
// Multimedia (a QAudioSink pulling from the AuditionEngine); without an audio output device the
// panel says so and Export still works. Listener moves are coalesced: the IR of the newest
// position is computed on a worker thread, older pending ones are dropped.
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "ardent/editor/audition_engine.h"

class QAudioSink;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSlider;
class QTimer;

namespace ardent::editor {

class AuditionPanel : public QWidget {
    Q_OBJECT

  public:
    explicit AuditionPanel(QWidget* parent = nullptr);
    ~AuditionPanel() override;

    // Opens a results directory for listening; on failure the message (naming the file) shows in
    // the panel and statusText(), and the previous results stay.
    void setResults(const QString& dir);
    bool loadDry(const QString& file, QString* error);
    // The engine's export (whole dry signal and tail for seconds <= 0); replaces `file`.
    bool exportWav(const QString& file, double seconds, QString* error);

    bool hasAudioOutput() const { return has_output_; }
    QString statusText() const;
    AuditionEngine& engine() { return *engine_; }
    // Where the bundled dry recordings are: data/audio beside the installed program
    // (<prefix>/share/ardent/data or <exe dir>/data), else the source tree's.
    static QString dataDir();
    static QStringList bundledSamples();
    // Grid IRs computed for listener moves (for tests: drags are coalesced).
    int listenerIrsComputed() const;

  public slots:
    // A listener position on the grid (metres, model axes), e.g. while the marker is dragged.
    // Cheap: it records the newest position and wakes the worker.
    void setListenerPosition(double x, double y, double z);
    void play();
    void stop();

  signals:
    // After a new IR took effect: what is heard now ("S1, grid point 12 at (...)").
    void listenerChanged(QString description);

  private slots:
    void onListenerChoice(int index);
    void onDryChoice(int index);
    void onBrowseDry();
    void onExport();
    void onBinaural(bool on);
    void onIrReady(QString description, double makeup_db);
    void onIrFailed(QString message);
    void tick();

  private:
    struct Request {
        double x = 0, y = 0, z = 0;
        bool binaural = false;
        std::string source;
    };
    void worker();
    void showStatus(const QString& text, bool error = false);
    void updateMakeup();
    void startOutput();
    void post(const Request& r);
    std::optional<std::string> gridSource() const;

    std::unique_ptr<AuditionEngine> engine_;
    bool has_output_ = false;
    QAudioSink* sink_ = nullptr;
    class EngineDevice* device_ = nullptr;

    // The worker: one pending request (the newest), computed one at a time.
    std::thread thread_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::optional<Request> pending_;
    bool quit_ = false;
    std::atomic<int> computed_{0};

    QComboBox* dry_ = nullptr;
    QComboBox* listener_ = nullptr;
    QDoubleSpinBox* xyz_[3] = {nullptr, nullptr, nullptr};
    QCheckBox* binaural_ = nullptr;
    QCheckBox* loop_ = nullptr;
    QPushButton* play_ = nullptr;
    QPushButton* stop_ = nullptr;
    QPushButton* ab_ = nullptr;
    QPushButton* export_ = nullptr;
    QSlider* level_ = nullptr;
    QLabel* makeup_ = nullptr;
    QLabel* now_ = nullptr;
    QLabel* status_ = nullptr;
    QTimer* timer_ = nullptr;
};

}  // namespace ardent::editor
