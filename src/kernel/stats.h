// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// The run statistics, one line each, in the spirit of features.h: everything the model counts
// for the tables and the result files is declared here once. A CPU statistic is a counter of
// struct rq (the line declares the field; the model increments it, as the kernel's
// schedstat_inc() does); a RUN statistic is computed from a whole run (experiment/run_stats.cpp).
// From this list come the run JSON's per-CPU counters, the experiment's per-run values (JSON,
// CSV, the MPI wire format), its tables and the HTML report's, and the twin's values where the
// kernel reports the quantity.
//
// SCHED_STAT(name, over, section, table, unit, scale, decimals, label, acts_on, meaning)
//   name      the rq field and the key in every output (the kernel's name where it has one)
//   over      CPU: an rq counter, per CPU in the run JSON and summed over CPUs per run;
//             RUN: one value per run
//   section   where a CPU statistic sits in a run JSON's "cpus" entry: cpu, or schedstat (the
//             counters of /proc/schedstat's cpuN line); none for RUN
//   table     the experiment table that summarises it per run (mean, CI95, paired change,
//             sign test): NEWIDLE, MOVES, WAKEUP, or NONE (in the result files only)
//   unit      of the value: count, ns, us
//   scale, decimals  how the tables print it (value * scale)
//   label     the table's column
//   acts_on   the features, tunables (by name) and machine costs ("costs.NAME") that act on it:
//             the report shows its table when compared configurations differ in one of them;
//             "*" shows it always
//   meaning   one line, for docs and `schedlab help stats`
// clang-format off
#define SCHEDLAB_SCHED_STATS(SCHED_STAT)                                                           \
  /* Newidle balancing (sched_balance_newidle()) */                                                \
  SCHED_STAT(newidle_attempts, CPU, cpu, NEWIDLE, count, 1, 0, "attempts", NEWIDLE_GATES,          \
             "entries to newidle balancing")                                                       \
  SCHED_STAT(newidle_skipped_avg_idle, CPU, cpu, NEWIDLE, count, 1, 0, "skipped by avg_idle",      \
             NEWIDLE_GATES,                                                                        \
             "newidle balances skipped or cut short because avg_idle was below the domain's "      \
             "max_newidle_lb_cost")                                                                \
  SCHED_STAT(newidle_pulled, CPU, cpu, NEWIDLE, count, 1, 0, "pulled", NEWIDLE_GATES,              \
             "newidle balances that pulled a task")                                                \
  SCHED_STAT(newidle_cost_ns, CPU, cpu, NEWIDLE, ns, 1e-6, 1, "CPU time (ms)", NEWIDLE_GATES,      \
             "CPU time newidle balancing took")                                                    \
  SCHED_STAT(mean_avg_idle_ns, RUN, none, NEWIDLE, ns, 1e-3, 1, "mean avg_idle (us)",              \
             NEWIDLE_GATES, "rq->avg_idle over all its updates on all CPUs")                       \
  SCHED_STAT(newidle_lb_count, RUN, none, NEWIDLE, count, 1, 0, "lb_count", NEWIDLE_GATES,         \
             "/proc/schedstat's lb_count[CPU_NEWLY_IDLE] over all domains: newidle balances of "   \
             "a domain")                                                                           \
  SCHED_STAT(newidle_lb_gained, RUN, none, NEWIDLE, count, 1, 0, "lb_gained", NEWIDLE_GATES,       \
             "/proc/schedstat's lb_gained[CPU_NEWLY_IDLE] over all domains: tasks they moved")     \
  /* Load balancing (sched_balance_rq()) and core scheduling's task moves */                       \
  SCHED_STAT(migrations, RUN, none, MOVES, count, 1, 0, "migrations", FORCEIDLE_BALANCING,         \
             "migrations of all tasks (se.nr_migrations)")                                         \
  SCHED_STAT(lb_count, CPU, cpu, NONE, count, 1, 0, "balances", FORCEIDLE_BALANCING,               \
             "sched_balance_rq() calls, every idle type")                                          \
  SCHED_STAT(lb_moved, CPU, cpu, MOVES, count, 1, 0, "moved by load balancing",                    \
             FORCEIDLE_BALANCING, "tasks load balancing moved (periodic, NOHZ idle, newidle)")     \
  SCHED_STAT(lb_failed, CPU, cpu, NONE, count, 1, 0, "failed balances", FORCEIDLE_BALANCING,       \
             "balances that found an imbalance but moved nothing")                                 \
  SCHED_STAT(lb_active, CPU, cpu, MOVES, count, 1, 1, "active balances", FORCEIDLE_BALANCING,      \
             "active balances: the stopper pushed a running task")                                 \
  SCHED_STAT(core_pushed, CPU, cpu, MOVES, count, 1, 0, "pushed off forced idle",                  \
             FORCEIDLE_BALANCING, "tasks pushed away from a forced-idle core (CORE_PUSH_FORCEIDLE)")\
  SCHED_STAT(ttwu_move_affine, CPU, cpu, NONE, count, 1, 0, "affine wakeups",                      \
             "WA_IDLE WA_WEIGHT WA_BIAS CORE_COOKIE_WAKE_AFFINE",                                   \
             "wakeups wake_affine() moved to the waker's CPU (schedstat's domain field)")           \
  SCHED_STAT(core_stolen, CPU, cpu, MOVES, count, 1, 0, "cookie steals", FORCEIDLE_BALANCING,      \
             "tasks a forced-idle CPU stole for its cookie (steal_cookie_task())")                 \
  SCHED_STAT(idle_exit_ns, CPU, cpu, WAKEUP, ns, 1e-6, 2, "idle exit (ms)", "costs.idle_states",  \
             "time CPUs woken by an IPI spent leaving their idle state ([machine.idle])")          \
  /* /proc/schedstat's cpuN line */                                                                \
  SCHED_STAT(yld_count, CPU, schedstat, NONE, count, 1, 0, "sched_yield()", "",                    \
             "sched_yield() calls")                                                                \
  SCHED_STAT(sched_count, CPU, schedstat, NONE, count, 1, 0, "schedule()", "",                     \
             "__schedule() calls")                                                                 \
  SCHED_STAT(sched_goidle, CPU, schedstat, NONE, count, 1, 0, "went idle", "",                     \
             "__schedule() calls that left the CPU idle")                                          \
  SCHED_STAT(ttwu_count, CPU, schedstat, NONE, count, 1, 0, "wakeups", "",                         \
             "wakeups of a task onto this CPU (try_to_wake_up())")                                 \
  SCHED_STAT(ttwu_local, CPU, schedstat, NONE, count, 1, 0, "local wakeups", "",                   \
             "of those, wakeups done by this CPU itself")                                          \
  /* Wakeup latency: sched_waking to the task's first switch-in, over all wakeups of the run */    \
  SCHED_STAT(wakeup_p50_us, RUN, none, WAKEUP, us, 1, 1, "p50 (us)", "*",                          \
             "median wakeup latency")                                                              \
  SCHED_STAT(wakeup_p99_us, RUN, none, WAKEUP, us, 1, 1, "p99 (us)", "*",                          \
             "99th percentile of wakeup latency")                                                  \
  SCHED_STAT(wakeup_p999_us, RUN, none, WAKEUP, us, 1, 1, "p99.9 (us)", "*",                       \
             "99.9th percentile of wakeup latency")

