// The editor's layout at the screen sizes a consultant uses (issue 25: "as clear as Odeon or
// Treble"), on a virtual X display whose size the test is registered with (1600 x 1000 and
// 1920 x 1080): the bundled studio (nine surface groups, six emitters) with the results of a short
// `ardent simulate`. Every material and emitter row and every ISO 3382-1 row is in view without
// scrolling, the charts and the 3-D view have room, chart ticks are 1-2-5 steps, the view's legend
// names every material in use and the markers, the scale bar is a 1-2-5 length, the axis triad has
// z up, material colours stay clear of "unassigned" magenta and of each other, the Help menu
// opens the docs, and the material's fit is drawn as a curve through its bands. The window is
// saved as editor-layout-WxH.png in the build folder for review by eye. The room map agrees with
// `ardent analyze --map` point by point.
#include <QAction>
#include <QChartView>
#include <QGuiApplication>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenuBar>
#include <QProcess>
#include <QScreen>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QValueAxis>
#include <QtTest/QtTest>
#include <cmath>
#include <map>

#include "ardent/editor/results_panel.h"
#include "ardent/preprocess/wall_admittance.h"
#include "emitters_panel.h"
#include "fit_chart.h"
#include "main_window.h"
#include "map_panel.h"
#include "materials_panel.h"
#include "scene_view.h"

using ardent::editor::MainWindow;

namespace {

// Rows of `t` whose rectangles are not wholly inside its viewport.
int rows_out_of_view(const QTableWidget* t) {
    int out = 0;
    const QRect vp = t->viewport()->rect();
    for (int r = 0; r < t->rowCount(); ++r) {
        const QRect row(0, t->rowViewportPosition(r), vp.width(), t->rowHeight(r));
        out += !vp.contains(row) || t->isRowHidden(r);
    }
    return out;
}

bool is_125(double step) {
    const double m = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    return std::abs(m - 1) < 1e-6 || std::abs(m - 2) < 1e-6 || std::abs(m - 5) < 1e-6;
}

}  // namespace

