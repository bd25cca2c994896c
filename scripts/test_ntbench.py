"""Unit tests of scripts/ntbench.py on made-up runs (python3 -m unittest discover -s scripts -p 'test_*.py')."""
import contextlib
import gzip
import io
import os
import random
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ntbench  # noqa: E402
import ntbench_vm  # noqa: E402

SIZES = [16, 64, 256, 1024, 2048, 32768, 1048576]
AMD = "AuthenticAMD 0x1a 0x2 1 clzero=1 movdir64b=1"

# From docs/measurements/zen5-0x1a-02-2vcpu-raw/make-bench.txt (cut: 16K, 2M, 32M, 1G).
OLD = """c. touch fault: clear as folio_zero_user(), then a load and a store per line (harness/touch.c)
# CPU AuthenticAMD family 0x1a model 0x2 stepping 1, 2 CPUs online; erms=1 clzero=1 movdir64b=1: the kernel's cold clear here: clzero
# run <size KiB> <variant> <clear ns/page> <touch ns/page>
size   variant         clear                    touch                    total                    total/clear_pages
16K    clear_pages       110.7 ( 104.8- 114.3)    73.7 (  70.5-  76.2)   184.8 ( 177.5- 185.6)
       movnti            128.6 ( 102.9- 138.6)   113.3 ( 107.8- 119.1)   241.8 ( 222.0- 248.5)   1.31
       clzero            123.1 ( 106.2- 132.9)   110.4 ( 108.4- 115.8)   236.8 ( 215.7- 241.3)   1.28
2M     clear_pages       186.6 ( 160.9- 233.4)    47.9 (  44.2-  56.9)   233.6 ( 208.8- 284.5)
       movnti            183.1 ( 167.4- 246.1)   105.5 ( 101.2- 112.7)   288.5 ( 277.0- 353.1)   1.24
       clzero            116.4 ( 113.7- 134.9)   107.3 ( 100.7- 112.1)   228.6 ( 215.3- 243.8)   0.98
32M    clear_pages       211.2 ( 152.2- 228.0)    87.2 (  83.2-  93.4)   294.4 ( 238.3- 315.2)
       movnti            173.6 ( 152.9- 246.2)   108.6 ( 103.6- 114.2)   279.6 ( 262.4- 354.8)   0.95
       clzero            118.6 (  97.3- 126.3)   105.6 ( 105.0- 110.8)   229.4 ( 202.4- 231.9)   0.78
1G     clear_pages       187.0 ( 184.6- 189.9)   133.8 ( 130.1- 137.4)   319.2 ( 317.9- 324.6)
       movnti            214.4 ( 213.7- 227.1)   135.1 ( 131.9- 148.1)   350.7 ( 345.8- 375.3)   1.10
       clzero            101.6 ( 101.1- 124.5)   133.0 ( 131.6- 175.9)   235.0 ( 233.1- 300.3)   0.74
# crossover: the smallest size from which the cold variant's median total is below clear_pages's at every larger size measured
#   movnti: never (loses at 1G)
#   clzero: from 2M

c. touch copy: CoW copy as copy_user_large_folio(), then touch the destination
# CPU AuthenticAMD family 0x1a model 0x2 stepping 1, 2 CPUs online; erms=1 clzero=1 movdir64b=1: the kernel's cold clear here: clzero
size   variant         copy                     touch                    total                    total/copy_mc
2M     copy_mc           277.2 ( 261.8- 291.9)    54.3 (  47.4-  57.3)   325.5 ( 319.0- 346.2)
       copy_mc_movnti    274.1 ( 248.1- 326.8)   106.6 ( 100.2- 116.6)   380.8 ( 356.7- 427.0)   1.17
32M    copy_mc           295.4 ( 264.3- 307.0)   116.1 ( 110.1- 120.4)   411.5 ( 384.7- 418.7)
       copy_mc_movnti    284.5 ( 237.4- 479.1)   125.2 ( 120.9- 193.7)   431.0 ( 401.0- 599.9)   1.05
1G     copy_mc           314.1 ( 275.1- 339.8)   166.2 ( 155.2- 186.0)   489.7 ( 434.7- 506.3)
       copy_mc_movnti    295.2 ( 290.5- 316.3)   156.4 ( 153.8- 163.9)   459.1 ( 444.8- 471.3)   0.94
# crossover: the smallest size from which the cold variant's median total is below copy_mc's at every larger size measured
#   copy_mc_movnti: from 1G
"""


def write_run(d, fault=None, copy=None, rounds=5, runs=3, cpuid=AMD, unit="32M", noise=0.0, seed=0, extra="",
              uses=None):
    """A made-up run in D: FAULT/COPY map (KiB, variant) -> true ratio or a list of per-round ratios;
    USES {section (fault-none, ...): table} likewise."""
    os.makedirs(d, exist_ok=True)
    rnd = random.Random(seed)
    lines = []
    for r in range(rounds):
        for sec, table in [("fault", fault or {}), ("copy", copy or {})] + sorted((uses or {}).items()):
            base = ntbench.MAINLINE[sec]
            for size in sorted({k for k, _ in table}):
                for _ in range(runs):
                    lines.append("%d %s %d %s 200.0 100.0" % (r, sec, size, base))
                for (k, v), ratio in sorted(table.items()):
                    if k != size:
                        continue
                    t = ratio[r] if isinstance(ratio, list) else ratio * rnd.lognormvariate(0, noise)
                    for _ in range(runs):
                        lines.append("%d %s %d %s %.4f %.4f" % (r, sec, size, v, 200 * t, 100 * t))
    with open(os.path.join(d, "bench.runs"), "w") as f:
        f.write("\n".join(lines) + "\n" + extra)
    with open(os.path.join(d, "bench.meta"), "w") as f:
        f.write("cpuid: %s\nrounds: %d\nruns: %d\ncold_unit: %s\nmargin: 0.02\ncpu: AMD EPYC 9B45: x\n"
                "machine: a VM (the CPU shows the hypervisor flag), 2 CPUs online, 8 GiB\nhost kernel: 6.18\n"
                "time: 300\n" % (cpuid, rounds, runs, unit))
    return d


def full(ratios, sizes=SIZES):
    """{(size, variant): ratio} for each variant: ratio (a float or per-size dict)."""
    return {(s, v): (r[s] if isinstance(r, dict) else r) for v, r in ratios.items() for s in sizes
            if not isinstance(r, dict) or s in r}


