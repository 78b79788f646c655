// How tall a table must be to show its rows without scrolling: the editor's panels size their
// tables to their rows (up to a cap), so that every material and emitter is in view at the
// default window sizes (a scrolling two-row table hid most of them).
#pragma once

#include <QGuiApplication>
#include <QHeaderView>
#include <QScreen>
#include <QTableWidget>
#include <algorithm>

namespace ardent::editor {

// The height of `t` showing min(rowCount, max_rows) rows, but at least `min_rows` rows' worth.
inline int table_height_for_rows(const QTableWidget* t, int min_rows, int max_rows) {
    const int rows = std::clamp(t->rowCount(), min_rows, max_rows);
    const int row_height =
        t->rowCount() > 0 ? t->rowHeight(0) : t->verticalHeader()->defaultSectionSize();
    return 2 * t->frameWidth() + t->horizontalHeader()->sizeHint().height() + rows * row_height + 2;
}

// `rows` on a screen at least 1000 pixels high; fewer on a lower one (down to 2 at 700 pixels),
// so that the window still fits the screen and the tables scroll instead.
inline int rows_for_screen(int rows) {
    const QScreen* s = QGuiApplication::primaryScreen();
    const int h = s ? s->availableGeometry().height() : 1000;
    if (h >= 1000) return rows;
    return std::max(2, rows * std::max(0, h - 640) / 360);
}

}  // namespace ardent::editor
