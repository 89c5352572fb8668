#include "scm/soil_flow.hpp"

#include <stdexcept>

// Placeholder while issue 4's flow-field helper works on scm/soil_flow.cpp; replaced before the
// issue is closed.
namespace talus::scm {

void flow_by_local_fields(const FlowParameters&, double, FlowWindow&) {
  throw std::logic_error("soil flow by local flow fields is not built yet");
}

double flow_reach_m(const FlowParameters&, double max_flow_depth_m) {
  return 10.0 * max_flow_depth_m;
}

}  // namespace talus::scm
