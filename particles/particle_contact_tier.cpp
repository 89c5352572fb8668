#include "particles/particle_contact_tier.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace talus::particles {

ParticleContactTier::ParticleContactTier(ParticleModel model, ParticleState state)
    : model_(std::move(model)), state_(std::move(state)) {
  check_initial_state(model_, state_);
}

void ParticleContactTier::step(double dt_s, std::span<const BodyMotion> motions,
                               std::span<Wrench> wrenches) {
  if (dt_s != model_.time_step_s) {
    throw std::invalid_argument(fmt::format(
        "particle contact tier: step of {} s differs from the model's time_step_s = {} s", dt_s,
        model_.time_step_s));
  }
  if (wrenches.size() != model_.bodies.size()) {
    throw std::invalid_argument(
        fmt::format("particle contact tier: {} wrench slots given for {} bodies", wrenches.size(),
                    model_.bodies.size()));
  }
  particles::step(model_, state_, motions, workspace_);
  for (std::size_t b = 0; b < wrenches.size(); ++b) wrenches[b] = state_.body_wrenches[b];
}

SettleResult ParticleContactTier::settle(std::span<const BodyMotion> held,
                                         const SettleOptions& options,
                                         const RunProgress& progress) {
  return particles::settle(model_, state_, held, workspace_, options, progress);
}

}  // namespace talus::particles
