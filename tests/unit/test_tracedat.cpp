// SPDX-License-Identifier: GPL-2.0-only
// trace.dat output: the ring-buffer page encoder (event headers, time extends, page
// boundaries), decoded here from the layout header_page/header_event describe and, where
// libtraceevent is present, by its kbuffer reader; the event format files against a real 6.18
// kernel's; and a run's trace.dat read back through libtracecmd.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "engine/simulation.h"
#include "observe/ftrace_writer.h"
#include "observe/ring_buffer_pages.h"
#include "observe/tracedat_writer.h"
#include "scenario/ftrace_reader.h"

#ifdef SCHEDLAB_HAVE_LIBTRACECMD
extern "C" {  // kbuffer.h declares C functions without saying so
#include <kbuffer.h>
}
#endif

namespace schedlab {
namespace {

using observe::RingBufferPages;
using Bytes = std::vector<std::uint8_t>;

std::uint64_t le(const std::uint8_t *p, int n) {
  std::uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

struct Event {
  std::uint64_t ts;
  Bytes data;  // as stored: the payload rounded up to 4 bytes
};

// The pages' events, read as header_event describes them.
std::vector<Event> decode(const std::vector<Bytes> &pages, int *extends = nullptr) {
  std::vector<Event> out;
  for (const Bytes &p : pages) {
    std::uint64_t ts = le(p.data(), 8);
    const std::size_t end = 16 + le(p.data() + 8, 8);
    EXPECT_LE(end, p.size());
    for (std::size_t at = 16; at < end;) {
      const auto h = static_cast<std::uint32_t>(le(p.data() + at, 4));
      const std::uint32_t type = h & 31, delta = h >> 5;
      if (type == 30) {
        ts += (le(p.data() + at + 4, 4) << 27) + delta;
        at += 8;
        if (extends) ++*extends;
        continue;
      }
      EXPECT_LT(type, 29u) << "padding or absolute time stamps are never written";
      std::size_t len = type * 4, data = at + 4;
      if (type == 0) {
        len = le(p.data() + at + 4, 4) - 4;
        data = at + 8;
      }
      ts += delta;
      out.push_back({ts, Bytes(p.begin() + static_cast<long>(data),
                               p.begin() + static_cast<long>(data + len))});
      at = data + len;
    }
  }
  return out;
}

struct Pages {
  std::vector<Bytes> pages;
  RingBufferPages rb{
      4096, [this](std::span<const std::uint8_t> p) { pages.emplace_back(p.begin(), p.end()); }};
};

Bytes payload(std::size_t n, std::uint8_t seed) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; i++) b[i] = static_cast<std::uint8_t>(seed + i);
  return b;
}

TEST(RingBufferPages, EventsAreFourByteAlignedWithTheirLengthInTheHeader) {
  Pages p;
  ASSERT_TRUE(p.rb.add(1000, payload(36, 1)));
  ASSERT_TRUE(p.rb.add(1500, payload(5, 2)));
  ASSERT_TRUE(p.rb.add(1500, payload(200, 3)));  // over 112 bytes: the length word form
  EXPECT_TRUE(p.pages.empty());
  p.rb.flush();
  ASSERT_EQ(p.pages.size(), 1u);
  const Bytes &pg = p.pages[0];
  ASSERT_EQ(pg.size(), 4096u);
  EXPECT_EQ(le(pg.data(), 8), 1000u);                 // the page's timestamp
  EXPECT_EQ(le(pg.data() + 8, 8), 40u + 12u + 208u);  // commit: the events' bytes
  EXPECT_EQ(le(pg.data() + 16, 4), 9u);               // type_len 9, delta 0
  EXPECT_EQ(le(pg.data() + 56, 4), 2u | 500u << 5);   // type_len 2, delta 500
  EXPECT_EQ(le(pg.data() + 68, 4), 0u);               // type_len 0, delta 0
  EXPECT_EQ(le(pg.data() + 72, 4), 204u);             // length word, counting itself
  const auto ev = decode(p.pages);
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[0].ts, 1000u);
  EXPECT_EQ(ev[1].ts, 1500u);
  EXPECT_EQ(ev[2].ts, 1500u);
  EXPECT_EQ(ev[0].data, payload(36, 1));
  EXPECT_EQ(Bytes(ev[1].data.begin(), ev[1].data.begin() + 5), payload(5, 2));
  EXPECT_EQ(ev[1].data.size(), 8u);
  EXPECT_EQ(ev[2].data, payload(200, 3));
  p.rb.flush();  // nothing new: no empty page
  EXPECT_EQ(p.pages.size(), 1u);
}

