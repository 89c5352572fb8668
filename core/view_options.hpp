#pragma once
// Every tier's optional [view] table: how much of a run `talus view` can play (docs/viewer.md).
//
//   [view]
//   frames = 100        # about this many frames over the run, evenly spaced (0: none)
//   quantised = false   # particle positions as 16-bit steps of each frame's box

#include "core/scenario_file.hpp"

namespace talus {

struct ViewOptions {
  int frames = 100;
  bool quantised = false;
};

/// Reads [view] from a scenario's root table (defaults when it is absent), refusing unknown keys.
ViewOptions read_view_options(const ScenarioTable& root);

}  // namespace talus
