// The editor end to end under the offscreen platform: open a scene, import a model, assign a
// material, add a receiver by clicking the 3-D view and drag it, undo/redo, save and reload the
// same file, the live estimate, run a tiny simulation to completion (results and ISO table
// appear), cancel a run (nothing written), and bad input (a broken model, a scene with errors):
// a dialog with the CLI's message while the editor keeps its project.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest/QtTest>
#include <filesystem>

#include "ardent/editor/audition_panel.h"
#include "ardent/editor/results_panel.h"
#include "ardent/preprocess/scene_parser.h"
#include "ardent/preprocess/scene_writer.h"
#include "emitters_panel.h"
#include "main_window.h"
#include "materials_panel.h"
#include "scene_view.h"
#include "simulation_panel.h"

namespace fs = std::filesystem;
using ardent::editor::EmitterKind;
using ardent::editor::MainWindow;

namespace {

QString data(const QString& rel) {
    return QString(ARDENT_SOURCE_DIR) + "/data/" + rel;
}

QByteArray read_all(const QString& f) {
    QFile file(f);
    file.open(QIODevice::ReadOnly);
    return file.readAll();
}

void write_file(const QString& f, const QByteArray& text) {
    QFile file(f);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(text);
}

// The CLI's message for a scene, as `ardent info` prints it to stderr without "ardent: ".
QString cli_error(const QString& scene) {
    QProcess p;
    p.start(ARDENT_CLI, {"info", scene});
    p.waitForFinished(60000);
    QString err = QString::fromLocal8Bit(p.readAllStandardError()).trimmed();
    if (err.startsWith("ardent: ")) err = err.mid(8);
    return err;
}

// A 4 x 3 x 2.5 m box at a low frequency: a run of a second or two.
QByteArray small_scene(double duration) {
    return QString(R"({
  "format": "ardent-scene/1",
  "name": "tiny",
  "geometry": { "box": [4.0, 3.0, 2.5] },
  "materials": { "wall": { "absorption": 0.2 } },
  "surfaces": { "*": "wall" },
  "sources": [ { "name": "S1", "position": [1.0, 1.0, 1.2] } ],
  "receivers": [ { "name": "R1", "position": [3.0, 2.0, 1.2] } ],
  "simulation": { "solver": "ard", "device": "cpu", "max_frequency": 400, "duration": %1 }
})")
        .arg(duration)
        .toUtf8();
}

}  // namespace

