#include "scm/scm_contact_tier.hpp"

namespace talus::scm {

namespace {
const ScmModel& validated(const ScmModel& m) {
  validate(m);
  return m;
}
}  // namespace

ScmContactTier::ScmContactTier(ScmModel model)
    : model_(std::move(validated(model))), state_(model_) {}

void ScmContactTier::step(double dt_s, std::span<const BodyMotion> motions,
                          std::span<Wrench> wrenches) {
  report_ = scm::step(model_, state_, dt_s, motions, wrenches, work_);
}

}  // namespace talus::scm
