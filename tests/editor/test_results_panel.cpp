// The editor's results panel on a real results directory of `ardent simulate` and on a synthetic
// one with a 3 s IR: pairs, charts, the ISO 3382-1 table against result.json, CSV export, and
// broken directories.
#include <QChartView>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <random>

#include "ardent/auralize/audio_io.h"
#include "ardent/editor/results_panel.h"
#include "results_fixture.h"

using ardent::editor::ResultsPanel;

namespace {

QJsonObject read_json(const QString& file) {
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

// A results directory holding only what the panel reads: one pair whose IR is exponentially
// decaying noise of reverberation time t60 (s), `seconds` long at 48 kHz.
QString make_synthetic_results(const QTemporaryDir& dir, double seconds, double t60) {
    const QString out = dir.filePath("synthetic");
    QDir().mkpath(out + "/ir");
    const int fs = 48000;
    std::vector<float> ir(static_cast<size_t>(seconds * fs));
    std::mt19937 rng(7);
    std::normal_distribution<float> noise(0.0f, 1.0f);
    for (size_t i = 0; i < ir.size(); ++i) {
        const double t = static_cast<double>(i) / fs;
        ir[i] = static_cast<float>(0.05 * std::pow(10.0, -3 * t / t60)) * noise(rng);
    }
    ardent::audio::write_wav_float((out + "/ir/A_B.wav").toStdString(), ir, fs);
    const QJsonObject j{
        {"format", "ardent-result/1"},
        {"settings", QJsonObject{{"max_frequency", 10000.0}}},
        {"ir", QJsonObject{{"sample_rate", fs}}},
        {"files", QJsonObject{{"ir", QJsonArray{"ir/A_B.wav"}}, {"grid", QJsonArray{}}}},
        {"acoustics", QJsonArray{QJsonObject{{"source", "A"}, {"receiver", "B"}}}},
    };
    QFile f(out + "/result.json");
    if (!f.open(QIODevice::WriteOnly)) return {};
    f.write(QJsonDocument(j).toJson());
    return out;
}

}  // namespace

class TestResultsPanel : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        QString log;
        results_ = ardent::test::make_small_results(tmp_, &log);
        QVERIFY2(!results_.isEmpty(), qPrintable("ardent simulate failed: " + log));
    }

    // Loading shows every pair, the three charts and a table whose numbers are result.json's.
    void loadShowsPairsChartsAndTable() {
        ResultsPanel panel;
        panel.resize(900, 700);
        QString error;
        QVERIFY2(panel.load(results_, &error), qPrintable(error));
        QCOMPARE(panel.pairCount(), 2);
        const auto* combo = panel.findChild<QComboBox*>();
        QVERIFY(combo);
        QCOMPARE(combo->itemText(0), QString::fromUtf8("S1 \u2192 R1"));
        QCOMPARE(panel.currentReceiver(), QString("R1"));
        QVERIFY(panel.waveformPointCount() > 0);
        QVERIFY(panel.spectrumPointCount() > 100);

        const QJsonArray acoustics = read_json(results_ + "/result.json")["acoustics"].toArray();
        QCOMPARE(acoustics.size(), 2);
        for (const auto& pair : acoustics) {
            const QJsonObject o = pair.toObject();
            panel.select(o["source"].toString(), o["receiver"].toString());
            QCOMPARE(panel.currentReceiver(), o["receiver"].toString());
            const QJsonArray bands = o["iso3382"].toObject()["bands"].toArray();
            const ardent::auralize::Analysis* a = panel.analysis();
            QVERIFY(a);
            QCOMPARE(static_cast<qsizetype>(a->results.size()), bands.size());
            // Octave bands up to 0.8 f_max = 400 Hz, as in result.json.
            QCOMPARE(panel.table()->columnCount(), bands.size());
            QCOMPARE(panel.table()->rowCount(), 9);
            QCOMPARE(panel.decayBands().size(), bands.size());
            for (qsizetype i = 0; i < bands.size(); ++i) {
                const QJsonObject b = bands[i].toObject();
                const auto& r = a->results[static_cast<size_t>(i)];
                QCOMPARE(r.nominal_hz, b["centre_hz"].toDouble());
                const std::pair<const char*, std::optional<double>> values[] = {
                    {"edt_s", r.edt_s},   {"t20_s", r.t20_s},   {"t30_s", r.t30_s},
                    {"c50_db", r.c50_db}, {"c80_db", r.c80_db}, {"d50", r.d50},
                    {"ts_s", r.ts_s}};
                for (const auto& [key, v] : values) {
                    const QJsonValue expected = b[key];
                    QVERIFY2(expected.isNull() == !v.has_value(), key);
                    if (v) QVERIFY2(std::abs(*v - expected.toDouble()) < 1e-9, key);
                }
                // The T30 cell shows the value as `ardent analyze` prints it.
                const QString t30 = panel.table()->item(2, static_cast<int>(i))->text();
                if (r.t30_s)
                    QVERIFY(t30.startsWith(QString::number(*r.t30_s, 'f', 3)));
                else
                    QVERIFY(t30.isEmpty());
            }
        }
    }

    void selectEmitsPairSelected() {
        ResultsPanel panel;
        QString error;
        QVERIFY(panel.load(results_, &error));
        QSignalSpy spy(&panel, &ResultsPanel::pairSelected);
        panel.select("S1", "R2");
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toString(), QString("S1"));
        QCOMPARE(spy.at(0).at(1).toString(), QString("R2"));
        panel.select("S1", "nobody");  // unknown: nothing happens
        QCOMPARE(spy.count(), 1);
        QCOMPARE(panel.currentReceiver(), QString("R2"));
    }

    // A 3 s IR draws as min/max columns (at most two points per pixel column), and its decay
    // curves give the reverberation time it was made with.
    void longIrIsDecimatedAndAnalysed() {
        const QString dir = make_synthetic_results(tmp_, 3.0, 1.2);
        QVERIFY(!dir.isEmpty());
        ResultsPanel panel;
        panel.resize(1000, 700);
        QElapsedTimer timer;
        timer.start();
        QString error;
        QVERIFY2(panel.load(dir, &error), qPrintable(error));
        const qint64 ms = timer.elapsed();
        qInfo("3 s IR at 48 kHz: loaded, analysed and drawn in %lld ms", ms);
        QVERIFY(panel.waveformPointCount() > 0);
        QVERIFY(panel.waveformPointCount() <= 2 * 4096);
        const ardent::auralize::Analysis* a = panel.analysis();
        QVERIFY(a);
        QVERIFY(panel.decayBands().size() >= 6);  // 63 Hz to 4 kHz below 0.8 * 10 kHz
        for (const auto& r : a->results) {
            if (r.nominal_hz < 250) continue;  // few modes in the lowest bands' noise
            QVERIFY(r.t30_s);
            QVERIFY2(std::abs(*r.t30_s - 1.2) < 0.1, qPrintable(QString::number(*r.t30_s)));
            QVERIFY(!r.decay_db.empty());
        }
    }

    // Broken directories: false, a message naming the file, and the previous results stay.
    void brokenDirectoriesKeepThePreviousResults() {
        ResultsPanel panel;
        QString error;
        QVERIFY(panel.load(results_, &error));

        const QString missing = tmp_.filePath("does-not-exist");
        QVERIFY(!panel.load(missing, &error));
        QVERIFY2(error.contains(missing), qPrintable(error));
        QCOMPARE(panel.pairCount(), 2);
        QVERIFY(panel.table()->rowCount() > 0);

        QTemporaryDir broken;
        QFile f(broken.filePath("result.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{ not json");
        f.close();
        QVERIFY(!panel.load(broken.path(), &error));
        QVERIFY2(error.contains("result.json") && error.contains("not valid JSON"),
                 qPrintable(error));

        // result.json fine, one IR gone.
        QTemporaryDir partial;
        QVERIFY(QFile::copy(results_ + "/result.json", partial.filePath("result.json")));
        QDir(partial.path()).mkdir("ir");
        QVERIFY(QFile::copy(results_ + "/ir/S1_R1.wav", partial.filePath("ir/S1_R1.wav")));
        QVERIFY(!panel.load(partial.path(), &error));
        QVERIFY2(error.contains("S1_R2.wav") && error.contains("missing"), qPrintable(error));

        // An IR that is not audio.
        QFile bad(partial.filePath("ir/S1_R2.wav"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("this is not a WAV file");
        bad.close();
        QVERIFY(!panel.load(partial.path(), &error));
        QVERIFY2(error.contains("S1_R2.wav"), qPrintable(error));

        QCOMPARE(panel.pairCount(), 2);
        QCOMPARE(panel.resultsDir(), QDir(results_).absolutePath());
        panel.clear();
        QCOMPARE(panel.pairCount(), 0);
        QCOMPARE(panel.table()->rowCount(), 0);
        QVERIFY(!panel.export_csv(tmp_.filePath("none.csv"), &error));
    }

    // The CSV: bands across, one row per parameter with its unit, full-precision numbers; written
    // through a temporary file (none left behind).
    void exportCsv() {
        ResultsPanel panel;
        QString error;
        QVERIFY(panel.load(results_, &error));
        QTemporaryDir out;
        const QString file = out.filePath("table.csv");
        QVERIFY2(panel.export_csv(file, &error), qPrintable(error));
        QFile f(file);
        QVERIFY(f.open(QIODevice::ReadOnly | QIODevice::Text));
        const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
        const auto& bands = panel.analysis()->results;
        // Header, parameters, reliability rows, and (a full-band run) the solver of each band.
        QCOMPARE(lines.size(), 1 + 9 + 3 + 1);
        QStringList header = {"parameter"};
        for (const auto& b : bands)  // named as the table names them: "500 Hz", "1 kHz"
            header << (b.nominal_hz >= 1000 ? QString("%1 kHz").arg(b.nominal_hz / 1000)
                                            : QString("%1 Hz").arg(b.nominal_hz));
        QCOMPARE(lines[0], header.join(','));
        const QStringList t30 = lines[3].split(',');
        QCOMPARE(t30[0], QString("T30 (s)"));
        QCOMPARE(t30.size(), static_cast<qsizetype>(bands.size()) + 1);
        for (size_t i = 0; i < bands.size(); ++i) {
            if (bands[i].t30_s)
                QVERIFY(std::abs(t30[static_cast<qsizetype>(i) + 1].toDouble() - *bands[i].t30_s) <
                        1e-6);
            else
                QVERIFY(t30[static_cast<qsizetype>(i) + 1].isEmpty());
        }
        QVERIFY(lines[7].startsWith("Ts (ms),"));
        QVERIFY(lines[10].startsWith("EDT reliable (1/0)"));
        // The fixture is full band at 500 Hz (crossover 300 Hz): the 63 Hz octave is the wave
        // solver's, the 8 kHz one the geometric engine's; the table's headers say the same.
        const QStringList from = lines[13].split(',');
        QCOMPARE(from[0], QString("from"));
        QCOMPARE(from.size(), static_cast<qsizetype>(bands.size()) + 1);
        QCOMPARE(from[1], QString("wave"));
        QCOMPARE(from.last(), QString("geometric"));
        QVERIFY(from.contains("wave+geometric"));
        QVERIFY(panel.table()->horizontalHeaderItem(0)->text().endsWith("\nwave"));
        QCOMPARE(QDir(out.path()).entryList(QDir::Files), QStringList{"table.csv"});

        const QString nowhere = out.filePath("no/such/dir/table.csv");
        QVERIFY(!panel.export_csv(nowhere, &error));
        QVERIFY2(error.contains(nowhere), qPrintable(error));
    }

  private:
    QTemporaryDir tmp_;
    // Two runs of one pair whose reverberation differs (synthetic decays of 1.0 and 0.5 s):
    // compared, every chart draws both, the table's tooltips give the compared run's value and
    // the difference, and the differences mode writes current - compared into the cells.
    void compareWithAnotherRun() {
        QTemporaryDir a_dir, b_dir;
        const QString a = make_synthetic_results(a_dir, 1.5, 1.0);
        const QString b = make_synthetic_results(b_dir, 1.5, 0.5);
        ResultsPanel panel;
        QString error;
        QVERIFY(panel.load(b, &error));
        QVERIFY(panel.load(a, &error));
        QCOMPARE(panel.comparisonChoices(), QStringList{b});  // the earlier run is offered
        const qsizetype shown_decays = panel.decayView()->chart()->series().size();
        QVERIFY(shown_decays >= 6);
        QVERIFY2(panel.setReference(b, &error), qPrintable(error));
        QCOMPARE(panel.referenceDir(), b);
        QVERIFY(panel.referenceAnalysis());
        QCOMPARE(panel.waveformView()->chart()->series().size(), 2);
        QCOMPARE(panel.spectrumView()->chart()->series().size(), 2);
        QCOMPARE(panel.decayView()->chart()->series().size(), 2 * shown_decays);

        // T20 per band: the tooltip and the differences mode against the two analyses.
        const auto* t = panel.table();
        int t20 = -1;
        for (int r = 0; r < t->rowCount(); ++r)
            if (t->verticalHeaderItem(r)->text() == "T20 (s)") t20 = r;
        QVERIFY(t20 >= 0);
        const auto& cur = panel.analysis()->results;
        const auto& ref = panel.referenceAnalysis()->results;
        int compared = 0;
        panel.setShowDifferences(true);
        for (int c = 0; c < t->columnCount(); ++c) {
            const auto& band = cur[static_cast<size_t>(c)];
            const auto it = std::find_if(ref.begin(), ref.end(), [&](const auto& x) {
                return x.nominal_hz == band.nominal_hz;
            });
            if (it == ref.end() || !band.t20_s || !it->t20_s) continue;
            const double d = *band.t20_s - *it->t20_s;
            QCOMPARE(t->item(t20, c)->text().toDouble(), QString::number(d, 'f', 3).toDouble());
            QVERIFY(t->item(t20, c)->toolTip().contains("Compared run: " +
                                                        QString::number(*it->t20_s, 'f', 3)));
            // 1.0 against 0.5 s, within the octave filters' bias.
            if (band.nominal_hz >= 250)
                QVERIFY2(d > 0.35 && d < 0.65, qPrintable(QString::number(d)));
            ++compared;
        }
        QVERIFY(compared >= 5);
        panel.setShowDifferences(false);
        QVERIFY(!t->item(t20, 3)->text().startsWith('+'));
        QCOMPARE(t->item(t20, 3)->text().left(3), QString::number(*cur[3].t20_s, 'f', 3).left(3));

        panel.clearReference();
        QVERIFY(!panel.referenceAnalysis());
        QCOMPARE(panel.decayView()->chart()->series().size(), shown_decays);
        QCOMPARE(panel.waveformView()->chart()->series().size(), 1);
    }

    // A reference that cannot be read leaves the comparison as it was; one without the shown pair
    // draws nothing and says so.
    void badOrUnrelatedReference() {
        QTemporaryDir a_dir, bad;
        const QString a = make_synthetic_results(a_dir, 1.0, 0.8);
        ResultsPanel panel;
        QString error;
        QVERIFY(panel.load(a, &error));
        QVERIFY(!panel.setReference(bad.path(), &error));
        QVERIFY2(error.contains("result.json"), qPrintable(error));
        QVERIFY(panel.referenceDir().isEmpty());
        QVERIFY(panel.setReference(results_, &error));  // the box: S1 -> R1, R2, not A -> B
        QVERIFY(!panel.referenceAnalysis());
        QCOMPARE(panel.waveformView()->chart()->series().size(), 1);
        QVERIFY(panel.findChild<QLabel*>() != nullptr);
        bool said = false;
        for (const QLabel* l : panel.findChildren<QLabel*>())
            said = said || l->text().contains("has no pair A");
        QVERIFY(said);
    }

    QString results_;
};

QTEST_MAIN(TestResultsPanel)
#include "test_results_panel.moc"
