#include <gtest/gtest.h>

#include "core/pose.hpp"
#include "core/units.hpp"

namespace talus {
namespace {

TEST(Pose, MakePoseAppliesYawAboutWorldZ) {
  const Pose X_WB = make_pose(Vec3(1, 2, 3), 0.0, 0.0, deg_to_rad(90.0));
  const Vec3 p_W = X_WB * Vec3(1, 0, 0);
  EXPECT_NEAR(p_W.x(), 1.0, 1e-12);
  EXPECT_NEAR(p_W.y(), 3.0, 1e-12);
  EXPECT_NEAR(p_W.z(), 3.0, 1e-12);
}

TEST(Twist, VelocityOfPointAddsRotationAboutTheBodyOrigin) {
  Twist V_WB;
  V_WB.v_WBo = Vec3(1, 0, 0);
  V_WB.w_W = Vec3(0, 2, 0);  // rolling forward along +x about +y
  const Pose X_WB = make_pose(Vec3(0, 0, 0.5));
  // The bottom of a wheel of radius 0.5 moves at v - w r = 1 - 2 * 0.5 = 0 (pure rolling).
  const Vec3 v_bottom = V_WB.velocity_of_point(X_WB, Vec3(0, 0, 0));
  EXPECT_NEAR(v_bottom.norm(), 0.0, 1e-12);
}

}  // namespace
}  // namespace talus
