// Sources and receivers as an editable table (name, x, y, z in metres, the model's axes): typing
// a coordinate moves the emitter, typing a name renames it, each as one undoable step; a bad
// entry is refused with the reason and the old value comes back. Buttons start placement in the
// 3-D view (click a surface; the height above it is set here) or remove the selected row.
#pragma once

#include <optional>

#include <QDoubleSpinBox>
#include <QPushButton>
#include <QTableWidget>
#include <QWidget>

#include "project.h"
#include "scene_view.h"

namespace ardent::editor {

class EmittersPanel : public QWidget {
    Q_OBJECT
  public:
    explicit EmittersPanel(Project* project, QWidget* parent = nullptr);

    QTableWidget* table() { return table_; }
    QDoubleSpinBox* height_box() { return height_; }
    std::optional<EmitterRef> selected() const;

  public slots:
    void select(ardent::editor::EmitterRef e);

  signals:
    void emitterSelected(ardent::editor::EmitterRef e);
    void placeRequested(ardent::editor::EmitterKind kind);
    void heightChanged(double metres);
    void message(const QString& text);

  private:
    void rebuild();
    void cell_edited(QTableWidgetItem* item);
    EmitterRef ref_of_row(int row) const;

    Project* project_;
    QTableWidget* table_;
    QDoubleSpinBox* height_;
    bool updating_ = false;
};

}  // namespace ardent::editor
