// The audition panel under the offscreen platform, where there is no audio output device: it
// says so, offers the bundled samples, lists the listeners of a results directory, coalesces a
// drag of listener positions onto the worker, and exports what would be heard.
#include <QComboBox>
#include <QTemporaryDir>
#include <QtTest>

#include "ardent/auralize/audio_io.h"
#include "ardent/editor/audition_panel.h"
#include "results_fixture.h"

using ardent::editor::AuditionIr;
using ardent::editor::AuditionPanel;

class TestAuditionPanel : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        QString log;
        results_ = ardent::test::make_small_results(tmp_, &log);
        QVERIFY2(!results_.isEmpty(), qPrintable("ardent simulate failed: " + log));
    }

    void noDeviceMessageAndBundledSamples() {
        AuditionPanel panel;
        if (panel.hasAudioOutput()) QSKIP("this machine has an audio output device");
        QVERIFY2(panel.statusText().contains("No audio output device: use Export"),
                 qPrintable(panel.statusText()));
        const QStringList samples = AuditionPanel::bundledSamples();
        QVERIFY2(!samples.isEmpty(), qPrintable(AuditionPanel::dataDir()));
        QVERIFY(samples.join(' ').contains("openair-singing-anechoic-48k.wav"));
        QVERIFY(panel.engine().has_dry());  // the first sample is loaded
        panel.play();                       // harmless without a device
        QVERIFY(!panel.engine().playing());
    }

    void resultsListReceiversAndGrid() {
        AuditionPanel panel;
        panel.setResults(results_);
        QVERIFY2(panel.engine().has_results(), qPrintable(panel.statusText()));
        QComboBox* listener = nullptr;
        for (auto* c : panel.findChildren<QComboBox*>())
            for (int i = 0; i < c->count(); ++i)
                if (c->itemText(i).contains("grid position")) listener = c;
        QVERIFY(listener);
        QCOMPARE(listener->count(), 3);  // S1 -> R1, S1 -> R2, S1 -> grid position
        QCOMPARE(listener->itemText(1), QString::fromUtf8("S1 \u2192 R2"));
        listener->setCurrentIndex(1);
        QCOMPARE(panel.engine().current_ir()->receiver, std::string("R2"));

        // A broken directory: the message names it, the results stay.
        const QString missing = tmp_.filePath("nothing-here");
        panel.setResults(missing);
        QVERIFY2(panel.statusText().contains(missing), qPrintable(panel.statusText()));
        QVERIFY(panel.engine().has_results());
    }

    // A drag: 200 positions in a row cost a handful of IR computations, and the last position
    // wins.
    void dragIsCoalescedAndTheNewestPositionWins() {
        AuditionPanel panel;
        panel.setResults(results_);
        const auto* grid = panel.engine().grid("S1");
        QVERIFY(grid);
        QSignalSpy changed(&panel, &AuditionPanel::listenerChanged);
        const auto lo = grid->lower(), hi = grid->upper();
        const int n = 200;
        for (int i = 0; i <= n; ++i) {
            const double t = static_cast<double>(i) / n;
            panel.setListenerPosition(lo[0] + t * (hi[0] - lo[0]), lo[1] + t * (hi[1] - lo[1]),
                                      lo[2] + t * (hi[2] - lo[2]));
        }
        const auto last = grid->nearest(hi);
        QVERIFY(last);
        QTRY_VERIFY_WITH_TIMEOUT(
            panel.engine().current_ir() &&
                panel.engine().current_ir()->kind == AuditionIr::Kind::GridMono &&
                panel.engine().current_ir()->grid_point == *last,
            10000);
        QTRY_VERIFY(changed.count() >= 1);
        qInfo("%d positions set, %d IRs computed", n + 1, panel.listenerIrsComputed());
        QVERIFY(panel.listenerIrsComputed() < n / 2);
    }

    void exportWithoutDevice() {
        AuditionPanel panel;
        panel.setResults(results_);
        QTemporaryDir out;
        const QString file = out.filePath("heard.wav");
        QString error;
        QVERIFY2(panel.exportWav(file, 1.5, &error), qPrintable(error));
        const ardent::audio::Audio a = ardent::audio::read_audio(file.toStdString());
        QCOMPARE(a.channels, 2);
        QCOMPARE(a.frames(), size_t{72000});
        QVERIFY(!panel.exportWav(out.filePath("missing/heard.wav"), 1.0, &error));
        QVERIFY2(error.contains("missing/heard.wav"), qPrintable(error));
    }

  private:
    QTemporaryDir tmp_;
    QString results_;
};

QTEST_MAIN(TestAuditionPanel)
#include "test_audition_panel.moc"
