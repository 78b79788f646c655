// The material panel's fit table (FitTable) under the offscreen platform, without the main window:
// per band of the selected material the asked and fitted random-incidence absorption exactly as
// fit_wall gives them, bands outside the simulated range greyed and re-marked when max_frequency
// changes (and on undo), a band that misses the tolerance in orange with the fit's warnings below,
// an open material as one line, one fit per change (none for an emitter move), and no crash
// before a scene is loaded or while the scene has no materials.
#include <QApplication>
#include <QHeaderView>
#include <QScrollBar>
#include <QtTest/QtTest>
#include <set>

#include "ardent/preprocess/wall_admittance.h"
#include "fit_table.h"
#include "material_library.h"
#include "materials_panel.h"
#include "project.h"

using ardent::AbsorptionBand;
using ardent::Material;
using ardent::editor::MaterialsPanel;
using ardent::editor::Project;

namespace {

QString data(const QString& rel) {
    return QString(ARDENT_SOURCE_DIR) + "/data/" + rel;
}

// The first mesh group whose material (by the surface rules) is `name`, -1 if none.
int group_of(const Project& p, const std::string& name) {
    const auto gm = p.group_materials();
    for (size_t g = 0; g < gm.size(); ++g)
        if (gm[g] >= 0 && p.scene().materials[static_cast<size_t>(gm[g])].name == name)
            return static_cast<int>(g);
    return -1;
}

Material per_band(const std::string& name, const std::vector<AbsorptionBand>& bands) {
    Material m;
    m.name = name;
    m.set_bands(bands);
    m.per_band = true;
    return m;
}

// Every row of the panel's table against fit_wall on the material shown.
void check_rows(MaterialsPanel& panel, const Project& p) {
    const auto& s = p.scene();
    const int i = s.material_index(panel.shown_material().toStdString());
    QVERIFY(i >= 0);
    const Material& m = s.materials[static_cast<size_t>(i)];
    const ardent::WallFit fit = ardent::fit_wall(m, s.simulation.max_frequency);
    QTableWidget* t = panel.fit_table();
    QVERIFY(!panel.fit_view()->isHidden());
    QCOMPARE(t->rowCount(), static_cast<int>(fit.bands.size()));
    const QColor grey = t->palette().color(QPalette::Disabled, QPalette::Text);
    for (int r = 0; r < t->rowCount(); ++r) {
        const ardent::FittedBand& b = fit.bands[static_cast<size_t>(r)];
        if (m.per_band) {  // the requested column is the material's own band
            QCOMPARE(b.hz, m.absorption[static_cast<size_t>(r)].hz);
            QCOMPARE(t->item(r, 1)->data(Qt::UserRole).toDouble(),
                     m.absorption[static_cast<size_t>(r)].alpha);
        }
        QCOMPARE(t->item(r, 0)->text(), QString::number(b.hz, 'g', 10));
        QCOMPARE(t->item(r, 1)->text(), QString::number(b.target, 'f', 3));
        QCOMPARE(t->item(r, 2)->text(), QString::number(b.fitted, 'f', 3));
        QCOMPARE(t->item(r, 2)->data(Qt::UserRole).toDouble(), b.fitted);
        const bool marked_outside = t->item(r, 0)->toolTip().startsWith("Outside");
        const bool marked_miss = t->item(r, 0)->toolTip().startsWith("Misses");
        QCOMPARE(marked_outside, !b.judged);
        QCOMPARE(marked_miss, b.judged && !b.within_tolerance());
        for (int c = 0; c < 4; ++c) {
            QCOMPARE(t->item(r, c)->toolTip(), t->item(r, 0)->toolTip());
            if (marked_outside) QCOMPARE(t->item(r, c)->foreground().color(), grey);
            QCOMPARE(t->item(r, c)->background().style() != Qt::NoBrush, marked_miss);
        }
    }
    // The table asks for room for every row up to ten (octave bands need no scroll bar).
    if (t->rowCount() <= 10)
        QCOMPARE(t->sizeHint().height(),
                 2 * t->frameWidth() + t->horizontalHeader()->height() +
                     t->rowCount() * t->verticalHeader()->defaultSectionSize());
    const QLabel* w = panel.fit_table()->warnings();
    QCOMPARE(w->isHidden(), fit.warnings.empty());
    for (const std::string& line : fit.warnings)
        QVERIFY2(w->text().contains(QString::fromStdString(line)), qPrintable(w->text()));
}

// The bands the table marks as outside the simulated range.
std::set<double> marked_outside(MaterialsPanel& panel) {
    QTableWidget* t = panel.fit_table();
    std::set<double> out;
    for (int r = 0; r < t->rowCount(); ++r)
        if (t->item(r, 0)->toolTip().startsWith("Outside"))
            out.insert(t->item(r, 0)->text().toDouble());
    return out;
}

// check_rows, stopping the test function at its first failure.
#define CHECK_ROWS(panel, p)                    \
    do {                                        \
        check_rows(panel, p);                   \
        if (QTest::currentTestFailed()) return; \
    } while (0)

}  // namespace

