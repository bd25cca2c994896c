#!/usr/bin/env python3
"""ntbench: the analysis of `make bench` runs, and the sets of folio orders per use they give.

The rule (printed by `tables` and `entry` as well):

  Per round r, per table (fault, copy), folio size and variant: m = the median
  over that round's runs of total = first + touch (ns per 4 KiB page), and
  ratio_r = m(variant) / m(mainline), mainline being clear_pages (fault) or
  copy_mc (copy).  Over n rounds, [min, max] of the ratio_r holds the median
  ratio with confidence 1 - 2^(1-n) (93.75 % for n = 5, 98.4 % for 7) when the
  rounds are i.i.d.  With MARGIN = 0.02: "cold" if max < 1 - MARGIN, "cached"
  if min >= 1 - MARGIN, otherwise "undecided" (the entry stays cached there).
  Fewer than 3 rounds: everything "undecided".  Two runs decide a size cold in
  one and cached in the other with chance at most max_p (p(1-p))^n = 4^-n
  (1/1024 for n = 5) under i.i.d. rounds; a drift common to one run's rounds
  is not covered (`simulate` shows its effect).

  Threshold of a cold variant: the smallest measured folio size S at which it
  is decided cold at S and at every larger measured size (none if it is not
  cold at the largest).  It is reported as the smallest real x86 folio size
  >= S (mTHP 16K..1M, PMD 2M, PUD 1G): a 32M proxy means SZ_1G (1G only).

  Clear entry: among the cold routines (movnti, clzero, movdir64b) of one call
  unit with a threshold, the lowest median ratio at the largest measured size,
  but movnti unless the other's median ratio there is at least 5 % lower
  (when movnti has a threshold).  Copy entry: copy_mc_movnti's threshold.

  Call units: `movnti/32M` is movnti in 32 MiB calls, `movnti/range` one call
  per range; an unsuffixed variant fits every unit.  Where `R/U` has no lines
  because U >= the folio size, `R/range` stands for it (the same calls).

Runs of one CPU in the new format are pooled (their rounds are the rounds of
one decision).  Runs of the old `make bench` (one round, the old baseline) are
shown as history with the old rule (crossover: the smallest size from which
the median total ratio is < 1 at every larger size), never pooled.
Standard library only (Debian 12's python3).
"""
import argparse
import math
import os
import random
import re
import statistics
import subprocess
import sys
import textwrap
from collections import namedtuple

import ntbench_mt
import ntbench_vm

MARGIN = 0.02
MAINLINE = {"fault": "clear_pages", "copy": "copy_mc"}
COLD = {"fault": ("movnti", "clzero", "movdir64b"), "copy": ("copy_mc_movnti",)}
# touch fault -t: how the folio is used after its clear; "fault" is use all.
# bench.runs names the section fault-<use> for the others.
USES = {"fault": "all", "fault-page": "page", "fault-none": "none", "fault-later": "later"}
# populate then use: a region of R bytes of 2 MiB folios cleared back to back, then every line of it
# touched (touch fault -s 2M -t later -R R); its rows' size column is the region's
for _sec in list(USES) + ["region", "mt"]:
    MAINLINE.setdefault(_sec, "clear_pages")
    COLD.setdefault(_sec, COLD["fault"])
USE_TITLE = {
    "fault": "use all: a load and a store of every line right after the clear (a task touching all of it)",
    "fault-page": "use page: one store per 4 KiB page right after the clear (perf bench mem mmap -f demand)",
    "fault-none": "use none: the pool's folios cleared back to back, nothing after (populate)",
    "fault-later": "use later: as none, then one sweep of every line of the pool (populated, used later)"}
ORDER_OF = {16: 2, 64: 4, 256: 6, 1024: 8, 2048: 9, 1048576: 18}   # real folio KiB -> order
# The routines an entry can name (v4: MOVDIR64B is a measured column only).
ENTRY_COLD = {"fault": ("movnti", "clzero"), "copy": ("copy_mc_movnti",)}
ENUM = {"movnti": "MOVNTI", "clzero": "CLZERO", "copy_mc_movnti": "MOVNTI"}
VENDORS = {"GenuineIntel": "X86_VENDOR_INTEL", "AuthenticAMD": "X86_VENDOR_AMD",
           "HygonGenuine": "X86_VENDOR_HYGON"}
REAL_FOLIOS = [16 << i for i in range(7)] + [2048, 1048576]  # KiB: 16K..1M, 2M, 1G
RULE = ("rule: per round, ratio = median total (first + touch) of the variant / of mainline "
        "(clear_pages, copy_mc);\n  over n rounds [min, max] holds the median ratio with "
        "confidence 1 - 2^(1-n); cold if max < 1 - margin,\n  cached if min >= 1 - margin, "
        "else undecided (stays cached); n < 3: undecided; two runs contradict\n  at one size "
        "with chance <= 4^-n (i.i.d. rounds); threshold: cold at it and every larger size,\n"
        "  as the smallest real folio size >= it (16K..1M, 2M, 1G)")

Dec = namedtuple("Dec", "kind lo hi med n")
Run = namedtuple("Run", "label meta rows cpu")          # a new-format run
OldRun = namedtuple("OldRun", "label cpu tables")       # tables[sec][size][variant] = total


class UsageError(Exception):
    """A bad argument or input: a one-line message, exit status 2."""


# ---- sizes -------------------------------------------------------------

def kib(s):
    """'16K', '32M', '1G', 'SZ_2M', '0' or a number of KiB -> KiB (int)."""
    s = str(s).strip().upper()
    if s.startswith("SZ_"):
        s = s[3:]
    m = re.fullmatch(r"(\d+)([KMG]?)B?", s)
    if not m:
        raise UsageError("not a size: %r" % s)
    return int(m.group(1)) << {"": 0, "K": 0, "M": 10, "G": 20}[m.group(2)]


def sname(k):
    """KiB -> '16K', '2M', '1G'."""
    for shift, unit in ((20, "G"), (10, "M")):
        if k >= 1 << shift and k % (1 << shift) == 0:
            return "%d%s" % (k >> shift, unit)
    return "%dK" % k


def real_folio(k):
    """The smallest real x86 folio size (KiB) >= k, or None."""
    return next((r for r in REAL_FOLIOS if r >= k), None)


def cold_set(k):
    """The real folio sizes treated cold from threshold k (KiB; 0/None: none)."""
    return frozenset(r for r in REAL_FOLIOS if k and r >= k)


# ---- input -------------------------------------------------------------

def parse_meta(text):
    """bench.meta's `key: value` lines -> dict."""
    meta = {}
    for line in text.splitlines():
        key, sep, val = line.partition(": ")
        if sep and key.strip():
            meta.setdefault(key.strip(), val.strip())
    return meta


def parse_cpuid(s):
    """'AuthenticAMD 0x1a 0x2 1 clzero=1 movdir64b=1' -> (vendor, fam, model, step, clz, m64)."""
    f = s.split()
    if len(f) < 6:
        raise UsageError("bad cpuid line: %r" % s)
    flag = {k: int(v) for k, _, v in (x.partition("=") for x in f[4:6])}
    return (f[0], int(f[1], 0), int(f[2], 0), int(f[3], 0), flag.get("clzero", 0), flag.get("movdir64b", 0))


def make_run(label, meta_text, runs_text):
    """A Run from the texts of bench.meta and bench.runs."""
    meta = parse_meta(meta_text)
    if "cpuid" not in meta:
        raise UsageError("%s: bench.meta has no cpuid: line" % label)
    rows = [line.split() for line in runs_text.splitlines() if line.strip() and not line.startswith("#")]
    return Run(label, meta, rows, parse_cpuid(meta["cpuid"]))


def embedded(text, name):
    """The fenced block headed ```NAME in a page, or None."""
    m = re.search(r"^```%s\n(.*?)^```" % re.escape(name), text, re.S | re.M)
    return m.group(1) if m else None


def parse_old(text, label):
    """Old `make bench` touch fault/copy tables in TEXT -> list of OldRun (one per fault table)."""
    runs, cpu, sec, size, cur = [], None, None, None, None
    for line in text.splitlines():
        if line.startswith("# CPU "):
            m = re.match(r"# CPU (\S+) family (\S+) model (\S+) stepping (\d+)", line)
            if m:
                fl = dict(re.findall(r"(clzero|movdir64b)=(\d)", line))
                cpu = (m.group(1), int(m.group(2), 0), int(m.group(3), 0), int(m.group(4)),
                       int(fl.get("clzero", 0)), int(fl.get("movdir64b", 0)))
            continue
        if re.match(r"size +variant ", line):
            sec = {"total/clear_pages": "fault", "total/copy_mc": "copy"}.get(line.split()[-1])
            if sec == "fault" or cur is None or sec in cur.tables:
                cur = OldRun(label, cpu, {})
                runs.append(cur)
            if sec:
                cur.tables[sec] = {}
            continue
        if sec is None:
            continue
        if not line.strip() or line.startswith(("#", "```")):
            sec = None
            continue
        f = re.sub(r"\([^)]*\)", " ", line).split()
        if re.fullmatch(r"\d+[KMG]", f[0]):
            size, f = kib(f[0]), f[1:]
        try:
            cur.tables[sec].setdefault(size, {})[f[0]] = float(f[3])
        except (IndexError, ValueError):
            sec = None
    return [r for r in runs if r.cpu and "fault" in r.tables]


