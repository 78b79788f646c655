#include "scene_view.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>
#include <algorithm>
#include <array>
#include <cmath>

namespace ardent::editor {

namespace {

// Position (3), normal (3), colour (3) per vertex. Lighting: a headlight with a floor so that
// faces seen edge-on stay readable.
constexpr int kFloats = 9;

const char* kVertexShader = R"(
attribute vec3 position;
attribute vec3 normal;
attribute vec3 colour;
uniform mat4 mvp;
uniform vec3 eye;
uniform float lit;
varying vec3 v_colour;
void main() {
    gl_Position = mvp * vec4(position, 1.0);
    float k = 1.0;
    if (lit > 0.5) {
        vec3 d = normalize(eye - position);
        k = 0.35 + 0.65 * abs(dot(normalize(normal), d));
    }
    v_colour = colour * k;
}
)";

const char* kFragmentShader = R"(
varying vec3 v_colour;
uniform float alpha;
void main() { gl_FragColor = vec4(v_colour, alpha); }
)";

void push_vertex(std::vector<float>& v, Vec3 p, Vec3 n, const QColor& c) {
    v.insert(v.end(), {static_cast<float>(p.x), static_cast<float>(p.y), static_cast<float>(p.z),
                       static_cast<float>(n.x), static_cast<float>(n.y), static_cast<float>(n.z),
                       static_cast<float>(c.redF()), static_cast<float>(c.greenF()),
                       static_cast<float>(c.blueF())});
}

// An octahedron of radius r around p: a marker readable from every side.
void push_marker(std::vector<float>& v, Vec3 p, double r, const QColor& c) {
    const std::array<Vec3, 6> d = {Vec3{r, 0, 0},  Vec3{-r, 0, 0}, Vec3{0, r, 0},
                                   Vec3{0, -r, 0}, Vec3{0, 0, r},  Vec3{0, 0, -r}};
    for (int sx : {0, 1})
        for (int sy : {2, 3})
            for (int sz : {4, 5}) {
                const Vec3 a = p + d[sx], b = p + d[sy], cc = p + d[sz];
                Vec3 n = cross(b - a, cc - a);
                n = n * (1.0 / norm(n));
                push_vertex(v, a, n, c);
                push_vertex(v, b, n, c);
                push_vertex(v, cc, n, c);
            }
}

}  // namespace

QColor material_colour(int index) {
    if (index < 0) return QColor(235, 60, 200);  // unassigned: loud on purpose
    // Golden-angle hues, neighbours clearly apart, kept out of the magenta and pink band
    // (275-360 degrees) that means "unassigned": a floor in that band read as missing a material.
    constexpr double kRange = 275.0, kGolden = 0.3819660;  // 1 - 1/phi of the range
    const int hue = static_cast<int>(std::fmod(25.0 + index * kGolden * kRange, kRange));
    return QColor::fromHsv(hue, 110, 225);
}

std::vector<LegendEntry> SceneView::legend() const {
    std::vector<LegendEntry> out;
    if (!project_->has_scene()) return out;
    const Scene& s = project_->scene();
    const auto gm = project_->group_materials();
    bool unassigned = false;
    std::vector<bool> used(s.materials.size(), false);
    for (const int m : gm) {
        if (m < 0)
            unassigned = true;
        else if (static_cast<size_t>(m) < used.size())
            used[static_cast<size_t>(m)] = true;
    }
    if (unassigned) out.push_back({material_colour(-1), tr("unassigned"), false});
    for (size_t m = 0; m < used.size(); ++m)
        if (used[m])
            out.push_back(
                {material_colour(static_cast<int>(m)), to_qstring(s.materials[m].name), false});
    if (!s.sources.empty()) out.push_back({kSourceColour, tr("source"), true});
    if (!s.receivers.empty()) out.push_back({kReceiverColour, tr("receiver"), true});
    if (listener_) out.push_back({kListenerColour, tr("listener (audition)"), true});
    return out;
}