class TestMaterialsFit : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() {
        library_ = ardent::editor::load_material_library(
            (QString(ARDENT_SOURCE_DIR) + "/data/materials/library.json").toStdString());
        QVERIFY(!library_.materials.empty());
    }

    void rowsFollowTheFitAndMaxFrequency() {
        Project p;
        MaterialsPanel panel(&p, &library_);
        panel.resize(480, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        p.open_scene(data("scenes/lshape.json").toStdString());
        QCOMPARE(p.scene().simulation.max_frequency, 1000.0);
        const int g = group_of(p, "carpet_tufted_9mm");
        QVERIFY(g >= 0);
        panel.select_group(g);
        QCOMPARE(panel.shown_material(), QString("carpet_tufted_9mm"));
        // 1 kHz: judged from 50 Hz to 1 kHz.
        CHECK_ROWS(panel, p);
        QCOMPARE(marked_outside(panel), (std::set<double>{2000, 4000}));
        QCOMPARE(panel.fit_table()->item(0, 1)->text(), QString("0.080"));
        // Laid out beside the spin boxes with every row showing.
        QApplication::processEvents();
        QCOMPARE(panel.fit_table()->height(), panel.fit_table()->sizeHint().height());
        QVERIFY(!panel.fit_table()->verticalScrollBar()->isVisible());

        // 4 kHz: judged from 200 Hz, so 125 Hz is out and 2 and 4 kHz are in; one fit.
        const int fits = panel.fit_table()->fits_done();
        auto st = p.scene().simulation;
        st.max_frequency = 4000;
        p.set_simulation(st, p.scene().listener_grid_every);
        QCOMPARE(panel.fit_table()->fits_done(), fits + 1);
        CHECK_ROWS(panel, p);
        QCOMPARE(marked_outside(panel), (std::set<double>{125}));
        p.undo_stack()->undo();
        CHECK_ROWS(panel, p);
        QCOMPARE(marked_outside(panel), (std::set<double>{2000, 4000}));

        // Moving a receiver changes neither the material nor max_frequency: no refit.
        const int before_move = panel.fit_table()->fits_done();
        p.move_emitter(ardent::editor::EmitterKind::Receiver, 0, {6.0, 1.5, 1.2});
        QCOMPARE(panel.fit_table()->fits_done(), before_move);

        // Another group's material replaces the rows.
        const int ceiling = group_of(p, "ceiling_plasterboard");
        panel.select_group(ceiling);
        QCOMPARE(panel.shown_material(), QString("ceiling_plasterboard"));
        CHECK_ROWS(panel, p);
        QCOMPARE(panel.fit_table()->item(0, 1)->text(), QString("0.200"));

        // Applying new coefficients (Project::materialsChanged) refits.
        Material m =
            p.scene()
                .materials[static_cast<size_t>(p.scene().material_index("ceiling_plasterboard"))];
        m.set_bands({{125, 0.5}, {250, 0.4}, {500, 0.3}, {1000, 0.2}, {2000, 0.1}, {4000, 0.05}});
        p.set_material(m);
        QCOMPARE(panel.fit_table()->item(0, 1)->text(), QString("0.500"));
        CHECK_ROWS(panel, p);
    }

    void missesAndWarningsAreShown() {
        Project p;
        MaterialsPanel panel(&p, &library_);
        p.open_scene(data("scenes/lshape.json").toStdString());
        // A steep zigzag no passive wall follows, and more than a locally reacting wall absorbs.
        p.set_material(per_band(
            "zigzag",
            {{125, 0.02}, {250, 0.9}, {500, 0.02}, {1000, 0.98}, {2000, 0.3}, {4000, 0.3}}));
        QVERIFY(panel.assign(group_of(p, "hard_surface"), "zigzag"));
        QCOMPARE(panel.shown_material(), QString("zigzag"));
        CHECK_ROWS(panel, p);
        const auto fit = ardent::fit_wall(p.scene().materials.back(), 1000);
        bool missed = false;
        for (const auto& b : fit.bands)
            missed = missed || (b.judged && !b.within_tolerance());
        QVERIFY2(missed, "the zigzag is expected to miss somewhere");
        QVERIFY(!panel.fit_table()->warnings()->isHidden());
        QVERIFY(panel.fit_table()->warnings()->text().contains("more than a locally reacting"));

        // An open material: one line.
        Material open;
        open.name = "opening";
        open.set_uniform(1.0);
        p.set_material(open);
        QVERIFY(panel.assign(group_of(p, "carpet_tufted_9mm"), "opening"));
        QTableWidget* t = panel.fit_table();
        QCOMPARE(t->rowCount(), 1);
        QCOMPARE(t->columnSpan(0, 0), 4);
        QCOMPARE(t->item(0, 0)->text(), QString("open boundary (absorbing layer)"));
        QVERIFY(panel.fit_table()->warnings()->isHidden());
        // Back to banded rows: the span goes.
        panel.select_group(group_of(p, "ceiling_plasterboard"));
        QCOMPARE(t->columnSpan(0, 0), 1);
        CHECK_ROWS(panel, p);
    }

    void noMaterialsDoesNotCrash() {
        Project p;
        MaterialsPanel panel(&p, &library_);
        // Nothing loaded yet.
        panel.select_group(0);
        panel.select_group(-1);
        QVERIFY(panel.fit_view()->isHidden());
        QCOMPARE(panel.fit_table()->rowCount(), 0);

        // A model without materials: every group unassigned.
        p.import_model(data("models/studio.obj").toStdString());
        QVERIFY(p.scene().materials.empty());
        QVERIFY(!p.unassigned_groups().empty());
        panel.select_group(0);
        QVERIFY(panel.fit_view()->isHidden());
        QCOMPARE(panel.fit_table()->rowCount(), 0);
        auto st = p.scene().simulation;
        st.max_frequency = 2000;
        p.set_simulation(st, 0);
        QVERIFY(panel.fit_view()->isHidden());

        // A library material assigned: its fit shows; undone: gone again.
        QVERIFY(panel.assign(0, "library: carpet_thin"));
        QCOMPARE(panel.shown_material(), QString("carpet_thin"));
        CHECK_ROWS(panel, p);
        p.undo_stack()->undo();
        QVERIFY(p.scene().materials.empty());
        QVERIFY(panel.fit_view()->isHidden());
        QCOMPARE(panel.fit_table()->rowCount(), 0);
        panel.select_group(0);
    }

  private:
    ardent::editor::MaterialLibrary library_;
};

QTEST_MAIN(TestMaterialsFit)
#include "test_materials_fit.moc"