// What acts on newidle balancing: the avg_idle patch and its guard, NI_RANDOM's sampling, the
// bump on failure, migration_cost_ns (the avg_idle gate's floor) and the cost of a balance.
#define NEWIDLE_GATES                                                                              \
  "AVG_IDLE_ON_IDLE_EXIT AVG_IDLE_STAMP_GUARD NI_RANDOM NEWIDLE_BUMP_ON_FAIL migration_cost_ns "   \
  "costs.newidle_balance_base_ns costs.newidle_balance_per_cpu_ns"
// What balances around forced idle: the force-idle push and the force-idle-aware balancing.
#define FORCEIDLE_BALANCING                                                                        \
  "CORE_PUSH_FORCEIDLE FI_IDLE_FOR_LB LB_COOKIE_PREF LB_COOKIE_SMT"

// The experiment tables: TABLE(id, short name (a sweep's lines), title, note)
#define SCHEDLAB_SCHED_STAT_TABLES(TABLE)                                                          \
  TABLE(NEWIDLE, "newidle", "Newidle balancing, per run",                                          \
        "Newidle balancing: summed over CPUs. Skipped by avg_idle: balances that avg_idle "        \
        "skipped or cut\nshort (below the domains' max_newidle_lb_cost). Mean avg_idle: over "     \
        "all its updates.")                                                                        \
  TABLE(MOVES, "moves", "Task moves, per run",                                                     \
        "Task moves: migrations of every cause; those of load balancing (periodic, NOHZ idle,\n"   \
        "newidle) and its active balances; pushes off a forced-idle core (CORE_PUSH_FORCEIDLE); "  \
        "cookie\nsteals by forced-idle CPUs.")                                                     \
  TABLE(WAKEUP, "wakeup latency", "Wakeup latency, per run",                                       \
        "Wakeup latency: sched_waking to the task's first switch-in, over all wakeups of a run "   \
        "(histogram\npercentiles, within 0.8 %).")
// clang-format on
