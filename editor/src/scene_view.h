// The editor's 3-D view (QOpenGLWidget): the model's surfaces coloured by material with the
// near walls culled so the room is seen from inside (whichever way the model's faces are wound),
// sources (red) and receivers (blue) as markers, the audition listener (green) once results with
// a listener grid are open, and optionally the ARD partitions at the current settings as a
// wireframe, a room map on a layer of the listener grid, with a legend of the colours, a scale
// bar and the axes over it. Left drag orbits,
// right or middle drag (or shift + left) pans, the wheel zooms, F fits. Clicking a surface selects
// its material group; in placement mode a click adds a source or receiver at the surface point plus
// a height along the surface normal; dragging a marker moves it the same way, recorded as one
// undoable step when released.
#pragma once

#include <optional>
#include <vector>

#include <QOpenGLBuffer>
#include <QOpenGLFunctions>
#include <QOpenGLShaderProgram>
#include <QOpenGLWidget>

#include "camera.h"
#include "project.h"
#include "view_annotations.h"

namespace ardent::editor {

struct EmitterRef {
    EmitterKind kind = EmitterKind::Source;
    size_t index = 0;
    friend bool operator==(const EmitterRef&, const EmitterRef&) = default;
};

// One listener-grid point of a room map (the map panel): a horizontal square of side `size`
// centred at `centre`, coloured by the point's value.
struct MapTile {
    Vec3 centre;
    double size = 0;
    QColor colour;
};

class SceneView : public QOpenGLWidget, protected QOpenGLFunctions {
    Q_OBJECT
  public:
    enum class Mode { Select, AddSource, AddReceiver };

    explicit SceneView(Project* project, QWidget* parent = nullptr);
    ~SceneView() override;

    void set_mode(Mode mode) { mode_ = mode; }
    Mode mode() const { return mode_; }
    void set_placement_height(double metres) { height_ = metres; }
    double placement_height() const { return height_; }
    void set_selected_group(int group);
    int selected_group() const { return selected_group_; }
    void set_selected_emitter(std::optional<EmitterRef> e);
    std::optional<EmitterRef> selected_emitter() const { return selected_emitter_; }
    // Partition boxes (model coordinates) drawn as a wireframe; empty hides the overlay.
    void set_overlay(std::vector<Box3> boxes);
    void set_overlay_visible(bool on);
    bool overlay_visible() const { return overlay_visible_; }
    void set_cull_near_walls(bool on);
    // The audition listener's marker; dragging it emits listenerMoved() and never edits the scene.
    void set_listener(std::optional<Vec3> position);
    std::optional<Vec3> listener() const { return listener_; }
    // The pick_mesh() cull mode matching what the view draws.
    int cull_mode() const;

    OrbitCamera& camera() { return camera_; }
    // The position a click at `pixel` would place an emitter at (surface point + height).
    std::optional<Vec3> placement_at(QPointF pixel) const;
    // The marker under a pixel (within a few pixels of its centre), if any.
    std::optional<EmitterRef> marker_at(QPointF pixel) const;
    // The legend drawn over the view: the materials the model's groups use (and "unassigned"
    // when a group has none), then the kinds of marker present.
    std::vector<LegendEntry> legend() const;
    // A room map drawn in the room, with its colour key over the view; no tiles: none.
    void set_map(std::vector<MapTile> tiles, std::optional<MapKey> key);
    const std::vector<MapTile>& map_tiles() const { return map_; }
    const std::optional<MapKey>& map_key() const { return map_key_; }
    // The legend, scale bar and axis triad (View menu; on by default).
    void set_annotations_visible(bool on);
    bool annotations_visible() const { return annotations_; }

  public slots:
    void fit();

  signals:
    void groupPicked(int group);
    void emitterSelected(ardent::editor::EmitterRef e);
    void emitterPlaced(ardent::editor::EmitterKind kind);
    void emitterDragged(ardent::editor::EmitterRef e, ardent::Vec3 position);
    void statusText(const QString& text);
    void modeReset();
    void listenerMoved(
        ardent::Vec3 position);  // placement finished or cancelled: back to selecting

  protected:
    void initializeGL() override;
    void resizeGL(int w, int h) override;
    void paintGL() override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;

  private:
    void rebuild_mesh_buffer();
    void rebuild_marker_buffer();
    void rebuild_overlay_buffer();
    void rebuild_map_buffer();
    void on_geometry_changed();
    void draw(QOpenGLBuffer& buffer, int vertices, GLenum primitive);

    Project* project_;
    OrbitCamera camera_;
    Mode mode_ = Mode::Select;
    double height_ = 1.2;
    int selected_group_ = -1;
    std::optional<EmitterRef> selected_emitter_;
    bool cull_ = true;
    int orientation_ = -1;  // winding_orientation() of the mesh
    std::optional<Vec3> listener_;
    bool dragging_listener_ = false;

    QOpenGLShaderProgram program_;
    QOpenGLBuffer mesh_buffer_{QOpenGLBuffer::VertexBuffer};
    QOpenGLBuffer marker_buffer_{QOpenGLBuffer::VertexBuffer};
    QOpenGLBuffer overlay_buffer_{QOpenGLBuffer::VertexBuffer};
    QOpenGLBuffer map_buffer_{QOpenGLBuffer::VertexBuffer};
    int mesh_vertices_ = 0, marker_vertices_ = 0, overlay_vertices_ = 0, map_vertices_ = 0;
    bool mesh_dirty_ = true, markers_dirty_ = true, overlay_dirty_ = true, map_dirty_ = true;
    std::vector<MapTile> map_;
    std::optional<MapKey> map_key_;
    std::vector<Box3> overlay_;
    bool overlay_visible_ = false;
    bool annotations_ = true;

    // Mouse state.
    QPointF press_pos_, last_pos_;
    Qt::MouseButton button_ = Qt::NoButton;
    bool dragged_ = false;
    std::optional<EmitterRef> dragging_;
};

// Colour of material `index` (-1: no material assigned), shared with the material panel.
QColor material_colour(int index);
inline const QColor kSourceColour(230, 40, 40);
inline const QColor kReceiverColour(40, 90, 235);
inline const QColor kListenerColour(40, 200, 90);

}  // namespace ardent::editor
