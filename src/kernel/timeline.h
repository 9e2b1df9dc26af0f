// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// cfs_rq->tasks_timeline: the queued entities (all but curr) ordered by virtual deadline, each
// node augmented with the smallest vruntime and slice of its subtree, as fair.c builds it on
// lib/rbtree.c with RB_DECLARE_CALLBACKS(min_vruntime_cb). pick_eevdf()'s heap search, the
// queue's min_vruntime and cfs_rq_min_slice() are then O(log n) or O(1) instead of a scan.
//
// MODEL: the tree is height-balanced (AVL) rather than red-black. Both keep the same in-order
// sequence (equal deadlines after the entities already queued, as rb_add() places them) and
// the same subtree minima, and the pick only depends on those, so every choice is the
// kernel's; only the tree's shape differs (docs/model.md).
#include <cstddef>

#include "sim/time.h"

namespace schedlab::kernel {

struct sched_entity;

// The earlier of two vruntimes, wrap-safe (fair.c's min_vruntime()).
inline u64 min_vruntime(u64 a, u64 b) {
  return static_cast<s64>(b - a) < 0 ? b : a;
}

// The node an entity carries (struct rb_node run_node plus the augmented fields).
struct rb_run_node {
  sched_entity *left = nullptr, *right = nullptr, *parent = nullptr;
  int height = 0;  // 0: not in a tree
};

class Timeline {
 public:
  void insert(sched_entity *se);                      // rb_add_augmented_cached()
  void erase(sched_entity *se);                       // rb_erase_augmented_cached()
  sched_entity *root() const { return root_; }        // __pick_root_entity()
  sched_entity *first() const;                        // __pick_first_entity(): the leftmost
  static sched_entity *next(const sched_entity *se);  // in-order successor, or nullptr
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // Every queued entity, earliest deadline first.
  template <typename F>
  void for_each(F &&f) const {
    for (sched_entity *se = first(); se; se = next(se)) f(se);
  }

 private:
  void replace_child(sched_entity *parent, sched_entity *old_child, sched_entity *new_child);
  sched_entity *rotate(sched_entity *x, bool to_left);
  sched_entity *rebalance(sched_entity *n);
  void retrace(sched_entity *n);

  sched_entity *root_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace schedlab::kernel
