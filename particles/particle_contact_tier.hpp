#pragma once
// The particle tier as a coupling partner for a rigid-body engine (core/contact_tier.hpp): robot/
// gives the pose and twist of each coupled MuJoCo body, the particles take one step, and each body
// gets the wrench the particles exerted on it during that step (two-way coupling).

#include <span>

#include "core/contact_tier.hpp"
#include "core/progress.hpp"
#include "particles/particle_bed_random.hpp"
#include "particles/particle_model.hpp"
#include "particles/particle_state.hpp"
#include "particles/particle_step.hpp"

namespace talus::particles {

class ParticleContactTier final : public talus::ContactTier {
 public:
  /// Validates the model and state (check_initial_state); the bodies are model.bodies.
  ParticleContactTier(ParticleModel model, ParticleState state);

  std::span<const CoupledBody> bodies() const override { return model_.bodies; }
  /// Steps the particles by dt_s, which must equal model().time_step_s (the tier's time step is
  /// part of its validated model; the caller sub-steps), writing one wrench per body about R placed
  /// by the given pose (X_WB p_BR). Throws std::invalid_argument on a size or dt mismatch and
  /// ParticleDivergence (state kept) when the step diverges.
  void step(double dt_s, std::span<const BodyMotion> motions, std::span<Wrench> wrenches) override;
  /// A copy of the ParticleState (the workspace holds nothing the next step reads).
  std::unique_ptr<Snapshot> snapshot() const override {
    return std::make_unique<StateSnapshot<ParticleState>>(state_);
  }
  void restore(const Snapshot& snapshot) override {
    state_ = snapshot_state<ParticleState>(snapshot, "particle");
  }

  /// Lets the bed come to rest before coupling (particles/particle_bed_random.hpp's settle()) with
  /// the bodies at `held` (pass zero twists to hold them still). The contacts stay in the
  /// workspace, so the first coupled step is warm-started from the settled bed.
  SettleResult settle(std::span<const BodyMotion> held, const SettleOptions& options,
                      const RunProgress& progress = {});

  const ParticleModel& model() const { return model_; }
  const ParticleState& state() const { return state_; }
  const ParticleWorkspace& workspace() const { return workspace_; }

 private:
  ParticleModel model_;
  ParticleState state_;
  ParticleWorkspace workspace_;
};

}  // namespace talus::particles