def cli_raw(*args):
    """Run main(ARGS): (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = ntbench.main(list(args))
    return rc, out.getvalue(), err.getvalue()


def cli(*args):
    """cli_raw(), with stdout's runs of white space (folded lines) made one space."""
    rc, out, err = cli_raw(*args)
    return rc, re.sub(r"\s+", " ", out), err


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name
        # no tree and no series unless a test names one: the tests do not read the workshop's
        ntbench.TREE = ntbench.PATCHES = os.path.join(self.d, "none")

    def tearDown(self):
        self.tmp.cleanup()

    def decs(self, path, sec="fault"):
        return ntbench.analyse(ntbench.load(path)[0], sec)[0]


class Uses(Base):
    """Sets of folio orders per use (touch fault -t): fault from all, populate from none and later."""

    def amd(self, later_2m=0.80, page_2m=0.55):
        # Zen 5's shape (issue 34): CLZERO loses when the task touches all of it at once and wins
        # when nobody does, up to 2M; at 1G it ties; MOVNTI populates 2M and loses at 1G.
        far = {"clzero": 1.3, "movnti": 1.55}
        none = {"clzero/whole": {16: 0.5, 2048: 0.48, 1048576: 1.0},
                "movnti/whole": {16: 0.8, 2048: 0.78, 1048576: 1.61}, "clzero": 0.55, "movnti": 0.8}
        later = {"clzero/whole": {16: 0.8, 2048: later_2m, 1048576: 1.01},
                 "movnti/whole": {16: 0.93, 2048: 0.92, 1048576: 1.2}, "clzero": 0.85, "movnti": 0.93}
        sizes = [16, 2048, 1048576]
        return write_run(os.path.join(self.d, "u"), fault=full(far, sizes),
                         copy={(2048, "copy_mc_movnti"): 1.05, (1048576, "copy_mc_movnti"): 0.88},
                         uses={"fault-page": full({"clzero": page_2m, "movnti": 0.82}, sizes),
                               "fault-none": full(none, sizes), "fault-later": full(later, sizes)},
                         unit="range")

    def test_populate_cold_at_2m_cached_at_1g(self):
        sets = ntbench.use_sets(ntbench.load(self.amd())[0], "range", 0.02)
        self.assertEqual(sets["fault"][:2], (None, []))
        self.assertEqual(sets["populate"][:2], ("clzero", [16, 2048]))
        self.assertEqual(sets["copy"][:2], ("copy_mc_movnti", [1048576]))
        text = "\n".join(ntbench.use_lines(ntbench.load(self.amd())[0], "range", 0.02))
        self.assertIn("populate clear (the whole folio cold where uses none and later both decide it): "
                      "CLZERO at 16K, 2M = orders 2, 9: BIT(2) | BIT(9)", text)
        self.assertIn("copy (CoW; touch copy, unit range): MOVNTI at 1G = order 18: BIT(18)", text)
        self.assertIn("clzero/whole at 1G: none 1.00 [1.00-1.00] cached, later 1.01 [1.01-1.01] cached", text)

    def test_undecided_use_keeps_the_size_out(self):
        # CLZERO's later straddles 1 - margin at 2M: undecided there, so CLZERO populates only 16K
        # cold, and MOVNTI, cold at both sizes, is the routine with the larger set
        d = self.amd(later_2m=[0.90, 1.00, 0.95, 1.02, 0.97])
        sets = ntbench.use_sets(ntbench.load(d)[0], "range", 0.02)
        self.assertEqual(sets["populate"][:2], ("movnti", [16, 2048]))
        self.assertIn("later 0.97 [0.90-1.02] undecided", "\n".join(sets["populate"][2]))

    def test_fault_set_checked_against_page(self):
        d = write_run(os.path.join(self.d, "f"), fault=full({"movnti": {1048576: 0.9}}, [1048576]),
                      uses={"fault-page": full({"movnti": {1048576: 1.0}}, [1048576])}, unit="range")
        sets = ntbench.use_sets(ntbench.load(d)[0], "range", 0.02)
        self.assertEqual(sets["fault"][:2], ("movnti", [1048576]))
        self.assertIn("use page does not decide movnti cold at 1G, where use all does", sets["fault"][2][0])

    def test_region_gate(self):
        # populate then use: cached below the LLC, undecided at it, cold above: the gate is 128M
        regions = [2048, 8192, 32768, 131072, 1048576]
        reg = full({"clzero/whole": {2048: 1.3, 8192: 1.2, 32768: [0.9, 1.0, 0.95, 1.02, 0.97], 131072: 0.8,
                                     1048576: 0.7}, "movnti/whole": 1.1}, regions)
        d = write_run(os.path.join(self.d, "g"), fault=full({"clzero": 1.3}, [2048]), uses={"region": reg},
                      unit="range")
        lines = ntbench.region_gate_lines(ntbench.load(d)[0], 0.02, "clzero")
        self.assertIn("2M 1.30 [1.30-1.30] cached", lines[0])
        self.assertIn("32M 0.97 [0.90-1.02] undecided", lines[0])
        self.assertEqual(lines[1], "the gate: a populate of at least 128M (cold there and at every larger region "
                                   "measured); undecided at 32M")
        self.assertEqual(ntbench.region_gate_lines(ntbench.load(d)[0], 0.02, "movnti")[1],
                         "the gate: none: not cold at the largest region measured")
        rc, out, _ = cli("tables", d)
        self.assertIn("c. populate then use, by region size", out)
        self.assertIn("clzero/whole from 128M, undecided at 32M", out)

    def test_tables_show_each_use(self):
        rc, out, _ = cli("tables", self.amd())
        self.assertEqual(rc, 0)
        for use in ("page", "none", "later"):
            self.assertIn("c. touch fault -t %s" % use, out)
        self.assertIn("sets of folio orders done cold, per use", out)


