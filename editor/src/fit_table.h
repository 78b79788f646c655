// The material panel's view of one material's wall fit (fit_wall, docs/materials.md): per band
// the random-incidence absorption asked for, what the fitted passive wall gives by Paris' integral,
// and the difference, as `ardent info` reports it. Bands outside the simulated range (0.05-1 x
// max_frequency, where the fit is not judged) are greyed; a judged band that misses the tolerance
// is orange; an open material shows a single line. The fit's warnings go to a separate label that
// the panel places (full width, below). The fit is redone only when the material or max_frequency
// changes, so every scene change may ask for it.
#pragma once

#include <optional>

#include <QLabel>
#include <QTableWidget>

#include "ardent/preprocess/scene.h"
#include "ardent/preprocess/wall_admittance.h"

namespace ardent::editor {

class FitTable : public QTableWidget {
    Q_OBJECT
  public:
    // The warnings label is created as a child of `parent`, for the parent's layout.
    explicit FitTable(QWidget* parent = nullptr);

    // Shows the fit of `m` for a simulation up to max_frequency (refits only if either changed).
    void show_fit(const Material& m, double max_frequency);
    void show_nothing();  // no material: empty, the warnings hidden, cleared() sent

    QLabel* warnings() { return warnings_; }
    int fits_done() const { return fits_; }  // how often fit_wall ran (tests)

    // Exactly the rows (up to ten; more scroll), and at least three when the panel is squeezed.
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

  signals:
    // After each refit (the panel shows the fit's tabs, FitChart draws it), and when emptied.
    void fitted(const ardent::WallFit& fit);
    void cleared();

  private:
    int height_for_rows(int rows) const;

    QLabel* warnings_;
    std::optional<Material> material_;  // what is shown, with its max_frequency
    double max_frequency_ = 0;
    int fits_ = 0;
};

}  // namespace ardent::editor
