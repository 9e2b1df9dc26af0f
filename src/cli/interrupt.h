// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Stopping a long command cleanly: while a StopOnSignal is alive, SIGINT (Ctrl-C) and, if asked,
// SIGTERM only set a flag, which the work polls (the simulation every few thousand events, the
// experiment's workers before each run, measure's threads every few ms); the command then writes
// what finished, marked partial, and exits with kExitInterrupted. A wall-clock limit (--max-wall)
// sets the same flag from a timer thread.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace schedlab::cli {

class StopOnSignal {
 public:
  // `sigterm`: SIGTERM too. `max_wall`: set the flag after this much wall time.
  explicit StopOnSignal(bool sigterm = true,
                        std::optional<std::chrono::nanoseconds> max_wall = std::nullopt);
  ~StopOnSignal();  // restores the previous handlers and stops the timer
  StopOnSignal(const StopOnSignal &) = delete;
  StopOnSignal &operator=(const StopOnSignal &) = delete;

  const std::atomic<bool> &flag() const;
  bool stopped() const { return flag().load(); }
  // Whether the flag was set by the wall-clock limit (not by a signal).
  bool wall_expired() const { return wall_expired_.load(); }

 private:
  bool sigterm_;
  std::atomic<bool> wall_expired_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread timer_;
};

// --max-wall DURATION (run, experiment, sweep): nullopt when not given; false after printing
// the error.
bool parse_max_wall(const char *cmd, const std::string &text,
                    std::optional<std::chrono::nanoseconds> &out);

}  // namespace schedlab::cli
