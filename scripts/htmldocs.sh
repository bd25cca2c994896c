#!/usr/bin/env bash
# make htmldocs restricted to the directories of the series' documents
# (SPHINXDIRS: arch/x86 for nt-stores.rst, admin-guide for the
# kernel-parameters.txt hunk), with Debian's Sphinx, out of tree in
# build/docs. Fails on any warning from nt-stores.rst or kernel-parameters,
# and when nt-stores.html is not built.
. "$(dirname "$0")/lib.sh"

[ -d "$SRC/.git" ] || die "no realised tree at $SRC (make realise)"
dirs=${DOCS_DIRS:-"arch/x86 admin-guide"}
out=$BUILD/docs
res=$BUILD/results
log=$BUILD/logs/htmldocs.log
mkdir -p "$out" "$res" "$BUILD/logs"
pass=0 fail=0 n=0
note "htmldocs: SPHINXDIRS=\"$dirs\" with $(sphinx-build --version 2>&1)"
ok=1
make -C "$SRC" O="$out" -j"$JOBS" htmldocs SPHINXDIRS="$dirs" >"$log" 2>&1 || ok=0
ktap $ok htmldocs_builds "$(tail -5 "$log")"
html=$(find "$out/Documentation/output" -name nt-stores.html -path '*arch/x86*' | head -1)
ok=0; [ -n "$html" ] && grep -q 'CLZERO' "$html" && ok=1
ktap $ok nt_stores_html_built "no arch/x86/nt-stores.html under $out/Documentation/output"
# A warning or error located in nt-stores.rst or kernel-parameters.{txt,rst},
# or naming nt-stores (a reference or toctree entry); the base's own (185
# with Sphinx 5.3 in these directories, mostly references out of them) do
# neither.
w=$(grep -E 'WARNING|ERROR|CRITICAL' "$log" |
	grep -E 'nt-stores|kernel-parameters\.(txt|rst):' || true)
ktap "$([ -z "$w" ] && echo 1 || echo 0)" no_warning_from_the_series_documents "$w"
echo "$pass $fail 0" >"$res/htmldocs.counts"
echo "htmldocs: $pass passed, $fail failed ($(grep -ciE 'warning' "$log" || true) warnings in all, log: $log)"
[ $fail = 0 ]
