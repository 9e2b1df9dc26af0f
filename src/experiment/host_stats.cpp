// SPDX-License-Identifier: GPL-2.0-only
#include "experiment/host_stats.h"

#include <cstdio>
#include <cstring>

namespace schedlab::experiment {

u64 peak_rss_kb() {
  std::FILE *f = std::fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  unsigned long long kb = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, "VmHWM:", 6) == 0) {
      if (std::sscanf(line + 6, "%llu", &kb) != 1) kb = 0;
      break;
    }
  std::fclose(f);
  return kb;
}

}  // namespace schedlab::experiment
