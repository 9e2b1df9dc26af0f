// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Facts about the host process, for the "host" part of results (never the deterministic part).
#include "sim/time.h"

namespace schedlab::experiment {

// Peak resident memory of this process in KiB: VmHWM of /proc/self/status (0 where absent).
// Unlike getrusage's ru_maxrss, VmHWM does not include the image the process had before
// exec, so a small process started from a large one reports its own peak.
u64 peak_rss_kb();

}  // namespace schedlab::experiment
