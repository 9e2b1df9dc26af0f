#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# `schedlab timeline` draws the same SVG from a scenario and from a result JSON of the same run
# (the replay is exact), a well-formed SVG with a lane per CPU, a legend, the forced-idle hatch
# and wakeup marks; `schedlab report` writes one self-contained, well-formed HTML page with the
# table and the charts; bad inputs exit 2 with one line.
set -u
bin=$1; src=$2; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0; n=0
check() { n=$((n+1)); if ! eval "$2"; then echo "FAIL: $1"; fail=$((fail+1)); fi; }
sc="$src/scenarios/wakeup-fastpath.toml"

"$bin" timeline "$sc" --config Cookie --seed 3 --from 1s --to 1.05s -o "$tmp/a.svg"; rc=$?
check "timeline from a scenario" '[ $rc -eq 0 ] && [ -s "$tmp/a.svg" ]'
"$bin" run "$sc" --config Cookie --seed 3 --json "$tmp/run.json" >/dev/null; rc=$?
check "run --json" '[ $rc -eq 0 ] && grep -q "\"scenario_file\"" "$tmp/run.json"'
"$bin" timeline "$tmp/run.json" --from 1s --to 1.05s -o "$tmp/b.svg"; rc=$?
check "timeline from the run JSON" '[ $rc -eq 0 ]'
check "scenario and run JSON give identical SVG bytes" 'cmp -s "$tmp/a.svg" "$tmp/b.svg"'
"$bin" timeline "$sc" --config Cookie --seed 4 --from 1s --to 1.05s -o "$tmp/c.svg"
check "another seed draws another schedule" '! cmp -s "$tmp/a.svg" "$tmp/c.svg"'
check "the SVG is well-formed with 8 lanes, legend, hatch, wakeups, forced idle and cookies" \
  'python3 - "$tmp/a.svg" <<"PY"
import sys, xml.etree.ElementTree as E
ns = "{http://www.w3.org/2000/svg}"
root = E.parse(sys.argv[1]).getroot()
lanes = [r for r in root.iter(ns + "rect") if r.get("class") == "lane"]
assert sorted(int(r.get("data-cpu")) for r in lanes) == list(range(8)), len(lanes)
texts = [t.text for t in root.iter(ns + "text")]
for want in ["core 0", "core 3", "cpu0", "cpu7", "forced idle", "wakeup", "idle", "cookie 1"]:
    assert want in texts, want
assert any(p.get("id") == "forceidle-hatch" for p in root.iter(ns + "pattern"))
assert any(r.get("class") == "forceidle" and r.get("fill") == "url(#forceidle-hatch)" for r in root.iter(ns + "rect"))
assert len([p for p in root.iter(ns + "path") if p.get("class") == "wakeup"]) > 5
tasks = [r for r in root.iter(ns + "rect") if r.get("class") == "task"]
assert len(tasks) > 10 and len({r.get("fill") for r in tasks}) >= 3
for r in tasks:  # inside the plot, with a tooltip
    assert r.find(ns + "title") is not None and "pid" in r.find(ns + "title").text
PY'
"$bin" timeline "$sc" --config Cookie --seed 3 --from 1s --to 1.05s --util -o "$tmp/u.svg"; rc=$?
check "--util: a util strip per lane with util_avg and util_est step lines, the schedule as before" \
  '[ $rc -eq 0 ] && python3 - "$tmp/u.svg" "$tmp/a.svg" <<"PY"
import sys, xml.etree.ElementTree as E
ns = "{http://www.w3.org/2000/svg}"
u, a = (E.parse(f).getroot() for f in sys.argv[1:])
g = [x for x in u.iter(ns + "g") if x.get("class") == "util"]
assert len(g) == 1
lines = g[0].findall(ns + "path")
assert len(lines) == 16, len(lines)  # 8 CPUs x (util_avg, util_est)
assert sum(1 for p in lines if p.get("stroke-dasharray")) == 8
texts = [t.text for t in u.iter(ns + "text")]
assert "util_avg" in texts and texts.count("util") == 8
assert texts.count("1024") == 8 and texts.count("512") == 8  # the scale of each strip
title = lambda r: [(x.get("fill"), x.find(ns + "title").text) for x in r.iter(ns + "rect") if x.get("class") == "task"]
assert title(u) == title(a)
assert not [x for x in a.iter(ns + "g") if x.get("class") == "util"]
PY'
"$bin" timeline "$sc" --config "No cookie" --seed 3 --from 1s --to 1.02s -o "$tmp/n.svg"; rc=$?
check "colour by task: every task of a no-cookie window has its own colour, no cookie band, a legend entry" \
  '[ $rc -eq 0 ] && python3 - "$tmp/n.svg" "$tmp/a.svg" <<"PY"
