"""make bench's f.: a VM's RAM faulted in on the guest's first touch, replayed (harness/vm).

A trace (traces/<name>.trace.gz, made by make vm-trace) holds the order in which a guest first
touched each 4 KiB page of its RAM, seen from the host. harness/vm replays it: the host's clear of a
2 MiB folio at the first touch of its region (a KVM fault: mainline's folio_zero_user(), or the far
ranges cold and the faulting neighbourhood cached), then the guest's write of each page it touches,
in the trace's order, with one of three models of the guest's write (vm -w: stosb, its clear_page()
of 4 KiB; run, one clear over each run of consecutive pages; line, a load and a store per line), and
one of two host clears (fault: folio_zero_user()'s; alloc: init_on_alloc's, vm -a). The rows
"<round> vm-<host>-<model>-<name> <KiB> <variant> <clear ns/page> <touch ns/page>" go through
ntbench's decision rule, per trace, host and model; the decision for KVM's fault on this part is
cold only where every one decides the routine cold, cached where every one decides it cached,
otherwise undecided (which stays cached).
"""
import gzip
import os
import re
import statistics

PREFIX = "vm-"
BASE = "clear_pages"
ROUTINES = ("movnti", "clzero")
# Delays after a region's first touch (TCG's microseconds), and their names
BUCKETS = ((0, "the same poll"), (10000, "< 10 ms"), (100000, "< 100 ms"), (1000000, "< 1 s"),
           (None, ">= 1 s"))


MODELS = {"stosb": "the guest's clear_page(): 4 KiB of REP STOSB a page",
          "run": "one REP STOSB over each run of consecutive pages (a guest's THP clear)",
          "line": "a load and a store per line (the all use's model, not a guest's)"}


HOSTS = {"fault": "folio_zero_user(), the fault's page +- 2 last",
         "alloc": "init_on_alloc: the allocator's clear_pages() over the folio; cold: over the folio, then the "
                  "fault's page +- 2 cached"}


def sections(runs):
    """{trace name: [(host, model, section)]} of the vm-<host>-<model>-<name> sections in RUNS, in
    HOSTS' and MODELS' order."""
    out = {}
    for sec in sorted({f[1] for r in runs for f in r.rows if len(f) == 6 and f[1].startswith(PREFIX)}):
        parts = sec[len(PREFIX):].split("-", 2)
        if len(parts) == 3:
            out.setdefault(parts[2], []).append((parts[0], parts[1], sec))

    def rank(x):
        return (list(HOSTS).index(x[0]) if x[0] in HOSTS else 9, list(MODELS).index(x[1]) if x[1] in MODELS else 9)
    return {n: sorted(v, key=rank) for n, v in out.items()}


def reduce(path):
    """(comments, {region: [delay us of each page touched after the region's first]}, pages, distances)
    of the trace at PATH: per 2 MiB guest-physical region, when each later page was touched, and for
    each later page the bytes the replay stores in other regions between its region's first touch and
    it (2 MiB a host clear, 4 KiB a guest write): whether the guest finishes a region before it goes
    on to others."""
    comments, first, later, pages, dist = [], {}, {}, 0, []
    done = 0        # bytes the replay stores in other regions than the page's
    with gzip.open(path, "rt") as f:
        for line in f:
            if line.startswith("#"):
                comments.append(line[1:].strip())
                continue
            t, page = (int(x) for x in line.split())
            reg = page // 512
            pages += 1
            if reg not in first:
                first[reg] = [t, done, 0]       # time, bytes stored so far, of which in this region
                later[reg] = []
                own = 2 << 20                   # its clear
            else:
                later[reg].append(t - first[reg][0])
                dist.append(done - first[reg][1] - first[reg][2])
                own = 0
            first[reg][2] += own + 4096
            done += own + 4096
    return comments, later, pages, sorted(dist)


