// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// An initramfs image: the "newc" cpio archive the kernel unpacks into its root filesystem
// (Documentation/driver-api/early-userspace/buffer-format.rst), uncompressed.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace schedlab::vm {

class Initramfs {
 public:
  // Parent directories are added as needed; paths are absolute ("/job/job.json").
  void add_dir(const std::string &path);
  void add_file(const std::string &path, std::string content, unsigned mode = 0644);
  void add_char_device(const std::string &path, unsigned major, unsigned minor, unsigned mode);
  // Copies a host file (following symlinks) to `path`; throws std::runtime_error if unreadable.
  void copy_file(const std::string &path, const std::filesystem::path &from, unsigned mode);
  std::string archive() const;  // with the TRAILER!!! entry

 private:
  struct Entry {
    std::string name;  // without the leading '/'
    unsigned mode;
    unsigned rmajor = 0, rminor = 0;
    std::string data;
  };
  void parents(const std::string &path);
  std::vector<Entry> entries_;
};

// The shared libraries a dynamic executable loads (with the loader itself), as ldd lists
// them; empty for a static one. Throws std::runtime_error when ldd cannot run.
std::vector<std::filesystem::path> shared_libraries(const std::filesystem::path &exe);

}  // namespace schedlab::vm