def load(path):
    """PATH (a run directory, a page, an old output) -> (new runs, old runs)."""
    if os.path.isdir(path):
        if os.path.exists(os.path.join(path, "bench.runs")):
            with open(os.path.join(path, "bench.meta")) as m, open(os.path.join(path, "bench.runs")) as r:
                return [make_run(path, m.read(), r.read())], []
        new, old = [], []
        for name in sorted(os.listdir(path)):
            if name.endswith(".md") or (name.startswith("make-bench") and name.endswith(".txt")):
                n, o = load(os.path.join(path, name))
                new, old = new + n, old + o
        return new, old
    if os.path.basename(path) == "bench.runs":      # a run directory named by its bench.runs
        return load(os.path.dirname(path) or ".")
    if not os.path.isfile(path):
        raise UsageError("no such run: %s" % path)
    with open(path, errors="replace") as f:
        text = f.read()
    meta, runs = embedded(text, "bench.meta"), embedded(text, "bench.runs")
    if meta is not None and runs is not None:
        return [make_run(path, meta, runs)], []
    return [], parse_old(text, path)


# ---- the decision ------------------------------------------------------

def round_medians(runs, sec):
    """{(size, variant): {(run, round): (first, touch, total)}}: per-round medians of SEC's rows."""
    acc = {}
    for i, run in enumerate(runs):
        for f in run.rows:
            if len(f) == 6 and f[1] == sec:
                first, touch = float(f[4]), float(f[5])
                acc.setdefault((int(f[2]), f[3]), {}).setdefault((i, int(f[0])), []).append(
                    (first, touch, first + touch))
    return {k: {r: tuple(statistics.median(x[j] for x in v) for j in range(3)) for r, v in d.items()}
            for k, d in acc.items()}


def decide(ratios, margin=MARGIN):
    """The decision from per-round ratios: Dec(kind, min, max, median, n)."""
    n = len(ratios)
    if n == 0:
        return Dec("undecided", None, None, None, 0)
    lo, hi, med = min(ratios), max(ratios), statistics.median(ratios)
    if n < 3:
        kind = "undecided"
    elif hi < 1 - margin:
        kind = "cold"
    elif lo >= 1 - margin:
        kind = "cached"
    else:
        kind = "undecided"
    return Dec(kind, lo, hi, med, n)


def analyse(runs, sec, margin=MARGIN):
    """{variant: {size: Dec}} for SEC over the pooled rounds of RUNS, and the per-round medians."""
    meds = round_medians(runs, sec)
    out = {}
    for (size, var), rounds in meds.items():
        base = meds.get((size, MAINLINE[sec]), {})
        if var == MAINLINE[sec]:
            continue
        ratios = [rounds[r][2] / base[r][2] for r in sorted(rounds) if r in base]
        out.setdefault(var, {})[size] = decide(ratios, margin)
    return out, meds


def threshold(decs):
    """{size: Dec} -> (threshold KiB or None, undecided sizes)."""
    sizes = sorted(decs)
    thr = None
    for s in reversed(sizes):
        if decs[s].kind != "cold":
            break
        thr = s
    return thr, [s for s in sizes if decs[s].kind == "undecided"]


def series(decs, routine, unit):
    """{size: (variant, Dec)} of ROUTINE in call unit UNIT (see the module docstring)."""
    out = {}
    sizes = {s for v, d in decs.items() if v.split("/")[0] == routine for s in d}
    for s in sizes:
        names = [routine + "/" + unit, routine]
        if unit == "range" or kib_or_none(unit) is not None and kib_or_none(unit) >= s:
            names.append(routine + "/range")
        for v in names:
            if s in decs.get(v, {}):
                out[s] = (v, decs[v][s])
                break
    return out


def kib_or_none(s):
    """kib(s), or None where s is not a size (e.g. 'range')."""
    try:
        return kib(s)
    except UsageError:
        return None


Choice = namedtuple("Choice", "routine thr real ser why")  # routine None: none cold


def choose(decs, sec, unit):
    """The entry's routine for SEC ('fault': clear, 'copy') in UNIT, by the rule."""
    cands, why = {}, []
    for r in ENTRY_COLD[sec]:
        ser = series(decs, r, unit)
        if not ser:
            continue
        thr, und = threshold({s: d for s, (v, d) in ser.items()})
        big = max(ser)
        real = real_folio(thr) if thr else None
        why.append("%s %s (median %s at %s)%s" % (
            r, "from " + sname(thr) + ("" if real == thr else " = SZ_%s" % sname(real)) if real else "none",
            fmt(ser[big][1].med), sname(big), "; undecided at " + ", ".join(map(sname, und)) if und else ""))
        if real:
            cands[r] = (ser[big][1].med, thr, real, ser)
    if not cands:
        return Choice(None, None, None, {}, why)
    best = min(cands, key=lambda r: cands[r][0])
    mv = next((r for r in ("movnti", "copy_mc_movnti") if r in cands), None)
    if mv and best != mv and not cands[best][0] <= 0.95 * cands[mv][0]:
        best = mv
    return Choice(best, cands[best][1], cands[best][2], cands[best][3], why)


def wrap(text, width=110):
    """Fold TEXT's long lines (not the quirk line) at WIDTH, continuing indented."""
    out = []
    for line in text.splitlines():
        if len(line) <= width or line.startswith("X86_MATCH"):
            out.append(line)
        else:
            ind = " " * (len(line) - len(line.lstrip()) + 4)
            out += textwrap.wrap(line, width, subsequent_indent=ind, break_on_hyphens=False)
    return "\n".join(out) + "\n"


def fmt(x, nd=2):
    """A number or '-'."""
    return "-" if x is None else "%.*f" % (nd, x)


def confidence(n):
    """1 - 2^(1-n), the confidence of [min, max] holding the median."""
    return 1 - 2.0 ** (1 - n) if n >= 1 else 0.0


