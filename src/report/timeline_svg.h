// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Draws a Timeline as SVG: one lane per CPU grouped by core, task slices coloured by task with
// a band in their core cookie's colour, forced idle hatched, wakeups as ticks, a time axis and
// a legend. docs/report.md describes the picture.
#include <map>
#include <string>

#include "observe/timeline.h"

namespace schedlab::report {

struct TimelineSvgOptions {
  std::string title;    // drawn above the lanes when not empty
  double width = 1200;  // pixels
};

// The colour of a cookie's band (0 = untagged); the same cookie always gets the same colour.
const char *cookie_colour(unsigned long cookie);
// Each task's colour in the window, by pid: from a hash of its comm and pid, so that a task
// keeps its colour from window to window, and distinct for up to 20 tasks of one window.
std::map<int, const char *> task_colours(const observe::Timeline &t);

std::string timeline_svg(const observe::Timeline &t, const TimelineSvgOptions &o);

}  // namespace schedlab::report
