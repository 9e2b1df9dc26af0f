// SPDX-License-Identifier: GPL-2.0-only
#include "kernel/features.h"

#include <string>

namespace schedlab::kernel {

std::optional<sched_feat_id> find_feature(std::string_view name) {
  for (int i = 0; i < __SCHED_FEAT_NR; i++)
    if (kFeatures[i].name == name) return static_cast<sched_feat_id>(i);
  return std::nullopt;
}

std::string validate_features(const Features &f) {
  const sched_feat_id alternatives[] = {__SCHED_FEAT_CORE_COOKIE_FASTPATH,
                                        __SCHED_FEAT_CORE_COOKIE_FASTPATH_CPU_MATCH,
                                        __SCHED_FEAT_CORE_COOKIE_FASTPATH_IDLE_CORES};
  std::string on;
  int n = 0;
  for (sched_feat_id id : alternatives) {
    if (!f.on[id]) continue;
    on += (n++ ? " and " : "") + std::string(kFeatures[id].name);
  }
  if (n > 1) return on + " are alternative versions of one patch: enable at most one";
  return "";
}

}  // namespace schedlab::kernel
