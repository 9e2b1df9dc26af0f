// SPDX-License-Identifier: GPL-2.0-only
#include "vm/initramfs.h"

#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace schedlab::vm {

void Initramfs::parents(const std::string &path) {
  for (std::size_t at = path.find('/', 1); at != std::string::npos; at = path.find('/', at + 1)) {
    const std::string dir = path.substr(1, at - 1);
    bool have = false;
    for (const Entry &e : entries_) have |= e.name == dir;
    if (!have) entries_.push_back({dir, S_IFDIR | 0755, 0, 0, {}});
  }
}

void Initramfs::add_dir(const std::string &path) {
  parents(path + "/");
}

void Initramfs::add_file(const std::string &path, std::string content, unsigned mode) {
  parents(path);
  entries_.push_back({path.substr(1), S_IFREG | mode, 0, 0, std::move(content)});
}

void Initramfs::add_char_device(const std::string &path, unsigned major, unsigned minor,
                                unsigned mode) {
  parents(path);
  entries_.push_back({path.substr(1), S_IFCHR | mode, major, minor, {}});
}

void Initramfs::copy_file(const std::string &path, const std::filesystem::path &from,
                          unsigned mode) {
  std::ifstream in(from, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + from.string());
  std::stringstream ss;
  ss << in.rdbuf();
  add_file(path, ss.str(), mode);
}

std::string Initramfs::archive() const {
  std::string out;
  unsigned ino = 1;
  auto put = [&](const std::string &name, unsigned mode, unsigned rmaj, unsigned rmin,
                 const std::string &data) {
    char head[111];
    // magic, ino, mode, uid, gid, nlink, mtime, filesize, devmajor, devminor, rdevmajor,
    // rdevminor, namesize, check: 8 hex digits each.
    std::snprintf(head, sizeof head, "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X",
                  ino++, mode, 0u, 0u, (mode & S_IFMT) == S_IFDIR ? 2u : 1u, 0u, data.size(), 0u,
                  0u, rmaj, rmin, name.size() + 1, 0u);
    out.append(head, 110);
    out.append(name).push_back('\0');
    out.append((4 - out.size() % 4) % 4, '\0');
    out.append(data);
    out.append((4 - out.size() % 4) % 4, '\0');
  };
  for (const Entry &e : entries_) put(e.name, e.mode, e.rmajor, e.rminor, e.data);
  put("TRAILER!!!", 0, 0, 0, {});
  return out;
}

std::vector<std::filesystem::path> shared_libraries(const std::filesystem::path &exe) {
  const std::string cmd = "ldd '" + exe.string() + "' 2>&1";
  std::unique_ptr<FILE, int (*)(FILE *)> p(popen(cmd.c_str(), "r"), pclose);
  if (!p) throw std::runtime_error("cannot run ldd on " + exe.string());
  std::vector<std::filesystem::path> libs;
  char buf[1024];
  std::string all;
  while (std::fgets(buf, sizeof buf, p.get())) {
    std::string line(buf);
    all += line;
    // "\tlibfmt.so.9 => /lib/x86_64-linux-gnu/libfmt.so.9 (0x...)" or "\t/lib64/ld-linux...
    // (0x...)"
    std::size_t at = line.find("=> ");
    std::size_t start = at == std::string::npos ? line.find('/') : at + 3;
    if (start == std::string::npos || line.compare(start, 1, "/") != 0) continue;
    const std::size_t end = line.find(" (", start);
    libs.emplace_back(
        line.substr(start, end == std::string::npos ? std::string::npos : end - start));
  }
  if (all.find("not a dynamic executable") != std::string::npos ||
      all.find("statically linked") != std::string::npos)
    return {};
  if (libs.empty())
    throw std::runtime_error("ldd found no libraries for " + exe.string() + ": " +
                             all.substr(0, all.find('\n')));
  if (const std::size_t nf = all.find("not found"); nf != std::string::npos) {
    const std::size_t bol = all.rfind('\n', nf);
    throw std::runtime_error("ldd: a library of " + exe.string() + " is missing:" +
                             all.substr(bol == std::string::npos ? 0 : bol + 1,
                                        nf - (bol == std::string::npos ? 0 : bol + 1)) +
                             "not found");
  }
  return libs;
}

}  // namespace schedlab::vm
