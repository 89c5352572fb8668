#include <gtest/gtest.h>

#include "core/wrench.hpp"

namespace talus {
namespace {

TEST(Wrench, ForceAtPointMakesTorqueAboutReference) {
  Wrench w = Wrench::about(Vec3(1.0, 0.0, 0.0));
  w.add_force_at(Vec3(0.0, 0.0, -10.0), Vec3(2.0, 0.0, 0.0));  // 1 m lever along +x, force down
  EXPECT_TRUE(w.f_W.isApprox(Vec3(0.0, 0.0, -10.0)));
  EXPECT_TRUE(w.tau_W.isApprox(Vec3(0.0, 10.0, 0.0)));
}

TEST(Wrench, ShiftKeepsTheTorqueOfTheSameForces) {
  Wrench w = Wrench::about(Vec3::Zero());
  w.add_force_at(Vec3(1.0, 2.0, 3.0), Vec3(0.5, -0.2, 0.1));
  w.add_force_at(Vec3(-2.0, 0.5, 1.0), Vec3(-0.3, 0.4, 0.9));
  const Vec3 p_new(0.7, -1.1, 0.2);
  Wrench direct = Wrench::about(p_new);
  direct.add_force_at(Vec3(1.0, 2.0, 3.0), Vec3(0.5, -0.2, 0.1));
  direct.add_force_at(Vec3(-2.0, 0.5, 1.0), Vec3(-0.3, 0.4, 0.9));
  const Wrench shifted = w.shifted_to(p_new);
  EXPECT_TRUE(shifted.tau_W.isApprox(direct.tau_W, 1e-12));
  EXPECT_TRUE(shifted.p_W.isApprox(p_new));
  const Wrench sum = Wrench::about(p_new) + w;
  EXPECT_TRUE(sum.tau_W.isApprox(direct.tau_W, 1e-12));
}

}  // namespace
}  // namespace talus
