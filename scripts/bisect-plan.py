#!/usr/bin/env python3
"""Which targets of the kernel build folder to rebuild at each commit of a
bisect run (scripts/bisect.sh), from kbuild's own dependency records.

The build folder holds the full build of HEAD. At a commit before HEAD the
series' files are checked out with their HEAD-time modification times put
back (save-mtimes, restore-mtimes), so that make rebuilds nothing on their
account, and this script names the targets to delete (make then rebuilds
them): a target is rebuilt when a file it was built from (its source, every
header in its .cmd record, any file its command names) differs between the
commit it was last built at and the commit checked out. At a commit before
HEAD only targets "in scope" are considered: those whose source the series
changes, those whose source names a macro or function that the series
defines or changes in a header, and files generated from one the series
changes. Everything else keeps its HEAD build. Back at HEAD every target built at another commit is
considered, so the folder ends as a build of HEAD.

State, in <obj>/.bisect/: state (target and the commit it was built at,
for targets not built at HEAD), mtimes (the saved modification times),
scope (the in-scope targets).

  bisect-plan.py save-mtimes SRC OBJ BASE HEAD
  bisect-plan.py restore-mtimes SRC OBJ
  bisect-plan.py scope SRC OBJ BASE HEAD
  bisect-plan.py plan SRC OBJ HEAD CUR series|all   (prints targets to delete)
  bisect-plan.py record OBJ CUR HEAD STAMP
"""
import os
import re
import subprocess
import sys


def git(src, *args):
    return subprocess.run(["git", "-C", src, *args], check=True,
                          capture_output=True, text=True).stdout


def sdir(obj):
    d = os.path.join(obj, ".bisect")
    os.makedirs(d, exist_ok=True)
    return d


def series_files(src, base, head):
    """Kernel files (not tools/, Documentation/) the series changes."""
    out = git(src, "diff", "--name-only", base, head, "--", ".",
              ":!tools", ":!Documentation")
    return [f for f in out.split("\n") if f]


def cmd_files(obj):
    """Every kbuild record: target path (relative to obj) -> .cmd path."""
    recs = {}
    for root, dirs, files in os.walk(obj):
        dirs[:] = [d for d in dirs if d not in (".bisect", "source")]
        for f in files:
            if f.startswith(".") and f.endswith(".cmd"):
                t = os.path.relpath(os.path.join(root, f[1:-4]), obj)
                recs[t] = os.path.join(root, f)
    return recs


def deps(src, cmdfile):
    """Files of the source tree that a target's record names."""
    pre = src.rstrip("/") + "/"
    with open(cmdfile, errors="replace") as fh:
        text = fh.read()
    out = set()
    for tok in re.findall(re.escape(pre) + r"[^\s\\:;'\"]+", text):
        out.add(os.path.normpath(tok[len(pre):]))
    return out


def load_state(obj):
    st = {}
    p = os.path.join(sdir(obj), "state")
    if os.path.exists(p):
        with open(p) as fh:
            for line in fh:
                t, c = line.split()
                st[t] = c
    return st


def save_state(obj, st, head):
    p = os.path.join(sdir(obj), "state")
    with open(p + ".new", "w") as fh:
        for t in sorted(st):
            if st[t] != head:
                fh.write(f"{t} {st[t]}\n")
    os.replace(p + ".new", p)


def save_mtimes(src, obj, base, head):
    with open(os.path.join(sdir(obj), "mtimes"), "w") as fh:
        for f in series_files(src, base, head):
            p = os.path.join(src, f)
            if f.endswith((".c", ".S", ".h")) and os.path.exists(p):
                st = os.stat(p)
                fh.write(f"{st.st_atime_ns} {st.st_mtime_ns} {f}\n")


def restore_mtimes(src, obj):
    with open(os.path.join(sdir(obj), "mtimes")) as fh:
        for line in fh:
            a, m, f = line.rstrip("\n").split(" ", 2)
            p = os.path.join(src, f)
            if os.path.exists(p):
                os.utime(p, ns=(int(a), int(m)))