import sys, xml.etree.ElementTree as E
ns = "{http://www.w3.org/2000/svg}"
n, a = (E.parse(f).getroot() for f in sys.argv[1:])
tasks = [r for r in n.iter(ns + "rect") if r.get("class") == "task"]
by_pid = {}
for r in tasks:
    by_pid.setdefault(r.get("data-pid"), set()).add(r.get("fill"))
assert all(len(f) == 1 for f in by_pid.values()), "a task drawn in two colours"
fills = [next(iter(f)) for f in by_pid.values()]
assert len(by_pid) >= 4 and len(set(fills)) == len(fills), (len(by_pid), fills)
assert not [r for r in n.iter(ns + "rect") if r.get("class") == "cookie"]
texts = [t.text for t in n.iter(ns + "text")]
import re
assert sum(1 for t in texts if t and re.fullmatch(r"\S+ \(\d+\)", t)) == len(by_pid), texts
# With cookies, the cookie shows as a band in its colour on the slice.
bands = [r for r in a.iter(ns + "rect") if r.get("class") == "cookie"]
assert len(bands) > 10 and len({b.get("fill") for b in bands}) >= 2
PY'
"$bin" timeline "$sc" --config Cookie --seed 3 -o "$tmp/default.svg"; rc=$?
check "default window: the 20 ms report draws (near the first forced idle after 1 s)" \
  '[ $rc -eq 0 ] && python3 - "$tmp/default.svg" <<"PY"
import re, sys
a, b = map(float, re.search(r"seed 3, ([0-9.]+)–([0-9.]+) ms", open(sys.argv[1]).read()).groups())
assert b - a == 20 and a >= 998, (a, b)
PY'
"$bin" timeline "$sc" --cpus 0,4 --to 10ms -o "$tmp/d.svg"; rc=$?
check "--cpus 0,4 draws two lanes" '[ $rc -eq 0 ] && [ "$(grep -c "class=\"lane\"" "$tmp/d.svg")" -eq 2 ]'

# The report of a small experiment.
"$bin" experiment "$sc" --runs 3 --json "$tmp/exp.json" >/dev/null; rc=$?
check "experiment --json has scenario_file" '[ $rc -eq 0 ] && grep -q "\"scenario_file\"" "$tmp/exp.json"'
"$bin" report "$tmp/exp.json" -o "$tmp/r.html"; rc=$?
check "report runs" '[ $rc -eq 0 ] && [ -s "$tmp/r.html" ]'
check "report: well-formed, a table, >= 3 charts, the timeline, nothing fetched" \
  'python3 - "$tmp/r.html" <<"PY"
import re, sys
from html.parser import HTMLParser
text = open(sys.argv[1]).read()
void = {"meta", "br", "img", "input", "link", "hr"}
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.stack = []; s.tags = {}
    def handle_starttag(s, t, a):
        s.tags[t] = s.tags.get(t, 0) + 1
        if t not in void: s.stack.append(t)
    def handle_startendtag(s, t, a):
        s.tags[t] = s.tags.get(t, 0) + 1
    def handle_endtag(s, t):
        assert s.stack and s.stack[-1] == t, (t, s.stack[-3:])
        s.stack.pop()
p = P(); p.feed(text); p.close()
assert not p.stack, p.stack
assert p.tags.get("table", 0) >= 1 and p.tags.get("svg", 0) >= 4, p.tags
for cfg in ["No cookie", "Cookie + patch", "Cookie + patch (idle-cores switch)"]:
    assert cfg in text, cfg
