// The material panel: every surface group of the model with the material its first matching
// rule gives (groups no rule matches are listed first, marked, for assignment), a material
// chooser per group offering the scene's materials and the bundled library of published
// coefficients, an editor for the six octave-band coefficients of the selected material, and
// that material's fitted wall per band (FitTable) at the scene's max_frequency.
// Every change goes through the Project, so it is undoable and saved in the scene file.
#pragma once

#include <array>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QTabWidget>
#include <QTableWidget>
#include <QWidget>

#include "fit_chart.h"
#include "fit_table.h"
#include "material_library.h"
#include "project.h"

namespace ardent::editor {

class MaterialsPanel : public QWidget {
    Q_OBJECT
  public:
    MaterialsPanel(Project* project, const MaterialLibrary* library, QWidget* parent = nullptr);

    QTableWidget* groups_table() { return table_; }
    FitTable* fit_table() { return fit_; }
    FitChart* fit_chart() { return fit_chart_; }
    // The fit's tabs (table and curve): hidden while no material is shown.
    QTabWidget* fit_view() { return fit_view_; }
    QString shown_material() const { return material_->currentText(); }
    // Assigns a material by name (the scene's, else the library's) to a mesh group.
    bool assign(int group, const QString& material);

  public slots:
    void select_group(int group);

  signals:
    void groupSelected(int group);
    void message(const QString& text);

  private:
    void rebuild();
    void show_material(const QString& name);
    void refresh_fit();  // the fit of the material shown, at the scene's max_frequency
    void save_material();
    std::vector<AbsorptionBand> panel_bands() const;  // the six octave fields, as bands
    void new_material();

    Project* project_;
    const MaterialLibrary* library_;
    QTableWidget* table_;
    QLabel* summary_;
    QComboBox* material_;
    std::array<QDoubleSpinBox*, 6> bands_{};
    FitTable* fit_;
    FitChart* fit_chart_;
    QTabWidget* fit_view_;
    QLabel* source_;
    bool updating_ = false;
};

}  // namespace ardent::editor
