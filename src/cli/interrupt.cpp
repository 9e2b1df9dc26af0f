// SPDX-License-Identifier: GPL-2.0-only
#include "cli/interrupt.h"

#include <signal.h>

#include <cstdio>

#include "scenario/scenario.h"

namespace schedlab::cli {
namespace {

std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");

struct sigaction g_old_int, g_old_term;

extern "C" void on_stop_signal(int) {
  g_stop.store(true);
}

}  // namespace

StopOnSignal::StopOnSignal(bool sigterm, std::optional<std::chrono::nanoseconds> max_wall)
    : sigterm_(sigterm) {
  g_stop.store(false);
  struct sigaction sa = {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &g_old_int);
  if (sigterm_) sigaction(SIGTERM, &sa, &g_old_term);
  if (max_wall)
    timer_ = std::thread([this, d = *max_wall] {
      std::unique_lock<std::mutex> lock(mu_);
      if (!cv_.wait_for(lock, d, [this] { return done_; })) {
        wall_expired_.store(true);
        g_stop.store(true);
      }
    });
}

StopOnSignal::~StopOnSignal() {
  if (timer_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    timer_.join();
  }
  sigaction(SIGINT, &g_old_int, nullptr);
  if (sigterm_) sigaction(SIGTERM, &g_old_term, nullptr);
}

const std::atomic<bool> &StopOnSignal::flag() const {
  return g_stop;
}

bool parse_max_wall(const char *cmd, const std::string &text,
                    std::optional<std::chrono::nanoseconds> &out) {
  if (text.empty()) return true;
  std::string why;
  const auto d = scenario::parse_duration(text, &why);
  if (!d || *d == 0) {
    std::fprintf(stderr, "schedlab %s: --max-wall %s: %s\n", cmd, text.c_str(),
                 d ? "must be more than 0" : why.c_str());
    return false;
  }
  out = std::chrono::nanoseconds(static_cast<std::chrono::nanoseconds::rep>(*d));
  return true;
}

}  // namespace schedlab::cli
