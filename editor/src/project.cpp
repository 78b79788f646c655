#include "project.h"

#include <QUndoCommand>

#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/mesh_import.h"
#include "ardent/preprocess/scene_parser.h"
#include "ardent/preprocess/scene_writer.h"
#include "ardent/preprocess/surface_map.h"

namespace ardent::editor {
namespace fs = std::filesystem;

QString to_qstring(const std::string& s) {
    return QString::fromStdString(s);
}
std::string to_std(const QString& s) {
    return s.toStdString();
}

namespace {

bool same_geometry(const Geometry& a, const Geometry& b) {
    return a.mesh == b.mesh && a.box == b.box && a.scale == b.scale && a.up == b.up;
}

bool same_materials(const Scene& a, const Scene& b) {
    if (a.materials.size() != b.materials.size() || a.surfaces.size() != b.surfaces.size())
        return false;
    for (size_t i = 0; i < a.materials.size(); ++i) {
        const Material &x = a.materials[i], &y = b.materials[i];
        if (x.name != y.name || x.absorption != y.absorption || x.per_band != y.per_band)
            return false;
    }
    for (size_t i = 0; i < a.surfaces.size(); ++i)
        if (a.surfaces[i].pattern != b.surfaces[i].pattern ||
            a.surfaces[i].material != b.surfaces[i].material)
            return false;
    return true;
}

// One recorded change: the scene before and after (scenes are small; the mesh is not in them).
class SceneEdit : public QUndoCommand {
  public:
    SceneEdit(Project* project, Scene before, Scene after, const QString& text)
        : QUndoCommand(text),
          project_(project),
          before_(std::move(before)),
          after_(std::move(after)) {}
    void undo() override { project_->restore(before_); }
    void redo() override { project_->restore(after_); }

