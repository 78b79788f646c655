#include "simulation_runner.h"

#include <QMetaObject>
#include <algorithm>
#include <cmath>

#include "ardent/preprocess/errors.h"
#include "ardent/solvers/solver.h"

namespace ardent::editor {

QImage slice_image(const pipeline::PressureSlice& s) {
    QImage img(s.width, s.height, QImage::Format_RGB32);
    float peak = 0;
    for (float v : s.values)
        if (std::isfinite(v)) peak = std::max(peak, std::abs(v));
    const float inv = peak > 0 ? 1.0f / peak : 0.0f;
    for (int y = 0; y < s.height; ++y) {
        auto* row = reinterpret_cast<QRgb*>(img.scanLine(s.height - 1 - y));
        for (int x = 0; x < s.width; ++x) {
            const float v = s.values[static_cast<size_t>(y) * static_cast<size_t>(s.width) +
                                     static_cast<size_t>(x)];
            if (!std::isfinite(v)) {
                row[x] = qRgb(70, 70, 74);
                continue;
            }
            // sqrt compresses the range so the reverberant field stays visible next to the
            // direct wave.
            const float t = std::copysign(std::sqrt(std::abs(v) * inv), v);
            const int k = static_cast<int>(255.0f * (1.0f - std::abs(t)));
            row[x] = t >= 0 ? qRgb(255, k, k) : qRgb(k, k, 255);
        }
    }
    return img;
}

class SimulationRunner::Observer : public pipeline::SimulateObserver {
  public:
    explicit Observer(SimulationRunner* r) : r_(r) {}
    void stage(const std::string& text) override { emit r_->stage(QString::fromStdString(text)); }
    void warning(const std::string& text) override {
        emit r_->warning(QString::fromStdString(text));
    }
    void source_begin(const std::string& name, size_t index, size_t count, size_t total,
                      size_t done) override {
        name_ = name;
        index_ = index;
        count_ = count;
        total_ = std::max<size_t>(total, 1);
        start_steps_ = done;
        t0_ = std::chrono::steady_clock::now();
        if (index == 0) run_t0_ = t0_;
        progress(done);
    }
    void progress(size_t done) override {
        const double f_source = static_cast<double>(done) / static_cast<double>(total_);
        const double fraction =
            (static_cast<double>(index_) + f_source) / static_cast<double>(count_);
        const double el = seconds_since(t0_);
        double eta = -1;
        if (done > start_steps_ && el > 0.5) {
            const double rate = static_cast<double>(done - start_steps_) / el;  // steps per second
            eta = (static_cast<double>(total_ - done) +
                   static_cast<double>(count_ - index_ - 1) * static_cast<double>(total_)) /
                  rate;
        }
        emit r_->progress(fraction, eta,
                          QString("%1 (%2/%3): step %4 of %5")
                              .arg(QString::fromStdString(name_))
                              .arg(index_ + 1)
                              .arg(count_)
                              .arg(done)
                              .arg(total_));
    }
    bool want_slice() override {
        if (!r_->live_slices_.load()) return false;
        const auto now = std::chrono::steady_clock::now();
        if (now - last_slice_ < std::chrono::milliseconds(200)) return false;
        last_slice_ = now;
        return true;
    }
    void slice(const pipeline::PressureSlice& s) override {
        const char axes[] = {'x', 'y', 'z'};
        const QString caption = QString("%1, %2 = %3 m, t = %4 ms")
                                    .arg(QString::fromStdString(s.source))
                                    .arg(axes[s.axis])
                                    .arg(s.origin[s.axis], 0, 'f', 2)
                                    .arg(s.time_s * 1000, 0, 'f', 1);
        emit r_->slice(slice_image(s), caption);
    }

  private:
    static double seconds_since(std::chrono::steady_clock::time_point t) {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    }
    SimulationRunner* r_;
    std::string name_;
    size_t index_ = 0, count_ = 1, total_ = 1, start_steps_ = 0;
    std::chrono::steady_clock::time_point t0_, run_t0_, last_slice_{};
};

SimulationRunner::SimulationRunner(QObject* parent) : QObject(parent) {}

SimulationRunner::~SimulationRunner() {
    cancel();
    join();
}

void SimulationRunner::join() {
    if (thread_.joinable()) thread_.join();
}

void SimulationRunner::start(const Scene& scene, const pipeline::SimulateSettings& settings) {
    if (running_) return;
    join();
    stop_.store(false);
    running_ = true;
    thread_ = std::thread([this, scene, settings] {
        Observer observer(this);
        QString done_dir, fail, cancel_msg;
        double seconds = 0;
        try {
            const auto result = pipeline::simulate(scene, settings, observer, &stop_);
            done_dir = QString::fromStdString(result.directory.string());
            seconds = result.seconds;
        } catch (const pipeline::Cancelled& e) {
            cancel_msg = QString::fromUtf8(e.what());
        } catch (const InputError& e) {
            fail = QString("error: %1").arg(QString::fromUtf8(e.what()));
        } catch (const ResourceError& e) {
            fail = QString("not enough resources: %1").arg(QString::fromUtf8(e.what()));
        } catch (const SolverError& e) {
            fail = QString::fromUtf8(e.what());
        } catch (const std::bad_alloc&) {
            fail = "not enough resources: out of memory";
        } catch (const std::exception& e) {
            fail = QString("internal error: %1").arg(QString::fromUtf8(e.what()));
        }
        // Reported on the GUI thread, after running_ is cleared there.
        QMetaObject::invokeMethod(this, [this, done_dir, fail, cancel_msg, seconds] {
            running_ = false;
            join();
            if (!cancel_msg.isEmpty())
                emit cancelled(cancel_msg);
            else if (!fail.isEmpty())
                emit failed(fail);
            else
                emit finished(done_dir, seconds);
        });
    });
}

void SimulationRunner::cancel() {
    stop_.store(true);
}

}  // namespace ardent::editor