TEST(RingBufferPages, ADeltaBeyond27BitsGoesInATimeExtend) {
  Pages p;
  const std::uint64_t t0 = 5'000'000'000ULL;
  const std::uint64_t big = (1ULL << 27) + 12345;  // 134 ms and a bit
  ASSERT_TRUE(p.rb.add(t0, payload(8, 0)));
  ASSERT_TRUE(p.rb.add(t0 + big, payload(8, 1)));
  ASSERT_TRUE(p.rb.add(t0 + big + RingBufferPages::kMaxDelta, payload(8, 2)));  // fits: no extend
  ASSERT_TRUE(p.rb.add(t0 + big + RingBufferPages::kMaxDelta + (7ULL << 40), payload(8, 3)));
  p.rb.flush();
  ASSERT_EQ(p.pages.size(), 1u);
  const Bytes &pg = p.pages[0];
  // The extend: type 30, the delta's low 27 bits, then its high bits; the event after it has
  // delta 0.
  EXPECT_EQ(le(pg.data() + 28, 4), 30u | 12345u << 5);
  EXPECT_EQ(le(pg.data() + 32, 4), 1u);
  EXPECT_EQ(le(pg.data() + 36, 4), 2u);
  int extends = 0;
  const auto ev = decode(p.pages, &extends);
  EXPECT_EQ(extends, 2);
  ASSERT_EQ(ev.size(), 4u);
  EXPECT_EQ(ev[0].ts, t0);
  EXPECT_EQ(ev[1].ts, t0 + big);
  EXPECT_EQ(ev[2].ts, t0 + big + RingBufferPages::kMaxDelta);
  EXPECT_EQ(ev[3].ts, t0 + big + RingBufferPages::kMaxDelta + (7ULL << 40));
  for (int i = 0; i < 4; i++) EXPECT_EQ(ev[i].data, payload(8, static_cast<std::uint8_t>(i)));
}

TEST(RingBufferPages, AnEventThatDoesNotFitStartsTheNextPageAtItsOwnTime) {
  Pages p;
  // 100-byte payloads take 104 bytes: 39 fit in a page's 4080.
  for (int i = 0; i < 50; i++)
    ASSERT_TRUE(p.rb.add(1000 + 10 * static_cast<std::uint64_t>(i),
                         payload(100, static_cast<std::uint8_t>(i))));
  ASSERT_EQ(p.pages.size(), 1u);  // the first is full; the second is being filled
  EXPECT_EQ(le(p.pages[0].data() + 8, 8), 39u * 104u);
  p.rb.flush();
  ASSERT_EQ(p.pages.size(), 2u);
  EXPECT_EQ(le(p.pages[1].data(), 8), 1000u + 390u);  // the 40th event's time
  EXPECT_EQ(le(p.pages[1].data() + 16, 4) >> 5, 0u);  // and it has delta 0
  EXPECT_EQ(le(p.pages[1].data() + 8, 8), 11u * 104u);
  const auto ev = decode(p.pages);
  ASSERT_EQ(ev.size(), 50u);
  for (int i = 0; i < 50; i++) {
    EXPECT_EQ(ev[static_cast<std::size_t>(i)].ts, 1000u + 10u * static_cast<unsigned>(i));
    EXPECT_EQ(ev[static_cast<std::size_t>(i)].data, payload(100, static_cast<std::uint8_t>(i)));
  }
}

