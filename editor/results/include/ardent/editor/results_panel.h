// The editor's results panel (issue 7, item 4): for a results directory of `ardent simulate`, a
// source/receiver pair selector and, for the selected pair, the IR waveform, its magnitude
// spectrum and the energy decay curves per octave band (Qt Charts), and the ISO 3382-1 table,
// exportable as CSV, and a comparison with another run drawn over it. The numbers are those of
// `ardent simulate`'s result.json: the same auralize::analyze_ir on the same IR, octave bands up to
// 0.8 f_max (results_data.h).
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>
#include <optional>

#include "ardent/editor/results_data.h"

class QChart;
class QCheckBox;
class QChartView;
class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;
class QLineSeries;

namespace ardent::editor {

class ResultsPanel : public QWidget {
    Q_OBJECT

  public:
    explicit ResultsPanel(QWidget* parent = nullptr);
    ~ResultsPanel() override;

    // Reads result.json and every IR of `results_dir`, then shows its first pair. On failure
    // returns false with a message naming the file and what is wrong, and keeps showing what it
    // showed before.
    bool load(const QString& results_dir, QString* error);
    void clear();
    QString resultsDir() const;
    // A warning shown above the charts until the next load() or clear() (empty: none): the
    // editor's word that these results are not of the scene it shows.
    void setNotice(const QString& text);
    QString notice() const;

    // Selects a pair by name (no-op when there is no such pair); emits pairSelected.
    void select(const QString& source, const QString& receiver);
    int pairCount() const;
    QString currentSource() const;
    QString currentReceiver() const;

    // The ISO 3382-1 table as CSV: a header row of the bands ("parameter,63 Hz,125 Hz,..."), one
    // row per parameter with its unit in its name, empty cells where the band does not allow a
    // value, and one row per reverberation time saying whether it met ISO 3382-1's dynamic range
    // (1/0). Written atomically (a temporary file beside it, renamed): the target is replaced, so
    // the caller must have the user's consent (the button's file dialog asks). False with a
    // message naming the file when nothing is selected or the file cannot be written.
    bool export_csv(const QString& file, QString* error) const;

    // Comparison with another run (results_compare.cpp): the same pair of another results
    // directory drawn behind the current one in every chart (grey IR and spectrum, dashed decay
    // curves in each band's colour), and each table value's reference and difference in its
    // tooltip, or the differences (current - reference) in the cells with setShowDifferences.
    // False with a message naming the file when the directory cannot be read; the comparison then
    // stays as it was. Directories loaded earlier in the session are offered in the "Compare
    // with" list.
    bool setReference(const QString& results_dir, QString* error);
    void clearReference();
    QString referenceDir() const;
    // The reference's analysis of the shown pair (nullptr when there is none, or the reference
    // does not hold the pair).
    const auralize::Analysis* referenceAnalysis() const;
    void setShowDifferences(bool on);
    QStringList comparisonChoices() const;  // the directories the list offers

    // For tests and the main window.
    const QTableWidget* table() const { return table_; }
    QChartView* waveformView() const { return waveform_view_; }
    QChartView* spectrumView() const { return spectrum_view_; }
    QChartView* decayView() const { return decay_view_; }
    int waveformPointCount() const;
    int spectrumPointCount() const;
    // One series per octave band, named by its centre ("125 Hz").
    QStringList decayBands() const;
    // The analysis of the selected pair (nullptr when none).
    const auralize::Analysis* analysis() const;

  signals:
    void pairSelected(QString source, QString receiver);

  private slots:
    void onPairIndex(int index);
    void onExportClicked();
    void onCompareIndex(int index);

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    // read_results with its message in `error` (nothing on failure).
    static std::optional<ResultsData> read(const QString& results_dir, QString* error);
    void showPair(int index);
    void drawWaveform();
    void fillTable();
    // results_compare.cpp: the reference's part of showPair and fillTable.
    const ResultPair* referencePair() const;
    void analyzeReference();
    void drawReference();
    void describeCells();
    void rememberDir(const QString& dir);
    void updateCompareList();

    ResultsData data_;
    int current_ = -1;
    std::optional<auralize::Analysis> analysis_;
    QString analysis_error_;

    QComboBox* pairs_ = nullptr;
    QLabel* info_ = nullptr;
    QLabel* notice_ = nullptr;
    QChartView* waveform_view_ = nullptr;
    QChartView* spectrum_view_ = nullptr;
    QChartView* decay_view_ = nullptr;
    QLineSeries* waveform_ = nullptr;
    QLineSeries* spectrum_ = nullptr;
    QTableWidget* table_ = nullptr;
    QPushButton* export_ = nullptr;

    ResultsData reference_;
    std::optional<auralize::Analysis> reference_analysis_;
    QStringList seen_dirs_;  // results directories loaded this session, latest first
    QComboBox* compare_ = nullptr;
    QCheckBox* differences_ = nullptr;
};

}  // namespace ardent::editor
