#include "ardent/editor/audition_panel.h"

#include <QAudioDevice>
#include <QAudioFormat>
#include <QAudioSink>
#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QIODevice>
#include <QLabel>
#include <QMediaDevices>
#include <QPushButton>
#include <QSlider>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <vector>

#ifndef ARDENT_DATA_DIR
#define ARDENT_DATA_DIR ""
#endif

namespace ardent::editor {

// The sink's source: every read renders the next frames from the engine. QAudioSink pulls from
// its own thread or timer; render() never blocks, so neither does this.
class EngineDevice : public QIODevice {
  public:
    EngineDevice(AuditionEngine& engine, QAudioFormat::SampleFormat format, QObject* parent)
        : QIODevice(parent), engine_(engine), format_(format) {
        scratch_.resize(2 * kChunk);  // allocated once, here, not on the audio path
    }
    bool isSequential() const override { return true; }
    qint64 bytesAvailable() const override { return 2 * kChunk * sizeof(float); }

  protected:
    qint64 readData(char* data, qint64 maxlen) override {
        const qint64 frame = format_ == QAudioFormat::Float ? 8 : 4;
        const auto frames = static_cast<size_t>(maxlen / frame);
        for (size_t done = 0; done < frames;) {
            const size_t n = std::min(kChunk, frames - done);
            engine_.render(scratch_.data(), n);
            if (format_ == QAudioFormat::Float) {
                std::copy_n(scratch_.data(), 2 * n, reinterpret_cast<float*>(data) + 2 * done);
            } else {
                auto* out = reinterpret_cast<qint16*>(data) + 2 * done;
                for (size_t i = 0; i < 2 * n; ++i)
                    out[i] = static_cast<qint16>(std::clamp(scratch_[i], -1.0f, 1.0f) * 32767.0f);
            }
            done += n;
        }
        return static_cast<qint64>(frames) * frame;
    }
    qint64 writeData(const char*, qint64) override { return -1; }

