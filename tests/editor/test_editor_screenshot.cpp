// The real editor under Xvfb: `ardent simulate` computes a bundled real model (the studio control
// room, MIT licence, data/README.md), then `ardent-editor SCENE --results DIR --screenshot PNG`
// starts on a virtual X display, renders and saves what the screen shows. The picture must not be
// blank: the 3-D view shows the model's material colours and the charts and panels are drawn.
// The picture is written to the build folder; scripts/editor-screenshot refreshes docs/images/.
#include <QColor>
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest/QtTest>

class TestEditorScreenshot : public QObject {
    Q_OBJECT
  private slots:
    void screenshotIsNotBlank() {
        if (QStandardPaths::findExecutable("xvfb-run").isEmpty())
            QSKIP("xvfb-run is not installed (scripts/setup installs the xvfb package)");
        QTemporaryDir tmp;
        const QString scene = QString(ARDENT_SOURCE_DIR) + "/data/scenes/studio.json";
        const QString results = tmp.filePath("studio.ardent");
        QProcess sim;
        sim.setProcessChannelMode(QProcess::MergedChannels);
        sim.start(ARDENT_CLI, {"simulate", scene, "-o", results, "--max-frequency", "400",
                               "--duration", "0.4", "--quiet"});
        QVERIFY(sim.waitForFinished(300000));
        QVERIFY2(sim.exitCode() == 0, sim.readAll().constData());

        const QString png = QString(ARDENT_BINARY_DIR) + "/editor-screenshot.png";
        QFile::remove(png);
        QProcess ed;
        ed.setProcessChannelMode(QProcess::MergedChannels);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("QT_QPA_PLATFORM");  // the real xcb platform on the virtual display
        ed.setProcessEnvironment(env);
        ed.start("xvfb-run",
                 {"-a", "-s", "-screen 0 1600x1000x24", ARDENT_EDITOR, scene, "--results", results,
                  "--screenshot", png, "--screenshot-delay", "2500"});
        QVERIFY(ed.waitForFinished(180000));
        const QByteArray log = ed.readAll();
        QVERIFY2(ed.exitCode() == 0, log.constData());
        QImage img(png);
        QVERIFY2(!img.isNull(), "the screenshot was not written");
        QVERIFY(img.width() >= 800 && img.height() >= 600);

        // Not blank: many colours over the whole picture ...
        QSet<QRgb> colours;
        for (int y = 0; y < img.height(); y += 3)
            for (int x = 0; x < img.width(); x += 3)
                colours.insert(img.pixel(x, y) & 0xF8F8F8);
        QVERIFY2(colours.size() > 200, qPrintable(QString::number(colours.size())));
        // ... and the 3-D view (the middle of the window) shows the model: a large share of its
        // pixels are saturated material colours, not the dark background.
        int model = 0, total = 0;
        const QRect mid(img.width() * 2 / 5, img.height() / 5, img.width() / 5, img.height() / 4);
        for (int y = mid.top(); y < mid.bottom(); y += 2)
            for (int x = mid.left(); x < mid.right(); x += 2) {
                const QColor c(img.pixel(x, y));
                model += c.saturation() > 40 && c.value() > 90;
                ++total;
            }
        QVERIFY2(model > total / 10, qPrintable(QString("%1 of %2").arg(model).arg(total)));
    }
};

QTEST_GUILESS_MAIN(TestEditorScreenshot)
#include "test_editor_screenshot.moc"
