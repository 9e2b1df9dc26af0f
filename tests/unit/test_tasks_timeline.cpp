// SPDX-License-Identifier: GPL-2.0-only
// cfs_rq->tasks_timeline against the obvious model: a list in queueing order, scanned.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "kernel/sched.h"
#include "sim/random.h"

namespace schedlab::kernel {
namespace {

// Checks the tree's shape: parent links, AVL balance, heights and the subtree minima (and
// maximum slice).
int check_subtree(const sched_entity *n, const sched_entity *parent, u64 *min_v, u64 *min_s) {
  if (!n) return 0;
  EXPECT_EQ(n->run_node.parent, parent);
  u64 lv = n->vruntime, ls = n->slice, rv = n->vruntime, rs = n->slice;
  const int hl = check_subtree(n->run_node.left, n, &lv, &ls);
  const int hr = check_subtree(n->run_node.right, n, &rv, &rs);
  EXPECT_LE(std::abs(hl - hr), 1);
  EXPECT_EQ(n->run_node.height, 1 + std::max(hl, hr));
  const u64 v = min_vruntime(min_vruntime(n->vruntime, lv), rv);
  const u64 s = std::min({n->slice, ls, rs});
  EXPECT_EQ(n->min_vruntime, v);
  EXPECT_EQ(n->min_slice, s);
  u64 max_s = n->slice;
  if (n->run_node.left) max_s = std::max(max_s, n->run_node.left->max_slice);
  if (n->run_node.right) max_s = std::max(max_s, n->run_node.right->max_slice);
  EXPECT_EQ(n->max_slice, max_s);
  *min_v = v;
  *min_s = s;
  return n->run_node.height;
}

// pick_eevdf()'s heap search with "eligible" meaning vruntime <= limit.
const sched_entity *heap_search(const Timeline &t, u64 limit) {
  for (const sched_entity *n = t.root(); n;) {
    const sched_entity *l = n->run_node.left;
    if (l && l->min_vruntime <= limit) {
      n = l;
      continue;
    }
    if (n->vruntime <= limit) return n;
    n = n->run_node.right;
  }
  return nullptr;
}

TEST(TasksTimeline, MatchesAScannedListThroughRandomQueueingAndPicks) {
  sim::Stream rng(7, {1});
  std::vector<std::unique_ptr<sched_entity>> pool;
  for (int i = 0; i < 300; i++) pool.push_back(std::make_unique<sched_entity>());
  Timeline tree;
  std::vector<sched_entity *> list;  // queueing order, as the kernel's rb_add() ties go
  for (int step = 0; step < 20000; step++) {
    const bool add = list.empty() || (list.size() < pool.size() && rng.uniform_u64(0, 99) < 55);
    if (add) {
      sched_entity *se = nullptr;
      do se = pool[rng.uniform_u64(0, pool.size() - 1)].get();
      while (se->run_node.height);
      // Few distinct deadlines, so that ties are common and their order is tested.
      se->deadline = rng.uniform_u64(0, 40) * 1000;
      se->vruntime = rng.uniform_u64(0, 1000000);
      se->slice = rng.uniform_u64(1, 5) * 700000;
      tree.insert(se);
      list.push_back(se);
    } else {
      const auto it = list.begin() + static_cast<long>(rng.uniform_u64(0, list.size() - 1));
      tree.erase(*it);
      EXPECT_EQ((*it)->run_node.height, 0);
      list.erase(it);
    }
    ASSERT_EQ(tree.size(), list.size());

    std::vector<sched_entity *> want = list;
    std::stable_sort(want.begin(), want.end(), entity_before);
    std::vector<sched_entity *> got;
    tree.for_each([&](sched_entity *se) { got.push_back(se); });
    ASSERT_EQ(got, want) << "step " << step;

    u64 min_v = 0, min_s = 0;
    check_subtree(tree.root(), nullptr, &min_v, &min_s);
    if (list.empty()) continue;
    EXPECT_EQ(tree.first(), want.front());
    u64 scan_v = list.front()->vruntime, scan_s = list.front()->slice, scan_max = 0;
    for (const sched_entity *se : list) {
      scan_v = std::min(scan_v, se->vruntime);
      scan_s = std::min(scan_s, se->slice);
      scan_max = std::max(scan_max, se->slice);
    }
    EXPECT_EQ(tree.root()->min_vruntime, scan_v);
    EXPECT_EQ(tree.root()->min_slice, scan_s);
    EXPECT_EQ(tree.root()->max_slice, scan_max);  // cfs_rq_max_slice(), the 6.18.y lag clamp

    const u64 limit = rng.uniform_u64(0, 1000000);
    const sched_entity *scan = nullptr;
    for (const sched_entity *se : want)
      if (se->vruntime <= limit) {
        scan = se;
        break;
      }
    EXPECT_EQ(heap_search(tree, limit), scan) << "step " << step;
  }
}

TEST(TasksTimeline, StaysLogarithmicallyDeepWithSortedInsertions) {
  std::vector<sched_entity> es(4096);
  Timeline tree;
  for (std::size_t i = 0; i < es.size(); i++) {
    es[i].deadline = i;  // the worst order for an unbalanced tree
    tree.insert(&es[i]);
  }
  // AVL height is at most 1.44 log2(n + 2): 18 for 4096 entries.
  EXPECT_LE(tree.root()->run_node.height, 18);
  for (std::size_t i = 0; i < es.size(); i += 2) tree.erase(&es[i]);
  EXPECT_EQ(tree.size(), 2048u);
  EXPECT_EQ(tree.first(), &es[1]);
  EXPECT_LE(tree.root()->run_node.height, 17);
}

// rq->cfs_tasks against a vector doing what the list's users ask of it.
TEST(CfsTasksList, MatchesAVectorThroughQueueingPicksAndRotations) {
  sim::Stream rng(11, {2});
  std::vector<std::unique_ptr<task_struct>> pool;
  for (int i = 0; i < 64; i++) pool.push_back(std::make_unique<task_struct>());
  TaskList list;
  std::vector<task_struct *> model;  // front first
  auto in_model = [&](task_struct *p) {
    return std::find(model.begin(), model.end(), p) != model.end();
  };
  for (int step = 0; step < 20000; step++) {
    task_struct *p = pool[rng.uniform_u64(0, pool.size() - 1)].get();
    switch (rng.uniform_u64(0, 3)) {
      case 0:  // enqueue
        if (in_model(p)) break;
        list.push_front(p);
        model.insert(model.begin(), p);
        break;
      case 1:  // dequeue
        if (!in_model(p)) break;
        list.erase(p);
        model.erase(std::find(model.begin(), model.end(), p));
        break;
      case 2:  // picked: to the front
        if (!in_model(p)) break;
        list.move_to_front(p);
        std::rotate(model.begin(), std::find(model.begin(), model.end(), p),
                    std::find(model.begin(), model.end(), p) + 1);
        break;
      default:  // the balancer skips the last one: to the front
        if (model.empty()) break;
        list.move_to_front(list.back());
        std::rotate(model.begin(), model.end() - 1, model.end());
        break;
    }
    std::vector<task_struct *> fwd, rev;
    for (task_struct *q = list.front(); q; q = TaskList::next(q)) fwd.push_back(q);
    for (task_struct *q = list.back(); q; q = TaskList::prev(q)) rev.insert(rev.begin(), q);
    ASSERT_EQ(fwd, model) << "step " << step;
    ASSERT_EQ(rev, model) << "step " << step;
    ASSERT_EQ(list.empty(), model.empty());
  }
}

}  // namespace
}  // namespace schedlab::kernel
