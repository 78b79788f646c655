// A small results directory for the editor's tests, made by the real `ardent simulate` (the
// ARDENT_CLI compile definition) on a 4 x 3 x 2.5 m box with two receivers and a listener grid
// every 4 cells (about 1 m), simulated to 500 Hz for 0.3 s: about a second of work.
#pragma once

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QString>
#include <QTemporaryDir>

namespace ardent::test {

// Writes the scene into `dir` and simulates it into dir/results. Returns that path, or an empty
// string with `log` holding the command's output.
inline QString make_small_results(const QTemporaryDir& dir, QString* log) {
    const QString scene = dir.filePath("box.json");
    QFile f(scene);
    if (!f.open(QIODevice::WriteOnly)) return {};
    f.write(R"({
  "format": "ardent-scene/1",
  "name": "editor test box",
  "geometry": { "box": [4.0, 3.0, 2.5] },
  "materials": { "wall": { "absorption": 0.15 } },
  "surfaces": { "*": "wall" },
  "sources": [ { "name": "S1", "position": [1.0, 1.0, 1.2] } ],
  "receivers": [ { "name": "R1", "position": [3.0, 2.0, 1.2] },
                 { "name": "R2", "position": [2.5, 1.0, 1.5] } ],
  "listener_grid": { "every": 4 },
  "simulation": { "solver": "ard", "device": "cpu", "max_frequency": 500, "duration": 0.3 },
  "output": { "sample_rate": 48000 }
})");
    f.close();
    const QString out = dir.filePath("results");
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(ARDENT_CLI, {"simulate", scene, "-o", out, "--threads", "1", "--quiet"});
    if (!p.waitForFinished(120000) || p.exitCode() != 0) {
        if (log) *log = QString::fromLocal8Bit(p.readAll());
        return {};
    }
    return out;
}

}  // namespace ardent::test