def header_names(src, base, head):
    """Macros and functions the series defines or changes in headers: the
    #define names and the declared or defined names (an identifier before
    "(" on a line starting in column 0) of its changed header lines, and the
    function each changed header hunk is in (git's hunk context)."""
    hs = [f for f in series_files(src, base, head) if f.endswith(".h")]
    names = set()
    if not hs:
        return names
    for c in git(src, "rev-list", f"{base}..{head}").split():
        for line in git(src, "diff", "-U0", f"{c}^", c, "--", *hs).split("\n"):
            if line.startswith("@@"):
                m = re.search(r"(\w+)\s*\(", line.split("@@", 2)[2])
                if m:
                    names.add(m.group(1))
                continue
            if line[:1] not in "+-" or line.startswith(("+++", "---")):
                continue
            body = line[1:]
            m = re.match(r"\s*#\s*define\s+(\w+)", body)
            if m:
                names.add(m.group(1))
            elif re.match(r"[A-Za-z_]", body):
                m = re.search(r"(\w+)\s*\(", body)
                if m:
                    names.add(m.group(1))
    return names


def scope(src, obj, base, head):
    """Targets built from a file the series changes that a commit before
    HEAD can build differently: those whose source the series changes,
    those whose source names a macro or function the series defines or
    changes in a header, and generated files (no source) made from a file
    the series changes (capflags.c from cpufeatures.h)."""
    changed = set(series_files(src, base, head))
    names = header_names(src, base, head)
    ident = re.compile(r"\b(" + "|".join(sorted(names)) + r")\b") if names else None
    pre = src.rstrip("/") + "/"
    inscope = []
    nsrc = nname = ngen = 0
    for t, cf in sorted(cmd_files(obj).items()):
        if not deps(src, cf) & changed:
            continue
        with open(cf, errors="replace") as fh:
            m = re.search(r"^source_\S+ := (\S+)", fh.read(), re.M)
        if not m:
            inscope.append(t)
            ngen += 1
            continue
        if not m.group(1).startswith(pre):
            continue
        if os.path.normpath(m.group(1)[len(pre):]) in changed:
            inscope.append(t)
            nsrc += 1
            continue
        try:
            with open(m.group(1), errors="replace") as fh:
                if ident and ident.search(fh.read()):
                    inscope.append(t)
                    nname += 1
        except OSError:
            pass
    with open(os.path.join(sdir(obj), "scope"), "w") as fh:
        fh.write("".join(t + "\n" for t in inscope))
    print(f"{len(inscope)} targets in scope: {nsrc} built from a source the "
          f"series changes, {nname} whose source names one of the {len(names)} "
          f"macros and functions it defines or changes in headers, {ngen} "
          f"generated")


def plan(src, obj, head, cur, mode):
    st = load_state(obj)
    recs = cmd_files(obj)
    if mode == "series":
        with open(os.path.join(sdir(obj), "scope")) as fh:
            cands = [t for t in fh.read().split() if t in recs]
    else:
        cands = [t for t in st if t in recs]
    diffs = {}
    out = []
    for t in cands:
        was = st.get(t, head)
        if was == cur:
            continue
        if was not in diffs:
            diffs[was] = set(git(src, "diff", "--name-only", was, cur).split())
        if deps(src, recs[t]) & diffs[was]:
            out.append(t)
        st[t] = cur	# rebuilt now, or built from the same files
    save_state(obj, st, head)
    print("\n".join(out))


def record(obj, cur, head, stamp):
    since = os.stat(stamp).st_mtime_ns
    st = load_state(obj)
    for t in cmd_files(obj):
        p = os.path.join(obj, t)
        if os.path.exists(p) and os.stat(p).st_mtime_ns > since:
            st[t] = cur
    save_state(obj, st, head)


def main(argv):
    cmd, args = argv[1], argv[2:]
    # SRC and OBJ as absolute paths: kbuild's records name files so.
    if cmd in ("save-mtimes", "restore-mtimes", "scope", "plan"):
        args[0:2] = [os.path.abspath(a) for a in args[0:2]]
    elif cmd == "record":
        args[0] = os.path.abspath(args[0])
    if cmd == "save-mtimes":
        save_mtimes(*args)
    elif cmd == "restore-mtimes":
        restore_mtimes(*args)
    elif cmd == "scope":
        scope(*args)
    elif cmd == "plan":
        plan(*args)
    elif cmd == "record":
        record(*args)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
