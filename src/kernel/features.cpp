#include "kernel/features.h"

namespace schedlab::kernel {

std::optional<sched_feat_id> find_feature(std::string_view name) {
  for (int i = 0; i < __SCHED_FEAT_NR; i++)
    if (kFeatures[i].name == name) return static_cast<sched_feat_id>(i);
  return std::nullopt;
}

}  // namespace schedlab::kernel