def summary_lines(path):
    """What the trace at PATH says of its guest, and its pages' delays after their region's first
    touch; [] when the file is not here."""
    if not path or not os.path.isfile(path):
        return ["  (the trace %s is not here: no summary)" % path]
    comments, later, pages, dist = reduce(path)
    keep = [c for c in comments if c.split(":")[0] in ("guest", "guest kernel", "workload", "guest command line")]
    n = {name: 0 for _, name in BUCKETS}
    for delays in later.values():
        for d in delays:
            for lim, name in BUCKETS:
                if lim is None or (d == 0 if lim == 0 else d < lim):
                    n[name] += 1
                    break
    never = 512 * len(later) - pages
    tot = 512 * len(later)
    out = ["  " + c for c in keep] + [
        "  %d pages first touched in %d regions of 2 MiB; of a region's 512 pages, one is its first touch, and the "
        "others are touched after it (TCG's time, polled every %s): %s; never: %.1f %%" % (
            pages, len(later), interval(comments),
            ", ".join("%s %.1f %%" % (name, 100 * n[name] / tot) for _, name in BUCKETS), 100 * never / tot)]
    if dist:
        out.append("  between a region's first touch and a later page's, the replay stores in other regions (their "
                   "clears and the guest's writes) median %s, 90th percentile %s, 99th %s" % tuple(
                       size_text(dist[int(q * (len(dist) - 1))]) for q in (0.5, 0.9, 0.99)))
    return out


def size_text(b):
    """Bytes as KiB below 1 MiB, else MiB with one decimal."""
    return "%d KiB" % (b >> 10) if b < 1 << 20 else "%.1f MiB" % (b / (1 << 20))


def interval(comments):
    """The trace's poll interval as measured (polls over seconds, from vmtrace's last comment line),
    and the longest gap."""
    for c in comments:
        m = re.search(r"(\d+) polls in ([0-9.]+) s, longest gap (\d+) us", c)
        if m and int(m.group(1)) > 0:
            return "%.1f ms on average, at most %.0f ms" % (1000 * float(m.group(2)) / int(m.group(1)),
                                                           int(m.group(3)) / 1000)
    return "?"


def vm_tables(runs, margin, analyse, fmt, mainline):
    """f.: a table per trace (a row per write model and variant) and the decision for KVM's fault on
    this part; [] where the runs have no vm rows. ANALYSE, FMT and MAINLINE: ntbench's, so that the
    rule is the same."""
    traces = sections(runs)
    if not traces:
        return []
    meta = runs[0].meta
    out = ["f. a VM's RAM faulted in on the guest's first touch (harness/vm): a recorded guest's first touches "
           "replayed, the host clearing each 2 MiB folio at its region's first touch (clear_pages: mainline's "
           "folio_zero_user(); a routine: its far ranges cold, the faulting page +- 2 cached, last), then the guest "
           "writing each page it touches, in the trace's order, nothing between (which favours mainline); the "
           "guest's write as each model says (%s); the host's clear as each says (%s); ns per 4 KiB page of the "
           "regions touched, median of the per-round medians; only the total compares (a cold clear's stores "
           "drain during the touch)" % ("; ".join("%s: %s" % kv for kv in MODELS.items()),
                                        "; ".join("%s: %s" % kv for kv in HOSTS.items()))]
    verdict = {}
    for name, secs in sorted(traces.items()):
        path = meta.get("vm_trace_" + name, "")
        out.append("trace %s (%s):" % (name, path or "path not recorded"))
        out += summary_lines(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), path)
                             if path else "")
        out.append("  %-6s %-6s %-12s %8s %8s %8s  %-26s %s" % ("host", "write", "variant", "clear", "touch", "total",
                                                                "total/%s [min-max]" % BASE, "decision"))
        for host, model, sec in secs:
            mainline.setdefault(sec, BASE)
            decs, meds = analyse(runs, sec, margin)
            for (size, v) in sorted(meds, key=lambda k: (k[1] != BASE, k[1])):
                m = [statistics.median(x[j] for x in meds[(size, v)].values()) for j in range(3)]
                d = decs.get(v, {}).get(size)
                rat = "%s [%s-%s] n=%d" % (fmt(d.med), fmt(d.lo), fmt(d.hi), d.n) if d else ""
                out.append("  %-6s %-6s %-12s %8.1f %8.1f %8.1f  %-26s %s" % (
                    host, model, v, m[0], m[1], m[2], rat, d.kind if d else "(mainline)"))
                if d and v in ROUTINES:
                    verdict.setdefault(v, []).append(d.kind)
    words = []
    for v in ROUTINES:
        kinds = verdict.get(v)
        if kinds:
            words.append("%s %s" % (v, "cold" if all(k == "cold" for k in kinds) else
                                    "cached" if all(k == "cached" for k in kinds) else "undecided"))
    out.append("f. decision for KVM's first-touch fault on %s: %s (cold only where every trace, write model "
               "and host clear decides it cold, cached where every one decides it cached; undecided stays cached)" % (
                   meta.get("cpu", "this CPU"), ", ".join(words) or "nothing measured"))
    return out + [""]