  private:
    Project* project_;
    Scene before_, after_;
};

std::string unique_name(const std::vector<Emitter>& list, const std::string& prefix) {
    for (size_t n = list.size() + 1;; ++n) {
        const std::string name = prefix + std::to_string(n);
        bool used = false;
        for (const auto& e : list)
            used = used || e.name == name;
        if (!used) return name;
    }
}

}  // namespace

Project::Project(QObject* parent) : QObject(parent) {}

void Project::set_loaded(Scene scene, TriangleMesh mesh) {
    undo_.clear();
    committed_.reset();
    scene_ = std::move(scene);
    mesh_ = std::move(mesh);
    loaded_ = true;
    emit geometryChanged();
    emit materialsChanged();
    emit sceneChanged();
    emit fileChanged();
}

void Project::open_scene(const fs::path& file) {
    Scene s = load_scene(file);
    TriangleMesh m = load_geometry(s);
    set_loaded(std::move(s), std::move(m));
}

void Project::import_model(const fs::path& model, double scale, char up) {
    Scene s;
    s.name = model.stem().string();
    s.geometry.mesh = fs::absolute(model).lexically_normal();
    s.geometry.scale = scale;
    s.geometry.up = up;
    // import_mesh directly: its message names the model alone, as the tail of what the CLI says
    // about a scene that uses it.
    TriangleMesh m = import_mesh(s.geometry.mesh, scale);
    if (m.triangles.empty()) throw InputError(model.string() + ": the model has no triangles");
    set_loaded(std::move(s), std::move(m));
}

void Project::save(const fs::path& file) {
    cancel_preview();
    const fs::path target = fs::absolute(file);
    // The user chose this file (the save dialog asked before replacing it, or it is the scene's
    // own): a regular file is replaced; anything else is refused.
    OutputRules rules;
    rules.replace = true;
    save_scene(scene_, target, rules);
    const bool renamed = scene_.file != target;
    scene_.file = target;
    undo_.setClean();
    if (renamed) emit fileChanged();
}

std::string Project::group_pattern(const SurfaceGroup& group) {
    return group.material.empty() ? group.node : group.material;
}

std::vector<int> Project::group_materials() const {
    std::vector<int> out(mesh_.groups.size(), -1);
    for (size_t g = 0; g < mesh_.groups.size(); ++g) {
        for (const SurfaceRule& r : scene_.surfaces) {
            if (glob_match(r.pattern, mesh_.groups[g].material) ||
                glob_match(r.pattern, mesh_.groups[g].node)) {
                out[g] = scene_.material_index(r.material);
                break;
            }
        }
    }
    return out;
}

std::vector<size_t> Project::unassigned_groups() const {
    std::vector<size_t> out;
    const auto gm = group_materials();
    for (size_t g = 0; g < gm.size(); ++g)
        if (gm[g] < 0) out.push_back(g);
    return out;
}

void Project::restore(const Scene& scene) {
    const bool geometry = !same_geometry(scene.geometry, scene_.geometry);
    TriangleMesh m;
    if (geometry) m = load_geometry(scene);  // checked in apply(), so it loads again here
    Scene next = scene;
    next.file = scene_.file;  // undo never moves the project to another file
    committed_.reset();
    if (geometry) {
        mesh_ = std::move(m);
        scene_ = std::move(next);
        emit geometryChanged();
        emit materialsChanged();
        emit sceneChanged();
        return;
    }
    show(std::move(next));
}

void Project::show(Scene next) {
    const bool materials = !same_materials(scene_, next);
    scene_ = std::move(next);
    if (materials) emit materialsChanged();
    emit sceneChanged();
}

void Project::apply(const Scene& next, const QString& text) {
    Scene before = committed_ ? *committed_ : scene_;
    if (!same_geometry(next.geometry, before.geometry)) (void)load_geometry(next);  // may throw
    if (same_scene(before, next)) {  // nothing changed (a click without a drag)
        if (committed_) restore(before);
        return;
    }
    committed_.reset();
    scene_ = before;
    undo_.push(new SceneEdit(this, std::move(before), next, text));
}

void Project::preview(const Scene& next) {
    if (!committed_) committed_ = scene_;
    show(next);
}

void Project::cancel_preview() {
    if (committed_) restore(*committed_);
}

std::vector<Emitter>& Project::list(Scene& s, EmitterKind kind) const {
    return kind == EmitterKind::Source ? s.sources : s.receivers;
}

Emitter& Project::emitter(EmitterKind kind, size_t index) {
    return list(scene_, kind).at(index);
}

void Project::set_material(const Material& material) {
    Scene next = scene_;
    const int i = next.material_index(material.name);
    if (i >= 0)
        next.materials[static_cast<size_t>(i)] = material;
    else
        next.materials.push_back(material);
    apply(next, tr("Edit material %1").arg(to_qstring(material.name)));
}

void Project::assign_material(size_t group, const Material& material) {
    Scene next = scene_;
    if (next.material_index(material.name) < 0) next.materials.push_back(material);
    const std::string pattern = group_pattern(mesh_.groups.at(group));
    bool found = false;
    for (SurfaceRule& r : next.surfaces) {
        if (r.pattern == pattern) {
            r.material = material.name;
            found = true;
        }
    }
    // A new rule goes first: the first match wins, so it overrides wider globs such as "*".
    if (!found) next.surfaces.insert(next.surfaces.begin(), SurfaceRule{pattern, material.name});
    apply(next, tr("Assign %1 to %2")
                    .arg(to_qstring(material.name), to_qstring(mesh_.groups[group].label())));
}

void Project::add_emitter(EmitterKind kind, Vec3 position) {
    Scene next = scene_;
    auto& l = list(next, kind);
    const std::string name = unique_name(l, kind == EmitterKind::Source ? "S" : "R");
    l.push_back(Emitter{name, position});
    apply(next, tr("Add %1").arg(to_qstring(name)));
}

void Project::move_emitter(EmitterKind kind, size_t index, Vec3 position) {
    Scene next = committed_ ? *committed_ : scene_;
    auto& e = list(next, kind).at(index);
    e.position = position;
    apply(next, tr("Move %1").arg(to_qstring(e.name)));
}

void Project::rename_emitter(EmitterKind kind, size_t index, const std::string& name) {
    Scene next = scene_;
    auto& l = list(next, kind);
    for (size_t i = 0; i < l.size(); ++i)
        if (i != index && l[i].name == name)
            throw InputError("the name \"" + name + "\" is already used");
    if (name.empty()) throw InputError("a name cannot be empty");
    const std::string old = l.at(index).name;
    l.at(index).name = name;
    apply(next, tr("Rename %1 to %2").arg(to_qstring(old), to_qstring(name)));
}

void Project::remove_emitter(EmitterKind kind, size_t index) {
    Scene next = scene_;
    auto& l = list(next, kind);
    const std::string name = l.at(index).name;
    l.erase(l.begin() + static_cast<std::ptrdiff_t>(index));
    apply(next, tr("Remove %1").arg(to_qstring(name)));
}

void Project::set_simulation(const SimulationSettings& settings, int listener_grid_every) {
    Scene next = scene_;
    next.simulation = settings;
    // A grid given in metres stays so unless its step in cells was edited.
    if (listener_grid_every != scene_.listener_grid_cells()) {
        next.listener_grid_every = listener_grid_every;
        next.listener_grid_spacing_m = 0;
    }
    apply(next, tr("Change simulation settings"));
}

void Project::set_simulation_spacing(const SimulationSettings& settings, double spacing_m) {
    Scene next = scene_;
    next.simulation = settings;
    const double now = scene_.listener_grid_cells() * scene_.simulation.cell_size();
    if (std::abs(spacing_m - now) > 1e-6 * std::max(1.0, now)) {
        next.listener_grid_every = 0;
        next.listener_grid_spacing_m = spacing_m > 0 ? spacing_m : 0;
    }
    apply(next, tr("Change simulation settings"));
}

}  // namespace ardent::editor
