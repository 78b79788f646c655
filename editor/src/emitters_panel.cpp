#include "emitters_panel.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QVBoxLayout>
#include <cmath>

#include "ardent/preprocess/errors.h"
#include "table_rows.h"

namespace ardent::editor {

EmittersPanel::EmittersPanel(Project* project, QWidget* parent)
    : QWidget(parent), project_(project) {
    auto* layout = new QVBoxLayout(this);
    table_ = new QTableWidget(0, 5, this);
    table_->setHorizontalHeaderLabels(
        {tr("Name"), tr("x (m)"), tr("y (m)"), tr("z (m)"), tr("Kind")});
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    table_->verticalHeader()->hide();
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    layout->addWidget(table_, 1);

    auto* buttons = new QHBoxLayout();
    auto* add_s = new QPushButton(tr("Add source"), this);
    auto* add_r = new QPushButton(tr("Add receiver"), this);
    auto* remove = new QPushButton(tr("Remove"), this);
    add_s->setToolTip(tr("Then click a surface in the 3-D view"));
    add_r->setToolTip(tr("Then click a surface in the 3-D view"));
    buttons->addWidget(add_s);
    buttons->addWidget(add_r);
    buttons->addWidget(remove);
    layout->addLayout(buttons);
    auto* form = new QFormLayout();
    height_ = new QDoubleSpinBox(this);
    height_->setRange(0.0, 100.0);
    height_->setDecimals(2);
    height_->setSingleStep(0.1);
    height_->setValue(1.2);
    height_->setSuffix(" m");
    height_->setToolTip(tr("Distance from the clicked surface, along its normal"));
    form->addRow(tr("Height above surface"), height_);
    layout->addLayout(form);

    connect(add_s, &QPushButton::clicked, this,
            [this] { emit placeRequested(EmitterKind::Source); });
    connect(add_r, &QPushButton::clicked, this,
            [this] { emit placeRequested(EmitterKind::Receiver); });
    connect(remove, &QPushButton::clicked, this, [this] {
        if (const auto e = selected()) project_->remove_emitter(e->kind, e->index);
    });
    connect(height_, &QDoubleSpinBox::valueChanged, this, &EmittersPanel::heightChanged);
    connect(table_, &QTableWidget::itemChanged, this, &EmittersPanel::cell_edited);
    connect(table_, &QTableWidget::currentCellChanged, this, [this](int row, int, int, int) {
        if (!updating_ && row >= 0) emit emitterSelected(ref_of_row(row));
    });
    connect(project_, &Project::sceneChanged, this, &EmittersPanel::rebuild);
}

EmitterRef EmittersPanel::ref_of_row(int row) const {
    const size_t n_src = project_->scene().sources.size();
    const size_t r = static_cast<size_t>(row);
    return r < n_src ? EmitterRef{EmitterKind::Source, r}
                     : EmitterRef{EmitterKind::Receiver, r - n_src};
}

std::optional<EmitterRef> EmittersPanel::selected() const {
    const int row = table_->currentRow();
    if (row < 0 || row >= table_->rowCount()) return std::nullopt;
    return ref_of_row(row);
}

void EmittersPanel::rebuild() {
    updating_ = true;
    const int row_keep = table_->currentRow();
    const Scene& s = project_->scene();
    table_->setRowCount(static_cast<int>(s.sources.size() + s.receivers.size()));
    int row = 0;
    for (EmitterKind kind : {EmitterKind::Source, EmitterKind::Receiver}) {
        for (const Emitter& e : kind == EmitterKind::Source ? s.sources : s.receivers) {
            table_->setItem(row, 0, new QTableWidgetItem(to_qstring(e.name)));
            for (int a = 0; a < 3; ++a)
                table_->setItem(row, 1 + a,
                                new QTableWidgetItem(QString::number(e.position[a], 'f', 3)));
            auto* k =
                new QTableWidgetItem(kind == EmitterKind::Source ? tr("source") : tr("receiver"));
            k->setFlags(k->flags() & ~Qt::ItemIsEditable);
            k->setForeground(kind == EmitterKind::Source ? QColor(200, 30, 30)
                                                         : QColor(30, 70, 210));
            table_->setItem(row, 4, k);
            ++row;
        }
    }
    if (row_keep >= 0 && row_keep < table_->rowCount()) table_->setCurrentCell(row_keep, 0);
    // Every source and receiver in view up to eight; more scroll.
    table_->setMinimumHeight(table_height_for_rows(table_, 2, rows_for_screen(8)));
    updating_ = false;
}

void EmittersPanel::select(EmitterRef e) {
    updating_ = true;
    const int row = static_cast<int>(
        e.kind == EmitterKind::Source ? e.index : project_->scene().sources.size() + e.index);
    if (row < table_->rowCount()) table_->setCurrentCell(row, 0);
    updating_ = false;
}

void EmittersPanel::cell_edited(QTableWidgetItem* item) {
    if (updating_) return;
    const EmitterRef e = ref_of_row(item->row());
    const Scene& s = project_->scene();
    const Emitter& old = (e.kind == EmitterKind::Source ? s.sources : s.receivers).at(e.index);
    try {
        if (item->column() == 0) {
            project_->rename_emitter(e.kind, e.index, to_std(item->text().trimmed()));
        } else {
            bool ok = false;
            const double v = item->text().toDouble(&ok);
            if (!ok || !std::isfinite(v))
                throw InputError("\"" + to_std(item->text()) + "\" is not a coordinate in metres");
            Vec3 p = old.position;
            p[item->column() - 1] = v;
            project_->move_emitter(e.kind, e.index, p);
        }
    } catch (const InputError& err) {
        emit message(to_qstring(old.name) + ": " + QString::fromUtf8(err.what()));
        rebuild();
    }
}

}  // namespace ardent::editor