TEST(RingBufferPages, AnExtendAndItsEventMoveToTheNextPageTogether) {
  Pages p;
  // 39 events of 104 bytes leave 24 bytes: room for a 20-byte event, not for an extend too.
  for (int i = 0; i < 39; i++) ASSERT_TRUE(p.rb.add(100, payload(100, 0)));
  const std::uint64_t late = 100 + (1ULL << 30);
  ASSERT_TRUE(p.rb.add(late, payload(16, 9)));
  p.rb.flush();
  ASSERT_EQ(p.pages.size(), 2u);
  EXPECT_EQ(le(p.pages[1].data(), 8), late);  // a new page: its timestamp, no extend
  EXPECT_EQ(le(p.pages[1].data() + 8, 8), 20u);
  int extends = 0;
  const auto ev = decode(p.pages, &extends);
  EXPECT_EQ(extends, 0);
  ASSERT_EQ(ev.size(), 40u);
  EXPECT_EQ(ev.back().ts, late);
  EXPECT_EQ(ev.back().data, payload(16, 9));
}

TEST(RingBufferPages, APayloadLargerThanAPageIsRefused) {
  Pages p;
  EXPECT_EQ(p.rb.max_payload(), 4072u);
  EXPECT_TRUE(p.rb.add(1, payload(4072, 0)));
  EXPECT_FALSE(p.rb.add(2, payload(4073, 0)));
  p.rb.flush();
  ASSERT_EQ(p.pages.size(), 1u);
  EXPECT_EQ(decode(p.pages).size(), 1u);
}

#ifdef SCHEDLAB_HAVE_LIBTRACECMD
// libtraceevent's own reader of ring-buffer pages reads the same events and times.
TEST(RingBufferPages, LibtraceeventsKbufferReadsThePages) {
  Pages p;
  std::vector<std::uint64_t> ts;
  std::uint64_t t = 77;
  for (int i = 0; i < 120; i++) {
    t += i % 7 == 0 ? (3ULL << 27) + static_cast<std::uint64_t>(i) : 1000;
    ts.push_back(t);
    ASSERT_TRUE(p.rb.add(
        t, payload(static_cast<std::size_t>(20 + 13 * (i % 11)), static_cast<std::uint8_t>(i))));
  }
  p.rb.flush();
  ASSERT_GT(p.pages.size(), 1u);
  kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
  ASSERT_NE(kb, nullptr);
  std::size_t n = 0;
  for (Bytes &pg : p.pages) {
    ASSERT_EQ(kbuffer_load_subbuffer(kb, pg.data()), 0);
    unsigned long long at = 0;
    for (void *d = kbuffer_read_event(kb, &at); d; d = kbuffer_next_event(kb, &at)) {
      ASSERT_LT(n, ts.size());
      EXPECT_EQ(at, ts[n]) << "event " << n;
      const Bytes want = payload(20 + 13 * (n % 11), static_cast<std::uint8_t>(n));
      EXPECT_EQ(std::memcmp(d, want.data(), want.size()), 0) << "event " << n;
      n++;
    }
  }
  kbuffer_free(kb);
  EXPECT_EQ(n, ts.size());
}
#endif