  private:
    static constexpr size_t kChunk = 1024;
    AuditionEngine& engine_;
    QAudioFormat::SampleFormat format_;
    std::vector<float> scratch_;
};

namespace {

const char* kNoOutput = "No audio output device: use Export to write what you would hear";

}  // namespace

QString AuditionPanel::dataDir() {
    const QString exe = QCoreApplication::applicationDirPath();
    for (const QString& d : {exe + "/../share/ardent/data", exe + "/data"})
        if (QFileInfo(d + "/audio").isDir()) return QDir(d).canonicalPath();
    return QStringLiteral(ARDENT_DATA_DIR);
}

QStringList AuditionPanel::bundledSamples() {
    QStringList files;
    const QDir audio(dataDir() + "/audio");
    for (const QString& f :
         audio.entryList({"*.wav", "*.flac", "*.ogg", "*.aif", "*.aiff"}, QDir::Files, QDir::Name))
        files << audio.filePath(f);
    return files;
}

AuditionPanel::AuditionPanel(QWidget* parent) : QWidget(parent) {
    // The engine runs at the output device's rate (resampling the dry signal and IRs once),
    // 48 kHz without a device.
    const QAudioDevice out = QMediaDevices::defaultAudioOutput();
    AuditionEngine::Options options;
    QAudioFormat format;
    if (!out.isNull()) {
        format = out.preferredFormat();
        format.setChannelCount(2);
        format.setSampleFormat(QAudioFormat::Float);
        if (!out.isFormatSupported(format)) format.setSampleFormat(QAudioFormat::Int16);
        has_output_ = out.isFormatSupported(format) && format.sampleRate() >= 8000;
        if (has_output_) options.sample_rate = format.sampleRate();
    }
    engine_ = std::make_unique<AuditionEngine>(options);
    if (has_output_) {
        device_ = new EngineDevice(*engine_, format.sampleFormat(), this);
        device_->open(QIODevice::ReadOnly);
        sink_ = new QAudioSink(out, format, this);
        sink_->setBufferSize(format.bytesForDuration(40000));  // 40 ms
    }

    dry_ = new QComboBox;
    for (const QString& f : bundledSamples())
        dry_->addItem(QFileInfo(f).fileName(), f);
    auto* browse = new QPushButton(tr("Browse\u2026"));
    listener_ = new QComboBox;
    for (int a = 0; a < 3; ++a) {
        xyz_[a] = new QDoubleSpinBox;
        xyz_[a]->setRange(-1e4, 1e4);
        xyz_[a]->setDecimals(2);
        xyz_[a]->setSingleStep(0.1);
        xyz_[a]->setSuffix(" m");
        xyz_[a]->setEnabled(false);
    }
    binaural_ = new QCheckBox(tr("Binaural (headphones)"));
    binaural_->setToolTip(
        tr("At a grid position its first-order ambisonics, at a receiver its ambisonic IR "
           "(third order above a full-band run's crossover), decoded through the default HRTF "
           "set (MIT KEMAR), as ardent auralize does"));
    binaural_->setEnabled(false);
    play_ = new QPushButton(tr("Play"));
    stop_ = new QPushButton(tr("Stop"));
    loop_ = new QCheckBox(tr("Loop"));
    ab_ = new QPushButton(tr("Wet (room)"));
    ab_->setCheckable(true);
    ab_->setToolTip(tr("A/B: the room (wet) or the dry recording, cross-faded"));
    level_ = new QSlider(Qt::Horizontal);
    level_->setRange(-40, 12);
    level_->setValue(0);
    makeup_ = new QLabel;
    export_ = new QPushButton(tr("Export\u2026"));
    now_ = new QLabel;
    now_->setWordWrap(true);
    status_ = new QLabel;
    status_->setWordWrap(true);

    auto* dry_row = new QHBoxLayout;
    dry_row->addWidget(dry_, 1);
    dry_row->addWidget(browse);
    auto* xyz_row = new QHBoxLayout;
    for (int a = 0; a < 3; ++a)
        xyz_row->addWidget(xyz_[a]);
    auto* transport = new QHBoxLayout;
    for (QWidget* w : {static_cast<QWidget*>(play_), static_cast<QWidget*>(stop_),
                       static_cast<QWidget*>(loop_), static_cast<QWidget*>(ab_)})
        transport->addWidget(w);
    transport->addStretch(1);
    transport->addWidget(export_);
    auto* level_row = new QHBoxLayout;
    level_row->addWidget(level_, 1);
    level_row->addWidget(makeup_);
    auto* form = new QFormLayout;
    form->addRow(tr("Dry recording"), dry_row);
    form->addRow(tr("Listener"), listener_);
    form->addRow(tr("Grid position x, y, z"), xyz_row);
    form->addRow(QString(), binaural_);
    form->addRow(tr("Level (dB)"), level_row);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addLayout(transport);
    layout->addWidget(now_);
    layout->addWidget(status_);
    layout->addStretch(1);

    connect(dry_, &QComboBox::currentIndexChanged, this, &AuditionPanel::onDryChoice);
    connect(browse, &QPushButton::clicked, this, &AuditionPanel::onBrowseDry);
    connect(listener_, &QComboBox::currentIndexChanged, this, &AuditionPanel::onListenerChoice);
    for (auto* box : xyz_)
        connect(box, &QDoubleSpinBox::valueChanged, this, [this] {
            setListenerPosition(xyz_[0]->value(), xyz_[1]->value(), xyz_[2]->value());
        });
    connect(binaural_, &QCheckBox::toggled, this, &AuditionPanel::onBinaural);
    connect(play_, &QPushButton::clicked, this, &AuditionPanel::play);
    connect(stop_, &QPushButton::clicked, this, &AuditionPanel::stop);
    connect(loop_, &QCheckBox::toggled, this, [this](bool on) { engine_->set_loop(on); });
    connect(ab_, &QPushButton::toggled, this, [this](bool dry) {
        engine_->set_wet(!dry);
        ab_->setText(dry ? tr("Dry (A/B)") : tr("Wet (room)"));
    });
    connect(level_, &QSlider::valueChanged, this,
            [this](int db) { engine_->set_level_db(static_cast<double>(db)); });
    connect(export_, &QPushButton::clicked, this, &AuditionPanel::onExport);
    timer_ = new QTimer(this);
    connect(timer_, &QTimer::timeout, this, &AuditionPanel::tick);
    timer_->start(100);

    if (!has_output_) {
        play_->setEnabled(false);
        stop_->setEnabled(false);
        showStatus(tr(kNoOutput), true);
    }
    if (dry_->count() > 0) onDryChoice(0);
    updateMakeup();
    thread_ = std::thread([this] { worker(); });
}

AuditionPanel::~AuditionPanel() {
    if (sink_) sink_->stop();
    {
        const std::lock_guard lock(mutex_);
        quit_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

QString AuditionPanel::statusText() const {
    return status_->text();
}

int AuditionPanel::listenerIrsComputed() const {
    return computed_.load();
}

void AuditionPanel::showStatus(const QString& text, bool error) {
    // The missing device stays said, whatever else is shown.
    QString t = text;
    if (!has_output_ && text != tr(kNoOutput)) t = tr(kNoOutput) + "\n" + text;
    status_->setText(t);
    status_->setStyleSheet(error ? "color: #b00020" : "");
}

void AuditionPanel::updateMakeup() {
    makeup_->setText(tr("make-up %1 dB").arg(engine_->makeup_db(), 0, 'f', 1));
    makeup_->setToolTip(
        tr("Gain on the room only: the IR convention puts the wet signal about "
           "20 dB below the dry recording"));
}

void AuditionPanel::setResults(const QString& dir) {
    try {
        engine_->open_results(dir.toStdString());
    } catch (const std::exception& e) {
        showStatus(QString::fromStdString(e.what()), true);
        return;
    }
    const QSignalBlocker block(listener_);
    listener_->clear();
    for (const ResultPair& p : engine_->results().pairs)
        listener_->addItem(QString::fromStdString(p.source + " \u2192 " + p.receiver),
                           QStringList{"receiver", QString::fromStdString(p.source),
                                       QString::fromStdString(p.receiver)});
    for (const std::string& s : engine_->grid_sources())
        listener_->addItem(tr("%1 \u2192 grid position").arg(QString::fromStdString(s)),
                           QStringList{"grid", QString::fromStdString(s)});
    listener_->setCurrentIndex(0);
    for (auto* box : xyz_)
        box->setEnabled(false);
    binaural_->setEnabled(false);
    QString text = tr("Results: %1").arg(dir);
    for (const std::string& w : engine_->warnings())
        text += "\n" + QString::fromStdString(w);
    showStatus(text, false);
    if (auto ir = engine_->current_ir()) now_->setText(QString::fromStdString(ir->describe()));
    updateMakeup();
}

bool AuditionPanel::loadDry(const QString& file, QString* error) {
    try {
        engine_->load_dry(file.toStdString());
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    return true;
}

bool AuditionPanel::exportWav(const QString& file, double seconds, QString* error) {
    try {
        engine_->export_wav(file.toStdString(), seconds);
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    return true;
}

std::optional<std::string> AuditionPanel::gridSource() const {
    const QStringList d = listener_->currentData().toStringList();
    if (d.size() >= 2 && d[0] == "grid") return d[1].toStdString();
    return std::nullopt;
}

void AuditionPanel::setListenerPosition(double x, double y, double z) {
    if (!gridSource()) {
        // A drag in the 3D view means the grid: choose the first grid entry.
        for (int i = 0; i < listener_->count(); ++i)
            if (listener_->itemData(i).toStringList().value(0) == "grid") {
                const QSignalBlocker block(listener_);
                listener_->setCurrentIndex(i);
                for (auto* box : xyz_)
                    box->setEnabled(true);
                binaural_->setEnabled(engine_->binaural_available());
                break;
            }
        if (!gridSource()) return;  // no grid in these results
    }
    const double v[3] = {x, y, z};
    for (int a = 0; a < 3; ++a) {
        const QSignalBlocker block(xyz_[a]);
        xyz_[a]->setValue(v[a]);
    }
    post({x, y, z, binaural_->isChecked(), *gridSource()});
}

void AuditionPanel::post(const Request& r) {
    {
        const std::lock_guard lock(mutex_);
        pending_ = r;  // replaces an older request not yet started
    }
    wake_.notify_one();
}

void AuditionPanel::worker() {
    for (;;) {
        Request r;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [this] { return quit_ || pending_; });
            if (quit_) return;
            r = *pending_;
            pending_.reset();
        }
        try {
            const AuditionIr ir = engine_->grid_ir(r.source, {r.x, r.y, r.z}, r.binaural);
            engine_->set_ir(ir);
            ++computed_;
            const QString text =
                QString::fromStdString(ir.describe()) +
                tr(" (%1 m from the position asked)").arg(ir.distance_m, 0, 'f', 2);
            const double makeup = engine_->makeup_db();
            QMetaObject::invokeMethod(
                this, [this, text, makeup] { onIrReady(text, makeup); }, Qt::QueuedConnection);
        } catch (const std::exception& e) {
            const QString msg = QString::fromStdString(e.what());
            QMetaObject::invokeMethod(
                this, [this, msg] { onIrFailed(msg); }, Qt::QueuedConnection);
        }
    }
}

void AuditionPanel::onIrReady(QString description, double) {
    now_->setText(description);
    updateMakeup();
    emit listenerChanged(description);
}

void AuditionPanel::onIrFailed(QString message) {
    showStatus(message, true);
}

void AuditionPanel::onListenerChoice(int index) {
    const QStringList d = listener_->itemData(index).toStringList();
    const bool grid = d.value(0) == "grid";
    for (auto* box : xyz_)
        box->setEnabled(grid);
    const bool receiver = d.value(0) == "receiver";
    binaural_->setEnabled((grid && engine_->binaural_available()) ||
                          (receiver && engine_->receiver_binaural_available(
                                           d.value(1).toStdString(), d.value(2).toStdString())));
    if (grid) {
        // Start at the grid's centre unless a position was given before.
        if (const auralize::IrGrid* g = engine_->grid(d.value(1).toStdString());
            g && xyz_[0]->value() == 0 && xyz_[1]->value() == 0 && xyz_[2]->value() == 0) {
            for (int a = 0; a < 3; ++a) {
                const QSignalBlocker block(xyz_[a]);
                xyz_[a]->setValue((g->lower()[a] + g->upper()[a]) / 2);
            }
        }
        post({xyz_[0]->value(), xyz_[1]->value(), xyz_[2]->value(), binaural_->isChecked(),
              d.value(1).toStdString()});
        return;
    }
    if (d.value(0) != "receiver") return;
    try {
        engine_->select_receiver(d.value(1).toStdString(), d.value(2).toStdString(),
                                 binaural_->isEnabled() && binaural_->isChecked());
    } catch (const std::exception& e) {
        showStatus(QString::fromStdString(e.what()), true);
        return;
    }
    const auto current = engine_->current_ir();
    const QString text =
        listener_->itemText(index) +
        (current && current->kind == AuditionIr::Kind::ReceiverBinaural ? tr(", binaural") : "");
    now_->setText(text);
    updateMakeup();
    emit listenerChanged(text);
}

void AuditionPanel::onBinaural(bool) {
    if (gridSource())
        setListenerPosition(xyz_[0]->value(), xyz_[1]->value(), xyz_[2]->value());
    else
        onListenerChoice(listener_->currentIndex());  // a receiver: its binaural IR or its mono
}

void AuditionPanel::onDryChoice(int index) {
    const QString file = dry_->itemData(index).toString();
    if (file.isEmpty()) return;
    QString error;
    if (!loadDry(file, &error)) showStatus(error, true);
}

void AuditionPanel::onBrowseDry() {
    const QString file = QFileDialog::getOpenFileName(
        this, tr("Dry recording"), dataDir() + "/audio",
        tr("Audio files (*.wav *.flac *.ogg *.aif *.aiff);;All files (*)"));
    if (file.isEmpty()) return;
    QString error;
    if (!loadDry(file, &error)) {
        showStatus(error, true);
        return;
    }
    const QSignalBlocker block(dry_);
    dry_->addItem(QFileInfo(file).fileName(), file);
    dry_->setCurrentIndex(dry_->count() - 1);
}

void AuditionPanel::onExport() {
    const QString suggested = QDir::home().filePath("ardent-audition.wav");
    // The dialog asks before replacing an existing file.
    const QString file =
        QFileDialog::getSaveFileName(this, tr("Export what you would hear"), suggested,
                                     tr("WAV, 32-bit float (*.wav);;FLAC, 24-bit (*.flac)"));
    if (file.isEmpty()) return;
    QString error;
    if (exportWav(file, 0, &error))
        showStatus(tr("Wrote %1").arg(file));
    else
        showStatus(error, true);
}

void AuditionPanel::startOutput() {
    if (!sink_ || sink_->state() == QAudio::ActiveState) return;
    sink_->start(device_);
}

void AuditionPanel::play() {
    if (!has_output_) {
        showStatus(tr(kNoOutput), true);
        return;
    }
    startOutput();
    engine_->play();
}

void AuditionPanel::stop() {
    engine_->stop();
}

void AuditionPanel::tick() {
    if (!has_output_) return;
    const bool on = engine_->playing();
    play_->setText(on ? tr("Playing %1 s").arg(engine_->position_seconds(), 0, 'f', 1)
                      : tr("Play"));
}

}  // namespace ardent::editor
