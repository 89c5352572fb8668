#pragma once
// The configuration grid of paper 000 Table I's Pebbles (depths 0 to -4.5 cm, tilts -0.9 to 0.9
// rad with the mirrored ones), depth-major: the synthetic databases of the wrench benchmarks.

#include <Eigen/Dense>

namespace talus::wrench::bench {

inline Eigen::MatrixX2d pebbles_grid() {
  const double depths[] = {0.0, -0.015, -0.03, -0.045};
  const double tilts[] = {-0.9, -0.6, -0.3, 0.0, 0.3, 0.6, 0.9};
  Eigen::MatrixX2d grid(28, 2);
  int row = 0;
  for (const double d : depths)
    for (const double t : tilts) grid.row(row++) << d, t;
  return grid;
}

}  // namespace talus::wrench::bench