def order_name(k):
    """A folio size in KiB as nt_parts.c writes its order; 0/None: NT_NEVER."""
    if not k:
        return "NT_NEVER"
    return {2048: "PMD_ORDER", 1048576: "PUD_ORDER"}.get(k, str((k // 4).bit_length() - 1))


def quirk_line(cpu):
    """The nt_quirks.c line of nt_bad_cpus[] for CPU (its stepping only)."""
    vendor, fam, model, step = cpu[:4]
    return "X86_MATCH_VFM_STEPS(VFM_MAKE(%s, %#x, %#x), %#x, %#x, NULL)," % (
        VENDORS.get(vendor, "X86_VENDOR_UNKNOWN"), fam, model, step, step)


def cpu_text(cpu):
    """'AuthenticAMD family 0x1a model 0x2 stepping 1 (clzero=1 movdir64b=1)'."""
    return "%s family %#x model %#x stepping %d (clzero=%d movdir64b=%d)" % cpu


# ---- text ------------------------------------------------------------------

def mmm(vals, nd=2):
    """'median (min-max)' of VALS."""
    return "%.*f (%.*f-%.*f)" % (nd, statistics.median(vals), nd, min(vals), nd, max(vals))


def perf_tables(run):
    """a. and b.: perf bench mem and the host kernel's fault path."""
    out, perf, faults = [], {}, {}
    for f in run.rows:
        if len(f) == 7 and f[1] == "perf":
            perf.setdefault((f[2], int(f[5]), f[3]), {}).setdefault(f[4], []).append(float(f[6]))
        elif len(f) == 5 and f[1] == "faults":
            kind, _, page = f[2].rpartition("-")
            faults.setdefault((page, int(f[3])), {}).setdefault(kind, []).append(float(f[4]))
    modes = [("4k", "one call, 4 KiB pages (seed)"), ("2m", "one call, 2 MiB pages (as 7.3 clears a range)"),
             ("2m32", "-k 32MB -p 2MB (cooperative kernels only; not 7.3 x86)")]
    if perf:
        out.append("a. perf bench mem: GB/s median (min-max) over all rounds and runs")
        for mode, title in modes:
            out.append("   %-5s %s" % (mode, title))
        out.append("%-7s %-8s %-12s" % ("suite", "MiB", "variant") + "".join("%-22s" % m for m, _ in modes))
        for suite, mib in sorted({(s, m) for s, m, _ in perf}):
            vs = [v for s, m, v in sorted(perf) if (s, m) == (suite, mib)]
            for v in vs:
                d = perf[(suite, mib, v)]
                out.append("%-7s %-8s %-12s" % (suite, mib, v) + "".join(
                    "%-22s" % (mmm(d[m]) if m in d else "-") for m, _ in modes))
            base = next((v for v in ("stosb", "movsb") if v in vs), None)
            if base and "movnt" in vs:
                b, n = perf[(suite, mib, base)], perf[(suite, mib, "movnt")]
                out.append("%-7s %-8s %-12s" % ("", "", "movnt/" + base) + "".join(
                    "%-22s" % ("%.2f" % (statistics.median(n[m]) / statistics.median(b[m]))
                               if m in n and m in b else "-") for m, _ in modes))
        out.append("")
    if faults:
        out.append("b. the HOST kernel's fault path (host kernel: %s), not the series, not mainline 7.3:"
                   % run.meta.get("host kernel", "not recorded"))
        out.append("   GB/s median (min-max) over all rounds")
        out.append("%-5s %-8s %-24s %s" % ("page", "MiB", "mmap -f demand", "mmap -f populate"))
        for page, mib in sorted(faults, key=lambda x: (kib(x[0]), x[1])):
            d = faults[(page, mib)]
            a, c = d.get("perf", []), d.get("perf-populate", [])
            out.append("%-5s %-8s %-24s %s" % (page, mib, mmm(a) if a else "-", mmm(c) if c else "-"))
        out.append("")
    return out


def decision_table(runs, sec, margin, title, folios=True):
    """c.: the fault or copy table, with decisions and thresholds per variant (FOLIOS false: the
    sizes are regions, the thresholds are not folio sizes)."""
    decs, meds = analyse(runs, sec, margin)
    base = MAINLINE[sec]
    out = [title, "%-5s %-18s %8s %8s %8s  %-22s %s" % ("size", "variant", "first", "touch", "total",
                                                       "total/%s [min-max]" % base, "decision")]
    for s in sorted({k[0] for k in meds}):
        for v in [base] + sorted(v for v in decs if s in decs[v]):
            if (s, v) not in meds:
                continue
            m = [statistics.median(x[j] for x in meds[(s, v)].values()) for j in range(3)]
            d = decs.get(v, {}).get(s)
            rat = "%s [%s-%s] n=%d" % (fmt(d.med), fmt(d.lo), fmt(d.hi), d.n) if d else ""
            out.append("%-5s %-18s %8.1f %8.1f %8.1f  %-22s %s" % (sname(s), v, m[0], m[1], m[2], rat,
                                                                 d.kind if d else "(mainline)"))
    out.append("thresholds (cold at it and every larger size, as a real folio size):" if folios else
               "gates (cold at this region and every larger one measured):")
    for v in sorted(decs):
        if v.split("/")[0] not in COLD[sec]:
            continue
        thr, und = threshold(decs[v])
        if not folios:
            out.append("  %-18s %s%s" % (v, "from %s" % sname(thr) if thr else "none",
                                         "".join(", undecided at %s" % sname(x) for x in und)))
            continue
        real = real_folio(thr) if thr else None
        txt = "none" if not real else "from %s" % sname(thr) + ("" if real == thr else
                                                              " = SZ_%s (%s only)" % (sname(real), sname(real)))
        out.append("  %-18s %s%s" % (v, txt, "".join(", undecided at %s" % sname(s) for s in und)))
    return out + unit_lines(decs) + [""]


def unit_lines(decs):
    """Per routine, the range-unit against the 32M-unit median ratios where both were measured."""
    units, out = {}, []
    for v in decs:
        r, _, u = v.partition("/")
        units.setdefault(r, {})[u] = decs[v]
    for r, us in sorted(units.items()):
        both = sorted(set(us.get("range", {})) & set(us.get("32M", {})))
        if both:
            out.append("  %s range vs 32M units (median ratio): " % r + ", ".join(
                "%s %s/%s" % (sname(s), fmt(us["range"][s].med), fmt(us["32M"][s].med)) for s in both))
    return out


def pollute_table(runs, margin=MARGIN):
    """The co-runner's slowdown per working set and variant, and per cold routine the decision on
    slowdown(routine) / slowdown(clear_pages), per round, by the rule (cold: harms it less)."""
    d = {}
    for i, run in enumerate(runs):
        for f in run.rows:
            if len(f) == 5 and f[1] == "pollute":
                d.setdefault(int(f[2]), {}).setdefault(f[3], {}).setdefault((i, int(f[0])), []).append(float(f[4]))
    if not d:
        return []
    pace = runs[0].meta.get("settings", "")
    m = re.search(r"POLLUTE_PACE=(\S+)", pace)
    vs = sorted({v for x in d.values() for v in x})
    cold = [v for v in vs if v not in ("idle", "clear_pages")]
    out = ["c. touch pollute: the co-runner's slowdown (1: no harm), median of the per-round medians; the "
           "clearer %s" % ("paced at %s GB/s (the same bytes a second for every routine)" % m.group(1)
                           if m and m.group(1) != "0" else "unpaced (as fast as each routine goes)" if m
                           else "as recorded"),
           "%-8s" % "ws" + "".join("%12s" % v for v in vs if v != "idle") +
           "".join("  %-30s" % ("%s/clear_pages" % v) for v in cold)]
    for ws in sorted(d):
        med = {v: {r: statistics.median(x) for r, x in d[ws][v].items()} for v in d[ws]}
        row = "%-8s" % sname(ws) + "".join(
            "%12s" % (fmt(statistics.median(med[v].values())) if v in med else "-") for v in vs if v != "idle")
        for v in cold:
            base = med.get("clear_pages", {})
            rat = [med[v][r] / base[r] for r in sorted(med.get(v, {})) if r in base]
            dec = decide(rat, margin)
            word = {"cold": "less harm", "cached": "no less harm"}.get(dec.kind, "undecided")
            row += "  %-30s" % ("%s [%s-%s] n=%d %s" % (fmt(dec.med), fmt(dec.lo), fmt(dec.hi), dec.n, word))
        out.append(row)
    return out + [""]


def header(runs, margin):
    """The first lines: CPU, rounds, runs, margin, confidence."""
    n = rounds_of(runs)
    meta = runs[0].meta
    return ["make bench on %s: %s" % (meta.get("cpu", "?").split(":")[0], cpu_text(runs[0].cpu)),
            "%d round(s) of %s run(s) each%s; margin %.3g; confidence of [min, max] 1 - 2^(1-n) = %.2f %%"
            " (n = %d); contradiction chance <= 4^-n = 1/%d" % (
                n, meta.get("runs", "?"), "" if len(runs) == 1 else " (pooled from %d runs)" % len(runs),
                margin, 100 * confidence(n), n, 4 ** n),
            RULE, ""]


def rounds_of(runs):
    """The number of rounds in RUNS (pooled)."""
    return len({(i, f[0]) for i, r in enumerate(runs) for f in r.rows if len(f) == 6 and f[1] in MAINLINE})


def tables_text(runs, margin, with_entry=True, unit=None, recorded=((), ())):
    """The whole bench.txt: header, a., b., c., the pollution table and the entry (RECORDED: (new, old))."""
    out = header(runs, margin) + perf_tables(runs[0])
    out += decision_table(runs, "fault", margin, "c. touch fault: ns per 4 KiB page, median of the per-round medians")
    for sec in [x for x in USES if x != "fault" and has_sec(runs, x)]:
        out += decision_table(runs, sec, margin, "c. touch fault -t %s: %s; ns per 4 KiB page, median of the "
                              "per-round medians (touch: the use)" % (USES[sec], USE_TITLE[sec].split(": ", 1)[1]))
    if has_sec(runs, "region"):
        out += decision_table(runs, "region", margin, "c. populate then use, by region size: a region of that size of "
                              "2 MiB folios cleared back to back (first), then one sweep of every line of it "
                              "(touch); ns per 4 KiB page, median of the per-round medians", folios=False)
    out += ntbench_mt.mt_tables(runs, margin, decision_table, MAINLINE, COLD)
    out += ntbench_mt.estimate_lines(runs)
    out += ntbench_vm.vm_tables(runs, margin, analyse, fmt, MAINLINE)
    out += decision_table(runs, "copy", margin, "c. touch copy: ns per 4 KiB page, median of the per-round medians")
    out += pollute_table(runs, margin)
    if with_entry:
        out.append(entry_text(runs, list(recorded[1]), unit, margin, recorded[0], rule=False))
    return wrap("\n".join(out).rstrip())


def has_sec(runs, sec):
    """Whether RUNS have rows of section SEC."""
    return any(len(f) == 6 and f[1] == sec for r in runs for f in r.rows)


def cold_sizes(ser):
    """The real folio sizes (KiB) that a {size: (variant, Dec)} series decides cold."""
    return sorted(x for x, (v, d) in ser.items() if d.kind == "cold" and x in ORDER_OF)


def pick(sers):
    """{routine: series} -> (routine, cold sizes) with the most cold sizes; ties: the lowest
    median ratio over them; (None, []) if none is cold anywhere."""
    best = None
    for r, ser in sers.items():
        cs = cold_sizes(ser)
        if cs:
            score = (len(cs), -statistics.median(ser[x][1].med for x in cs))
            if best is None or score > best[0]:
                best = (score, r, cs)
    return (best[1], best[2]) if best else (None, [])


def orders_text(sizes):
    """'2M, 1G = orders 9, 18: BIT(9) | BIT(18)' or 'none'."""
    if not sizes:
        return "none"
    os_ = [ORDER_OF[x] for x in sizes]
    return "%s = order%s %s: %s" % (", ".join(map(sname, sizes)), "s" if len(os_) > 1 else "",
                                     ", ".join(map(str, os_)), " | ".join("BIT(%d)" % o for o in os_))


def populate_series(decs, routine):
    """{size: (variant, Dec)} of ROUTINE's whole-folio clear for a populate: cold where uses none
    and later both decide it cold, cached where either decides it cached, else undecided (the
    Dec's lo, hi and med the larger of the two)."""
    v = routine + "/whole"
    none, later = decs.get("fault-none", {}).get(v, {}), decs.get("fault-later", {}).get(v, {})
    both = {}
    for x in sorted(set(none) & set(later)):
        a, b = none[x], later[x]
        kind = "cold" if a.kind == b.kind == "cold" else "cached" if "cached" in (a.kind, b.kind) \
            else "undecided"
        both[x] = (v, Dec(kind, max(a.lo or 0, b.lo or 0), max(a.hi or 0, b.hi or 0),
                          max(a.med or 0, b.med or 0), min(a.n, b.n)))
    return both


def use_sets(runs, unit, margin):
    """Per use, the folio sizes done cold and their routine: {use: (routine, sizes, detail lines)}.

    fault: a user's fault, decided by use all (cold's worst case); populate: the whole folio
    cold (<routine>/whole) where uses none and later both decide it cold; copy: touch copy."""
    decs = {sec: analyse(runs, sec, margin)[0] for sec in list(USES) + ["copy"] if has_sec(runs, sec)}
    out = {}
    if "fault" in decs:
        sers = {r: series(decs["fault"], r, unit) for r in ENTRY_COLD["fault"]}
        r, cs = pick(sers)
        det = []
        if "fault-page" in decs and r:
            page = series(decs["fault-page"], r, unit)
            miss = [x for x in cs if x not in page or page[x][1].kind != "cold"]
            if miss:
                det.append("note: use page does not decide %s cold at %s, where use all does" % (
                    r, ", ".join(map(sname, miss))))
        out["fault"] = (r, cs, det)
    if "fault-none" in decs and "fault-later" in decs:
        sers, det = {}, []
        for r in ENTRY_COLD["fault"]:
            v = r + "/whole"
            none, later = decs["fault-none"].get(v, {}), decs["fault-later"].get(v, {})
            both = populate_series(decs, r)
            for x in sorted(both):
                a, b = none[x], later[x]
                det.append("%s at %s: none %s [%s-%s] %s, later %s [%s-%s] %s" % (
                    v, sname(x), fmt(a.med), fmt(a.lo), fmt(a.hi), a.kind, fmt(b.med), fmt(b.lo), fmt(b.hi),
                    b.kind))
            if both:
                sers[r] = both
        r, cs = pick(sers)
        out["populate"] = (r, cs, det)
    if "copy" in decs:
        r, cs = pick({"copy_mc_movnti": series(decs["copy"], "copy_mc_movnti", unit)})
        out["copy"] = (r, cs, [])
    return out


def use_lines(runs, unit, margin):
    """The sets of folio orders per use, as lines (empty where no use was measured)."""
    sets = use_sets(runs, unit, margin)
    if not sets:
        return []
    title = {"fault": "fault clear (a user's fault; use all, unit %s)" % unit,
             "populate": "populate clear (the whole folio cold where uses none and later both decide it)",
             "copy": "copy (CoW; touch copy, unit %s)" % unit}
    out = ["sets of folio orders done cold, per use (measured sizes only; an order between them is not "
           "in a set):"]
    for use in ("fault", "populate", "copy"):
        if use not in sets:
            continue
        r, cs, det = sets[use]
        out.append("  %s: %s" % (title[use], "%s at %s" % (ENUM.get(r, r), orders_text(cs)) if r else "none"))
        out += ["    " + x for x in det]
        if use == "populate":
            out += ["    " + x for x in region_gate_lines(runs, margin, r or ("clzero" if runs[0].cpu[4] else "movnti"))]
    return out


def region_gate_lines(runs, margin, routine):
    """The populate gate from the region table: the smallest populated region from which ROUTINE's
    whole-folio clear is cold with every line of the region then touched, at every larger region
    measured (a populate below it is used too soon after for cold to win); [] without region rows."""
    if not has_sec(runs, "region"):
        return []
    ser = analyse(runs, "region", margin)[0].get(routine + "/whole", {})
    if not ser:
        return []
    thr, und = threshold(ser)
    det = ", ".join("%s %s [%s-%s] %s" % (sname(x), fmt(d.med), fmt(d.lo), fmt(d.hi), d.kind)
                    for x, d in sorted(ser.items()))
    return ["populate then use (%s/whole, a region of 2 MiB folios, then every line touched): %s" % (routine, det),
            "the gate: %s" % ("a populate of at least %s (cold there and at every larger region measured)%s"
                              % (sname(thr), "; undecided at " + ", ".join(map(sname, und)) if und else "")
                              if thr else "none: not cold at the largest region measured")]


def decision_of(runs, unit, margin):
    """(entry dict {clear, copy: (ENUM, KiB)}, choices, decs) for pooled RUNS."""
    decs = {sec: analyse(runs, sec, margin)[0] for sec in ("fault", "copy")}
    ch = {part: choose(decs[sec], sec, unit) for part, sec in (("clear", "fault"), ("copy", "copy"))}
    ent = {p: (ENUM[c.routine], c.real) if c.routine else ("CACHED", 0) for p, c in ch.items()}
    return ent, ch, decs


# ---- the vendor's default, as the tree has it ---------------------------------

# The file whose init calls nt_init(c, <populate>, <populate_min>, <copy>) for a vendor (v5:
# nt_init(c, <populate>, <copy>)), in arch/x86/kernel/cpu/
VENDOR_FILE = {"GenuineIntel": "intel.c", "AuthenticAMD": "amd.c", "HygonGenuine": "hygon.c",
               "CentaurHauls": "centaur.c", "  Shanghai  ": "zhaoxin.c"}
VENDOR_NAME = {"GenuineIntel": "Intel", "AuthenticAMD": "AMD", "HygonGenuine": "Hygon"}
ORDER_NAMES = {"PMD_ORDER": 9, "PUD_ORDER": 18}
KIB_OF_ORDER = {o: k for k, o in ORDER_OF.items()}
# Where the vendor's default is read: the realised tree, else the series (--tree, --patches)
_TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TREE = os.path.join(_TOP, "build", "linux")
PATCHES = os.path.join(_TOP, "patches")
# populate, copy: sets of orders; gate: the smallest populate cleared cold, in KiB (0: every one)
Default = namedtuple("Default", "origin call cond populate copy gate")
# X86_FEATURE_ZEN3-5 as amd.c sets them: (family, first model, last model)
ZEN_MODELS = {"zen3": [(0x19, 0x00, 0x0f), (0x19, 0x20, 0x5f)],
              "zen4": [(0x19, 0x10, 0x1f), (0x19, 0x60, 0xaf)],
              "zen5": [(0x1a, 0x00, 0x2f), (0x1a, 0x40, 0x4f), (0x1a, 0x60, 0x7f), (0x1a, 0xd0, 0xd7)]}
# The intel-family.h names a condition may compare c->x86_vfm with: (family, model)
VFM = {"INTEL_SKYLAKE_X": (6, 0x55), "INTEL_ICELAKE_X": (6, 0x6A), "INTEL_SAPPHIRERAPIDS_X": (6, 0x8F),
       "INTEL_EMERALDRAPIDS_X": (6, 0xCF), "INTEL_GRANITERAPIDS_X": (6, 0xAD),
       "INTEL_GRANITERAPIDS_D": (6, 0xAE), "INTEL_ROCKETLAKE": (6, 0xA7)}


def vendor_source(vendor, tree=None, patches=None):
    """(text, origin) of the vendor's init file: TREE's (the realised tree), else the lines that
    PATCHES/series' patches add to it; (None, why) where neither has it."""
    name = VENDOR_FILE.get(vendor)
    if not name:
        return None, "no vendor init file known for %s" % vendor
    rel = "arch/x86/kernel/cpu/" + name
    show = lambda p: os.path.relpath(p, _TOP) if os.path.abspath(p).startswith(_TOP + os.sep) else p
    if tree and os.path.isfile(os.path.join(tree, rel)):
        with open(os.path.join(tree, rel), errors="replace") as f:
            return f.read(), "%s in %s" % (rel, show(tree))
    if patches and os.path.isfile(os.path.join(patches, "series")):
        with open(os.path.join(patches, "series")) as f:
            names = [x.strip() for x in f if x.strip() and not x.startswith("#")]
        added, cur = [], None
        for n in names:
            with open(os.path.join(patches, n), errors="replace") as f:
                for line in f:
                    if line.startswith("diff --git "):
                        cur = line.split()[-1][2:]
                    elif cur == rel and line.startswith("+") and not line.startswith("+++"):
                        added.append(line[1:].rstrip("\n"))
        return "\n".join(added), "the lines %s/series adds to %s" % (show(patches), rel)
    return None, "neither a tree (%s) nor a series (%s) to read %s from" % (tree, patches, rel)


def parse_orders(expr):
    """'BIT(PMD_ORDER) | BIT(PUD_ORDER)' -> {9, 18}; '0' -> set(); None where it is not of that form."""
    out = set()
    if expr.strip() == "0":
        return out
    for term in expr.split("|"):
        m = re.fullmatch(r"\s*BIT\((\w+)\)\s*", term)
        if not m:
            return None
        a = m.group(1)
        if a.isdigit():
            out.add(int(a))
        elif a in ORDER_NAMES:
            out.add(ORDER_NAMES[a])
        else:
            return None
    return out


def parse_size(expr):
    """'SZ_8M' -> 8192 (KiB), 'SZ_1G' -> 1048576, '0' -> 0; None where it is not of that form."""
    e = expr.strip()
    if e == "0":
        return 0
    m = re.fullmatch(r"SZ_(\d+)([KMG])", e)
    return int(m.group(1)) * {"K": 1, "M": 1024, "G": 1 << 20}[m.group(2)] if m else None


# Default.gate of the v7 rule: the part's LLC (nt_init(c, llc, 0, copy))
LLC_GATE = -1


def vendor_defaults(text, origin=""):
    """The nt_init() calls in TEXT as Defaults, in order; cond: the `if` (or `else if`) above the call,
    '' for a plain `else` or none. v7: nt_init(c, llc, gate, copy), populate the PMD order, gate 0 the
    LLC (LLC_GATE); v6: nt_init(c, populate, populate_min, copy); v5: nt_init(c, populate, copy)."""
    out = []
    for m in re.finditer(r"\bnt_init\(\s*c\s*,([^;]*?)\);", text):
        args = [a.strip() for a in m.group(1).split(",")]
        if len(args) == 3 and parse_orders(args[0]) is None:
            g = parse_size(args[1])
            pop, gate, cow = {9}, LLC_GATE if g == 0 else g, parse_orders(args[2])
        elif len(args) == 3:
            pop, gate, cow = parse_orders(args[0]), parse_size(args[1]), parse_orders(args[2])
        elif len(args) == 2:
            pop, gate, cow = parse_orders(args[0]), 0, parse_orders(args[1])
        else:
            pop = gate = cow = None
        # the `if` above the call, over as many lines as it takes
        before = text[:m.start()].rstrip(" \t").split("\n")[:-1]
        prev = ""
        while before:
            prev = before.pop().strip() + " " + prev
            if re.match(r"(?:\}?\s*else\s+)?if\s*\(", prev) or not before or not before[-1].strip() or \
                    before[-1].rstrip().endswith((";", "{", "}")):
                break
        pm = re.fullmatch(r"(?:\}?\s*else\s+)?if\s*\((.*)\)\s*\{?", re.sub(r"\s+", " ", prev).strip())
        out.append(Default(origin, re.sub(r"\s+", " ", m.group(0)), pm.group(1) if pm else "",
                           pop, cow, gate))
    return out


def llc_kib(run):
    """The LLC of RUN's machine in KiB, from bench.meta's 'L3 <n><K|M|G> as reported'; None if not there."""
    m = re.search(r"\bL3 (\d+)([KMG])", run.meta.get("machine", ""))
    return int(m.group(1)) * {"K": 1, "M": 1024, "G": 1 << 20}[m.group(2)] if m else None


def features_of(run):
    """({flags the run's CPU has}, {flags it lacks}) of bench.meta's features line (lower case)."""
    f = run.meta.get("features", "")
    have, _, rest = f.partition(";")
    lack = rest.split("(")[0].replace("not:", "")
    return set(have.split()) - {"none"}, set(lack.split())


def cond_holds(cond, run):
    """Whether the C condition COND of a vendor init holds on RUN's CPU: True, False, or None where
    the run does not record what it tests. Knows cpu_has(c, X86_FEATURE_X) and boot_cpu_has() (the
    flag x in /proc/cpuinfo; ZEN: AMD family 0x17 on; ZEN3-5: ZEN_MODELS), c->x86 compared with a
    number, c->x86_vfm == or != a name of VFM, !, && and ||."""
    if not cond:
        return True
    alts = [cond_all(a, run) for a in re.split(r"\s*\|\|\s*", cond.strip())]
    return True if True in alts else None if None in alts else False


def cond_all(cond, run):
    """cond_holds() of a conjunction (terms joined by &&)."""
    vendor, fam, clz = run.cpu[0], run.cpu[1], run.cpu[4]
    have, lack = features_of(run)
    ops = {">=": fam.__ge__, ">": fam.__gt__, "==": fam.__eq__, "<": fam.__lt__, "<=": fam.__le__,
           "!=": fam.__ne__}
    unknown = False
    for part in re.split(r"\s*&&\s*", cond.strip()):
        neg = part.startswith("!")
        p = part.lstrip("!").strip()
        while p.startswith("(") and p.endswith(")"):
            p = p[1:-1].strip()
        v = None
        m = re.fullmatch(r"(?:cpu_has\(\s*c\s*,\s*|boot_cpu_has\(\s*)X86_FEATURE_(\w+)\s*\)", p)
        c = re.fullmatch(r"c->x86\s*(>=|==|!=|<=|>|<)\s*(0x[0-9a-fA-F]+|\d+)", p)
        vf = re.fullmatch(r"c->x86_vfm\s*(==|!=)\s*(\w+)", p)
        if vf and vf.group(2) in VFM:
            same = vendor == "GenuineIntel" and (fam, run.cpu[2]) == VFM[vf.group(2)]
            v = same if vf.group(1) == "==" else not same
        elif m:
            flag = m.group(1).lower()
            if flag == "zen":
                v = vendor == "AuthenticAMD" and fam >= 0x17
            elif flag in ZEN_MODELS:
                v = vendor == "AuthenticAMD" and any(f == fam and lo <= run.cpu[2] <= hi
                                                      for f, lo, hi in ZEN_MODELS[flag])
            elif flag == "clzero":
                v = bool(clz)
            elif flag in have or flag in lack:
                v = flag in have
        elif c:
            v = ops[c.group(1)](int(c.group(2), 0))
        if v is None:
            unknown = True
        elif v == neg:
            return False
    return None if unknown else True


def default_lines(runs, unit, margin, tree=None, patches=None):
    """The part against its vendor's default as the tree has it, per use: (lines, quirk or None).

    Per use (populate, copy) and order of the default: the part's decision there with the routine the
    tree runs on it (the populate clear: CLZERO where the part has it, else MOVNTI; the copy: MOVNTI).
    Cached at an order: the default loses, and the part's nt_bad_cpus[] line is given; undecided or not
    measured: no line, and what to measure; cold at every order: the default holds, and the orders the
    part decides cold beyond it are named."""
    run = runs[0]
    vendor = run.cpu[0]
    tree, patches = tree or TREE, patches or PATCHES
    vname = VENDOR_NAME.get(vendor, vendor)
    text, origin = vendor_source(vendor, tree, patches)
    if text is None:
        return ["the vendor's default: not read (%s); no verdict" % origin], None
    calls = vendor_defaults(text, origin)
    out = []
    if not calls:
        return ["the vendor's default: %s calls no nt_init(): the tree leaves %s parts mainline's (cached "
                "stores for every use); no nt_bad_cpus[] line is needed, and these sets are evidence for a "
                "default of the vendor's own" % (origin, vname),
                "verdict: no default covers this part: mainline's stores; no nt_bad_cpus[] line"], None
    # an if / else if / else chain: the first call whose condition does not fail on this part
    d = next((c for c in calls if cond_holds(c.cond, run) is not False), calls[0])
    holds = cond_holds(d.cond, run)
    out.append("the vendor's default (%s): %s%s" % (origin, "if (%s) " % d.cond if d.cond else "", d.call))
    if holds is False:
        out.append("  its condition is false on this part: the tree leaves it mainline's (cached stores for "
                   "every use); no nt_bad_cpus[] line is needed, and these sets are evidence for a default "
                   "that covers it")
        out.append("verdict: %s's default does not cover this part: mainline's stores; no nt_bad_cpus[] line"
                   % vname)
        return out, None
    if holds is None:
        out.append("  whether its condition holds on this part is not recorded by the run (bench.meta's "
                   "features): compared as if it does")
    if d.populate is None or d.copy is None or d.gate is None:
        out.append("  its arguments are not of the form BIT(<order>) | ... or 0, SZ_<n><K|M|G> or 0: no verdict")
        return out, None
    if d.gate == LLC_GATE:
        llc = llc_kib(run)
        if llc is None:
            out.append("  its gate is the LLC, which the run does not record (bench.meta's machine line): "
                       "no verdict")
            return out, None
        out.append("  its gate is the rule's: the LLC, %s on this part" % sname(llc))
        d = d._replace(gate=llc)
    decs = {sec: analyse(runs, sec, margin)[0] for sec in list(USES) + ["copy"] if has_sec(runs, sec)}
    pop_r = "clzero" if run.cpu[4] else "movnti"
    sers = {"populate": (pop_r, populate_series(decs, pop_r)),
            "copy": ("copy_mc_movnti", series(decs["copy"], "copy_mc_movnti", unit) if "copy" in decs else {})}
    lose, und, gain = [], [], []
    for use, orders in (("populate", d.populate), ("copy", d.copy)):
        r, ser = sers[use]
        for o in sorted(orders):
            k = KIB_OF_ORDER.get(o)
            dec = ser[k][1] if k in ser else None
            what = "%s order %d (%s, %s)" % (use, o, sname(k) if k else "?", ENUM.get(r, r))
            if dec is None:
                und.append("%s: not measured" % what)
                out.append("  %s: not measured" % what)
                continue
            line = "%s: %s%s [%s-%s] %s" % (what, "the worse of none and later " if use == "populate" else "",
                                           fmt(dec.med), fmt(dec.lo), fmt(dec.hi), dec.kind)
            out.append("  " + line)
            if dec.kind == "cached":
                lose.append(line)
            elif dec.kind != "cold":
                und.append(line)
        extra = [o for o in sorted(ORDER_OF[x] for x in cold_sizes(ser)) if o not in orders]
        if extra:
            gain.append("%s orders %s (%s)" % (use, ", ".join(map(str, extra)), ENUM.get(r, r)))
    # The gate: every populated region measured at or above it, then used, must be cold.
    if d.populate and has_sec(runs, "region"):
        reg = analyse(runs, "region", margin)[0].get(pop_r + "/whole", {})
        at = {k: v for k, v in reg.items() if k >= d.gate}
        what = "the gate (populates from %s, %s/whole)" % (sname(d.gate) if d.gate else "any size", pop_r)
        if not at:
            und.append("%s: no region at or above it measured" % what)
            out.append("  %s: no region at or above it measured" % what)
        else:
            line = "%s: %s" % (what, ", ".join("%s %s [%s-%s] %s" % (sname(k), fmt(v.med), fmt(v.lo), fmt(v.hi),
                                                                     v.kind) for k, v in sorted(at.items())))
            out.append("  " + line)
            if any(v.kind == "cached" for v in at.values()):
                lose.append(line)
            elif any(v.kind != "cold" for v in at.values()):
                und.append(line)
    out.append("  a user's fault: cleared cached on every part (the tree has no set for it)")
    if lose:
        out.append("verdict: %s's default loses on this part at %s. Its line in nt_bad_cpus[] (nt_quirks.c), "
                   "which takes X86_FEATURE_NT_GOOD (every use) away from it:" % (vname, "; ".join(lose)))
        return out, quirk_line(run.cpu)
    if und:
        out.append("verdict: undecided at %s: no nt_bad_cpus[] line. Measure there again (a second make bench "
                   "some time later, pooled: scripts/bench.sh --entry DIR DIR; or more ROUNDS=), with FOLIOS "
                   "and COPY_FOLIOS covering the sizes, USES with none and later" % "; ".join(und))
        return out, None
    out.append("verdict: %s's default holds on this part: no nt_bad_cpus[] line.%s" % (
        vname, " Beyond it the part decides cold %s: evidence to widen the default once other parts agree"
        % "; ".join(gain) if gain else " It decides nothing cold beyond it"))
    return out, None


def decision_lines(runs, unit, margin, name):
    """The sets per use, the verdict against the vendor's default and the ratios they rest on, for
    pooled RUNS: (lines, entry)."""
    n = rounds_of(runs)
    ent, ch, decs = decision_of(runs, unit, margin)
    out = ["entry for %s, unit %s, %d rounds (confidence %.2f %%%s): the sets per use, then the part against "
           "its vendor's default as the tree has it (init_intel(), init_amd(): nt_init()), and its line in "
           "nt_bad_cpus[] (nt_quirks.c) only where the default loses:" % (
               cpu_text(runs[0].cpu), unit, n, 100 * confidence(n),
               "; fewer than 3 rounds: all undecided" if n < 3 else "")]
    dl, quirk = default_lines(runs, unit, margin)
    out += use_lines(runs, unit, margin) + dl
    if quirk:
        out.append(quirk)
    return out + unit_lines(decs["fault"]) + unit_lines(decs["copy"]), ent


def shown(label):
    """A run's label as the entry prints it: relative to the current folder where it lies under it."""
    return os.path.relpath(label) if os.path.abspath(label).startswith(os.getcwd() + os.sep) else label


def entry_text(runs, old, unit, margin, recorded_new=(), rule=True):
    """The `entry` output for new RUNS (pooled), RECORDED_NEW runs and OLD runs."""
    out = []
    cpu = runs[0].cpu if runs else old[0].cpu
    unit = unit or (runs[0].meta.get("cold_unit") if runs else None) or "range"
    name = "<name>"
    if runs and rule:
        out.append(RULE)
    if runs:
        out.append("runs: " + ", ".join("%s (%d rounds)" % (shown(r.label), rounds_of([r])) for r in runs))
        lines, _ = decision_lines(runs, unit, margin, name)
        out += lines
        others, seen = [], [r.rows for r in runs]
        for r in recorded_new:          # the same run as a page and as a directory counts once
            if r.cpu == cpu and r.rows not in seen:
                others.append(r)
                seen.append(r.rows)
        if others:
            pooled = list(runs) + others
            out.append("with the recorded runs of this CPU: %d runs, %d rounds: %s" % (
                len(pooled), rounds_of(pooled), ", ".join(shown(r.label) for r in pooled)))
            out += decision_lines(pooled, unit, margin, name)[0]
        else:
            out.append("no other recorded new-format run of this CPU")
    hist = [o for o in old if o.cpu == cpu]
    if hist:
        out.append("history (old baseline: one round, mainline modelled wrongly at 1G; never pooled):")
        for o in hist:
            out += old_lines(o)
        if not runs:
            out.append("no new-format run of this CPU: the old runs decide no set (their clear decisions up to "
                       "2M stand, 32M/1G and all copy decisions are provisional until re-measured)")
    return wrap("\n".join(out))


# ---- the old baseline -------------------------------------------------------

def old_cross(tab, var, sec):
    """Old rule: the smallest size from which VAR's median total ratio is < 1 at every larger size."""
    thr = None
    for s in sorted(tab, reverse=True):
        if var not in tab[s] or not tab[s][var] / tab[s][MAINLINE[sec]] < 1:
            break
        thr = s
    return thr


def old_entry(o):
    """The old rule's entry of an old run: {clear, copy: (ENUM, KiB)}."""
    ent = {}
    for part, sec in (("clear", "fault"), ("copy", "copy")):
        tab = o.tables.get(sec, {})
        if not tab:
            ent[part] = ("CACHED", 0)
            continue
        big = max(tab)
        base = tab[big].get(MAINLINE[sec])
        cands = {v: tab[big][v] / base for v in ENTRY_COLD[sec] if v in tab[big] and old_cross(tab, v, sec)}
        best = min(cands, key=cands.get) if cands else None
        mv = "movnti" if sec == "fault" else "copy_mc_movnti"
        if best and best != mv and mv in cands and not cands[best] <= 0.95 * cands[mv]:
            best = mv
        ent[part] = (ENUM[best], real_folio(old_cross(tab, best, sec))) if best else ("CACHED", 0)
    return ent


def old_lines(o):
    """History lines of one old run: the old-rule answer with its marking."""
    ent = old_entry(o)
    out = ["  %s: old rule: clear %s from %s, copy %s from %s" % (
        o.label, ent["clear"][0], sname(ent["clear"][1]) if ent["clear"][1] else "-",
        ent["copy"][0], sname(ent["copy"][1]) if ent["copy"][1] else "-")]
    for sec in ("fault", "copy"):
        tab = o.tables.get(sec, {})
        for v in COLD[sec]:
            if not any(v in x for x in tab.values()):
                continue
            cr = old_cross(tab, v, sec)
            rat = {s: tab[s][v] / tab[s][MAINLINE[sec]] for s in sorted(tab) if v in tab[s]}
            part = lambda ss: ", ".join("%s %.2f" % (sname(s), rat[s]) for s in ss)
            low, high = [s for s in rat if s <= 2048], [s for s in rat if s > 2048]
            if sec == "fault":
                marks = "%s: stand (one call per range in both models); %s: provisional until re-measured" % (
                    part(low), part(high))
            else:
                marks = "%s: provisional (the copy order was wrong everywhere)" % part(sorted(rat))
            out.append("    %s %s (crossover %s): %s" % (sec, v, sname(cr) if cr else "never", marks))
    return out


# ---- simulate ---------------------------------------------------------------

TRUE_RATIOS = (0.80, 0.90, 0.95, 0.97, 0.98, 1.00, 1.03, 1.10)


def simulate(rounds=5, trials=2000, seed=1, margin=MARGIN):
    """Rows (true, noise sd, drift sd, P(cold), P(cached), P(undecided), wrong, contradiction)."""
    rnd = random.Random(seed)

    def one(true, sd, drift):
        d = rnd.gauss(0, drift) if drift else 0.0
        return decide([true * math.exp(d + rnd.gauss(0, sd)) for _ in range(rounds)], margin).kind

    rows = []
    for true in TRUE_RATIOS:
        for sd in (0.03, 0.06):
            for drift in (0.0, 0.02):
                cnt = {"cold": 0, "cached": 0, "undecided": 0}
                contra = 0
                for _ in range(trials):
                    a, b = one(true, sd, drift), one(true, sd, drift)
                    cnt[a] += 1
                    contra += {a, b} == {"cold", "cached"}
                pc, pk, pu = (cnt[k] / trials for k in ("cold", "cached", "undecided"))
                wrong = (pc if true >= 1 - margin else 0) + (pk if true <= 1 - 2 * margin else 0)
                rows.append((true, sd, drift, pc, pk, pu, wrong, contra / trials))
    return rows


def simulate_text(rows, rounds, trials, seed, margin):
    """The compact table of simulate()."""
    out = ["simulate: %d rounds, %d trials a row, seed %d, margin %.3g; per-round noise lognormal sd, per-run drift "
           "sd common to its rounds" % (rounds, trials, seed, margin),
           "wrong = cold where true >= 1 - margin, or cached where true <= 1 - 2 margin; contra = one run cold, "
           "another cached",
           "true  noise |" + " | ".join("drift %-4s" % dr + "".join("%7s" % h for h in (
               "cold", "cached", "undec", "wrong", "contra")) for dr in ("0", "0.02"))]
    by = {(r[0], r[1], r[2]): r for r in rows}
    for true in TRUE_RATIOS:
        for sd in (0.03, 0.06):
            cells = []
            for drift in (0.0, 0.02):
                r = by[(true, sd, drift)]
                cells.append(" " * 10 + "".join("%6.1f%%" % (100 * x) for x in r[3:]))
            out.append("%.2f  %.2f  |%s | %s" % (true, sd, cells[0], cells[1]))
    return "\n".join(out) + "\n"


# ---- report -----------------------------------------------------------------

def report(page, runs, recorded_new, old, unit, margin):
    """Write PAGE (a new .md) for the run RUNS[0]."""
    run = runs[0]
    m = run.meta
    ent = entry_text(runs, old, unit, margin, recorded_new)
    pm = re.search(r'\.name = "([^"]*)"', ent)
    name = pm.group(1) if pm and pm.group(1) != "<name>" else m.get("cpu", "this CPU").split(":")[0]
    machine = m.get("machine", "not recorded")
    kind = "bare metal" if "bare metal" in machine else "VM" if "VM" in machine or "hypervisor flag" in machine else "?"
    rows = [("CPU", m.get("cpu", "not recorded") + " (" + m.get("cpuid", "") + ")"), ("features", m.get("features")),
            ("machine", "%s: %s" % (kind, machine)), ("date", m.get("date")), ("host kernel", m.get("host kernel")),
            ("tree", m.get("tree")), ("command", "`%s`" % m.get("command", "")), ("settings", m.get("settings")),
            ("load", m.get("load")), ("time", m.get("time", "?") + " s")]
    with open(os.path.join(run.label, "bench.meta")) as f1, open(os.path.join(run.label, "bench.runs")) as f2:
        meta_text, runs_text = f1.read(), f2.read()
    text = ["# %s: %s" % (name, "%s family %#x model %#x stepping %d" % run.cpu[:4]), "",
            "Written by `scripts/ntbench.py report` from the run's `build/bench/`; what each table measures:",
            "docs/measurements/README.md. The raw runs are embedded at the end (`ntbench.py entry` pools them).",
            "", "| | |", "|---|---|"] + ["| %s | %s |" % (k, v or "not recorded") for k, v in rows]
    text += ["", "## make bench", "", "```", tables_text(runs, margin, with_entry=False).rstrip(), "```", "",
             "## The entry", "", "```", ent.rstrip(), "```", "",
             "<!-- To add before committing the page: whether the machine was otherwise idle, and what the",
             "     numbers mean for the policy beyond the entry. -->", "", "## Raw runs", "",
             "```bench.meta", meta_text.rstrip(), "```", "", "```bench.runs", runs_text.rstrip(), "```"]
    with open(page + ".tmp", "w") as f:
        f.write("\n".join(text) + "\n")
    os.rename(page + ".tmp", page)


# ---- the in-kernel measurement (make bench-kernel) ---------------------------

KTESTS = (("populate", "populate (perf bench mem mmap -f populate)", "populate"),
          ("demand", "demand faults (perf bench mem mmap -f demand)", None))
KORDER = {2048: 9, 1048576: 18}
KSIZES = {2048: "2M", 1048576: "1G"}


def kernel_parse(text):
    """(meta, {(test, kB): {round: {setting: GB/s}}}) from bench-kernel's lines, wherever they sit in TEXT."""
    meta, data = {}, {}
    for line in text.splitlines():
        m = re.search(r"NT-BENCH-META (\w+)=(.*)$", line)
        if m:
            meta.setdefault(m.group(1), m.group(2).strip())
            continue
        m = re.search(r"NT-BENCH (\d+) (\S+) (\d+) (\S+) ([0-9.]+)\s*$", line)
        if m:
            data.setdefault((m.group(2), int(m.group(3))), {}).setdefault(
                int(m.group(1)), {})[m.group(4)] = float(m.group(5))
    return meta, data


def kernel_decisions(data, margin=MARGIN):
    """{(test, kB): (Dec of time cold / time mainline, mainline GB/s list, cold GB/s list)}."""
    out = {}
    for key, rounds in data.items():
        if key[0] == "memset":
            continue
        both = [r for r in sorted(rounds) if {"mainline", "cold"} <= set(rounds[r])]
        if not both:        # a setting failed in every round: nothing to compare
            continue
        ratios = [rounds[r]["mainline"] / rounds[r]["cold"] for r in both if rounds[r]["cold"] > 0]
        out[key] = (decide(ratios, margin), [rounds[r]["mainline"] for r in both],
                    [rounds[r]["cold"] for r in both])
    return out


def kernel_text(meta, data, margin=MARGIN):
    """The table, the decisions and the entry line of an in-kernel run; (text, status)."""
    decs = kernel_decisions(data, margin)
    if not decs:
        return "bench-kernel: no NT-BENCH lines with both settings\n", 1
    cpu = meta.get("cpu", "?/0/0/0").split("/")
    try:
        cpu = (cpu[0], int(cpu[1]), int(cpu[2]), int(cpu[3]))
    except (IndexError, ValueError):
        cpu = ("?", 0, 0, 0)
    n = max(d.n for d, _, _ in decs.values())
    out = ["in-kernel measurement: %s (%s), %s, kernel %s, %s CPUs" % (
        meta.get("cpu", "?"), meta.get("name", "?"), {"vm": "VM", "bare-metal": "bare metal"}.get(
            meta.get("virt"), "?"), meta.get("kernel", "?"), meta.get("ncpu", "?")),
        "the kernel's decision at boot: %s; populate %s, copy %s (the sets, masks of orders)" % (
            meta.get("boot", "?"), meta.get("clear", "?"), meta.get("copy", "?")),
        "settings: %s; init_on_alloc %s" % (meta.get("settings", "?"), meta.get("init_on_alloc", "?")),
        "rule: per round, ratio = time with the sets at the folio's order (cold) / at 0 (mainline) = "
        "GB/s mainline / GB/s cold;",
        "  cold if the max over rounds < 1 - margin (%g), cached if the min >= 1 - margin, else undecided;" % margin,
        "  [min, max] holds the median ratio with confidence %.1f %% (%d rounds)" % (100 * confidence(n), n), "",
        "%-44s %5s %18s %18s %20s  %s" % ("test", "folio", "mainline GB/s", "cold GB/s", "cold/mainline",
                                             "decision")]
    for test, title, _ in KTESTS:
        for kb in sorted(k for t, k in decs if t == test):
            d, ml, cl = decs[(test, kb)]
            out.append("%-44s %5s %18s %18s %20s  %s" % (
                title, KSIZES.get(kb, "%dK" % kb), mmm(ml), mmm(cl),
                "%s [%s-%s] n=%d" % (fmt(d.med), fmt(d.lo), fmt(d.hi), d.n) if d.n else "-", d.kind))
    for kb in sorted(k for t, k in data if t == "memset"):
        rounds = data[("memset", kb)]
        for var in sorted({v for r in rounds.values() for v in r}):
            out.append("%-44s %5s %18s" % ("perf bench mem memset -f " + var, KSIZES.get(kb, ""),
                                           mmm([r[var] for r in rounds.values() if var in r])))
    # The entry: the populate set, the folio orders whose populate rows are
    # decided cold (demand faults are a user's: never cold, the control)
    cold = [kb for t, kb in decs if t == "populate" and decs[(t, kb)][0].kind == "cold"]
    und = [kb for t, kb in decs if t == "populate" and decs[(t, kb)][0].kind == "undecided"]
    mask = sum(1 << KORDER[kb] for kb in cold if kb in KORDER)
    routine = meta.get("clear", "?").split()[0]
    out += ["", "populate set for %s (%s): %s%s" % (
        meta.get("cpu", "?"), routine, "%#x (%s)" % (mask, ", ".join(KSIZES.get(k, str(k)) for k in sorted(cold)))
        if mask else "none", "; undecided at %s" % ", ".join(KSIZES.get(u, str(u)) for u in sorted(und)) if und
        else "")]
    f = meta.get("clear", "? 0").split()
    try:
        now = int(f[1], 0) if len(f) > 1 else None
    except ValueError:
        now = None
    measured = sum(1 << KORDER[kb] for t, kb in decs if t == "populate" and kb in KORDER)
    same = now is not None and (now & measured) == mask
    out.append("the kernel's populate set: %s: %s" % (
        "%#x" % now if now is not None else "?", "the same at the sizes measured" if same else "differs from this run"))
    out += kernel_verdict(cpu, decs, now)
    return "\n".join(out) + "\n", 0


def kernel_verdict(cpu, decs, now):
    """make bench's verdict for the booted kernel's populate set (its vendor's default, or what a
    quirk left): loses where an order of it is decided cached (then the nt_bad_cpus[] line),
    undecided where one is undecided or not measured, else holds. The copy set is make bench's."""
    if now is None:
        return ["verdict: the booted kernel's populate set was not read: none"]
    if not now:
        return ["verdict: the booted kernel clears nothing cold on a populate (its vendor's default has no "
                "populate order here, or a quirk or nt_stores=off took it away): nothing to compare"]
    lose, und = [], []
    for o in sorted(o for o in range(64) if now >> o & 1):
        kb = next((k for k, x in KORDER.items() if x == o), None)
        d = decs.get(("populate", kb), (None,))[0] if kb else None
        if d is None or not d.n:
            und.append("order %d: not measured" % o)
        elif d.kind == "cached":
            lose.append("order %d (%s): %s [%s-%s] cached" % (o, KSIZES[kb], fmt(d.med), fmt(d.lo), fmt(d.hi)))
        elif d.kind != "cold":
            und.append("order %d (%s): %s [%s-%s] undecided" % (o, KSIZES[kb], fmt(d.med), fmt(d.lo), fmt(d.hi)))
    if lose:
        return ["verdict: the populate default loses on this part at %s. Its line in nt_bad_cpus[] (nt_quirks.c), "
                "with make bench's verdict beside it in the commit message:" % "; ".join(lose), quirk_line(cpu)]
    if und:
        return ["verdict: undecided at %s: no nt_bad_cpus[] line; measure again (ROUNDS=, MIB=, GPAGES=)"
                % "; ".join(und)]
    return ["verdict: the populate default holds on this part: no nt_bad_cpus[] line (the CoW copy set is "
            "make bench's to judge)"]


def kernel_report(page, meta, text, raw):
    """A docs/measurements page for an in-kernel run."""
    kind = {"vm": "VM", "bare-metal": "bare metal"}.get(meta.get("virt"), "?")
    lines = ["# %s (%s): in-kernel measurement, %s" % (meta.get("name", "?"), meta.get("cpu", "?"), kind), "",
             "Written by `scripts/ntbench.py kernel --report` from `make bench-kernel` (guest/bench-kernel) on a "
             "kernel of the series. Machine: **%s** (%s)." % (kind, "the CPU shows the hypervisor flag"
                                                              if kind == "VM" else "no hypervisor flag"), "",
             "```", text.rstrip(), "```", "", "## Raw lines", "", "```bench-kernel",
             "\n".join(raw).rstrip(), "```"]
    with open(page + ".tmp", "w") as f:
        f.write("\n".join(lines) + "\n")
    os.rename(page + ".tmp", page)


# ---- plot -------------------------------------------------------------------

def plot(path, margin):
    """touch-fault.png and touch-copy.png with gnuplot, if it is there."""
    import shutil
    if not shutil.which("gnuplot"):
        print("plot: no gnuplot here; skipped")
        return
    runs = load(path)[0]
    for sec in [x for x in list(USES) + ["copy"] if has_sec(runs, x)]:
        decs = analyse(runs, sec, margin)[0]
        dat = os.path.join(path, "touch-%s.dat" % sec)
        with open(dat, "w") as f:
            for v in sorted(decs):
                f.write('"%s"\n' % v + "".join("%d %.4f %.4f %.4f\n" % (s, d.med, d.lo, d.hi)
                                               for s, d in sorted(decs[v].items()) if d.n) + "\n\n")
        script = ('set terminal png noenhanced size 900,500; set output "%s"; set logscale x 2;'
                  'set xlabel "folio KiB"; set ylabel "total / %s per round: median [min-max]";'
                  'set offsets graph 0.03, graph 0.03, 0.02, 0.02; set format x "%%.0f";'
                  'plot for [i=0:%d] "%s" index i using 1:2:3:4 with yerrorlines title columnhead(1),'
                  ' %g dashtype 2 title "1 - margin"' % (os.path.join(path, "touch-%s.png" % sec), MAINLINE[sec],
                                                        max(len(decs) - 1, 0), dat, 1 - margin))
        subprocess.run(["gnuplot", "-e", script], check=False)
    uses = [x for x in USES if has_sec(runs, x)]
    if len(uses) > 1:       # the uses side by side, one panel each, the same axes
        panels = []
        for sec in uses:
            n = len(analyse(runs, sec, margin)[0])
            panels.append('set title "%s"; plot for [i=0:%d] "%s" index i using 1:2:3:4 with yerrorlines '
                          'title columnhead(1), %g dashtype 2 title "1 - margin"' % (
                              "touch fault -t " + USES[sec], max(n - 1, 0),
                              os.path.join(path, "touch-%s.dat" % sec), 1 - margin))
        script = ('set terminal png noenhanced size 1400,900; set output "%s"; set multiplot layout 2,2;'
                  'set logscale x 2; set xlabel "folio KiB"; set ylabel "total / clear_pages";'
                  'set yrange [0:2]; set key font ",8"; set format x "%%.0f"; %s; unset multiplot' % (
                      os.path.join(path, "touch-uses.png"), "; ".join(panels)))
        subprocess.run(["gnuplot", "-e", script], check=False)
    print("plot: %s/touch-*.png" % path)


# ---- CLI --------------------------------------------------------------------

class Parser(argparse.ArgumentParser):
    """argparse with a one-line usage error and status 2."""

    def error(self, message):
        raise UsageError(message)


def gather(paths):
    """(new runs, old runs) from PATHS."""
    new, old = [], []
    for p in paths:
        n, o = load(p)
        new, old = new + n, old + o
    return new, unique_old(old)


def unique_old(old):
    """OLD without repeats (a page may quote a raw output kept beside it: shown once)."""
    seen, uniq = set(), []
    for o in old:
        key = (o.cpu, repr(sorted((s, sorted(t.items())) for s, t in o.tables.items())))
        if key not in seen:
            seen.add(key)
            uniq.append(o)
    return uniq


def main(argv=None):
    """The command line; returns the exit status."""
    p = Parser(prog="ntbench.py", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", parser_class=Parser)
    t = sub.add_parser("tables", help="bench.txt of a run")
    t.add_argument("dir")
    e = sub.add_parser("entry", help="the sets per use, and the quirk line, of runs")
    e.add_argument("paths", nargs="+")
    r = sub.add_parser("report", help="a page for docs/measurements")
    r.add_argument("page")
    r.add_argument("dir")
    for x in (t, e, r):
        x.add_argument("--unit")
        x.add_argument("--margin", type=float)
    for x in (t, e, r):
        x.add_argument("--recorded", nargs="*", default=[])
        x.add_argument("--tree", help="the realised tree whose vendor init files hold the default "
                       "(default: build/linux)")
        x.add_argument("--patches", help="the series read where the tree lacks them (default: patches/)")
    s = sub.add_parser("simulate", help="made-up runs with known answers")
    s.add_argument("--rounds", type=int, default=5)
    s.add_argument("--trials", type=int, default=2000)
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--margin", type=float, default=MARGIN)
    k = sub.add_parser("kernel", help="the table and entry of make bench-kernel's output")
    k.add_argument("file")
    k.add_argument("--report")
    k.add_argument("--margin", type=float, default=MARGIN)
    pl = sub.add_parser("plot", help="touch-fault.png, touch-copy.png (gnuplot)")
    pl.add_argument("dir")
    pl.add_argument("--margin", type=float, default=MARGIN)
    try:
        a = p.parse_args(argv)
        if a.cmd is None:
            raise UsageError("want a command: tables, entry, report, kernel, simulate, plot")
        if a.cmd == "simulate":
            if a.rounds < 1 or a.trials < 1:
                raise UsageError("--rounds and --trials want at least 1")
            sys.stdout.write(simulate_text(simulate(a.rounds, a.trials, a.seed, a.margin),
                                           a.rounds, a.trials, a.seed, a.margin))
            return 0
        if a.cmd == "plot":
            plot(a.dir, a.margin)
            return 0
        if a.cmd == "kernel":
            with open(a.file, errors="replace") as f:
                raw = [x[x.index("NT-BENCH"):].rstrip() for x in f if "NT-BENCH" in x]
            meta, data = kernel_parse("\n".join(raw))
            text, status = kernel_text(meta, data, a.margin)
            sys.stdout.write(text)
            if a.report and status == 0:
                if os.path.exists(a.report) or not a.report.endswith(".md"):
                    raise UsageError("%s: want a new .md page (a page is never overwritten)" % a.report)
                kernel_report(a.report, meta, text, raw)
                print("report: %s" % a.report)
            return status
        global TREE, PATCHES
        TREE, PATCHES = a.tree or TREE, a.patches or PATCHES
        margin = lambda runs: a.margin if a.margin is not None else float(
            runs[0].meta.get("margin", MARGIN)) if runs else MARGIN
        rec_new, rec_old = gather(a.recorded)
        if a.cmd == "tables":
            runs = load(a.dir)[0]
            if not runs:
                raise UsageError("%s: no new-format run (bench.meta, bench.runs)" % a.dir)
            mine = os.path.realpath(runs[0].label)
            rec = [x for x in rec_new if os.path.realpath(x.label) != mine]
            sys.stdout.write(tables_text(runs[:1], margin(runs), True, a.unit, (rec, rec_old)))
            return 0
        if a.cmd == "entry":
            new, old = gather(a.paths)
            if not new and not old:
                raise UsageError("no run in %s" % " ".join(a.paths))
            cpu = new[0].cpu if new else old[0].cpu
            mine = {os.path.realpath(x.label) for x in new}
            rec = [x for x in rec_new if os.path.realpath(x.label) not in mine]
            text = entry_text([x for x in new if x.cpu == cpu], unique_old(old + rec_old), a.unit,
                              margin(new), rec)
            if any(x.cpu != cpu for x in new):
                text += "left out (another CPU): %s\n" % ", ".join(x.label for x in new if x.cpu != cpu)
            sys.stdout.write(text)
            return 0
        page = a.page
        if not page.endswith(".md") or not os.path.isdir(os.path.dirname(os.path.abspath(page))):
            raise UsageError("%s: want a .md page in an existing folder" % page)
        if os.path.exists(page):
            raise UsageError("%s exists: a page is never overwritten" % page)
        runs = load(a.dir)[0]
        if not runs or not os.path.isdir(a.dir):
            raise UsageError("%s: no run directory with bench.meta and bench.runs" % a.dir)
        mine = os.path.realpath(a.dir)
        report(page, runs[:1], [x for x in rec_new if os.path.realpath(x.label) != mine], rec_old,
               a.unit, margin(runs))
        print("report: %s" % page)
        return 0
    except UsageError as err:
        print("ntbench.py: usage error: %s" % err, file=sys.stderr)
        return 2
    except OSError as err:
        print("ntbench.py: error: %s" % err, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