SceneView::SceneView(Project* project, QWidget* parent) : QOpenGLWidget(parent), project_(project) {
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(false);
    setMinimumSize(320, 240);
    connect(project_, &Project::geometryChanged, this, &SceneView::on_geometry_changed);
    connect(project_, &Project::materialsChanged, this, [this] {
        mesh_dirty_ = true;  // the surface colours
        update();
    });
    connect(project_, &Project::sceneChanged, this, [this] {
        markers_dirty_ = true;
        update();
    });
}

SceneView::~SceneView() {
    makeCurrent();
    mesh_buffer_.destroy();
    marker_buffer_.destroy();
    overlay_buffer_.destroy();
    map_buffer_.destroy();
    doneCurrent();
}

void SceneView::on_geometry_changed() {
    camera_.set_up_axis(project_->scene().geometry.up_axis());
    orientation_ = winding_orientation(project_->mesh());
    listener_.reset();
    selected_group_ = -1;
    overlay_.clear();
    overlay_dirty_ = true;
    fit();
}

void SceneView::fit() {
    Box3 b = project_->mesh().bounds();
    camera_.fit(b);
    update();
}

void SceneView::set_selected_group(int group) {
    selected_group_ = group;
    mesh_dirty_ = true;
    update();
}

void SceneView::set_selected_emitter(std::optional<EmitterRef> e) {
    selected_emitter_ = e;
    markers_dirty_ = true;
    update();
}

void SceneView::set_overlay(std::vector<Box3> boxes) {
    overlay_ = std::move(boxes);
    overlay_dirty_ = true;
    update();
}

void SceneView::set_map(std::vector<MapTile> tiles, std::optional<MapKey> key) {
    map_ = std::move(tiles);
    map_key_ = map_.empty() ? std::nullopt : std::move(key);
    map_dirty_ = true;
    update();
}

void SceneView::rebuild_map_buffer() {
    std::vector<float> v;
    const Vec3 up{0, 0, 1};  // the grid's layers are planes of one z (auralize::plane_nearest)
    for (const MapTile& m : map_) {
        const double h = 0.5 * m.size;
        const Vec3 c = m.centre;
        const Vec3 a{c.x - h, c.y - h, c.z}, b{c.x + h, c.y - h, c.z}, d{c.x + h, c.y + h, c.z},
            e{c.x - h, c.y + h, c.z};
        for (const Vec3& p : {a, b, d, a, d, e})
            push_vertex(v, p, up, m.colour);
    }
    map_buffer_.bind();
    map_buffer_.allocate(v.data(), static_cast<int>(v.size() * sizeof(float)));
    map_vertices_ = static_cast<int>(v.size() / kFloats);
    map_dirty_ = false;
}

void SceneView::set_overlay_visible(bool on) {
    overlay_visible_ = on;
    update();
}

int SceneView::cull_mode() const {
    // Near walls face away from an eye outside the room when the normals point into it: cull
    // back faces then, front faces for a model wound the other way.
    return cull_ ? (orientation_ > 0 ? -1 : 1) : 0;
}

void SceneView::set_listener(std::optional<Vec3> position) {
    listener_ = position;
    markers_dirty_ = true;
    update();
}

void SceneView::set_cull_near_walls(bool on) {
    cull_ = on;
    update();
}

void SceneView::initializeGL() {
    initializeOpenGLFunctions();
    program_.addShaderFromSourceCode(QOpenGLShader::Vertex, kVertexShader);
    program_.addShaderFromSourceCode(QOpenGLShader::Fragment, kFragmentShader);
    program_.bindAttributeLocation("position", 0);
    program_.bindAttributeLocation("normal", 1);
    program_.bindAttributeLocation("colour", 2);
    program_.link();
    for (QOpenGLBuffer* b : {&mesh_buffer_, &marker_buffer_, &overlay_buffer_, &map_buffer_})
        b->create();
    mesh_dirty_ = markers_dirty_ = overlay_dirty_ = map_dirty_ = true;
}

