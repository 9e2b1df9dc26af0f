// SPDX-License-Identifier: GPL-2.0-only
#include "cli/progress.h"

#include <unistd.h>

#include <cstdio>

namespace schedlab::cli {

namespace {
constexpr auto kQuietFor = std::chrono::seconds(2);
constexpr auto kRedrawEvery = std::chrono::milliseconds(200);
}  // namespace

Progress::Progress(std::string what)
    : what_(std::move(what)),
      tty_(isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

Progress::~Progress() {
  if (drawn_) std::fputs("\r\033[K", stderr);
}

void Progress::update(std::size_t done, std::size_t total) {
  if (!tty_ || total == 0) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ < kQuietFor || (drawn_ && now - last_ < kRedrawEvery && done < total)) return;
  last_ = now;
  drawn_ = true;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double left =
      done ? elapsed * static_cast<double>(total - done) / static_cast<double>(done) : 0.0;
  std::fprintf(stderr, "\r\033[K%s: %zu/%zu runs (%.0f %%), %.1f s, about %.0f s left",
               what_.c_str(), done, total,
               100.0 * static_cast<double>(done) / static_cast<double>(total), elapsed, left);
  std::fflush(stderr);
}

}  // namespace schedlab::cli