class TestEditorLayout : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    QString results_;
    MainWindow* w_ = nullptr;

  private slots:
    void initTestCase() {
        // The bundled studio with its listener grid every metre (its own, in cells, leaves two
        // points in a layer at 400 Hz), for the room map.
        QFile bundled(QString(ARDENT_SOURCE_DIR) + "/data/scenes/studio.json");
        QVERIFY(bundled.open(QIODevice::ReadOnly));
        QJsonObject scene = QJsonDocument::fromJson(bundled.readAll()).object();
        QJsonObject geometry = scene["geometry"].toObject();
        geometry["mesh"] = QString(ARDENT_SOURCE_DIR) + "/data/models/studio.obj";
        scene["geometry"] = geometry;
        scene["listener_grid"] = QJsonObject{{"spacing_m", 1.0}};
        QFile copy(tmp_.filePath("studio.json"));
        QVERIFY(copy.open(QIODevice::WriteOnly));
        copy.write(QJsonDocument(scene).toJson());
        copy.close();
        results_ = tmp_.filePath("studio.ardent");
        QProcess sim;
        sim.setProcessChannelMode(QProcess::MergedChannels);
        sim.start(ARDENT_CLI, {"simulate", copy.fileName(), "-o", results_, "--max-frequency",
                               "400", "--duration", "0.3", "--quiet"});
        QVERIFY(sim.waitForFinished(300000));
        QVERIFY2(sim.exitCode() == 0, sim.readAll().constData());
        w_ = new MainWindow;
        w_->show();
        QVERIFY(w_->open_path(QString(ARDENT_SOURCE_DIR) + "/data/scenes/studio.json"));
        QVERIFY(w_->open_results(results_));
        QVERIFY(QTest::qWaitForWindowExposed(w_));
        QTest::qWait(800);  // the docks settle and the view paints
        const QSize screen = QGuiApplication::primaryScreen()->size();
        qInfo("screen %dx%d, window %dx%d", screen.width(), screen.height(), w_->width(),
              w_->height());
    }

    void cleanupTestCase() {
        if (!w_) return;
        const QSize screen = QGuiApplication::primaryScreen()->size();
        const QString png =
            QString(ARDENT_BINARY_DIR) +
            QString("/editor-layout-%1x%2.png").arg(screen.width()).arg(screen.height());
        QVERIFY(w_->grab().save(png));
        qInfo("saved %s", qPrintable(png));
        delete w_;
    }

    void windowFillsTheScreenAndFitsIt() {
        const QRect area = QGuiApplication::primaryScreen()->availableGeometry();
        QVERIFY2(w_->width() <= area.width() && w_->height() <= area.height(),
                 qPrintable(QString("%1x%2").arg(w_->width()).arg(w_->height())));
        QVERIFY2(w_->width() >= std::min(area.width(), 1920) - 40 &&
                     w_->height() >= std::min(area.height(), 1080) - 80,
                 qPrintable(QString("%1x%2").arg(w_->width()).arg(w_->height())));
    }

    void everyMaterialAndEmitterRowIsInView() {
        const auto* materials = w_->materials()->findChild<QTableWidget*>();
        QVERIFY(materials);
        QCOMPARE(materials->rowCount(), 9);
        QCOMPARE(rows_out_of_view(materials), 0);
        const auto* emitters = w_->emitters()->findChild<QTableWidget*>();
        QVERIFY(emitters);
        QCOMPARE(emitters->rowCount(), 6);
        QCOMPARE(rows_out_of_view(emitters), 0);
    }

    void everyIsoRowIsInViewAndTheChartsHaveRoom() {
        const QTableWidget* iso = w_->results()->table();
        QVERIFY(iso->rowCount() >= 9);
        QCOMPARE(rows_out_of_view(iso), 0);
        QVERIFY2(w_->results()->waveformView()->height() >= 180,
                 qPrintable(QString::number(w_->results()->waveformView()->height())));
        QVERIFY2(w_->view()->width() >= 500 && w_->view()->height() >= 280,
                 qPrintable(QString("%1x%2").arg(w_->view()->width()).arg(w_->view()->height())));
    }

    void chartTicksAreNiceSteps() {
        for (QChartView* v : {w_->results()->waveformView(), w_->results()->decayView()})
            for (QAbstractAxis* a : v->chart()->axes()) {
                auto* axis = qobject_cast<QValueAxis*>(a);
                QVERIFY(axis);
                QCOMPARE(axis->tickType(), QValueAxis::TicksDynamic);
                QVERIFY2(is_125(axis->tickInterval()),
                         qPrintable(QString::number(axis->tickInterval())));
                QCOMPARE(axis->tickAnchor(), 0.0);
                QCOMPARE(axis->labelFormat(), QString("%g"));
                QVERIFY(!axis->titleText().isEmpty());
            }
    }

    void theLegendNamesWhatTheViewShows() {
        QStringList labels;
        for (const auto& e : w_->view()->legend())
            labels << e.label;
        for (const auto& m : w_->project()->scene().materials)
            QVERIFY2(labels.contains(QString::fromStdString(m.name)), m.name.c_str());
        QVERIFY(labels.contains("source"));
        QVERIFY(labels.contains("receiver"));
        QVERIFY(!labels.contains("unassigned"));
    }

    void scaleBarAndAxes() {
        const auto* view = w_->view();
        const auto bar = ardent::editor::scale_bar(
            const_cast<ardent::editor::SceneView*>(view)->camera(), view->size(), 110);
        QVERIFY(bar);
        QVERIFY2(is_125(bar->metres), qPrintable(QString::number(bar->metres)));
        QVERIFY2(bar->pixels > 40 && bar->pixels <= 110.001,
                 qPrintable(QString::number(bar->pixels)));
        // The studio is 4.7 x 6.3 x 3.3 m: fitted in the view, a metre or a few.
        QVERIFY(bar->metres >= 0.5 && bar->metres <= 5);
        const auto axes = ardent::editor::axis_directions(
            const_cast<ardent::editor::SceneView*>(view)->camera(), view->size());
        QVERIFY2(axes[2].y() < -0.5, qPrintable(QString::number(axes[2].y())));  // z up on screen
        QVERIFY(std::hypot(axes[0].x(), axes[0].y()) > 0.1);
        QVERIFY(std::hypot(axes[1].x(), axes[1].y()) > 0.1);
    }

    void materialColoursAreDistinct() {
        const QColor unassigned = ardent::editor::material_colour(-1);
        for (int i = 0; i < 24; ++i) {
            const QColor c = ardent::editor::material_colour(i);
            QVERIFY2(c.hue() < 275, qPrintable(QString("material %1: hue %2").arg(i).arg(c.hue())));
            // Neighbours in the list (what a room's first materials get) differ in hue by 30+.
            if (i > 0) {
                const int d = std::abs(c.hue() - ardent::editor::material_colour(i - 1).hue());
                QVERIFY2(std::min(d, 360 - d) >= 30,
                         qPrintable(QString("materials %1, %2").arg(i - 1).arg(i)));
            }
            QVERIFY(std::abs(c.hue() - unassigned.hue()) >= 35);
        }
    }

    // The room map against `ardent analyze --map` of the same grid: the same values at every
    // point of the layer (the wave band at 250 Hz, the geometric part at 1 kHz), one tile per
    // point of the layer, the key's ends the layer's extremes.
    void roomMapMatchesAnalyze() {
        if (QGuiApplication::primaryScreen()->size().width() != 1600)
            QSKIP("the map does not depend on the screen: checked on the 1600 x 1000 display");
        const QString maps = tmp_.filePath("maps");
        QProcess an;
        an.setProcessChannelMode(QProcess::MergedChannels);
        an.start(ARDENT_CLI, {"analyze", "--map", results_ + "/grid/S1.h5", "-o", maps});
        QVERIFY(an.waitForFinished(300000));
        QVERIFY2(an.exitCode() == 0, an.readAll().constData());
        QFile csv(maps + "/map.csv");
        QVERIFY(csv.open(QIODevice::ReadOnly));
        // (point, band) -> T20 and G as `analyze` wrote them.
        std::map<std::pair<int, int>, std::pair<QString, QString>> cli;
        csv.readLine();
        while (!csv.atEnd()) {
            const QStringList f = QString::fromUtf8(csv.readLine()).trimmed().split(',');
            QCOMPARE(f.size(), 13);
            cli[{f[0].toInt(), f[4].toInt()}] = {f[5], f[12]};
        }

        auto* panel = w_->map();
        panel->set_visible_in_view(true);
        QTRY_VERIFY_WITH_TIMEOUT(panel->analysis() != nullptr, 120000);
        for (const auto& [parameter, band] : {std::pair{ardent::auralize::MapParameter::T20, 250},
                                              std::pair{ardent::auralize::MapParameter::G, 1000}}) {
            panel->select("S1", parameter, band, 1.2);
            const auto plane = panel->plane();
            QVERIFY(plane && !plane->points.empty());
            QCOMPARE(w_->view()->map_tiles().size(), plane->points.size());
            double lo = HUGE_VAL, hi = -HUGE_VAL;
            int compared = 0;
            for (size_t i : plane->points) {
                const auto& v = panel->values()[i];
                const auto it = cli.find({static_cast<int>(i), band});
                QVERIFY(it != cli.end());
                const QString& text = parameter == ardent::auralize::MapParameter::T20
                                          ? it->second.first
                                          : it->second.second;
                QCOMPARE(v.has_value() && std::isfinite(*v), !text.isEmpty());
                if (!v) continue;
                QVERIFY2(std::abs(*v - text.toDouble()) <= 1e-6 * std::max(1.0, std::abs(*v)),
                         qPrintable(QString("point %1: %2 against %3").arg(i).arg(*v).arg(text)));
                lo = std::min(lo, *v);
                hi = std::max(hi, *v);
                ++compared;
            }
            qInfo("%s %d Hz: %d of %zu points of the layer compared; %s",
                  parameter == ardent::auralize::MapParameter::T20 ? "T20" : "G", band, compared,
                  plane->points.size(), qPrintable(panel->status()));
            QVERIFY(compared >= 4);
            const auto key = w_->view()->map_key();
            QVERIFY(key);
            QCOMPARE(key->lo, lo);
            QCOMPARE(key->hi, hi);
        }
        // Switched off: the view draws no map.
        panel->set_visible_in_view(false);
        QVERIFY(w_->view()->map_tiles().empty());
        panel->set_visible_in_view(true);  // in the saved picture
    }

    void helpOpensTheDocs() {
        QMenu* help = nullptr;
        for (QAction* a : w_->menuBar()->actions())
            if (a->text().remove('&') == "Help") help = a->menu();
        QVERIFY(help);
        QAction* guide = nullptr;
        for (QAction* a : help->actions())
            if (a->text().remove('&') == "Editor guide") guide = a;
        QVERIFY(guide);
        guide->trigger();
        QVERIFY2(w_->last_doc().endsWith("docs/editor.md"), qPrintable(w_->last_doc()));
        QVERIFY(QFile::exists(w_->last_doc()));
    }

    void theFitIsDrawnThroughItsBands() {
        auto* panel = w_->materials();
        panel->select_group(0);  // the walls: plasterboard
        QTest::qWait(100);
        auto* chart = panel->fit_chart();
        // Shown in the saved picture.
        for (QWidget* p = chart->parentWidget(); p; p = p->parentWidget())
            if (auto* tabs = qobject_cast<QTabWidget*>(p)) {
                tabs->setCurrentWidget(chart);
                break;
            }
        const QList<QPointF> curve = chart->curve(), asked = chart->asked();
        QVERIFY(curve.size() > 50);
        QCOMPARE(asked.size(), 6);
        for (const QPointF& p : curve)
            QVERIFY(p.y() >= 0 && p.y() <= 1);
        // The curve passes near each judged band's asked value (the table's tolerance).
        const ardent::WallFit fit = ardent::fit_wall(
            w_->project()->scene().materials[0], w_->project()->scene().simulation.max_frequency);
        for (const auto& b : fit.bands) {
            if (!b.judged) continue;
            QPointF nearest = curve.front();
            for (const QPointF& p : curve)
                if (std::abs(std::log(p.x() / b.hz)) < std::abs(std::log(nearest.x() / b.hz)))
                    nearest = p;
            QVERIFY2(std::abs(nearest.y() - b.target) <= std::max(0.03, 0.15 * b.target),
                     qPrintable(
                         QString("%1 Hz: %2 against %3").arg(b.hz).arg(nearest.y()).arg(b.target)));
        }
    }
};

QTEST_MAIN(TestEditorLayout)
#include "test_editor_layout.moc"