void SceneView::resizeGL(int, int) {}

void SceneView::rebuild_mesh_buffer() {
    const TriangleMesh& m = project_->mesh();
    const auto gm = project_->group_materials();
    std::vector<float> v;
    v.reserve(m.triangles.size() * 3 * kFloats);
    for (const auto& t : m.triangles) {
        const Vec3 a = m.vertices[t.v[0]], b = m.vertices[t.v[1]], c = m.vertices[t.v[2]];
        Vec3 n = cross(b - a, c - a);
        const double len = norm(n);
        if (len > 0) n = n * (1.0 / len);
        QColor col = material_colour(t.group < gm.size() ? gm[t.group] : -1);
        if (static_cast<int>(t.group) == selected_group_) col = QColor(255, 214, 40);
        push_vertex(v, a, n, col);
        push_vertex(v, b, n, col);
        push_vertex(v, c, n, col);
    }
    mesh_buffer_.bind();
    mesh_buffer_.allocate(v.data(), static_cast<int>(v.size() * sizeof(float)));
    mesh_vertices_ = static_cast<int>(v.size() / kFloats);
    mesh_dirty_ = false;
}

void SceneView::rebuild_marker_buffer() {
    std::vector<float> v;
    const Scene& s = project_->scene();
    const double r = std::max(0.05, 0.012 * norm(project_->mesh().bounds().size()));
    for (EmitterKind kind : {EmitterKind::Source, EmitterKind::Receiver}) {
        const auto& list = kind == EmitterKind::Source ? s.sources : s.receivers;
        for (size_t i = 0; i < list.size(); ++i) {
            QColor c = kind == EmitterKind::Source ? kSourceColour : kReceiverColour;
            if (selected_emitter_ && *selected_emitter_ == EmitterRef{kind, i})
                c = QColor(255, 214, 40);
            push_marker(v, list[i].position, r, c);
        }
    }
    if (listener_) push_marker(v, *listener_, 1.3 * r, kListenerColour);
    marker_buffer_.bind();
    marker_buffer_.allocate(v.data(), static_cast<int>(v.size() * sizeof(float)));
    marker_vertices_ = static_cast<int>(v.size() / kFloats);
    markers_dirty_ = false;
}

void SceneView::rebuild_overlay_buffer() {
    std::vector<float> v;
    const QColor c(30, 160, 90);
    for (const Box3& b : overlay_) {
        // The 12 edges of the box.
        for (int axis = 0; axis < 3; ++axis) {
            const int u = (axis + 1) % 3, w = (axis + 2) % 3;
            for (int i = 0; i < 4; ++i) {
                Vec3 p0 = b.lo;
                p0[u] = (i & 1) ? b.hi[u] : b.lo[u];
                p0[w] = (i & 2) ? b.hi[w] : b.lo[w];
                Vec3 p1 = p0;
                p1[axis] = b.hi[axis];
                push_vertex(v, p0, Vec3{0, 0, 1}, c);
                push_vertex(v, p1, Vec3{0, 0, 1}, c);
            }
        }
    }
    overlay_buffer_.bind();
    overlay_buffer_.allocate(v.data(), static_cast<int>(v.size() * sizeof(float)));
    overlay_vertices_ = static_cast<int>(v.size() / kFloats);
    overlay_dirty_ = false;
}

void SceneView::draw(QOpenGLBuffer& buffer, int vertices, GLenum primitive) {
    if (vertices == 0) return;
    buffer.bind();
    const int stride = kFloats * static_cast<int>(sizeof(float));
    for (int a = 0; a < 3; ++a) {
        program_.enableAttributeArray(a);
        program_.setAttributeBuffer(a, GL_FLOAT, a * 3 * static_cast<int>(sizeof(float)), 3,
                                    stride);
    }
    glDrawArrays(primitive, 0, vertices);
    for (int a = 0; a < 3; ++a)
        program_.disableAttributeArray(a);
}

