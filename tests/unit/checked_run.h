// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// The invariant checker is always on in the tests that simulate whole scenarios: checked_run()
// attaches one to the simulation and fails the test on any violation (docs/checks.md).
#include <gtest/gtest.h>

#include "engine/simulation.h"

namespace schedlab::testing {

inline engine::RunResult checked_run(engine::Simulation &sim) {
  sim.enable_check();
  engine::RunResult r = sim.run();
  EXPECT_TRUE(r.check.has_value());
  if (r.check) {
    EXPECT_EQ(r.check->violations, 0u)
        << r.scenario << ", configuration " << r.config << ", seed " << r.seed;
    for (const auto &v : r.check->first) ADD_FAILURE() << observe::format_violation(v);
  }
  return r;
}

}  // namespace schedlab::testing
