// SPDX-License-Identifier: GPL-2.0-only
// The augmented tree behind cfs_rq->tasks_timeline (timeline.h says why it is AVL).
#include "kernel/timeline.h"

#include <algorithm>
#include <cassert>

#include "kernel/sched.h"

namespace schedlab::kernel {

namespace {

int height(const sched_entity *n) {
  return n ? n->run_node.height : 0;
}

// min_vruntime_update(): the node's own values folded with its children's subtree minima (and
// maximum slice).
void update(sched_entity *n) {
  const sched_entity *l = n->run_node.left, *r = n->run_node.right;
  n->run_node.height = 1 + std::max(height(l), height(r));
  u64 vruntime = n->vruntime, slice = n->slice, max_slice = n->slice;
  if (l) {
    vruntime = min_vruntime(vruntime, l->min_vruntime);
    slice = std::min(slice, l->min_slice);
    max_slice = std::max(max_slice, l->max_slice);
  }
  if (r) {
    vruntime = min_vruntime(vruntime, r->min_vruntime);
    slice = std::min(slice, r->min_slice);
    max_slice = std::max(max_slice, r->max_slice);
  }
  n->min_vruntime = vruntime;
  n->min_slice = slice;
  n->max_slice = max_slice;
}

sched_entity *leftmost(sched_entity *n) {
  while (n->run_node.left) n = n->run_node.left;
  return n;
}

}  // namespace

void Timeline::replace_child(sched_entity *parent, sched_entity *old_child,
                             sched_entity *new_child) {
  if (!parent)
    root_ = new_child;
  else if (parent->run_node.left == old_child)
    parent->run_node.left = new_child;
  else
    parent->run_node.right = new_child;
  if (new_child) new_child->run_node.parent = parent;
}

// Rotates x down to the left (its right child takes its place) or to the right.
sched_entity *Timeline::rotate(sched_entity *x, bool to_left) {
  sched_entity *&rising = to_left ? x->run_node.right : x->run_node.left;
  sched_entity *y = rising;
  sched_entity *&inner = to_left ? y->run_node.left : y->run_node.right;
  rising = inner;
  if (inner) inner->run_node.parent = x;
  replace_child(x->run_node.parent, x, y);
  inner = x;
  x->run_node.parent = y;
  update(x);
  update(y);
  return y;
}

// Restores n's balance (children's heights differ by at most one); returns the subtree's root.
sched_entity *Timeline::rebalance(sched_entity *n) {
  update(n);
  sched_entity *l = n->run_node.left, *r = n->run_node.right;
  const int balance = height(l) - height(r);
  if (balance > 1) {
    if (height(l->run_node.left) < height(l->run_node.right)) rotate(l, true);
    return rotate(n, false);
  }
  if (balance < -1) {
    if (height(r->run_node.right) < height(r->run_node.left)) rotate(r, false);
    return rotate(n, true);
  }
  return n;
}

// Heights and minima are refreshed all the way up: a new minimum may change every ancestor.
void Timeline::retrace(sched_entity *n) {
  while (n) n = rebalance(n)->run_node.parent;
}

void Timeline::insert(sched_entity *se) {
  assert(se->run_node.height == 0 && "entity already in a timeline");
  se->run_node = rb_run_node{};
  se->run_node.height = 1;
  se->min_vruntime = se->vruntime;
  se->min_slice = se->max_slice = se->slice;
  sched_entity *parent = nullptr;
  sched_entity **link = &root_;
  while (*link) {
    parent = *link;
    // Equal deadlines go right, after the entities already queued (rb_add()).
    link = entity_before(se, parent) ? &parent->run_node.left : &parent->run_node.right;
  }
  *link = se;
  se->run_node.parent = parent;
  retrace(parent);
  size_++;
}

void Timeline::erase(sched_entity *se) {
  assert(se->run_node.height > 0 && "entity not in a timeline");
  sched_entity *l = se->run_node.left, *r = se->run_node.right, *parent = se->run_node.parent;
  if (!l || !r) {
    replace_child(parent, se, l ? l : r);
    retrace(parent);
  } else {
    // Two children: the in-order successor (leftmost of the right subtree, no left child of
    // its own) takes se's place.
    sched_entity *succ = leftmost(r);
    sched_entity *fix = succ;
    if (succ != r) {
      fix = succ->run_node.parent;
      replace_child(fix, succ, succ->run_node.right);
      succ->run_node.right = r;
      r->run_node.parent = succ;
    }
    succ->run_node.left = l;
    l->run_node.parent = succ;
    replace_child(parent, se, succ);
    retrace(fix);
  }
  se->run_node = rb_run_node{};
  size_--;
}

sched_entity *Timeline::first() const {
  return root_ ? leftmost(root_) : nullptr;
}

sched_entity *Timeline::next(const sched_entity *se) {
  if (se->run_node.right) return leftmost(se->run_node.right);
  const sched_entity *child = se;
  sched_entity *up = se->run_node.parent;
  while (up && up->run_node.right == child) {
    child = up;
    up = up->run_node.parent;
  }
  return up;
}

}  // namespace schedlab::kernel
