// SPDX-License-Identifier: GPL-2.0-only
#include "machine/cpumask.h"

namespace schedlab {

CpuMask CpuMask::all(int nr_cpus) {
  CpuMask m(nr_cpus);
  for (int c = 0; c < nr_cpus; c++) m.set(c);
  return m;
}

CpuMask CpuMask::of(int nr_cpus, const std::vector<int> &cpus) {
  CpuMask m(nr_cpus);
  for (int c : cpus) m.set(c);
  return m;
}

int CpuMask::weight() const {
  int n = 0;
  for (u64 w : w_) n += std::popcount(w);
  return n;
}

bool CpuMask::empty() const {
  for (u64 w : w_)
    if (w) return false;
  return true;
}

bool CpuMask::intersects(const CpuMask &o) const {
  for (std::size_t i = 0; i < w_.size(); i++)
    if (w_[i] & o.w_[i]) return true;
  return false;
}

bool CpuMask::subset_of(const CpuMask &o) const {
  for (std::size_t i = 0; i < w_.size(); i++)
    if (w_[i] & ~o.w_[i]) return false;
  return true;
}

CpuMask CpuMask::operator&(const CpuMask &o) const {
  CpuMask r = *this;
  r &= o;
  return r;
}

CpuMask &CpuMask::operator&=(const CpuMask &o) {
  for (std::size_t i = 0; i < w_.size(); i++) w_[i] &= o.w_[i];
  return *this;
}

CpuMask &CpuMask::operator|=(const CpuMask &o) {
  for (std::size_t i = 0; i < w_.size(); i++) w_[i] |= o.w_[i];
  return *this;
}

CpuMask &CpuMask::andnot(const CpuMask &o) {
  for (std::size_t i = 0; i < w_.size(); i++) w_[i] &= ~o.w_[i];
  return *this;
}

std::string CpuMask::to_list() const {
  std::string s;
  int c = first();
  while (c < nr_) {
    int e = c;
    while (e + 1 < nr_ && test(e + 1)) e++;
    if (!s.empty()) s += ',';
    s += std::to_string(c);
    if (e > c) s += '-' + std::to_string(e);
    c = next(e + 1);
  }
  return s;
}

}  // namespace schedlab
