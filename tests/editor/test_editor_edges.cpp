// The editor at its edges, driven on a virtual display: a scene left without sources (the only one
// removed, or a model imported and given materials before any is placed) keeps every panel and
// the live estimate working; Run never writes over the open scene or earlier results without the
// user's answer, and never into a bundled example; the run's warnings reach the user.
#include <QAbstractButton>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest/QtTest>
#include <cstdlib>
#include <filesystem>

#include "ardent/editor/results_panel.h"
#include "emitters_panel.h"
#include "main_window.h"
#include "materials_panel.h"
#include "scene_view.h"
#include "simulation_panel.h"

namespace fs = std::filesystem;
using ardent::editor::EmitterKind;
using ardent::editor::MainWindow;
using ardent::editor::SimulationRunner;

namespace {

QString data(const QString& rel) {
    return QString(ARDENT_SOURCE_DIR) + "/data/" + rel;
}

QByteArray read_all(const QString& f) {
    QFile file(f);
    if (!file.open(QIODevice::ReadOnly)) return {};
    return file.readAll();
}

bool write_file(const QString& f, const QByteArray& text) {
    QFile file(f);
    return file.open(QIODevice::WriteOnly) && file.write(text) == text.size();
}

QStringList entries(const QString& dir) {
    return QDir(dir).entryList(QDir::AllEntries | QDir::NoDotAndDotDot, QDir::Name);
}

// A 4 x 3 x 2.5 m box at a low frequency: a run of a second or two.
QByteArray small_scene() {
    return R"({
  "format": "ardent-scene/1",
  "name": "tiny",
  "geometry": { "box": [4.0, 3.0, 2.5] },
  "materials": { "wall": { "absorption": 0.2 } },
  "surfaces": { "*": "wall" },
  "sources": [ { "name": "S1", "position": [1.0, 1.0, 1.2] } ],
  "receivers": [ { "name": "R1", "position": [3.0, 2.0, 1.2] } ],
  "simulation": { "solver": "ard", "device": "cpu", "max_frequency": 300, "duration": 0.1 }
})";
}

// What a message box showed and which button was pressed.
struct Answer {
    QString text;
    QStringList buttons;
    bool seen = false;
};

// Presses `button` (its text without '&') in the next modal message box, once it shows.
void answer_next_box(const QString& button, Answer* answer) {
    auto* timer = new QTimer(qApp);
    timer->setInterval(20);
    QObject::connect(timer, &QTimer::timeout, [timer, button, answer] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box || !box->isVisible()) return;
        timer->stop();
        timer->deleteLater();
        answer->seen = true;
        answer->text = box->text();
        QAbstractButton* press = nullptr;
        for (QAbstractButton* b : box->buttons()) {
            const QString t = b->text().remove('&');
            answer->buttons << t;
            if (t == button) press = b;
        }
        if (press)
            press->click();
        else
            box->reject();
    });
    timer->start();
}

// Waits for the newest estimate of the current scene.
ardent::editor::SceneEstimate settled_estimate(ardent::editor::SimulationPanel* sim) {
    QSignalSpy spy(sim->estimator(), &ardent::editor::SceneEstimator::estimated);
    while (sim->estimator()->busy() || spy.isEmpty())
        if (!spy.wait(60000)) break;
    return sim->last_estimate();
}

// Closes the error dialogs the window opened (window-modal: they would block the clicks that
// follow).
void close_error_boxes(QWidget* w) {
    for (QMessageBox* box : w->findChildren<QMessageBox*>())
        box->close();
    QTest::qWait(20);
}

QPushButton* button_of(QWidget* panel, const QString& text) {
    for (QPushButton* b : panel->findChildren<QPushButton*>())
        if (b->text() == text) return b;
    return nullptr;
}

}  // namespace

