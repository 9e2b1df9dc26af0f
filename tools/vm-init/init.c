// SPDX-License-Identifier: GPL-2.0-only
// The /init of schedlab's smoke-check guest (scripts/vm-smoke.sh). It runs as PID 1 in
// an initramfs, mounts proc, sysfs and debugfs, prints what it finds about the guest's
// scheduler as framed "SCHEDLAB-VM key=value" lines on the console, then powers off.
// Built with `gcc -static -O2`; it needs nothing but the kernel.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#ifndef PR_SCHED_CORE
#define PR_SCHED_CORE 62
#endif
#ifndef PR_SCHED_CORE_GET
#define PR_SCHED_CORE_GET 0
#define PR_SCHED_CORE_CREATE 1
#endif
#define SCOPE_PIDTYPE_PID 0  // enum pid_type's PIDTYPE_PID: this thread only

static void say(const char *key, const char *fmt, ...) {
  // Long enough for the features file: one line of every SCHED_FEAT() name, the
  // patches' switches included.
  char value[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(value, sizeof value, fmt, ap);
  va_end(ap);
  // One write per line, so lines from the kernel cannot land inside it.
  char line[2176];
  int n = snprintf(line, sizeof line, "SCHEDLAB-VM %s=%s\n", key, value);
  if (n > (int)sizeof line - 1) n = sizeof line - 1;
  if (write(1, line, (size_t)n) < 0) { /* nothing to do without a console */ }
}

// First line of a file, without its newline; false if it cannot be read.
static int first_line(const char *path, char *buf, size_t len) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  int ok = fgets(buf, (int)len, f) != NULL;
  fclose(f);
  if (ok) buf[strcspn(buf, "\n")] = '\0';
  return ok;
}

static void mount_or_say(const char *src, const char *dir, const char *type) {
  mkdir(dir, 0755);
  if (mount(src, dir, type, 0, NULL) != 0 && errno != EBUSY)
    say("mount_error", "%s on %s: %s", type, dir, strerror(errno));
}

// The jiffies count that /proc/schedstat prints as its timestamp.
static long long schedstat_jiffies(void) {
  FILE *f = fopen("/proc/schedstat", "r");
  if (!f) return -1;
  char line[256];
  long long j = -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "timestamp %lld", &j) == 1) break;
  fclose(f);
  return j;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

// HZ is not exported to user space; count jiffies over half a second of
// CLOCK_MONOTONIC and take the nearest value Kconfig offers.
static void report_hz(void) {
  long long j0 = schedstat_jiffies();
  double t0 = now_s();
  struct timespec half = {0, 500000000L};
  nanosleep(&half, NULL);
  long long j1 = schedstat_jiffies();
  double t1 = now_s();
  if (j0 < 0 || j1 < 0 || t1 <= t0) {
    say("hz", "unknown");
    return;
  }
  double rate = (double)(j1 - j0) / (t1 - t0);
  static const int offered[] = {100, 250, 300, 1000};
  int best = offered[0];
  for (size_t i = 1; i < sizeof offered / sizeof offered[0]; i++) {
    double d = rate - offered[i], db = rate - best;
    if (d * d < db * db) best = offered[i];
  }
  say("hz", "%d", best);
  say("hz_measured", "%.1f", rate);
}

static void report_core_cookie(void) {
  if (prctl(PR_SCHED_CORE, PR_SCHED_CORE_CREATE, 0, SCOPE_PIDTYPE_PID, 0) != 0) {
    say("sched_core_create", "error %s", strerrorname_np(errno) ? strerrorname_np(errno) : "?");
    return;
  }
  say("sched_core_create", "ok");
  unsigned long cookie = 0;
  if (prctl(PR_SCHED_CORE, PR_SCHED_CORE_GET, 0, SCOPE_PIDTYPE_PID, (unsigned long)&cookie) != 0) {
    say("sched_core_cookie", "error %s", strerrorname_np(errno) ? strerrorname_np(errno) : "?");
    return;
  }
  say("sched_core_cookie", "0x%lx", cookie);
}

int main(void) {
  // The kernel opens /dev/console for PID 1 if the initramfs has it; if not, get one.
  if (fcntl(1, F_GETFD) < 0) {
    mount_or_say("devtmpfs", "/dev", "devtmpfs");
    int fd = open("/dev/console", O_RDWR);
    if (fd >= 0) {
      dup2(fd, 0);
      dup2(fd, 1);
      dup2(fd, 2);
    }
  }
  say("init", "started");
  mount_or_say("proc", "/proc", "proc");
  mount_or_say("sysfs", "/sys", "sysfs");
  mount_or_say("debugfs", "/sys/kernel/debug", "debugfs");

  struct utsname u;
  if (uname(&u) == 0) say("kernel_release", "%s", u.release);

  char buf[512];
  say("cpus_online_list", "%s", first_line("/sys/devices/system/cpu/online", buf, sizeof buf) ? buf : "unknown");
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  say("nr_cpus_online", "%ld", ncpu);
  for (long cpu = 0; cpu < ncpu; cpu++) {
    char path[128], key[64];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%ld/topology/thread_siblings_list", cpu);
    snprintf(key, sizeof key, "cpu%ld_thread_siblings", cpu);
    say(key, "%s", first_line(path, buf, sizeof buf) ? buf : "unknown");
  }

  report_core_cookie();

  // The whole file is one line: each feature's name, NO_NAME when it is off.
  char features[2048];
  if (first_line("/sys/kernel/debug/sched/features", features, sizeof features))
    say("sched_features", "%s", features);
  else
    say("sched_features", "unreadable %s", strerrorname_np(errno) ? strerrorname_np(errno) : "?");

  report_hz();
  say("done", "1");

  sync();
  reboot(RB_POWER_OFF);
  // Powering off failed: PID 1 must not exit (the kernel would panic), so wait.
  say("poweroff_error", "%s", strerror(errno));
  for (;;) pause();
}
