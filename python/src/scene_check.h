// The check every Python entry point applies to a scene edited in memory: written as a scene file's
// text and read back by the CLI's parser (scene_parser.h), so that a value set from Python meets
// the same rules and messages as one in a file. Returns the scene as read back.
#pragma once

#include "ardent/preprocess/scene.h"

namespace ardent::python {

Scene checked(const Scene& scene);

}  // namespace ardent::python
