"""make bench's d. and e.: every CPU populating at once, and a populate's end-to-end estimate.

d. (the section "mt", harness/populate): one thread a CPU, each clearing its own region of 2 MiB
folios at once, as QEMU's preallocation threads do, then storing to every line of it; the rows
"<round> mt <KiB a thread> <variant> <first ns/page> <touch ns/page>" go through ntbench's own
decision rule (the variant's total against clear_pages', per round), once for the populate alone
(touch left out) and once with the later use.

e. an estimate, labelled as one: the host kernel's own populate (b., perf bench mem mmap -f
populate on 2 MiB hugetlb pages: the fault path, the clear included) per 4 KiB page, with the
clear's share replaced by the cold routine's, both clears taken from c.'s "none" use at 2 MiB
(touch fault -t none: the folios cleared back to back, as a populate does). The host kernel is
not the series' and not mainline 7.3; the estimate says what share of a populate the clear is.
"""
import statistics

SEC = "mt"
BASE = "clear_pages"


def rows_of(runs, sec=SEC):
    """The rows of SEC, as ntbench reads them (round, sec, KiB, variant, first, touch)."""
    return [f for r in runs for f in r.rows if len(f) == 6 and f[1] == sec]


def first_only(runs):
    """RUNS with the mt rows' touch set to 0 (the populate alone), as the section "mt-none"."""
    out = []
    for r in runs:
        rows = [[f[0], "mt-none", f[2], f[3], f[4], "0"] if len(f) == 6 and f[1] == SEC else f
                for f in r.rows]
        out.append(r._replace(rows=rows))
    return out


def mt_tables(runs, margin, decision_table, mainline, cold):
    """d.: the populate alone and then used, every CPU at once; [] where the runs have no mt rows.
    DECISION_TABLE, MAINLINE and COLD: ntbench's, so that the rule and its tables are the same."""
    if not rows_of(runs):
        return []
    threads = runs[0].meta.get("mt_threads", "?")
    mainline.setdefault("mt-none", BASE)
    cold.setdefault("mt-none", cold[SEC])
    out = decision_table(first_only(runs), "mt-none", margin,
                         "d. every CPU populating at once (%s threads, each its own region of that size of 2 MiB "
                         "folios, cleared at once): the populate alone; ns per 4 KiB page of all regions, wall "
                         "time, median of the per-round medians" % threads, folios=False)
    out += decision_table(runs, SEC, margin,
                          "d. the same, then every thread storing to every line of its region at once "
                          "(populated, used later)", folios=False)
    return out


def estimate_lines(runs):
    """e.: the host kernel's 2 MiB populate with the clear's share cold, per cold routine; [] where b.
    or c.'s none use at 2M is missing."""
    pop = [float(f[4]) for r in runs for f in r.rows
           if len(f) == 5 and f[1] == "faults" and f[2] == "perf-populate-2M"]
    none = {}
    for f in rows_of(runs, "fault-none"):
        if f[2] == "2048":
            none.setdefault(f[3], []).append(float(f[4]))
    if not pop or BASE not in none:
        return []
    pop_ns = 4096 / statistics.median(pop)     # GB/s -> ns per 4 KiB page
    base = statistics.median(none[BASE])
    out = ["e. a populate end to end, an estimate: the host kernel's MAP_POPULATE of 2 MiB hugetlb pages (b.), "
           "%.1f ns per 4 KiB page, of which mainline's clear (c., use none, 2M) is %.1f (%.0f %%); with the "
           "clear's share cold instead:" % (pop_ns, base, 100 * base / pop_ns)]
    for v in sorted(none):
        if v == BASE or "/" in v and v.split("/")[1] != "whole":
            continue
        c = statistics.median(none[v])
        out.append("  %-14s clear %6.1f ns: populate %6.1f ns, %.2f of mainline's" % (
            v, c, pop_ns - base + c, (pop_ns - base + c) / pop_ns))
    out.append("  (the host's kernel is neither the series nor 7.3, and its clear need not be the harness's; "
               "the share is what the estimate rests on)")
    return out + [""]