assert "Completion time per run" in text and "Forced idle per configuration" in text
assert "Wakeup latency CDF" in text and "forceidle-hatch" in text
assert "onto another cookie" in text and "recent_used" in text
urls = re.findall(r"https?://[^\"<> ]*", text)
assert all(u == "http://www.w3.org/2000/svg" for u in urls), set(urls)
assert not re.search(r"<(script|link|img)\b", text)
PY'
"$bin" report "$tmp/exp.json" -o "$tmp/r2.html"
check "report is deterministic" 'cmp -s "$tmp/r.html" "$tmp/r2.html"'
"$bin" report "$tmp/run.json" -o "$tmp/run.html"; rc=$?
check "report of a run JSON" '[ $rc -eq 0 ] && grep -q "<table>" "$tmp/run.html"'
"$bin" timeline "$tmp/run.json" -o "$tmp/default-run.svg"; rc=$?
check "timeline's default window is the one report draws for the same run" \
  '[ $rc -eq 0 ] && python3 - "$tmp/default-run.svg" "$tmp/run.html" <<"PY"
import re, sys
a, b = re.search(r"seed 3, ([0-9]+)\.000–([0-9]+)\.000 ms", open(sys.argv[1]).read()).groups()
r = re.search(r"simulated time ([0-9]+)–([0-9]+) ms", open(sys.argv[2]).read()).groups()
assert (a, b) == r, ((a, b), r)
PY'

# The report of a sweep: drawn from its numbers alone, one chart per quantity across the points.
"$bin" sweep "$sc" --param kernel.tunables.migration_cost_ns=100000,500000 --config "No cookie" \
  --config "Cookie + patch" --runs 2 --json "$tmp/sweep.json" >/dev/null
sed "s#\"scenario_file\": \"[^\"]*\"#\"scenario_file\": \"$tmp/gone.toml\"#" "$tmp/sweep.json" \
  >"$tmp/sweep-moved.json"
"$bin" report "$tmp/sweep-moved.json" -o "$tmp/s.html"; rc=$?
check "sweep report runs, its scenario file gone" '[ $rc -eq 0 ] && [ -s "$tmp/s.html" ]'
check "sweep report: well-formed, its table, a chart per quantity, a dot per point and configuration" \
  'python3 - "$tmp/s.html" "$tmp/sweep.json" <<"PY"
import json, re, sys
from html.parser import HTMLParser
text = open(sys.argv[1]).read()
sweep = json.load(open(sys.argv[2]))
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.stack = []
    def handle_starttag(s, t, a):
        if t not in {"meta", "br"}: s.stack.append(t)
    def handle_endtag(s, t):
        assert s.stack and s.stack[-1] == t, (t, s.stack[-3:])
        s.stack.pop()
p = P(); p.feed(text); p.close()
assert not p.stack, p.stack
svgs = re.findall(r"<svg.*?</svg>", text, re.S)
titles = [re.search(r"font-weight=\"bold\">([^<]*)<", s).group(1) for s in svgs]
assert titles[0] == "completion time (s)", titles
for t in ["forced idle, summed over CPUs (s)", "wakeups onto another cookie&#39;s core (%)",
          "newidle: attempts", "newidle: mean avg_idle (us)"]:
    assert t in titles, (t, titles)
# With two configurations, each quantity also gets the change of the second against the first.
for t in ["completion time (s): change against No cookie (s)",
          "newidle: attempts: change against No cookie (%)"]:
    assert t in titles, (t, titles)
