// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Draws a Timeline as SVG: one lane per CPU grouped by core, task slices coloured by core
// cookie, forced idle hatched, wakeups as ticks, a time axis and a legend. docs/report.md
// describes the picture.
#include <string>

#include "observe/timeline.h"

namespace schedlab::report {

struct TimelineSvgOptions {
  std::string title;    // drawn above the lanes when not empty
  double width = 1200;  // pixels
};

// The colour of a cookie's slices (0 = untagged); the same cookie always gets the same colour.
const char *cookie_colour(unsigned long cookie);

std::string timeline_svg(const observe::Timeline &t, const TimelineSvgOptions &o);

}  // namespace schedlab::report