class TestEditor : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);  // recent files go to a test location
        QSettings().clear();
        QVERIFY(tmp_.isValid());
    }

    void openScene() {
        MainWindow w;
        QVERIFY(w.open_path(data("scenes/lshape.json")));
        const auto& p = *w.project();
        QCOMPARE(p.scene().name,
                 ardent::load_scene((data("scenes/lshape.json")).toStdString()).name);
        QVERIFY(!p.mesh().triangles.empty());
        QVERIFY(p.unassigned_groups().empty());
        QCOMPARE(w.materials()->groups_table()->rowCount(),
                 static_cast<int>(p.mesh().groups.size()));
        QCOMPARE(w.emitters()->table()->rowCount(),
                 static_cast<int>(p.scene().sources.size() + p.scene().receivers.size()));
        QVERIFY(!w.project()->modified());
        QVERIFY(
            w.recent_files().contains(QFileInfo(data("scenes/lshape.json")).absoluteFilePath()));
        QVERIFY(w.windowTitle().startsWith("lshape.json"));
    }

    void importAssignUndo() {
        MainWindow w;
        QVERIFY(w.open_path(data("models/studio.obj")));
        auto* p = w.project();
        const size_t groups = p->mesh().groups.size();
        QVERIFY(groups >= 5);
        QCOMPARE(p->unassigned_groups().size(), groups);  // all listed for assignment
        QVERIFY(p->file().empty());
        // Assign a library material to the first group through the panel.
        QSignalSpy materials(p, &ardent::editor::Project::materialsChanged);
        QVERIFY(w.materials()->assign(0, "library: carpet_thin"));
        QCOMPARE(materials.count(), 1);
        QCOMPARE(p->group_materials()[0], p->scene().material_index("carpet_thin"));
        QCOMPARE(p->unassigned_groups().size(), groups - 1);
        const auto* lib = w.library().find("carpet_thin");
        QVERIFY(lib);
        QCOMPARE(p->scene().materials.back().absorption, lib->material.absorption);
        QVERIFY(p->modified());
        p->undo_stack()->undo();
        QCOMPARE(p->unassigned_groups().size(), groups);
        QVERIFY(p->scene().materials.empty());
        p->undo_stack()->redo();
        QCOMPARE(p->unassigned_groups().size(), groups - 1);
    }

    void addAndDragReceiverWithTheMouse() {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.open_path(data("scenes/shoebox.json")));
        auto* p = w.project();
        auto* view = w.view();
        view->fit();
        const size_t before = p->scene().receivers.size();
        const QPoint centre(view->width() / 2, view->height() / 2);
        const auto expected = view->placement_at(centre);
        QVERIFY(expected.has_value());
        view->set_mode(ardent::editor::SceneView::Mode::AddReceiver);
        QTest::mouseClick(view, Qt::LeftButton, {}, centre);
        QCOMPARE(p->scene().receivers.size(), before + 1);
        const ardent::Vec3 placed = p->scene().receivers.back().position;
        QCOMPARE(placed, *expected);
        QVERIFY(ardent::norm(placed - p->scene().receivers.back().position) < 1e-12);
        QCOMPARE(view->mode(), ardent::editor::SceneView::Mode::Select);
        // The panel shows it with its coordinates.
        QCOMPARE(w.emitters()->table()->rowCount(),
                 static_cast<int>(p->scene().sources.size() + p->scene().receivers.size()));

        // Drag the new marker 60 pixels to the right: one undoable step.
        const auto at = view->camera().project(placed, view->size());
        QVERIFY(at.has_value());
        const QPoint from = at->toPoint(), to = from + QPoint(60, 0);
        const auto target = view->placement_at(to);
        QVERIFY(target.has_value());
        const int undo_count = p->undo_stack()->count();
        QSignalSpy materials(p, &ardent::editor::Project::materialsChanged);
        QTest::mousePress(view, Qt::LeftButton, {}, from);
        QTest::mouseMove(view, from + QPoint(30, 0));
        QTest::mouseMove(view, to);
        QTest::mouseRelease(view, Qt::LeftButton, {}, to);
        const ardent::Vec3 moved = p->scene().receivers.back().position;
        QVERIFY2(ardent::norm(moved - *target) < 1e-9, "the marker follows the surface point");
        QVERIFY(ardent::norm(moved - placed) > 0.1);
        QCOMPARE(p->undo_stack()->count(), undo_count + 1);
        // A drag redraws the markers, not the surfaces or the material panel.
        QCOMPARE(materials.count(), 0);
        p->undo_stack()->undo();
        QCOMPARE(p->scene().receivers.back().position, placed);
        p->undo_stack()->undo();
        QCOMPARE(p->scene().receivers.size(), before);
        p->undo_stack()->redo();
        p->undo_stack()->redo();
        QCOMPARE(p->scene().receivers.back().position, moved);

        // Typing a coordinate moves it too; a bad one is refused with the reason.
        auto* table = w.emitters()->table();
        const int row = table->rowCount() - 1;
        table->item(row, 1)->setText("2.5");
        QCOMPARE(p->scene().receivers.back().position.x, 2.5);
        table->item(row, 2)->setText("abc");
        QVERIFY(w.last_error().contains("is not a coordinate"));
        QCOMPARE(table->item(row, 2)->text(), QString::number(moved.y, 'f', 3));
    }

    void saveAndReloadTheSameFile() {
        MainWindow w;
        QVERIFY(w.open_path(data("models/lshape.obj")));
        auto* p = w.project();
        for (size_t g = 0; g < p->mesh().groups.size(); ++g)
            QVERIFY(w.materials()->assign(static_cast<int>(g), "library: hard_surface"));
        p->add_emitter(EmitterKind::Source, {1, 1, 1.5});
        p->add_emitter(EmitterKind::Receiver, {6, 2, 1.5});
        const QString f = tmp_.filePath("saved.json");
        QVERIFY(w.save_to(f));
        QVERIFY(!p->modified());
        const QByteArray first = read_all(f);
        // `ardent simulate` reads what the editor saves: the same validation accepts it.
        const ardent::Scene loaded = ardent::load_scene(f.toStdString());
        QVERIFY(ardent::same_scene(loaded, p->scene()));
        MainWindow w2;
        QVERIFY(w2.open_path(f));
        QVERIFY(w2.save_to(f));
        QCOMPARE(read_all(f), first);
        QProcess info;
        info.start(ARDENT_CLI, {"info", f});
        QVERIFY(info.waitForFinished(60000));
        QCOMPARE(info.exitCode(), 0);
    }

    void estimateFollowsTheSettings() {
        MainWindow w;
        QVERIFY(w.open_path(data("scenes/shoebox.json")));
        auto* sim = w.simulation();
        QSignalSpy spy(sim->estimator(), &ardent::editor::SceneEstimator::estimated);
        QVERIFY(spy.wait(30000));
        const auto first = sim->last_estimate();
        QVERIFY2(first.ok, first.error.c_str());
        QVERIFY(sim->estimate_label()->text().contains("air cells"));
        // Doubling max_frequency gives about 8 times the cells.
        auto st = w.project()->scene().simulation;
        st.max_frequency *= 2;
        w.project()->set_simulation(st, 0);
        QVERIFY(spy.wait(30000));
        while (sim->estimator()->busy())
            QVERIFY(spy.wait(30000));
        const double ratio = double(sim->last_estimate().air_cells) / double(first.air_cells);
        QVERIFY2(ratio > 6 && ratio < 10, qPrintable(QString::number(ratio)));
        QVERIFY(!sim->last_estimate().partition_boxes.empty());
    }

    // The listener grid in metres: a bundled scene's grid in cells shows its spacing (cells times
    // the cell size); editing the field stores metres, which then stay when max_frequency
    // changes (the cells follow); "off" removes the grid.
    void listenerGridSpacingIsInMetres() {
        MainWindow w;
        QVERIFY(w.open_path(data("scenes/lshape.json")));
        auto* sim = w.simulation();
        const ardent::Scene& before = w.project()->scene();
        QVERIFY(before.listener_grid_every > 0);
        QCOMPARE(sim->grid_box()->suffix(), QString(" m"));
        QVERIFY(std::abs(sim->grid_box()->value() -
                         before.listener_grid_every * before.simulation.cell_size()) < 0.006);
        // Editing another setting keeps the grid as the scene gives it (cells).
        sim->duration_box()->setValue(before.simulation.duration + 0.1);
        emit sim->duration_box()->editingFinished();
        QCOMPARE(w.project()->scene().listener_grid_spacing_m, 0.0);
        QVERIFY(w.project()->scene().listener_grid_every > 0);
        sim->grid_box()->setValue(1.5);
        emit sim->grid_box()->editingFinished();
        const ardent::Scene& edited = w.project()->scene();
        QCOMPARE(edited.listener_grid_every, 0);
        QCOMPARE(edited.listener_grid_spacing_m, 1.5);
        const int cells = edited.listener_grid_cells();
        sim->frequency_box()->setValue(edited.simulation.max_frequency * 2);
        emit sim->frequency_box()->editingFinished();
        QCOMPARE(w.project()->scene().listener_grid_spacing_m, 1.5);
        QCOMPARE(sim->grid_box()->value(), 1.5);
        QVERIFY(w.project()->scene().listener_grid_cells() >= 2 * cells - 1);
        sim->grid_box()->setValue(0);
        emit sim->grid_box()->editingFinished();
        QCOMPARE(w.project()->scene().listener_grid_cells(), 0);
        QCOMPARE(sim->grid_box()->text(), QString("off"));
    }

    void runToCompletionShowsResults() {
        const QString scene = tmp_.filePath("tiny.json");
        write_file(scene, small_scene(0.15));
        MainWindow w;
        QVERIFY(w.open_path(scene));
        auto* sim = w.simulation();
        QSignalSpy done(sim->runner(), &ardent::editor::SimulationRunner::finished);
        QSignalSpy progress(sim->runner(), &ardent::editor::SimulationRunner::progress);
        QSignalSpy slices(sim->runner(), &ardent::editor::SimulationRunner::slice);
        const QString out = tmp_.filePath("tiny.ardent");
        QVERIFY(sim->run(out.toStdString(), false));
        QVERIFY(done.wait(120000));
        QVERIFY(progress.count() > 0);
        QCOMPARE(done.first().at(0).toString(), out);
        QVERIFY(QFileInfo::exists(out + "/result.json"));
        QVERIFY(QFileInfo::exists(out + "/ir/S1_R1.wav"));
        QCOMPARE(sim->progress_bar()->value(), 1000);
        // The results panel loaded them: one pair and a filled ISO 3382 table.
        QCOMPARE(w.results()->pairCount(), 1);
        QVERIFY(w.results()->table()->rowCount() > 0);
        QVERIFY(w.results()->notice().isEmpty());
        qInfo("live slices received: %lld", static_cast<long long>(slices.count()));

        // Opened again, they are this scene's: no notice. In the editor with another scene
        // (here: the same room at another duration), they are marked as another scene's.
        QVERIFY(w.open_results(out));
        QVERIFY2(w.results()->notice().isEmpty(), qPrintable(w.results()->notice()));
        const QString other = tmp_.filePath("other.json");
        write_file(other, small_scene(0.2));
        MainWindow w2;
        QVERIFY(w2.open_path(other));
        QVERIFY(w2.open_results(out));
        QVERIFY2(w2.results()->notice().contains("not of the scene shown"),
                 qPrintable(w2.results()->notice()));
        QVERIFY(w2.results()->notice().contains("tiny.json"));
    }

    void cancelLeavesNothing() {
        const QString scene = tmp_.filePath("long.json");
        write_file(scene, small_scene(30.0));
        MainWindow w;
        QVERIFY(w.open_path(scene));
        auto* sim = w.simulation();
        QSignalSpy progress(sim->runner(), &ardent::editor::SimulationRunner::progress);
        QSignalSpy cancelled(sim->runner(), &ardent::editor::SimulationRunner::cancelled);
        QSignalSpy slices(sim->runner(), &ardent::editor::SimulationRunner::slice);
        const QString out = tmp_.filePath("long.ardent");
        QVERIFY(sim->run(out.toStdString(), false));
        // Polled, not `while (count < 3) wait()`: the runner reports from its worker thread, and a
        // spy's wait() ends at the first of the queued wake-ups, one of which may be left over
        // from a report its previous wait() already counted, so a wait() could return false at
        // once (1 run in 4 failed so).
        QTRY_VERIFY_WITH_TIMEOUT(progress.count() >= 3, 60000);
        QTRY_VERIFY_WITH_TIMEOUT(!slices.isEmpty(), 10000);  // the live slice arrives while running
        const QImage img = qvariant_cast<QImage>(slices.last().at(0));
        QVERIFY(!img.isNull() && img.width() > 4 && img.height() > 4);
        sim->cancel();
        QVERIFY(cancelled.wait(60000));
        QVERIFY(cancelled.first().at(0).toString().contains("nothing was written"));
        QVERIFY(!QFileInfo::exists(out));
        QDir d(tmp_.path());
        for (const QString& e : d.entryList(QDir::AllEntries | QDir::NoDotAndDotDot))
            QVERIFY2(!e.startsWith("long.ardent"), qPrintable(e));
        QVERIFY(!sim->runner()->running());
    }

    void badInputShowsTheCliMessage() {
        MainWindow w;
        QVERIFY(w.open_path(data("scenes/shoebox.json")));
        const auto kept = w.project()->scene();

        // A broken model: garbage in an .obj file.
        const QString model = tmp_.filePath("broken.obj");
        write_file(model, "this is not\na model\nf 1 2 x\n");
        const QString scene = tmp_.filePath("broken-model.json");
        write_file(scene, QString(R"({"format": "ardent-scene/1", "geometry": {"mesh": "%1"},
            "materials": {"m": {"absorption": 0.1}}, "surfaces": {"*": "m"},
            "sources": [{"name": "S", "position": [0, 0, 0]}]})")
                              .arg(model)
                              .toUtf8());
        const QString cli = cli_error(scene);
        QVERIFY2(cli.startsWith("error: "), qPrintable(cli));
        // Opening the scene that uses it: the CLI's message, word for word.
        QVERIFY(!w.open_path(scene));
        QCOMPARE(w.last_error(), cli);
        // Importing the model itself: the CLI's message about the model, without the scene's key.
        QVERIFY(!w.open_path(model));
        QVERIFY2(w.last_error().startsWith("error: " + model), qPrintable(w.last_error()));
        QVERIFY2(cli.endsWith(w.last_error().mid(7)), qPrintable(w.last_error()));
        QVERIFY(ardent::same_scene(w.project()->scene(), kept));  // the editor kept its project

        // A scene with errors: an unknown key.
        const QString bad = tmp_.filePath("bad-scene.json");
        write_file(bad, R"({"format": "ardent-scene/1", "geometry": {"box": [4, 3, 2]},
            "materials": {"m": {"absorption": 0.1}}, "surfaces": {"*": "m"},
            "sources": [{"name": "S", "position": [1, 1, 1]}],
            "simulation": {"max_frequncy": 500}})");
        QVERIFY(!w.open_path(bad));
        QCOMPARE(w.last_error(), cli_error(bad));
        QVERIFY(w.last_error().contains("max_frequency"));  // the nearest key is suggested
        QVERIFY(ardent::same_scene(w.project()->scene(), kept));
        QVERIFY(w.isEnabled());
    }

    void pickingSelectsTheMaterialGroup() {
        MainWindow w;
        w.resize(1200, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.open_path(data("scenes/lshape.json")));
        auto* view = w.view();
        view->fit();
        QSignalSpy picked(view, &ardent::editor::SceneView::groupPicked);
        const QPoint centre(view->width() / 2, view->height() / 2);
        const auto hit = ardent::editor::pick_mesh(
            w.project()->mesh(), view->camera().ray(centre, view->size()), view->cull_mode());
        QVERIFY(hit.has_value());
        QTest::mouseClick(view, Qt::LeftButton, {}, centre);
        QCOMPARE(picked.count(), 1);
        const int g = picked.first().at(0).toInt();
        QCOMPARE(g, static_cast<int>(w.project()->mesh().triangles[hit->triangle].group));
        // The material panel selected that group's row.
        auto* t = w.materials()->groups_table();
        QVERIFY(t->currentRow() >= 0);
        QCOMPARE(t->item(t->currentRow(), 0)->data(Qt::UserRole).toInt(), g);
    }

    void listenerMarkerDrivesTheAudition() {
        // A run with a listener grid, then the green marker dragged across it.
        const QString scene = tmp_.filePath("grid.json");
        QByteArray text = small_scene(0.15);
        text.replace("\"simulation\"", "\"listener_grid\": {\"every\": 2}, \"simulation\"");
        write_file(scene, text);
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.open_path(scene));
        QSignalSpy done(w.simulation()->runner(), &ardent::editor::SimulationRunner::finished);
        QVERIFY(w.simulation()->run(tmp_.filePath("grid.ardent").toStdString(), false));
        QVERIFY(done.wait(120000));
        auto* view = w.view();
        QVERIFY(view->listener().has_value());
        QCOMPARE(*view->listener(), w.project()->scene().receivers.front().position);
        const ardent::Scene before = w.project()->scene();
        QSignalSpy heard(w.audition(), &ardent::editor::AuditionPanel::listenerChanged);
        view->fit();
        const auto at = view->camera().project(*view->listener(), view->size());
        QVERIFY(at.has_value());
        const QPoint from = at->toPoint(), to = from + QPoint(-50, 20);
        QTest::mousePress(view, Qt::LeftButton, {}, from);
        QTest::mouseMove(view, from + QPoint(-25, 10));
        QTest::mouseMove(view, to);
        QTest::mouseRelease(view, Qt::LeftButton, {}, to);
        QVERIFY(ardent::norm(*view->listener() - before.receivers.front().position) > 0.05);
        if (heard.isEmpty()) QVERIFY(heard.wait(30000));
        QVERIFY(ardent::same_scene(w.project()->scene(), before));  // the scene is untouched
        QVERIFY(!w.project()->modified());
    }

    void windingDecidesWhichWallsAreCulled() {
        // lshape.obj is wound with normals into the room; the same faces reversed point out.
        MainWindow w;
        QVERIFY(w.open_path(data("scenes/lshape.json")));
        ardent::TriangleMesh m = w.project()->mesh();
        QCOMPARE(ardent::editor::winding_orientation(m), -1);
        QCOMPARE(w.view()->cull_mode(), 1);
        for (auto& t : m.triangles)
            std::swap(t.v[1], t.v[2]);
        QCOMPARE(ardent::editor::winding_orientation(m), 1);
    }

  private:
    QTemporaryDir tmp_;
};

QTEST_MAIN(TestEditor)
#include "test_editor.moc"