i = titles.index("newidle: attempts: change against No cookie (%)")
assert svgs[i].count("<circle") == 2 and "Cookie + patch at 100000: " in svgs[i]
assert ", sign test p " in svgs[i]
# migration_cost_ns does not act on pushes or the balancer features: no task-move charts.
assert not any(t.startswith("moves:") for t in titles), titles
# Completion: 2 points x 2 configurations, each a dot whose tooltip holds the JSON mean.
assert svgs[0].count("<circle") == 4
c = sweep["points"][1]["experiment"]["configs"][1]
want = "Cookie + patch at 500000: {:.4g}".format(c["mean_completion_time_s"])
assert want in svgs[0], want
assert text.count("<tr>") == 1 + 4  # the results table: head + points x configurations
assert not re.search(r"<(script|link|img)\b", text)
PY'
"$bin" report "$tmp/sweep-moved.json" -o "$tmp/s2.html"
check "sweep report is deterministic" 'cmp -s "$tmp/s.html" "$tmp/s2.html"'
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); j["points"]=[]; json.dump(j,open(sys.argv[2],"w"))' \
  "$tmp/sweep.json" "$tmp/sweep-empty.json"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); del j["points"][0]["experiment"]["configs"][0]["mean_completion_time_s"]; json.dump(j,open(sys.argv[2],"w"))' \
  "$tmp/sweep.json" "$tmp/sweep-partial.json"

# Bad inputs: one line, exit 2.
bad() {  # name, then the command
  local name=$1; shift
  "$@" >/dev/null 2>"$tmp/err"; local rc=$?
  check "$name exits 2 ($rc)" '[ $rc -eq 2 ]'
  check "$name: one line on stderr" '[ "$(wc -l <"$tmp/err")" -eq 1 ]'
}
echo '{"scenario": "x", "config": "a", "seed": 1}' >"$tmp/nofile.json"
# A result from before results embedded their scenario, whose file is gone.
python3 -c 'import json,sys
j = json.load(open(sys.argv[1])); j["scenario_file"] = sys.argv[3]; del j["scenario_source"]
json.dump(j, open(sys.argv[2], "w"))' "$tmp/run.json" "$tmp/gone.json" "$tmp/gone.toml"
echo '{ not json' >"$tmp/broken.json"
bad "missing input" "$bin" timeline "$tmp/missing.json" -o "$tmp/x.svg"
bad "invalid JSON" "$bin" report "$tmp/broken.json" -o "$tmp/x.html"
bad "JSON without scenario_file" "$bin" timeline "$tmp/nofile.json" -o "$tmp/x.svg"
bad "scenario_file gone" "$bin" report "$tmp/gone.json" -o "$tmp/x.html"
bad "bad --from" "$bin" timeline "$sc" --from 1x -o "$tmp/x.svg"
bad "--from after --to" "$bin" timeline "$sc" --from 2s --to 1s -o "$tmp/x.svg"
bad "--from equal to --to" "$bin" timeline "$sc" --from 1s --to 1s -o "$tmp/x.svg"
bad "--from after the run's end" "$bin" timeline "$sc" --from 1000s -o "$tmp/x.svg"
check "--from after the run's end: no half-written output left" '[ ! -e "$tmp/x.svg" ]'
"$bin" timeline "$sc" --from 1000s -o /dev/null 2>/dev/null
check "an error with -o /dev/null leaves /dev/null a device" '[ -c /dev/null ]'
bad "bad --cpus" "$bin" timeline "$sc" --cpus 3-1 -o "$tmp/x.svg"
bad "--cpus beyond the machine" "$bin" timeline "$sc" --cpus 9 -o "$tmp/x.svg"
bad "unknown --config" "$bin" timeline "$tmp/run.json" --config Nope -o "$tmp/x.svg"
bad "window too busy" "$bin" timeline "$sc" --from 0 --to 20s -o "$tmp/x.svg"
# An output that cannot be written is an I/O error: exit 1, one line with the OS's reason.
for args in "timeline $sc -o $tmp/no/such/dir.svg" "report $tmp/exp.json -o $tmp/no/such/dir.html"; do
  # shellcheck disable=SC2086
  "$bin" $args >/dev/null 2>"$tmp/err"; rc=$?
  check "${args%% *}: output not writable exits 1 ($rc)" '[ $rc -eq 1 ]'
  check "${args%% *}: one line with the reason" '[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "cannot open for writing: No such file or directory" "$tmp/err"'
done
bad "sweep without points" "$bin" report "$tmp/sweep-empty.json" -o "$tmp/x.html"
bad "sweep missing a mean" "$bin" report "$tmp/sweep-partial.json" -o "$tmp/x.html"
echo "$((n-fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
