#include "core/view_options.hpp"

namespace talus {

ViewOptions read_view_options(const ScenarioTable& root) {
  ViewOptions options;
  const std::optional<ScenarioTable> view = root.optional_table("view");
  if (!view) return options;
  options.frames = view->integer_or("frames", options.frames, 0, 100000);
  options.quantised = view->boolean_or("quantised", options.quantised);
  view->refuse_unknown_keys();
  return options;
}

}  // namespace talus