std::string read_file(const std::string &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string kTracefs618 = std::string(SCHEDLAB_SOURCE_DIR) + "/tests/data/tracefs-6.18/";

// Every event 6.18 shares with the real kernel's tracefs has the same format file, its ID
// apart (the kernel numbers events as it registers them).
TEST(TraceDatFormats, SixEighteenFormatFilesAreTheKernels) {
  EXPECT_EQ(observe::tracedat_header_page(4096), read_file(kTracefs618 + "events/header_page"));
  EXPECT_EQ(observe::tracedat_header_event(), read_file(kTracefs618 + "events/header_event"));
  int compared = 0;
  for (const auto &e : observe::tracedat_events(/*v618=*/true, /*pelt=*/true)) {
    const std::string path = kTracefs618 + "events/" + e.system + "/" + e.name + "/format";
    if (!std::filesystem::exists(path)) continue;
    std::string real = read_file(path);  // its "ID: N" line set to ours
    const std::size_t id = real.find("\nID: "), end = real.find('\n', id + 1);
    ASSERT_NE(end, std::string::npos) << path;
    real.replace(id + 5, end - id - 5, std::to_string(e.id));
    EXPECT_EQ(observe::tracedat_format_file(e), real) << path;
    compared++;
  }
  EXPECT_EQ(compared, 8);
}

const observe::TraceDatEvent &find(const std::vector<observe::TraceDatEvent> &ev,
                                   const std::string &name) {
  for (const auto &e : ev)
    if (name == e.name) return e;
  throw std::runtime_error("no event " + name);
}

// 6.12's layouts (include/trace/events/sched.h of 6.12): comms are 16-byte arrays everywhere
// and sched_process_exit has no group_dead.
TEST(TraceDatFormats, SixTwelveLayouts) {
  const auto ev = observe::tracedat_events(/*v618=*/false, /*pelt=*/false);
  const auto &mig = find(ev, "sched_migrate_task");
  EXPECT_EQ(mig.size, 40u);
  EXPECT_NE(observe::tracedat_format_file(mig).find(
                "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
                "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"),
            std::string::npos);
  EXPECT_NE(observe::tracedat_format_file(mig).find("\", REC->comm, REC->pid,"), std::string::npos);
  const auto &fork = find(ev, "sched_process_fork");
  EXPECT_EQ(fork.size, 48u);
  EXPECT_NE(observe::tracedat_format_file(fork).find(
                "\tfield:char child_comm[16];\toffset:28;\tsize:16;\tsigned:0;\n"
                "\tfield:pid_t child_pid;\toffset:44;\tsize:4;\tsigned:1;\n"),
            std::string::npos);
  const auto &exit = find(ev, "sched_process_exit");
  EXPECT_EQ(exit.size, 32u);
  EXPECT_EQ(observe::tracedat_format_file(exit).find("group_dead"), std::string::npos);
  EXPECT_EQ(find(ev, "sched_switch").size, 64u);
  EXPECT_THROW(find(ev, "lisa__sched_pelt_cfs"), std::runtime_error);
}

// LISA's events: C's layout of their records, the strings after the fixed part.
TEST(TraceDatFormats, LoadTrackingEventsLayout) {
  const auto ev = observe::tracedat_events(/*v618=*/true, /*pelt=*/true);
  const auto &cfs = find(ev, "lisa__sched_pelt_cfs");
  EXPECT_EQ(cfs.size, 48u);
  EXPECT_NE(observe::tracedat_format_file(cfs).find(
                "\tfield:int cpu;\toffset:40;\tsize:4;\tsigned:1;\n"
                "\tfield:__data_loc char[] path;\toffset:44;\tsize:4;\tsigned:0;\n"),
            std::string::npos);
  EXPECT_EQ(find(ev, "lisa__sched_util_est_se_unified").size, 40u);
  EXPECT_EQ(find(ev, "lisa__sched_util_est_cfs_unified").size, 32u);
  EXPECT_EQ(find(ev, "lisa__sched_pelt_se").size, 56u);
}

std::string write_dat(const std::string &version, std::string *text,
                      engine::RunResult *result = nullptr) {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string dat = (dir / ("schedlab-tracedat-" + std::to_string(getpid()) + ".dat"));
  const std::string txt = dat + ".txt";
  scenario::Scenario s =
      scenario::load_scenario(std::string(SCHEDLAB_SOURCE_DIR) + "/scenarios/wakeup-fastpath.toml");
  s.kernel.version =
      version == "6.12" ? kernel::KernelVersion::V6_12 : kernel::KernelVersion::V6_18;
  for (auto &g : s.groups) g.loops = 40;  // about a second
  std::FILE *d = std::fopen(dat.c_str(), "w");
  std::FILE *t = std::fopen(txt.c_str(), "w+");
  EXPECT_TRUE(d && t);
  // "Cookie": core scheduling adds its markers (ftrace print events).
  engine::Simulation sim(s, "Cookie", s.kernel, 3);
  observe::TraceDatWriter w(sim.kernel(), d, 0, kTimeNever, {}, /*pelt=*/true);
  observe::FtraceWriter f(sim.kernel(), t, 0, kTimeNever, {}, /*pelt=*/true);
  sim.add_tracer(&w);
  sim.add_tracer(&f);
  const engine::RunResult r = sim.run();
  if (result) *result = r;
  EXPECT_EQ(w.finish(), 0);
  EXPECT_EQ(f.finish(), 0);
  std::fclose(d);
  std::fclose(t);
  *text = txt;
  return dat;
}

TEST(TraceDatWriter, FileLayout) {
  std::string txt;
  const std::string dat = write_dat("6.18", &txt);
  const std::string bytes = read_file(dat);
  std::filesystem::remove(dat);
  std::filesystem::remove(txt);
  ASSERT_GT(bytes.size(), 8192u);
  EXPECT_EQ(bytes.substr(0, 12), std::string("\x17\x08\x44tracing6", 12));  // version "6\0"
  EXPECT_EQ(bytes[12], 0);                                                  // little endian
  EXPECT_EQ(bytes[13], 8);                                                  // sizeof(long)
  EXPECT_EQ(le(reinterpret_cast<const std::uint8_t *>(bytes.data()) + 14, 4), 4096u);
  EXPECT_EQ(bytes.size() % 4096, 0u);  // whole pages of CPU data
  EXPECT_NE(bytes.find("sched_switch"), std::string::npos);
  EXPECT_NE(bytes.find("lisa__sched_pelt_cfs"), std::string::npos);
  EXPECT_NE(bytes.find("tracing_mark_write"), std::string::npos);
}

#ifdef SCHEDLAB_HAVE_LIBTRACECMD
// The run's trace.dat, read back through libtracecmd, has the events of its text trace, on the
// same CPUs for the same tasks, at the text's times to the microsecond. Each CPU's sequence is
// the same; across CPUs, events at the same nanosecond come in CPU order from libtracecmd and
// in the order the model fired them in the text.
TEST(TraceDatWriter, LibtracecmdReadsTheTextTracesEvents) {
  for (const std::string version : {"6.12", "6.18"}) {
    std::string txt;
    const std::string dat = write_dat(version, &txt);
    const scenario::ParsedTrace b = scenario::read_trace(dat);
    const scenario::ParsedTrace a = scenario::read_trace(txt);
    std::filesystem::remove(dat);
    std::filesystem::remove(txt);
    EXPECT_EQ(a.nr_cpus, b.nr_cpus);
    ASSERT_EQ(a.events.size(), b.events.size()) << version;
    ASSERT_GT(a.events.size(), 1000u);
    std::map<int, std::vector<const scenario::TraceEvent *>> ta, tb;
    for (const auto &e : a.events) ta[e.cpu].push_back(&e);
    for (const auto &e : b.events) tb[e.cpu].push_back(&e);
    ASSERT_EQ(ta.size(), tb.size());
    for (const auto &[cpu, xs] : ta) {
      const auto &ys = tb[cpu];
      ASSERT_EQ(xs.size(), ys.size()) << "cpu " << cpu;
      for (std::size_t i = 0; i < xs.size(); i++) {
        const auto &x = *xs[i], &y = *ys[i];
        ASSERT_TRUE(x.type == y.type && x.pid == y.pid && x.a_pid == y.a_pid &&
                    x.b_pid == y.b_pid && x.a_comm == y.a_comm && x.b_comm == y.b_comm &&
                    x.blocked == y.blocked && x.irq == y.irq && x.ts == (y.ts + 500) / 1000 * 1000)
            << version << " cpu " << cpu << " text line " << x.line;
      }
    }
  }
}

// With nanosecond timestamps, the CPU time the trace shows for each task is the run's own.
TEST(TraceDatWriter, NanosecondTimesGiveEachTasksRuntimeExactly) {
  std::string txt;
  engine::RunResult r;
  const std::string dat = write_dat("6.18", &txt, &r);
  const auto spec = scenario::derive_replay(scenario::read_trace(dat));
  std::filesystem::remove(dat);
  std::filesystem::remove(txt);
  std::map<std::string, Time> runtime;
  for (const auto &t : spec->tasks) runtime[t.comm] = t.trace_runtime_ns;
  ASSERT_FALSE(r.metrics.tasks.empty());
  for (const auto &m : r.metrics.tasks) {
    if (m.runtime_ns == 0) continue;
    ASSERT_TRUE(runtime.count(m.comm)) << m.comm;
    EXPECT_EQ(runtime[m.comm], m.runtime_ns) << m.comm;
  }
}
#endif

}  // namespace
}  // namespace schedlab