void SceneView::paintGL() {
    glClearColor(0.16f, 0.17f, 0.19f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    if (!project_->has_scene()) return;
    if (mesh_dirty_) rebuild_mesh_buffer();
    if (markers_dirty_) rebuild_marker_buffer();
    if (overlay_dirty_) rebuild_overlay_buffer();
    if (map_dirty_) rebuild_map_buffer();

    const QSize vp = size() * devicePixelRatioF();
    glViewport(0, 0, vp.width(), vp.height());
    program_.bind();
    program_.setUniformValue("mvp", camera_.projection(size()) * camera_.view());
    const Vec3 e = camera_.eye();
    program_.setUniformValue("eye", QVector3D(static_cast<float>(e.x), static_cast<float>(e.y),
                                              static_cast<float>(e.z)));
    program_.setUniformValue("alpha", 1.0f);
    program_.setUniformValue("lit", 1.0f);

    glEnable(GL_DEPTH_TEST);
    if (cull_mode() != 0) {
        glEnable(GL_CULL_FACE);
        glCullFace(cull_mode() > 0 ? GL_BACK : GL_FRONT);
    }
    draw(mesh_buffer_, mesh_vertices_, GL_TRIANGLES);
    glDisable(GL_CULL_FACE);
    if (map_vertices_ > 0) {
        // The room map: unlit (its colours are the values), a little see-through, in depth with
        // the room so that furniture above it hides it.
        glEnable(GL_BLEND);
        glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
        program_.setUniformValue("lit", 0.0f);
        program_.setUniformValue("alpha", 0.85f);
        draw(map_buffer_, map_vertices_, GL_TRIANGLES);
        glDisable(GL_BLEND);
        program_.setUniformValue("alpha", 1.0f);
        program_.setUniformValue("lit", 1.0f);
    }

    if (overlay_visible_) {
        glEnable(GL_BLEND);
        glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
        program_.setUniformValue("lit", 0.0f);
        program_.setUniformValue("alpha", 0.8f);
        glDisable(GL_DEPTH_TEST);
        draw(overlay_buffer_, overlay_vertices_, GL_LINES);
        glDisable(GL_BLEND);
        program_.setUniformValue("alpha", 1.0f);
        program_.setUniformValue("lit", 1.0f);
    }
    // Markers on top: they sit inside the room and must never hide behind a wall.
    glDisable(GL_DEPTH_TEST);
    draw(marker_buffer_, marker_vertices_, GL_TRIANGLES);
    program_.release();

    if (!annotations_) return;
    QPainter painter(this);
    paint_annotations(painter, size(), legend(), scale_bar(camera_, size()),
                      axis_directions(camera_, size()), map_key_);
}

void SceneView::set_annotations_visible(bool on) {
    annotations_ = on;
    update();
}

std::optional<Vec3> SceneView::placement_at(QPointF pixel) const {
    const auto hit = pick_mesh(project_->mesh(), camera_.ray(pixel, size()), cull_mode());
    if (!hit) return std::nullopt;
    return hit->point + hit->normal * height_;
}

std::optional<EmitterRef> SceneView::marker_at(QPointF pixel) const {
    const Scene& s = project_->scene();
    std::optional<EmitterRef> best;
    double best_d = 12.0;  // pixels
    for (EmitterKind kind : {EmitterKind::Source, EmitterKind::Receiver}) {
        const auto& list = kind == EmitterKind::Source ? s.sources : s.receivers;
        for (size_t i = 0; i < list.size(); ++i) {
            const auto p = camera_.project(list[i].position, size());
            if (!p) continue;
            const double d = std::hypot(p->x() - pixel.x(), p->y() - pixel.y());
            if (d < best_d) {
                best_d = d;
                best = EmitterRef{kind, i};
            }
        }
    }
    return best;
}

void SceneView::mousePressEvent(QMouseEvent* e) {
    press_pos_ = last_pos_ = e->position();
    button_ = e->button();
    dragged_ = false;
    dragging_.reset();
    dragging_listener_ = false;
    if (button_ == Qt::LeftButton && mode_ == Mode::Select &&
        !(e->modifiers() & Qt::ShiftModifier)) {
        if (listener_) {
            const auto p = camera_.project(*listener_, size());
            dragging_listener_ =
                p && std::hypot(p->x() - e->position().x(), p->y() - e->position().y()) < 12.0;
        }
        if (!dragging_listener_) dragging_ = marker_at(e->position());
    }
    if (dragging_) {
        set_selected_emitter(dragging_);
        emit emitterSelected(*dragging_);
    }
}

void SceneView::mouseMoveEvent(QMouseEvent* e) {
    const QPointF d = e->position() - last_pos_;
    last_pos_ = e->position();
    if ((e->position() - press_pos_).manhattanLength() > 3) dragged_ = true;
    if (!dragged_) return;
    if (dragging_listener_) {
        if (const auto p = placement_at(e->position())) {
            set_listener(*p);
            emit listenerMoved(*p);
        }
        return;
    }
    if (dragging_) {
        if (const auto p = placement_at(e->position())) {
            Scene next = project_->scene();
            auto& list = dragging_->kind == EmitterKind::Source ? next.sources : next.receivers;
            list.at(dragging_->index).position = *p;
            project_->preview(next);
            emit emitterDragged(*dragging_, *p);
        }
        return;
    }
    const bool pan = button_ == Qt::RightButton || button_ == Qt::MiddleButton ||
                     (e->modifiers() & Qt::ShiftModifier);
    if (pan)
        camera_.pan(d, size());
    else if (button_ == Qt::LeftButton)
        camera_.orbit(-0.4 * d.x(), 0.4 * d.y());
    update();
}

void SceneView::mouseReleaseEvent(QMouseEvent* e) {
    if (dragging_listener_) {
        dragging_listener_ = false;
        button_ = Qt::NoButton;
        return;
    }
    if (dragging_) {
        if (dragged_) {
            const Vec3 p = (dragging_->kind == EmitterKind::Source ? project_->scene().sources
                                                                   : project_->scene().receivers)
                               .at(dragging_->index)
                               .position;
            project_->move_emitter(dragging_->kind, dragging_->index, p);
        }
        dragging_.reset();
        button_ = Qt::NoButton;
        return;
    }
    if (button_ == Qt::LeftButton && !dragged_) {
        if (mode_ != Mode::Select) {
            if (const auto p = placement_at(e->position())) {
                const EmitterKind kind =
                    mode_ == Mode::AddSource ? EmitterKind::Source : EmitterKind::Receiver;
                project_->add_emitter(kind, *p);
                const auto& list = kind == EmitterKind::Source ? project_->scene().sources
                                                               : project_->scene().receivers;
                set_selected_emitter(EmitterRef{kind, list.size() - 1});
                mode_ = Mode::Select;
                emit emitterPlaced(kind);
                emit emitterSelected(EmitterRef{kind, list.size() - 1});
                emit modeReset();
            } else {
                emit statusText(tr("Click on a surface of the model to place it."));
            }
        } else if (const auto hit = pick_mesh(project_->mesh(), camera_.ray(e->position(), size()),
                                              cull_mode())) {
            const int g = static_cast<int>(project_->mesh().triangles[hit->triangle].group);
            set_selected_group(g);
            emit groupPicked(g);
        } else {
            set_selected_group(-1);
            emit groupPicked(-1);
        }
    }
    button_ = Qt::NoButton;
}

void SceneView::wheelEvent(QWheelEvent* e) {
    camera_.zoom(std::pow(0.999, e->angleDelta().y()));
    update();
}

void SceneView::keyPressEvent(QKeyEvent* e) {
    if (e->key() == Qt::Key_F) {
        fit();
    } else if (e->key() == Qt::Key_Escape) {
        mode_ = Mode::Select;
        emit modeReset();
    } else {
        QOpenGLWidget::keyPressEvent(e);
    }
}

}  // namespace ardent::editor
