// The editor's document: one Scene (the project model of ardent::preprocess, exactly what the
// scene file holds) plus the mesh it references, an undo stack of whole-scene snapshots, and the
// file it lives in. Widgets never change the scene directly: they build the next Scene and call
// apply(), which records the change for undo/redo; a drag previews without recording and applies
// once when released. The mesh is reloaded only when the geometry changes.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <QObject>
#include <QString>
#include <QUndoStack>

#include "ardent/preprocess/mesh.h"
#include "ardent/preprocess/scene.h"

namespace ardent::editor {

// Which emitter list an index refers to.
enum class EmitterKind { Source, Receiver };

class Project : public QObject {
    Q_OBJECT
  public:
    explicit Project(QObject* parent = nullptr);

    // Opens a scene file (the same validation as `ardent simulate`); throws InputError with the
    // CLI's message and leaves the project unchanged.
    void open_scene(const std::filesystem::path& file);
    // Starts an unsaved project from a model file: the mesh at scale 1 (or `scale`), z up, no
    // surfaces assigned yet (the material panel lists them), no sources or receivers.
    void import_model(const std::filesystem::path& model, double scale = 1.0, char up = 'z');
    // Writes the scene file (atomically) and makes it the project's file.
    void save(const std::filesystem::path& file);

    const Scene& scene() const { return scene_; }
    const TriangleMesh& mesh() const { return mesh_; }
    const std::filesystem::path& file() const { return scene_.file; }
    bool has_scene() const { return loaded_; }
    bool modified() const { return !undo_.isClean(); }
    QUndoStack* undo_stack() { return &undo_; }

    // Material index (into scene().materials) of each mesh group by the first matching surface
    // rule, -1 where no rule matches (listed for assignment).
    std::vector<int> group_materials() const;
    std::vector<size_t> unassigned_groups() const;
    // The name a rule written for `group` matches: the model's material name, else its node name.
    static std::string group_pattern(const SurfaceGroup& group);

    // Records a change: `next` becomes the scene, undoable as `text`. A change to the geometry
    // reloads the mesh first and throws InputError (nothing recorded) when that fails.
    void apply(const Scene& next, const QString& text);
    // Shows `next` without recording it (while dragging); apply() the final state, or
    // cancel_preview(), afterwards.
    void preview(const Scene& next);
    void cancel_preview();

    // Edits built on apply().
    void assign_material(size_t group, const Material& material);
    void set_material(const Material& material);  // add or change by name
    Emitter& emitter(EmitterKind kind, size_t index);
    void add_emitter(EmitterKind kind, Vec3 position);
    void move_emitter(EmitterKind kind, size_t index, Vec3 position);
    void rename_emitter(EmitterKind kind, size_t index, const std::string& name);
    void remove_emitter(EmitterKind kind, size_t index);
    void set_simulation(const SimulationSettings& settings, int listener_grid_every);
    // The same with the listener grid in metres (0: none): the scene keeps its grid as given
    // (cells or metres) while `spacing_m` is the spacing that grid has now, and stores
    // `spacing_m` otherwise.
    void set_simulation_spacing(const SimulationSettings& settings, double spacing_m);

    // Used by the undo commands.
    void restore(const Scene& scene);

  signals:
    void sceneChanged();     // anything in the scene (and after open/import)
    void geometryChanged();  // the mesh was (re)loaded
    // Materials or surface rules changed (so did the surface colours); sent before sceneChanged.
    // Dragging an emitter sends only sceneChanged, so views of the materials stay put then.
    void materialsChanged();
    void fileChanged();  // opened, imported or saved under a new name

  private:
    void set_loaded(Scene scene, TriangleMesh mesh);
    void show(Scene next);  // makes `next` current and sends the signals its changes call for
    std::vector<Emitter>& list(Scene& s, EmitterKind kind) const;

    Scene scene_;
    std::optional<Scene> committed_;  // the recorded scene while a preview shows another
    TriangleMesh mesh_;
    bool loaded_ = false;
    QUndoStack undo_;
};

QString to_qstring(const std::string& s);
std::string to_std(const QString& s);

}  // namespace ardent::editor
