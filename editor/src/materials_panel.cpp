#include "materials_panel.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTabWidget>
#include <QVBoxLayout>

#include "ardent/preprocess/errors.h"
#include "scene_view.h"
#include "table_rows.h"

namespace ardent::editor {

namespace {
constexpr const char* kLibraryPrefix = "library: ";
}

MaterialsPanel::MaterialsPanel(Project* project, const MaterialLibrary* library, QWidget* parent)
    : QWidget(parent), project_(project), library_(library) {
    auto* layout = new QVBoxLayout(this);
    summary_ = new QLabel(this);
    summary_->setWordWrap(true);
    layout->addWidget(summary_);

    table_ = new QTableWidget(0, 2, this);
    table_->setHorizontalHeaderLabels({tr("Surface group"), tr("Material")});
    // The group's name as wide as it needs, the material's chooser the rest (it was cut to
    // "plaste…").
    table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    table_->verticalHeader()->hide();
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    layout->addWidget(table_, 1);
    connect(table_, &QTableWidget::currentCellChanged, this, [this](int row, int, int, int) {
        if (updating_ || row < 0) return;
        const int g = table_->item(row, 0)->data(Qt::UserRole).toInt();
        emit groupSelected(g);
        if (auto* combo = qobject_cast<QComboBox*>(table_->cellWidget(row, 1)))
            show_material(combo->currentText());
    });

    // The selected material's coefficients, and beside them what its fitted wall absorbs: side
    // by side, the fit costs the crowded panel (and the window's minimum height) nothing.
    auto* grid = new QGridLayout();
    material_ = new QComboBox(this);
    grid->addWidget(new QLabel(tr("Material"), this), 0, 0);
    grid->addWidget(material_, 0, 1, 1, 2);
    for (size_t b = 0; b < bands_.size(); ++b) {
        bands_[b] = new QDoubleSpinBox(this);
        bands_[b]->setRange(0.0, 1.0);
        bands_[b]->setDecimals(3);
        bands_[b]->setSingleStep(0.01);
        const int row = static_cast<int>(b) + 1;
        grid->addWidget(new QLabel(tr("α %1 Hz").arg(kOctaveBandsHz[b]), this), row, 0);
        grid->addWidget(bands_[b], row, 1);
    }
    // The fit as numbers and as a curve over frequency, one tab each: the curve costs no height.
    fit_ = new FitTable(this);
    fit_chart_ = new FitChart(this);
    fit_view_ = new QTabWidget(this);
    fit_view_->addTab(fit_, tr("Fit"));
    fit_view_->addTab(fit_chart_, tr("Curve"));
    fit_view_->setDocumentMode(true);
    fit_view_->hide();  // until a material is shown
    grid->addWidget(fit_view_, 1, 2, static_cast<int>(bands_.size()), 1, Qt::AlignTop);
    connect(fit_, &FitTable::fitted, this, [this](const WallFit& f) {
        fit_chart_->show_fit(f);
        fit_view_->show();
    });
    connect(fit_, &FitTable::cleared, this, [this] {
        fit_chart_->show_nothing();
        fit_view_->hide();
    });
    grid->setColumnStretch(1, 2);
    grid->setColumnStretch(2, 3);
    layout->addLayout(grid);
    layout->addWidget(fit_->warnings());
    auto* buttons = new QHBoxLayout();
    auto* save = new QPushButton(tr("Apply coefficients"), this);
    auto* add = new QPushButton(tr("New material…"), this);
    buttons->addWidget(save);
    buttons->addWidget(add);
    layout->addLayout(buttons);
    source_ = new QLabel(this);
    // One line (the full citation in the tooltip): the panel's height goes to the tables.
    const QString citation = tr("Library: %1").arg(to_qstring(library_->source));
    source_->setToolTip(citation);
    source_->setText(source_->fontMetrics().elidedText(citation, Qt::ElideRight, 380));
    source_->setStyleSheet("color: gray; font-size: small;");
    layout->addWidget(source_);

    connect(material_, &QComboBox::currentTextChanged, this, &MaterialsPanel::show_material);
    connect(save, &QPushButton::clicked, this, &MaterialsPanel::save_material);
    connect(add, &QPushButton::clicked, this, &MaterialsPanel::new_material);
    connect(project_, &Project::materialsChanged, this, &MaterialsPanel::rebuild);
    // max_frequency has no signal of its own: every scene change looks, and the table refits only
    // when the material or max_frequency differ from what it shows.
    connect(project_, &Project::sceneChanged, this, &MaterialsPanel::refresh_fit);
}

void MaterialsPanel::rebuild() {
    updating_ = true;
    const int current_row = table_->currentRow();
    const Scene& s = project_->scene();
    const TriangleMesh& m = project_->mesh();
    const auto gm = project_->group_materials();
    // Unassigned groups first: they are what the user must act on.
    std::vector<size_t> order;
    for (size_t g = 0; g < gm.size(); ++g)
        if (gm[g] < 0) order.push_back(g);
    for (size_t g = 0; g < gm.size(); ++g)
        if (gm[g] >= 0) order.push_back(g);
    table_->setRowCount(static_cast<int>(order.size()));
    for (int row = 0; row < static_cast<int>(order.size()); ++row) {
        const size_t g = order[static_cast<size_t>(row)];
        auto* item = new QTableWidgetItem(to_qstring(m.groups[g].label()));
        item->setData(Qt::UserRole, static_cast<int>(g));
        item->setData(Qt::DecorationRole, material_colour(gm[g]));
        if (gm[g] < 0)
            item->setToolTip(tr("No surface rule matches this group: assign a material."));
        table_->setItem(row, 0, item);
        auto* combo = new QComboBox(table_);
        if (gm[g] < 0) combo->addItem(tr("(unassigned)"));
        for (const Material& mat : s.materials)
            combo->addItem(to_qstring(mat.name));
        for (const LibraryMaterial& lm : library_->materials)
            if (s.material_index(lm.material.name) < 0) {
                combo->addItem(kLibraryPrefix + to_qstring(lm.material.name));
                combo->setItemData(combo->count() - 1, to_qstring(lm.description), Qt::ToolTipRole);
            }
        combo->setCurrentIndex(gm[g] < 0 ? 0 : gm[g]);
        connect(combo, &QComboBox::textActivated, this,
                [this, g](const QString& text) { assign(static_cast<int>(g), text); });
        table_->setCellWidget(row, 1, combo);
    }
    // Every group in view up to a dozen; more scroll.
    table_->setMinimumHeight(table_height_for_rows(table_, 2, rows_for_screen(12)));
    const size_t unassigned = project_->unassigned_groups().size();
    summary_->setText(
        unassigned == 0
            ? tr("%1 surface groups, %2 materials.").arg(gm.size()).arg(s.materials.size())
            : tr("<b>%1 of %2 surface groups have no material</b>: choose one for "
                 "each before simulating.")
                  .arg(unassigned)
                  .arg(gm.size()));
    {
        const QSignalBlocker block(material_);
        const QString keep = material_->currentText();
        material_->clear();
        for (const Material& mat : s.materials)
            material_->addItem(to_qstring(mat.name));
        const int i = material_->findText(keep);
        material_->setCurrentIndex(i >= 0 ? i : 0);
    }
    show_material(material_->currentText());
    if (current_row >= 0 && current_row < table_->rowCount())
        table_->setCurrentCell(current_row, 0);
    updating_ = false;
}

void MaterialsPanel::select_group(int group) {
    updating_ = true;
    for (int row = 0; row < table_->rowCount(); ++row)
        if (table_->item(row, 0)->data(Qt::UserRole).toInt() == group) {
            table_->setCurrentCell(row, 0);
            table_->scrollToItem(table_->item(row, 0));
            if (auto* combo = qobject_cast<QComboBox*>(table_->cellWidget(row, 1)))
                show_material(combo->currentText());
        }
    if (group < 0) table_->clearSelection();
    updating_ = false;
}

bool MaterialsPanel::assign(int group, const QString& text) {
    QString name = text;
    if (name.startsWith(kLibraryPrefix)) name = name.mid(static_cast<int>(strlen(kLibraryPrefix)));
    const Scene& s = project_->scene();
    const int i = s.material_index(to_std(name));
    Material mat;
    if (i >= 0) {
        mat = s.materials[static_cast<size_t>(i)];
    } else if (const LibraryMaterial* lm = library_->find(to_std(name))) {
        mat = lm->material;
    } else {
        return false;  // "(unassigned)"
    }
    project_->assign_material(static_cast<size_t>(group), mat);
    show_material(name);
    return true;
}

void MaterialsPanel::show_material(const QString& text) {
    QString name = text;
    if (name.startsWith(kLibraryPrefix)) name = name.mid(static_cast<int>(strlen(kLibraryPrefix)));
    const Scene& s = project_->scene();
    const int i = s.material_index(to_std(name));
    if (i >= 0) {
        const QSignalBlocker block(material_);
        material_->setCurrentText(name);
        for (size_t b = 0; b < bands_.size(); ++b)
            bands_[b]->setValue(
                s.materials[static_cast<size_t>(i)].absorption_at(kOctaveBandsHz[b]));
    }
    refresh_fit();
}

void MaterialsPanel::refresh_fit() {
    const Scene& s = project_->scene();
    const int i = s.material_index(to_std(material_->currentText()));
    if (i < 0) {
        fit_->show_nothing();  // no materials yet
        return;
    }
    fit_->show_fit(s.materials[static_cast<size_t>(i)], s.simulation.max_frequency);
}

std::vector<AbsorptionBand> MaterialsPanel::panel_bands() const {
    std::vector<AbsorptionBand> bands;
    for (size_t b = 0; b < bands_.size(); ++b)
        bands.push_back({static_cast<double>(kOctaveBandsHz[b]), bands_[b]->value()});
    return bands;
}

void MaterialsPanel::save_material() {
    const Scene& s = project_->scene();
    const int i = s.material_index(to_std(material_->currentText()));
    if (i < 0) return;
    Material m = s.materials[static_cast<size_t>(i)];
    m.set_bands(panel_bands());
    project_->set_material(m);
}

void MaterialsPanel::new_material() {
    bool ok = false;
    const QString name = QInputDialog::getText(this, tr("New material"), tr("Name:"),
                                               QLineEdit::Normal, QString(), &ok)
                             .trimmed();
    if (!ok || name.isEmpty()) return;
    if (project_->scene().material_index(to_std(name)) >= 0) {
        emit message(tr("A material named \"%1\" exists already.").arg(name));
        return;
    }
    Material m;
    m.name = to_std(name);
    m.set_bands(panel_bands());
    project_->set_material(m);
    material_->setCurrentText(name);
}

}  // namespace ardent::editor