class TestEditorEdges : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        QVERIFY(tmp_.isValid());
    }

    void removingTheOnlySourceKeepsEveryPanelWorking() {
        const QByteArray original = read_all(data("scenes/lshape.json"));
        const QStringList scenes_before = entries(data("scenes"));
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.open_path(data("scenes/lshape.json")));
        auto* sim = w.simulation();
        QVERIFY(settled_estimate(sim).ok);

        // Select S1 in the table and press Remove, as a user does.
        auto* table = w.emitters()->table();
        QCOMPARE(table->item(0, 0)->text(), QString("S1"));
        table->setCurrentCell(0, 0);
        QPushButton* remove = button_of(w.emitters(), "Remove");
        QVERIFY(remove);
        QTest::mouseClick(remove, Qt::LeftButton);
        QVERIFY(w.project()->scene().sources.empty());
        const auto e = settled_estimate(sim);
        QVERIFY(!e.ok);
        QVERIFY2(QString::fromStdString(e.error).contains("no source"), e.error.c_str());
        QVERIFY(sim->estimate_label()->text().contains("Cannot simulate yet"));
        QCOMPARE(table->rowCount(), 3);  // the receivers
        w.view()->fit();
        w.view()->repaint();
        QTest::qWait(50);

        // Run says why it cannot, and writes nothing.
        sim->run_clicked();
        QVERIFY2(w.last_error().contains("no source"), qPrintable(w.last_error()));
        QVERIFY(!sim->runner()->running());
        QCOMPARE(read_all(data("scenes/lshape.json")), original);
        QCOMPARE(entries(data("scenes")), scenes_before);
        close_error_boxes(&w);

        // Every receiver removed too, then all of it undone.
        while (!w.project()->scene().receivers.empty()) {
            table->setCurrentCell(0, 0);
            QTest::mouseClick(remove, Qt::LeftButton);
        }
        QCOMPARE(table->rowCount(), 0);
        QVERIFY(!settled_estimate(sim).ok);
        w.view()->repaint();
        while (w.project()->undo_stack()->canUndo())
            w.project()->undo_stack()->undo();
        QCOMPARE(w.project()->scene().sources.size(), size_t{1});
        QVERIFY(settled_estimate(sim).ok);
    }

    void receiversOnlyAndSourcesOnlyScenesEstimate() {
        MainWindow w;
        QVERIFY(w.open_path(data("scenes/lshape.json")));
        auto* p = w.project();
        // Receivers gone, the source kept: the estimate is as before.
        while (!p->scene().receivers.empty())
            p->remove_emitter(EmitterKind::Receiver, 0);
        const auto e = settled_estimate(w.simulation());
        QVERIFY2(e.ok, e.error.c_str());
        QVERIFY(e.air_cells > 0);
    }

    void importedModelWithMaterialsButNoSource() {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.open_path(data("models/lshape.obj")));
        auto* p = w.project();
        for (size_t g = 0; g < p->mesh().groups.size(); ++g)
            QVERIFY(w.materials()->assign(static_cast<int>(g), "library: hard_surface"));
        QVERIFY(p->unassigned_groups().empty());
        const auto e = settled_estimate(w.simulation());
        QVERIFY(!e.ok);
        QVERIFY2(QString::fromStdString(e.error).contains("no source"), e.error.c_str());
        w.view()->repaint();
        // A run of an unsaved project without a source: said, and no Save dialog first.
        w.simulation()->run_clicked();
        QVERIFY2(w.last_error().contains("no source"), qPrintable(w.last_error()));
        close_error_boxes(&w);
        // A source outside the model: the message names the scene as the user knows it (it
        // said "<memory>: ...").
        p->add_emitter(EmitterKind::Source, {100, 100, 100});
        const auto outside = settled_estimate(w.simulation());
        QVERIFY(!outside.ok);
        QVERIFY2(outside.error.rfind("the unsaved scene: ", 0) == 0, outside.error.c_str());
        QVERIFY2(outside.error.find("<memory>") == std::string::npos, outside.error.c_str());
        p->remove_emitter(EmitterKind::Source, 0);
        p->add_emitter(EmitterKind::Source, {1, 1, 1.5});
        const auto with_source = settled_estimate(w.simulation());
        QVERIFY2(with_source.ok, with_source.error.c_str());
    }

    void runWithoutReceiversFinishes() {
        // Nothing to record but the run itself: it completes, and the results and audition panels
        // take results without a single IR.
        const QString dir = tmp_.filePath("norec");
        QVERIFY(QDir().mkpath(dir));
        const QString scene = dir + "/tiny.json";
        QByteArray text = small_scene();
        text.replace(R"("receivers": [ { "name": "R1", "position": [3.0, 2.0, 1.2] } ],)", "");
        QVERIFY(write_file(scene, text));
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.open_path(scene));
        QVERIFY(w.project()->scene().receivers.empty());
        QVERIFY(settled_estimate(w.simulation()).ok);
        QSignalSpy done(w.simulation()->runner(), &SimulationRunner::finished);
        w.simulation()->run_clicked();
        QVERIFY(done.wait(120000));
        QVERIFY(QFileInfo::exists(dir + "/tiny.ardent/result.json"));
        QCOMPARE(w.results()->pairCount(), 0);
        w.repaint();
        QTest::qWait(50);
    }

    void runAsksBeforeSavingOverTheScene() {
        const QString dir = tmp_.filePath("asks");
        QVERIFY(QDir().mkpath(dir));
        const QString scene = dir + "/tiny.json";
        QVERIFY(write_file(scene, small_scene()));
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.open_path(scene));
        auto* sim = w.simulation();
        auto* p = w.project();
        auto edited = p->scene().simulation;
        edited.duration = 0.12;
        p->set_simulation(edited, 0);
        QVERIFY(p->modified());

        // Cancel: nothing written, nothing run.
        Answer cancel;
        answer_next_box("Cancel", &cancel);
        sim->run_clicked();
        QVERIFY(cancel.seen);
        QVERIFY(cancel.buttons.contains("Save and run"));
        QVERIFY(cancel.buttons.contains("Run a copy"));
        QVERIFY(!sim->runner()->running());
        QCOMPARE(entries(dir), QStringList{"tiny.json"});
        QCOMPARE(read_all(scene), small_scene());

        // Run a copy: the open file stays as it was; the copy and its results sit beside it.
        QSignalSpy done(sim->runner(), &SimulationRunner::finished);
        Answer copy;
        answer_next_box("Run a copy", &copy);
        sim->run_clicked();
        QVERIFY(copy.seen);
        QVERIFY(sim->runner()->running());
        QVERIFY(done.wait(120000));
        QCOMPARE(read_all(scene), small_scene());
        QVERIFY(p->modified());
        QCOMPARE(QString::fromStdString(p->file().string()), scene);
        const QString out = QString::fromStdString(sim->last_output().string());
        QVERIFY2(QFileInfo(out).fileName().startsWith("tiny-"), qPrintable(out));
        QVERIFY(QFileInfo::exists(out + "/result.json"));
        const QString copy_file = out.left(out.size() - 7) + ".json";
        QVERIFY2(QFileInfo::exists(copy_file), qPrintable(copy_file));
        QVERIFY(read_all(copy_file).contains("0.12"));
        QVERIFY(read_all(out + "/result.json").contains(QFileInfo(copy_file).fileName().toUtf8()));

        // Save and run: now the user agreed, the file takes the edit.
        done.clear();
        Answer save;
        answer_next_box("Save and run", &save);
        sim->run_clicked();
        QVERIFY(save.seen);
        QVERIFY(done.wait(120000));
        QVERIFY(!p->modified());
        QVERIFY(read_all(scene).contains("0.12"));
        QCOMPARE(sim->last_output(), fs::path((dir + "/tiny.ardent").toStdString()));
        const QByteArray first_results = read_all(dir + "/tiny.ardent/result.json");
        QVERIFY(!first_results.isEmpty());

        // Again, unchanged: the earlier results are kept unless replaced; "Keep both" puts the
        // new run beside them.
        done.clear();
        Answer keep;
        answer_next_box("Keep both", &keep);
        sim->run_clicked();
        QVERIFY(keep.seen);
        QVERIFY(keep.buttons.contains("Replace"));
        QVERIFY(done.wait(120000));
        const QString beside = QString::fromStdString(sim->last_output().string());
        QVERIFY2(beside != dir + "/tiny.ardent" && QFileInfo::exists(beside + "/result.json"),
                 qPrintable(beside));
        QCOMPARE(read_all(dir + "/tiny.ardent/result.json"), first_results);

        // Cancel at the results question: nothing more.
        const QStringList before = entries(dir);
        Answer no;
        answer_next_box("Cancel", &no);
        sim->run_clicked();
        QVERIFY(no.seen);
        QVERIFY(!sim->runner()->running());
        QCOMPARE(entries(dir), before);
    }

    void bundledSceneIsNeverWritten() {
        // A data folder of our own stands for the bundled one (ARDENT_DATA_DIR, as installed).
        const QString bundle = tmp_.filePath("bundle");
        QVERIFY(QDir().mkpath(bundle + "/scenes"));
        QVERIFY(QDir().mkpath(bundle + "/materials"));
        QVERIFY(QFile::copy(data("materials/library.json"), bundle + "/materials/library.json"));
        QVERIFY(write_file(bundle + "/scenes/tiny.json", small_scene()));
        qputenv("ARDENT_DATA_DIR", bundle.toUtf8());
        const QString runs = tmp_.filePath("runs");
        {
            MainWindow w;
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            auto* sim = w.simulation();
            sim->set_runs_dir(runs.toStdString());
            QVERIFY(w.open_path(bundle + "/scenes/tiny.json"));
            QSignalSpy done(sim->runner(), &SimulationRunner::finished);
            // Unchanged: the results go to the runs folder, not beside the example.
            sim->run_clicked();
            QVERIFY(done.wait(120000));
            QCOMPARE(sim->last_output(), fs::path((runs + "/tiny.ardent").toStdString()));
            // Edited: no "Save and run" on an example; the copy goes to the runs folder too.
            auto edited = w.project()->scene().simulation;
            edited.duration = 0.11;
            w.project()->set_simulation(edited, 0);
            done.clear();
            Answer copy;
            answer_next_box("Run a copy", &copy);
            sim->run_clicked();
            QVERIFY(copy.seen);
            QVERIFY(!copy.buttons.contains("Save and run"));
            QVERIFY(done.wait(120000));
            QVERIFY(sim->last_output().parent_path() == fs::path(runs.toStdString()));
        }
        qunsetenv("ARDENT_DATA_DIR");
        QCOMPARE(entries(bundle + "/scenes"), QStringList{"tiny.json"});
        QCOMPARE(read_all(bundle + "/scenes/tiny.json"), small_scene());
        QCOMPARE(entries(runs).size(), 3);  // tiny.ardent, tiny-<time>.json, tiny-<time>.ardent
    }

    void runWarningsAreShown() {
        const QString dir = tmp_.filePath("warn");
        QVERIFY(QDir().mkpath(dir));
        const QString scene = dir + "/tiny.json";
        QVERIFY(write_file(scene, small_scene()));
        // What a run killed with -9 leaves beside its output (a process that no longer runs).
        QVERIFY(QDir().mkpath(dir + "/tiny.ardent.tmp-999999999"));
        MainWindow w;
        QVERIFY(w.open_path(scene));
        auto* sim = w.simulation();
        QSignalSpy warned(sim->runner(), &SimulationRunner::warning);
        QSignalSpy status(sim, &ardent::editor::SimulationPanel::message);
        QSignalSpy done(sim->runner(), &SimulationRunner::finished);
        sim->run_clicked();
        QVERIFY(done.wait(120000));
        QCOMPARE(warned.count(), 1);
        const QString text = warned.first().at(0).toString();
        QVERIFY2(text.contains("tiny.ardent.tmp-999999999") && text.contains("rm -r"),
                 qPrintable(text));
        QVERIFY(sim->run_warnings_label()->text().contains(text));
        bool on_status = false;
        for (const auto& args : status)
            on_status = on_status || args.at(0).toString().contains(text);
        QVERIFY(on_status);
        QVERIFY(QFileInfo::exists(dir + "/tiny.ardent.tmp-999999999"));  // reported, not removed
    }

  private:
    QTemporaryDir tmp_;
};

QTEST_MAIN(TestEditorEdges)
#include "test_editor_edges.moc"
