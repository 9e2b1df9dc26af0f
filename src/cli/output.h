// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Where a command writes a result: a file named on the command line, or stdout for "-". Every
// output is opened before the work starts, so a bad path fails at once and not after a long run,
// and every failure names the flag, the path and the operating system's reason.
#include <cstdio>
#include <initializer_list>
#include <string>
#include <utility>

namespace schedlab::cli {

class Output {
 public:
  Output() = default;
  Output(const Output &) = delete;
  Output &operator=(const Output &) = delete;
  ~Output();  // closes a file left open by an error path

  // Opens `path` for writing: "-" is stdout, an empty path asks for nothing (and succeeds). On
  // failure prints "schedlab CMD: FLAG PATH: cannot open for writing: REASON" and returns false.
  bool open(const std::string &cmd, const std::string &flag, const std::string &path);
  bool wanted() const { return f_ != nullptr; }
  bool to_stdout() const { return f_ == stdout; }
  std::FILE *file() const { return f_; }
  // Writes `text` (if the output was asked for) and closes it. 0, or kExitError after printing
  // "schedlab CMD: FLAG PATH: write failed: REASON".
  int write(const std::string &text);
  // Closes a streamed output (a trace) the same way.
  int close();
  // After an error: closes the output and removes the file, so that no empty or half-written
  // result is left behind (stdout is left as it is).
  void discard();

 private:
  int fail(int err);
  std::string cmd_, flag_, path_;
  std::FILE *f_ = nullptr;
};

// At most one output may be stdout. False after printing "schedlab CMD: FLAG1 - and FLAG2 -:
// only one output can go to stdout". `outputs` pairs each flag with its path.
bool at_most_one_stdout(const std::string &cmd,
                        std::initializer_list<std::pair<const char *, std::string>> outputs);

// Where a command's human-readable text (summary, table) goes: stdout, or stderr when a result
// is written to stdout, so that stdout carries only that result.
inline std::FILE *text_stream(bool result_on_stdout) {
  return result_on_stdout ? stderr : stdout;
}

}  // namespace schedlab::cli
