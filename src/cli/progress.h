// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Progress of a long command on stderr: shown only when stderr is a terminal and the work has
// run for more than two seconds, redrawn in place at most five times a second, and erased at
// the end, so piped and logged output never carries it.
#include <chrono>
#include <cstddef>
#include <string>

namespace schedlab::cli {

class Progress {
 public:
  explicit Progress(std::string what);  // e.g. "experiment"
  ~Progress();                          // erases the line if one was drawn
  // `done` of `total` items finished. Not thread-safe: callers serialise.
  void update(std::size_t done, std::size_t total);

 private:
  std::string what_;
  bool tty_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace schedlab::cli
