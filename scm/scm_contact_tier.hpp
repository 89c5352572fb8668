#pragma once
// The soil tier as a coupling partner for a rigid-body engine (robot/ couples MuJoCo bodies
// through core/contact_tier.hpp): owns the SCM model, state and workspace.

#include "core/contact_tier.hpp"
#include "scm/scm_step.hpp"

namespace talus::scm {

class ScmContactTier final : public talus::ContactTier {
 public:
  /// Validates the model (throws std::invalid_argument naming the bad field).
  explicit ScmContactTier(ScmModel model);
  std::span<const CoupledBody> bodies() const override { return model_.bodies; }
  /// One SCM step of dt_s; see scm::step.
  void step(double dt_s, std::span<const BodyMotion> motions, std::span<Wrench> wrenches) override;
  /// A copy of the ScmState (the workspace holds nothing the next step reads).
  std::unique_ptr<Snapshot> snapshot() const override {
    return std::make_unique<StateSnapshot<ScmState>>(state_);
  }
  void restore(const Snapshot& snapshot) override {
    state_ = snapshot_state<ScmState>(snapshot, "SCM");
  }

  const ScmModel& model() const { return model_; }
  const ScmState& state() const { return state_; }
  const ScmStepReport& last_report() const { return report_; }

 private:
  ScmModel model_;
  ScmState state_;
  ScmWorkspace work_;
  ScmStepReport report_;
};

}  // namespace talus::scm
