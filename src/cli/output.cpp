// SPDX-License-Identifier: GPL-2.0-only
#include "cli/output.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "cli/commands.h"

namespace schedlab::cli {

Output::~Output() {
  if (f_ && f_ != stdout) std::fclose(f_);
}

bool Output::open(const std::string &cmd, const std::string &flag, const std::string &path) {
  cmd_ = cmd, flag_ = flag, path_ = path;
  if (path.empty()) return true;
  if (path == "-") {
    f_ = stdout;
    return true;
  }
  errno = 0;
  // Readable too: a trace writer moves what it wrote to put its header first.
  f_ = std::fopen(path.c_str(), "w+b");
  if (!f_) {
    std::fprintf(stderr, "schedlab %s: %s %s: cannot open for writing: %s\n", cmd.c_str(),
                 flag.c_str(), path.c_str(), std::strerror(errno));
    return false;
  }
  return true;
}

int Output::fail(int err) {
  std::fprintf(stderr, "schedlab %s: %s %s: write failed: %s\n", cmd_.c_str(), flag_.c_str(),
               path_.c_str(), std::strerror(err ? err : EIO));
  return kExitError;
}

int Output::write(const std::string &text) {
  if (!f_) return 0;
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), f_) != text.size()) {
    const int err = errno;
    close();
    return fail(err);
  }
  return close();
}

int Output::close() {
  if (!f_) return 0;
  std::FILE *f = f_;
  f_ = nullptr;
  errno = 0;
  bool ok = std::fflush(f) == 0 && !std::ferror(f);
  int err = errno;
  if (f != stdout && std::fclose(f) != 0 && ok) {
    ok = false;
    err = errno;
  }
  return ok ? 0 : fail(err);
}

void Output::discard() {
  if (!f_ || f_ == stdout) return;
  // Only a regular file is removed: -o /dev/null must survive an error.
  struct stat st {};
  const bool regular = fstat(fileno(f_), &st) == 0 && S_ISREG(st.st_mode);
  std::fclose(f_);
  f_ = nullptr;
  if (regular) std::remove(path_.c_str());
}

bool at_most_one_stdout(const std::string &cmd,
                        std::initializer_list<std::pair<const char *, std::string>> outputs) {
  const char *first = nullptr;
  for (const auto &[flag, path] : outputs) {
    if (path != "-") continue;
    if (first) {
      std::fprintf(stderr, "schedlab %s: %s - and %s -: only one output can go to stdout\n",
                   cmd.c_str(), first, flag);
      return false;
    }
    first = flag;
  }
  return true;
}

}  // namespace schedlab::cli