class VendorDefault(Base):
    """The part against its vendor's default as the tree has it (nt_init() in the vendor's init)."""

    AMD_C = "static void init_amd(struct cpuinfo_x86 *c)\n{\n\t/* Cold */\n\tnt_init(c, BIT(PMD_ORDER), BIT(PUD_ORDER));\n}\n"

    def tree(self, files):
        t = os.path.join(self.d, "tree")
        for name, text in files.items():
            path = os.path.join(t, "arch/x86/kernel/cpu", name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        return t

    def part(self, pop_2m, copy_1g=0.85, cpuid=AMD, features="erms fsrm clzero; not: movdir64b (of x)",
             regions=None):
        """A Genoa-like run: the populate clear (CLZERO whole) at 16K and 2M, the CoW copy at 2M and 1G;
        REGIONS {KiB: ratio}: the populate-then-use table of CLZERO whole."""
        none = {"clzero/whole": {16: 0.35, 2048: pop_2m}, "movnti/whole": {16: 0.5, 2048: 0.75}}
        later = {"clzero/whole": {16: 0.6, 2048: pop_2m}, "movnti/whole": {16: 0.7, 2048: 0.87}}
        uses = {"fault-none": full(none, [16, 2048]), "fault-later": full(later, [16, 2048])}
        if regions:
            uses["region"] = full({"clzero/whole": regions}, sorted(regions))
        d = write_run(os.path.join(self.d, "p%d" % len(os.listdir(self.d))), cpuid=cpuid,
                      fault=full({"clzero": 1.06, "movnti": 1.2}, [16, 2048]),
                      copy={(2048, "copy_mc_movnti"): 0.65, (1048576, "copy_mc_movnti"): copy_1g},
                      uses=uses, unit="range")
        with open(os.path.join(d, "bench.meta"), "a") as f:
            f.write("features: %s\n" % features)
        return ntbench.load(d)[0]

    def verdict(self, runs, files=None):
        lines, quirk = ntbench.default_lines(runs, "range", 0.02, self.tree(files or {"amd.c": self.AMD_C}),
                                             os.path.join(self.d, "no-patches"))
        return "\n".join(lines), quirk

    def test_default_holds(self):
        text, quirk = self.verdict(self.part(0.7))
        self.assertIsNone(quirk)
        self.assertIn("populate order 9 (2M, CLZERO): the worse of none and later 0.70 [0.70-0.70] cold", text)
        self.assertIn("copy order 18 (1G, MOVNTI): 0.85 [0.85-0.85] cold", text)
        self.assertIn("verdict: AMD's default holds on this part: no nt_bad_cpus[] line. Beyond it the part "
                      "decides cold populate orders 2 (CLZERO); copy orders 9 (MOVNTI)", text)

    def test_default_loses_at_2m_populate(self):
        text, quirk = self.verdict(self.part([1.05, 1.1, 1.08, 1.12, 1.06]))
        self.assertEqual(quirk, "X86_MATCH_VFM_STEPS(VFM_MAKE(X86_VENDOR_AMD, 0x1a, 0x2), 0x1, 0x1, NULL),")
        self.assertIn("verdict: AMD's default loses on this part at populate order 9 (2M, CLZERO): the worse "
                      "of none and later 1.08 [1.05-1.12] cached", text)
        rc, out, _ = cli_raw("entry", "--tree", os.path.join(self.d, "tree"), "--", self.part(1.1)[0].label)
        self.assertEqual(rc, 0)
        self.assertIn("\nX86_MATCH_VFM_STEPS(VFM_MAKE(X86_VENDOR_AMD, 0x1a, 0x2), 0x1, 0x1, NULL),\n", out)

    def test_default_undecided(self):
        text, quirk = self.verdict(self.part(0.7, copy_1g=[0.9, 1.0, 0.95, 1.03, 0.97]))
        self.assertIsNone(quirk)
        self.assertIn("verdict: undecided at copy order 18 (1G, MOVNTI): 0.97 [0.90-1.03] undecided: no "
                      "nt_bad_cpus[] line", text)

    def test_not_measured_is_undecided(self):
        text, quirk = self.verdict(self.part(0.7), {"amd.c": "\tnt_init(c, BIT(PMD_ORDER) | BIT(PUD_ORDER), 0);\n"})
        self.assertIsNone(quirk)
        self.assertIn("populate order 18 (1G, CLZERO): not measured", text)
        self.assertIn("verdict: undecided at populate order 18 (1G, CLZERO): not measured", text)

    def test_condition_and_other_vendors(self):
        zen = "\tif (cpu_has(c, X86_FEATURE_ZEN))\n\t\tnt_init(c, BIT(PMD_ORDER), BIT(PUD_ORDER));\n"
        text, quirk = self.verdict(self.part(1.2, cpuid="AuthenticAMD 0x15 0x2 0 clzero=0 movdir64b=0"),
                                   {"amd.c": zen})
        self.assertIsNone(quirk)
        self.assertIn("its condition is false on this part: the tree leaves it mainline's", text)
        self.assertIn("verdict: AMD's default does not cover this part: mainline's stores", text)
        self.assertIn("verdict: AMD's default loses", self.verdict(self.part(1.2), {"amd.c": zen})[0])
        intel = "\tif (!cpu_has(c, X86_FEATURE_HYBRID_CPU))\n\t\tnt_init(c, BIT(PMD_ORDER), 0);\n"
        hybrid = self.part(0.7, cpuid="GenuineIntel 0x6 0xb7 1 clzero=0 movdir64b=1",
                           features="erms hybrid_cpu; not: clzero (of x)")
        self.assertIn("its condition is false on this part", self.verdict(hybrid, {"intel.c": intel})[0])
        old = self.part(0.7, cpuid="GenuineIntel 0x6 0xcf 2 clzero=0 movdir64b=1", features="erms; not: clzero (of x)")
        self.assertIn("is not recorded by the run", self.verdict(old, {"intel.c": intel})[0])
        text, quirk = self.verdict(self.part(1.2, cpuid="HygonGenuine 0x18 0x0 1 clzero=1 movdir64b=0"),
                                   {"hygon.c": "static void init_hygon(struct cpuinfo_x86 *c) {}\n"})
        self.assertIsNone(quirk)
        self.assertIn("calls no nt_init(): the tree leaves Hygon parts mainline's", text)
        self.assertIn("verdict: no default covers this part", text)

    def test_gate(self):
        """v6's nt_init(c, populate, populate_min, copy): the default's gate against the region table."""
        amd = "\tif (boot_cpu_has(X86_FEATURE_ZEN))\n\t\tnt_init(c, BIT(PMD_ORDER), SZ_8M, BIT(PUD_ORDER));\n"
        d = ntbench.vendor_defaults(amd)[0]
        self.assertEqual((d.populate, d.gate, d.copy, d.cond), ({9}, 8192, {18}, "boot_cpu_has(X86_FEATURE_ZEN)"))
        text, quirk = self.verdict(self.part(0.7, regions={2048: 1.1, 8192: 0.8, 32768: 0.7}), {"amd.c": amd})
        self.assertIsNone(quirk)
        self.assertIn("the gate (populates from 8M, clzero/whole): 8M 0.80 [0.80-0.80] cold, 32M 0.70 "
                      "[0.70-0.70] cold", text)
        self.assertIn("verdict: AMD's default holds", text)
        text, quirk = self.verdict(self.part(0.7, regions={2048: 1.1, 8192: 1.1, 32768: 0.7}), {"amd.c": amd})
        self.assertIsNotNone(quirk)
        self.assertIn("verdict: AMD's default loses on this part at the gate (populates from 8M", text)
        text, quirk = self.verdict(self.part(0.7, regions={2048: 0.7}), {"amd.c": amd})
        self.assertIn("verdict: undecided at the gate (populates from 8M, clzero/whole): no region at or above "
                      "it measured", text)

    def test_zen_generations(self):
        """AMD's v6 default: Zen 3, 4 and 5, an `if` over two lines joined by ||."""
        amd = ("\tif (boot_cpu_has(X86_FEATURE_ZEN3) || boot_cpu_has(X86_FEATURE_ZEN4) ||\n"
               "\t    boot_cpu_has(X86_FEATURE_ZEN5))\n\t\tnt_init(c, BIT(PMD_ORDER), SZ_1G, BIT(PUD_ORDER));\n")
        self.assertEqual(ntbench.vendor_defaults(amd)[0].cond, "boot_cpu_has(X86_FEATURE_ZEN3) || "
                         "boot_cpu_has(X86_FEATURE_ZEN4) || boot_cpu_has(X86_FEATURE_ZEN5)")
        for cpuid, holds in (("AuthenticAMD 0x19 0x11 1 clzero=1 movdir64b=0", True),
                             ("AuthenticAMD 0x1a 0x2 1 clzero=1 movdir64b=0", True),
                             ("AuthenticAMD 0x17 0x31 0 clzero=1 movdir64b=0", False)):
            text = self.verdict(self.part(0.7, cpuid=cpuid), {"amd.c": amd})[0]
            self.assertEqual("its condition is false" not in text, holds, cpuid)

    def test_v7_rule_and_chain(self):
        """v7's nt_init(c, llc, gate, copy): an if / else if / else chain, the first that holds; gate 0 is
        the LLC of bench.meta's machine line."""
        amd = ("\tunsigned long llc = 0;\n\n"
               "\tif (boot_cpu_has(X86_FEATURE_ZEN3) && cpu_has(c, X86_FEATURE_CLZERO))\n"
               "\t\tnt_init(c, llc, SZ_2M, BIT(PUD_ORDER));\n"
               "\telse if (boot_cpu_has(X86_FEATURE_ZEN3) || boot_cpu_has(X86_FEATURE_ZEN4) ||\n"
               "\t\t boot_cpu_has(X86_FEATURE_ZEN5))\n\t\tnt_init(c, llc, 0, BIT(PUD_ORDER));\n"
               "\telse\n\t\tnt_init(c, llc, 0, 0);\n")
        calls = ntbench.vendor_defaults(amd)
        self.assertEqual([(c.populate, c.gate, c.copy) for c in calls],
                         [({9}, 2048, {18}), ({9}, ntbench.LLC_GATE, {18}), ({9}, ntbench.LLC_GATE, set())])
        self.assertEqual([c.cond for c in calls], [
            "boot_cpu_has(X86_FEATURE_ZEN3) && cpu_has(c, X86_FEATURE_CLZERO)",
            "boot_cpu_has(X86_FEATURE_ZEN3) || boot_cpu_has(X86_FEATURE_ZEN4) || boot_cpu_has(X86_FEATURE_ZEN5)",
            ""])
        regions = {2048: 1.1, 8192: 1.05, 32768: 0.75}
        genoa = self.part(0.7, regions=regions)
        meta = os.path.join(genoa[0].label, "bench.meta")
        with open(meta) as f:
            text = f.read().replace("8 GiB\n", "8 GiB, L3 32M as reported\n", 1)
        with open(meta, "w") as f:
            f.write(text)
        text, quirk = self.verdict(ntbench.load(genoa[0].label)[0], {"amd.c": amd})
        self.assertIn("nt_init(c, llc, 0, BIT(PUD_ORDER));", text)
        self.assertIn("its gate is the rule's: the LLC, 32M on this part", text)
        self.assertIn("the gate (populates from 32M, clzero/whole): 32M 0.75 [0.75-0.75] cold", text)
        self.assertIsNone(quirk)
        milan = self.part(0.7, cpuid="AuthenticAMD 0x19 0x1 1 clzero=1 movdir64b=0", regions=regions)
        text, quirk = self.verdict(milan, {"amd.c": amd})
        self.assertIn("nt_init(c, llc, SZ_2M, BIT(PUD_ORDER));", text)
        self.assertIn("verdict: AMD's default loses on this part at the gate (populates from 2M", text)
        zen1 = self.part(0.7, cpuid="AuthenticAMD 0x17 0x1 2 clzero=1 movdir64b=0", regions=regions)
        text, _ = self.verdict(zen1, {"amd.c": amd})
        self.assertIn("nt_init(c, llc, 0, 0);", text)
        self.assertIn("its gate is the LLC, which the run does not record", text)

    def test_vfm_condition(self):
        gnr = "\tif (c->x86_vfm == INTEL_GRANITERAPIDS_X)\n\t\tnt_init(c, BIT(PMD_ORDER), SZ_8M, 0);\n"
        feats = "erms movdir64b; not: clzero (of x)"
        on = self.part(0.7, cpuid="GenuineIntel 0x6 0xad 1 clzero=0 movdir64b=1", features=feats)
        off = self.part(0.7, cpuid="GenuineIntel 0x6 0xa7 1 clzero=0 movdir64b=1", features=feats)
        self.assertNotIn("its condition is false", self.verdict(on, {"intel.c": gnr})[0])
        self.assertIn("its condition is false on this part", self.verdict(off, {"intel.c": gnr})[0])

    def test_read_from_the_series(self):
        pdir = os.path.join(self.d, "patches")
        os.makedirs(pdir)
        with open(os.path.join(pdir, "0001-x.patch"), "w") as f:
            f.write("diff --git a/arch/x86/kernel/cpu/amd.c b/arch/x86/kernel/cpu/amd.c\n--- a/x\n+++ b/x\n"
                    "@@ -1,1 +1,2 @@\n context\n+\tnt_init(c, BIT(PMD_ORDER), 0);\n")
        with open(os.path.join(pdir, "series"), "w") as f:
            f.write("0001-x.patch\n")
        lines, quirk = ntbench.default_lines(self.part(0.7), "range", 0.02, os.path.join(self.d, "none"), pdir)
        self.assertIn("the lines %s/series adds to arch/x86/kernel/cpu/amd.c" % pdir, "\n".join(lines))
        self.assertIn("copy orders 9, 18 (MOVNTI)", "\n".join(lines))


class Mt(Base):
    """d. every CPU populating at once, and e. the populate's end-to-end estimate (ntbench_mt)."""

    def test_tables(self):
        uses = {"mt": {(262144, "clzero/whole"): 0.5, (262144, "movnti/whole"): [1.1, 1.05, 1.2, 1.08, 1.1]},
                "fault-none": {(2048, "clzero/whole"): 0.4}}
        extra = "".join("%d faults perf-populate-2M 1024 4.096\n" % r for r in range(5))
        d = write_run(os.path.join(self.d, "mt"), uses=uses, extra=extra)
        with open(os.path.join(d, "bench.meta"), "a") as f:
            f.write("mt_threads: 16\n")
        text = re.sub(r"\s+", " ", ntbench.tables_text(ntbench.load(d)[0], 0.02, with_entry=False))
        self.assertIn("d. every CPU populating at once (16 threads", text)
        self.assertIn("256M clzero/whole 100.0 0.0 100.0 0.50 [0.50-0.50] n=5 cold", text)
        self.assertIn("256M movnti/whole 220.0 0.0 220.0 1.10 [1.05-1.20] n=5 cached", text)
        self.assertIn("the same, then every thread storing", text)
        self.assertIn("256M clzero/whole 100.0 50.0 150.0 0.50 [0.50-0.50] n=5 cold", text)
        # b.: 4.096 GB/s is 1000 ns a page; the clear 200 of it, cold 80
        self.assertIn("e. a populate end to end, an estimate: the host kernel's MAP_POPULATE of 2 MiB hugetlb "
                      "pages (b.), 1000.0 ns per 4 KiB page, of which mainline's clear (c., use none, 2M) is "
                      "200.0 (20 %)", text)
        self.assertIn("clzero/whole clear 80.0 ns: populate 880.0 ns, 0.88 of mainline's", text)

    def test_absent(self):
        d = write_run(os.path.join(self.d, "none"), fault=full({"clzero": 0.9}))
        text = ntbench.tables_text(ntbench.load(d)[0], 0.02, with_entry=False)
        self.assertNotIn("d. every CPU", text)
        self.assertNotIn("e. a populate end to end", text)


class Vm(Base):
    """f. a VM's RAM faulted in on first touch: recorded traces replayed (ntbench_vm)."""

    def run_with(self, ratios):
        """A run with a vm-<host>-<model>-<name> section per {([host@]model, name): (clear, touch) of
        movnti} (host fault unless named); mainline 300 + 300."""
        rows = []
        for r in range(5):
            for (model, name), (cl, to) in sorted(ratios.items()):
                host, _, model = model.rpartition("@")
                rows += ["%d vm-%s-%s-%s 524288 clear_pages 300.0 300.0" % (r, host or "fault", model, name),
                         "%d vm-%s-%s-%s 524288 movnti %.1f %.1f" % (r, host or "fault", model, name, cl, to)]
        d = write_run(os.path.join(self.d, "vm"), fault=full({"movnti": 0.9}), extra="\n".join(rows) + "\n")
        trace = os.path.join(self.d, "a-1g.trace.gz")
        with gzip.open(trace, "wt") as f:
            f.write("# guest kernel: 7.3.4 thp=always\n# vmtrace: 100 polls in 0.5 s, longest gap 9000 us, 5 pages\n"
                    "0 0\n0 1\n5000 2\n200000 512\n300000 3\n2000000 513\n")
        with open(os.path.join(d, "bench.meta"), "a") as f:
            f.write("vm_trace_a-1g: %s\n" % trace)
        return re.sub(r"\s+", " ", ntbench.tables_text(ntbench.load(d)[0], 0.02, with_entry=False))

    def test_models_disagree_undecided(self):
        text = self.run_with({("stosb", "a-1g"): (200, 500), ("line", "a-1g"): (150, 300),
                              ("stosb", "b"): (200, 500)})
        self.assertIn("trace a-1g (%s): guest kernel: 7.3.4 thp=always" % os.path.join(self.d, "a-1g.trace.gz"), text)
        # 6 pages in 2 regions: page 1 in the first poll, 2 after 5 ms, 3 after 300 ms, 513 after 1.8 s;
        # 1018 of 1024 never; polls 5 ms apart on average
        self.assertIn("6 pages first touched in 2 regions of 2 MiB; of a region's 512 pages, one is its first touch, "
                      "and the others are touched after it (TCG's time, polled every 5.0 ms on average, at most "
                      "9 ms): the same poll 0.1 %, < 10 ms 0.1 %, < 100 ms 0.0 %, < 1 s 0.1 %, >= 1 s 0.1 %; "
                      "never: 99.4 %", text)
        # in other regions: none before pages 1 and 2; page 512's 2 MiB clear and 4 KiB before page 3
        # (2052 KiB); page 3's 4 KiB before page 513
        self.assertIn("the replay stores in other regions (their clears and the guest's writes) median 0 KiB, 90th "
                      "percentile 4 KiB, 99th 4 KiB", text)
        dist = ntbench_vm.reduce(os.path.join(self.d, "a-1g.trace.gz"))[3]
        self.assertEqual(dist, [0, 0, 4096, 2052 * 1024])
        self.assertIn("fault stosb movnti 200.0 500.0 700.0 1.17 [1.17-1.17] n=5 cached", text)
        self.assertIn("fault line movnti 150.0 300.0 450.0 0.75 [0.75-0.75] n=5 cold", text)
        self.assertIn("trace b (path not recorded):", text)
        self.assertIn("f. decision for KVM's first-touch fault on AMD EPYC 9B45: x: movnti undecided", text)

    def test_every_one_cold_or_cached(self):
        cold = self.run_with({("stosb", "a-1g"): (150, 300), ("run", "a-1g"): (100, 400), ("line", "b"): (100, 300),
                              ("alloc@stosb", "a-1g"): (100, 300)})
        self.assertIn("first-touch fault on AMD EPYC 9B45: x: movnti cold", cold)
        # the hosts' order, then the models'
        self.assertLess(cold.index("fault stosb movnti"), cold.index("fault run movnti"))
        self.assertLess(cold.index("fault run movnti"), cold.index("alloc stosb movnti"))
        mixed = self.run_with({("stosb", "a-1g"): (150, 300), ("alloc@stosb", "a-1g"): (300, 400)})
        self.assertIn("first-touch fault on AMD EPYC 9B45: x: movnti undecided", mixed)
        cached = self.run_with({("stosb", "a-1g"): (300, 400), ("line", "a-1g"): (300, 310)})
        self.assertIn("first-touch fault on AMD EPYC 9B45: x: movnti cached", cached)

    def test_absent(self):
        d = write_run(os.path.join(self.d, "none"), fault=full({"clzero": 0.9}))
        self.assertNotIn("f. a VM's RAM", ntbench.tables_text(ntbench.load(d)[0], 0.02, with_entry=False))


class Pollute(Base):
    def test_rounds_decide_the_harm(self):
        rows = []
        for r in range(5):
            for ws, cp, clz, mv in ((4096, 1.20, 1.05, 1.10 + 0.02 * (r % 2 * 2 - 1)), (8192, 1.2, 1.3, 1.0)):
                rows += ["%d pollute %d idle 1.000" % (r, ws), "%d pollute %d clear_pages %.3f" % (r, ws, cp),
                         "%d pollute %d clzero %.3f" % (r, ws, clz), "%d pollute %d movnti %.3f" % (r, ws, mv)]
        d = write_run(os.path.join(self.d, "p"), fault={(2048, "movnti"): 0.9}, extra="\n".join(rows) + "\n")
        text = "\n".join(ntbench.pollute_table(ntbench.load(d)[0]))
        self.assertRegex(text, r"4M .* 0\.88 \[0\.88-0\.88\] n=5 less harm +0\.9\d \[0\.9\d-0\.9\d\] n=5 less")
        self.assertRegex(text, r"8M .* 1\.08 \[1\.08-1\.08\] n=5 no less harm +0\.83 .* less harm")


class Decisions(Base):
    def test_cold_cached_undecided(self):
        d = write_run(os.path.join(self.d, "r"), fault={
            (2048, "movnti"): 0.90, (2048, "clzero"): 1.05,
            (2048, "movdir64b"): [0.95, 0.97, 0.99, 0.96, 0.95],
            (1048576, "movnti"): [0.97, 0.975, 0.979, 0.96, 0.97], (1048576, "clzero"): 0.98})
        dec = self.decs(d)
        self.assertEqual(dec["movnti"][2048].kind, "cold")
        self.assertEqual(dec["clzero"][2048].kind, "cached")
        self.assertEqual(dec["movdir64b"][2048].kind, "undecided")
        self.assertEqual(dec["movnti"][1048576].kind, "cold")     # max 0.979 < 0.98
        self.assertEqual(dec["clzero"][1048576].kind, "cached")   # min 0.98 >= 0.98
        self.assertEqual(dec["movnti"][2048].n, 5)

    def test_fewer_than_3_rounds(self):
        d = write_run(os.path.join(self.d, "r"), fault={(2048, "movnti"): 0.5}, rounds=2)
        self.assertEqual(self.decs(d)["movnti"][2048].kind, "undecided")
        rc, out, _ = cli("entry", d)
        self.assertIn("fewer than 3 rounds: all undecided", out)
        self.assertRegex(out, r"fault clear \(a user's fault; use all, unit \S+\): none")

    def test_confidence(self):
        self.assertAlmostEqual(ntbench.confidence(5), 0.9375)
        self.assertAlmostEqual(ntbench.confidence(7), 1 - 1 / 64)

    def test_threshold_moves_above_undecided(self):
        d = write_run(os.path.join(self.d, "r"), fault=full({"movnti": {
            16: 1.1, 64: 0.9, 256: [0.9, 1.0, 0.9, 0.9, 0.9], 1024: 0.9, 2048: 0.9, 32768: 0.9, 1048576: 0.9}}))
        thr, und = ntbench.threshold(self.decs(d)["movnti"])
        self.assertEqual((thr, und), (1024, [256]))
        rc, out, _ = cli("tables", d)
        self.assertEqual(rc, 0)
        self.assertIn("from 1M, undecided at 256K", out)

    def test_proxy_32m_is_1g(self):
        d = write_run(os.path.join(self.d, "r"), fault=full({"movnti": {2048: 1.0, 32768: 0.9, 1048576: 0.9}}))
        rc, out, _ = cli("entry", d)
        self.assertIn("MOVNTI at 1G = order 18: BIT(18)", out)
        self.assertIn("the vendor's default: not read", out)
        self.assertNotIn("X86_MATCH", out)
        self.assertEqual(ntbench.real_folio(32768), 1048576)
        self.assertEqual(ntbench.real_folio(64), 64)
        self.assertEqual(ntbench.real_folio(48), 64)

    def test_movnti_unless_5_percent_lower(self):
        for clz, want in ((0.80, "MOVNTI"), (0.78, "CLZERO")):
            d = write_run(os.path.join(self.d, "r%s" % clz), fault=full({"movnti": 0.83, "clzero": clz}))
            ent = ntbench.decision_of(ntbench.load(d)[0], "32M", 0.02)[0]
            self.assertEqual(ent["clear"], (want, 16))
        d = write_run(os.path.join(self.d, "nomov"), fault=full({"movnti": {16: 1.1, 1048576: 0.9}, "clzero": 0.85}))
        ent = ntbench.decision_of(ntbench.load(d)[0], "32M", 0.02)[0]
        self.assertEqual(ent["clear"], ("CLZERO", 16))   # movnti from 1G only, clzero 0.85 <= 0.95 * 0.9
        d = write_run(os.path.join(self.d, "nomov2"), fault=full({"movnti": {16: 1.1, 1048576: 1.1},
                                                                  "clzero": 0.85}))
        ent = ntbench.decision_of(ntbench.load(d)[0], "32M", 0.02)[0]
        self.assertEqual(ent["clear"], ("CLZERO", 16))   # movnti none: the lowest

    def test_unit_suffix(self):
        small = [16, 64, 256, 1024, 2048, 32768]
        fault = full({"movnti/range": {**{s: 0.9 for s in small}, 1048576: 1.05}, "clzero/range": 1.1})
        fault[(1048576, "movnti/32M")] = 0.9
        fault[(1048576, "clzero/32M")] = 1.1
        d = write_run(os.path.join(self.d, "r"), fault=fault, unit="32M")
        runs = ntbench.load(d)[0]
        self.assertEqual(ntbench.decision_of(runs, "32M", 0.02)[0]["clear"], ("MOVNTI", 16))
        self.assertEqual(ntbench.decision_of(runs, "range", 0.02)[0]["clear"], ("CACHED", 0))
        self.assertIn("= orders 2, 4, 6, 8, 9, 18:", cli("entry", d)[1])           # the meta's cold_unit: 32M
        self.assertIn("= orders 2, 4, 6, 8, 9:", cli("entry", "--unit", "range", d)[1])
        self.assertIn("movnti range vs 32M units (median ratio): 1G 1.05/0.90", cli("tables", d)[1])
        self.assertIn("movnti range vs 32M units", cli("entry", d)[1])

    def test_copy_entry(self):
        d = write_run(os.path.join(self.d, "a"), copy={(2048, "copy_mc_movnti"): 0.9, (1048576, "copy_mc_movnti"): 0.9})
        self.assertIn("MOVNTI at 2M, 1G = orders 9, 18: BIT(9) | BIT(18)", cli("entry", d)[1])
        d = write_run(os.path.join(self.d, "b"), copy={(2048, "copy_mc_movnti"): [0.9, 1.0, 0.9, 0.9, 0.9],
                                                       (1048576, "copy_mc_movnti/32M"): 0.9})
        self.assertIn("MOVNTI at 1G = order 18: BIT(18)", cli("entry", d)[1])
        d = write_run(os.path.join(self.d, "c"), copy={(2048, "copy_mc_movnti"): 0.9, (1048576, "copy_mc_movnti"): 1.0})
        self.assertIn("MOVNTI at 2M = order 9: BIT(9)", cli("entry", d)[1])   # a set: 2M without 1G


class Pooling(Base):
    def test_pooled_merge(self):
        a = write_run(os.path.join(self.d, "a"), fault=full({"movnti": [0.9, 0.92]}), rounds=2)
        b = write_run(os.path.join(self.d, "b"), fault=full({"movnti": [0.91, 0.93]}), rounds=2)
        o = write_run(os.path.join(self.d, "o"), fault=full({"movnti": 0.5}),
                      cpuid="GenuineIntel 6 0xcf 2 clzero=0 movdir64b=1")
        rc, out, _ = cli("entry", a, "--recorded", b, o)
        self.assertRegex(out.split("with the recorded runs")[0], r"use all, unit \S+\): none")
        pooled = out.split("with the recorded runs")[1]
        self.assertIn("2 runs, 4 rounds", pooled)
        self.assertIn("use all, unit 32M): MOVNTI at 16K", pooled)
        self.assertNotIn(o, pooled)
        rc, out, _ = cli("entry", a, b)                       # two PATHs of one CPU: pooled
        self.assertIn("use all, unit 32M): MOVNTI at 16K", out)
        # as make bench calls it: bench.runs files, a page of the same run (counted once), an empty list
        page = os.path.join(self.d, "a.md")
        self.assertEqual(cli("report", page, a)[0], 0)
        rc, out, _ = cli("tables", a, "--recorded", os.path.join(b, "bench.runs"), page)
        self.assertEqual(rc, 0)
        self.assertIn("2 runs, 4 rounds", out)
        rc, out, _ = cli("entry", "--recorded", "--", a)
        self.assertEqual(rc, 0)
        self.assertIn("no other recorded new-format run", out)

    def test_no_contradiction(self):
        sizes = {16: 1.1, 1048576: 0.8}
        for seed in range(30):
            got = []
            for k in (0, 1):
                d = write_run(os.path.join(self.d, "s%d%d" % (seed, k)), fault=full({"movnti": sizes}),
                              noise=0.06, seed=seed * 2 + k, runs=1)
                got.append({s: x.kind for s, x in self.decs(d)["movnti"].items()})
            for s in sizes:
                self.assertFalse({got[0][s], got[1][s]} == {"cold", "cached"}, (seed, s, got))


class Simulate(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rows = ntbench.simulate(rounds=5, trials=2000, seed=1)

    def row(self, true, sd, drift):
        return next(r for r in self.rows if r[:3] == (true, sd, drift))

    def test_large_effect_decided(self):
        for drift in (0.0, 0.02):
            self.assertGreaterEqual(self.row(0.80, 0.06, drift)[3], 0.99)

    def test_wrong_and_contradiction_iid(self):
        # i.i.d. rounds (no drift): the rule's own bounds.  At true = 1 - MARGIN exactly,
        # P(cold) = 2^-n = 3.1 % by construction (every round below the median): allowed there.
        for r in self.rows:
            if r[2] == 0.0:
                limit = 2 ** -5 + 0.015 if abs(r[0] - 0.98) < 1e-9 else 0.01
                self.assertLessEqual(r[6], limit, r)
                self.assertLessEqual(r[7], 0.005, r)

    def test_drift_is_not_covered(self):
        # a drift common to a run's rounds is not reduced by more rounds: shown, not bounded
        self.assertGreater(self.row(0.98, 0.03, 0.02)[7], 0.005)

    def test_deterministic(self):
        self.assertEqual(ntbench.simulate(3, 50, 7), ntbench.simulate(3, 50, 7))
        rc, out, _ = cli_raw("simulate", "--trials", "50", "--seed", "3")
        self.assertEqual(rc, 0)
        self.assertEqual(len(out.splitlines()), 3 + 16)


class Old(Base):
    def test_parse_and_history(self):
        p = os.path.join(self.d, "make-bench.txt")
        with open(p, "w") as f:
            f.write(OLD)
        new, old = ntbench.load(p)
        self.assertEqual((len(new), len(old)), (0, 1))
        o = old[0]
        self.assertEqual(o.cpu, ("AuthenticAMD", 0x1a, 0x2, 1, 1, 1))
        self.assertAlmostEqual(o.tables["fault"][1048576]["clzero"], 235.0)
        self.assertEqual(ntbench.old_cross(o.tables["fault"], "clzero", "fault"), 2048)
        self.assertIsNone(ntbench.old_cross(o.tables["fault"], "movnti", "fault"))
        rc, out, _ = cli("entry", p)
        self.assertEqual(rc, 0)
        self.assertIn("history (old baseline", out)
        self.assertIn("2M 0.98: stand (one call per range in both models)", out)
        self.assertIn("1G 0.74: provisional until re-measured", out)
        self.assertIn("provisional (the copy order was wrong everywhere)", out)
        self.assertIn("the old runs decide no set", out)
        # with a new run of the CPU: history shown, never pooled
        d = write_run(os.path.join(self.d, "r"), fault=full({"movnti": 1.1}), rounds=2)
        rc, out, _ = cli("entry", d, "--recorded", p)
        self.assertIn("history (old baseline", out)
        self.assertIn("no other recorded new-format run", out)


class Cli(Base):
    def test_exit_codes(self):
        self.assertEqual(cli()[0], 2)
        self.assertEqual(cli("nonsense")[0], 2)
        self.assertEqual(cli("entry")[0], 2)
        self.assertEqual(cli("tables", os.path.join(self.d, "none"))[0], 2)
        self.assertEqual(cli("simulate", "--rounds", "x")[0], 2)
        rc, _, err = cli("entry", "--bogus", self.d)
        self.assertEqual(rc, 2)
        self.assertEqual(len(err.strip().splitlines()), 1)

    def test_tables_width(self):
        extra = "0 perf memset stosb 4k 1024 20.0\n0 perf memset movnt 4k 1024 15.0\n" \
                "0 perf memset stosb 2m 1024 25.0\n0 faults perf-2M 1024 17.0\n0 faults perf-populate-2M 1024 18.0\n" \
                "0 pollute 1024 movnti 1.10\n0 pollute 1024 clear_pages 1.30\n"
        d = write_run(os.path.join(self.d, "r"), fault=full({"movnti": 0.9, "clzero": 0.8, "movdir64b": 0.95}),
                      copy={(2048, "copy_mc_movnti"): 0.9}, extra=extra)
        rc, out, _ = cli_raw("tables", d)
        self.assertEqual(rc, 0)
        for want in ("a. perf bench mem", "b. the HOST kernel", "host kernel: 6.18", "c. touch fault",
                     "c. touch copy", "touch pollute", "nt_bad_cpus[]", "movnt/stosb"):
            self.assertIn(want, out)
        self.assertLessEqual(max(len(x) for x in out.splitlines() if not x.startswith("X86_MATCH")), 110)

    def test_report(self):
        d = write_run(os.path.join(self.d, "r"), fault=full({"movnti": [0.9, 0.91, 0.92]}), rounds=3)
        page = os.path.join(self.d, "zen5.md")
        with open(page, "w") as f:
            f.write("x")
        self.assertEqual(cli("report", page, d)[0], 2)                     # exists
        self.assertEqual(cli("report", os.path.join(self.d, "p.txt"), d)[0], 2)
        self.assertEqual(cli("report", os.path.join(self.d, "no/p.md"), d)[0], 2)
        page = os.path.join(self.d, "page.md")
        rc, _, _ = cli("report", page, d)
        self.assertEqual(rc, 0)
        with open(page) as f:
            text = f.read()
        self.assertTrue(text.startswith("# AMD EPYC 9B45: AuthenticAMD family 0x1a model 0x2 stepping 1"))
        self.assertIn("| machine | VM:", text)
        self.assertIn("```bench.runs", text)
        self.assertIn("<!--", text)
        # the page round-trips, and pools with another run of the CPU
        b = write_run(os.path.join(self.d, "b"), fault=full({"movnti": [0.93, 0.9, 0.91]}), rounds=3)
        rc, out, _ = cli("entry", page, b)
        self.assertIn("%s (3 rounds), %s (3 rounds)" % (page, b), out)
        self.assertIn("6 rounds (confidence 96.88 %", out)



class Kernel(unittest.TestCase):
    """ntbench.py kernel: bench-kernel's lines (guest/bench-kernel) to decisions and the populate set."""

    @staticmethod
    def lines(pop_cold, demand_cold, rounds=5, kb=2048, meta=True):
        out = ["NT-BENCH-META cpu=GenuineIntel/6/207/2", "NT-BENCH-META name=Xeon Test",
               "NT-BENCH-META virt=bare-metal", "NT-BENCH-META clear=movnti 0x200",
               "NT-BENCH-META copy=movnti 0x0"] if meta else []
        for r in range(1, rounds + 1):
            out += ["[ 1.0] NT-BENCH %d populate %d mainline 10.0" % (r, kb),
                    "NT-BENCH %d populate %d cold %.2f" % (r, kb, pop_cold + 0.01 * r),
                    "NT-BENCH %d demand %d mainline 5.0" % (r, kb),
                    "NT-BENCH %d demand %d cold %.2f" % (r, kb, demand_cold - 0.01 * r)]
        return "\n".join(out)

    def test_decisions_and_set(self):
        meta, data = ntbench.kernel_parse(self.lines(16.0, 5.0) + "\n" + self.lines(9.0, 5.0, kb=1048576, meta=False))
        text, status = ntbench.kernel_text(meta, data)
        self.assertEqual(status, 0)
        # time ratio = GB/s mainline / GB/s cold: 10/16 = 0.63 (cold), 10/9 = 1.1 (cached)
        self.assertRegex(text, r"populate \(perf .* 2M .* 0\.6\d \[.*\] n=5 +cold")
        self.assertRegex(text, r"populate \(perf .* 1G .* 1\.1\d \[.*\] n=5 +cached")
        self.assertRegex(text, r"demand faults .* 2M .* 1\.01 \[.*\] n=5 +cached")
        self.assertIn("populate set for GenuineIntel/6/207/2 (movnti): 0x200 (2M)", text)
        self.assertIn("the kernel's populate set: 0x200: the same at the sizes measured", text)
        self.assertIn("verdict: the populate default holds on this part: no nt_bad_cpus[] line", text)

    def test_verdict_loses(self):
        meta, data = ntbench.kernel_parse(self.lines(9.0, 5.0))       # 2M populate cached, the default's order
        text, _ = ntbench.kernel_text(meta, data)
        self.assertIn("verdict: the populate default loses on this part at order 9 (2M): 1.1", text)
        self.assertIn("\nX86_MATCH_VFM_STEPS(VFM_MAKE(X86_VENDOR_INTEL, 0x6, 0xcf), 0x2, 0x2, NULL),", text)

    def test_undecided_and_nothing(self):
        meta, data = ntbench.kernel_parse(self.lines(10.0, 5.0, rounds=2))
        text, status = ntbench.kernel_text(meta, data)
        self.assertIn("populate set for GenuineIntel/6/207/2 (movnti): none; undecided at 2M", text)
        self.assertIn("differs from this run", text)
        self.assertIn("verdict: undecided at order 9 (2M): 1.0", text)
        self.assertNotIn("X86_MATCH", text)
        self.assertEqual(ntbench.kernel_text({}, {})[1], 1)

    def test_cli_report(self):
        with tempfile.TemporaryDirectory() as d:
            raw, page = os.path.join(d, "bk.out"), os.path.join(d, "p.md")
            with open(raw, "w") as f:
                f.write(self.lines(16.0, 5.0) + "\n")
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                self.assertEqual(ntbench.main(["kernel", raw, "--report", page]), 0)
                self.assertEqual(ntbench.main(["kernel", raw, "--report", page]), 2)  # never overwritten
            with open(page) as f:
                text = f.read()
            self.assertIn("in-kernel measurement, bare metal", text)
            self.assertIn("NT-BENCH 5 populate 2048 cold", text)


if __name__ == "__main__":
    unittest.main()
