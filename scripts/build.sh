#!/usr/bin/env bash
# Build the realised tree out of tree: tinyconfig + $FRAGMENTS (default
# config/nt.config, the bootable guest), target $TARGET (default bzImage).
# Prints the compiler's warnings; fails on any error.
. "$(dirname "$0")/lib.sh"

[ -d "$SRC/.git" ] || [ -f "$SRC/Makefile" ] || die "no realised tree at $SRC: run 'make realise' first"
mkdir -p "$OBJ"
frags=${FRAGMENTS:-$TOP/config/nt.config}
target=${TARGET:-bzImage}
stamp=$OBJ/.nt-config-stamp
want=$(cat $frags | sha1sum | cut -d' ' -f1)
kconfigs=$(cd "$SRC" && git ls-files 'Kconfig*' '*/Kconfig*' 2>/dev/null || find . -name 'Kconfig*')
configure() {
	note "configuring $OBJ (tinyconfig + $(basename -a $frags | tr '\n' ' '))"
	kmake -s tinyconfig >/dev/null
	(cd "$SRC" && ARCH=x86_64 scripts/kconfig/merge_config.sh -m -O "$OBJ" \
		"$OBJ/.config" $frags >/dev/null)
	kmake -s olddefconfig >/dev/null
	echo "$want" >"$stamp"
}

# Every option the fragments ask for must have taken, except options this
# tree does not define (an earlier patch of the series, when bisecting).
config_ok() {
	local line opt val got bad=0
	while IFS= read -r line; do
		case "$line" in CONFIG_*=*) ;; *) continue ;; esac
		opt=${line%%=*} val=${line#*=}
		(cd "$SRC" && grep -qE "^(menu)?config ${opt#CONFIG_}\$" $kconfigs) || continue
		got=$(grep -E "^$opt=" "$OBJ/.config" | cut -d= -f2- || true)
		[ "$val" = n ] && [ -z "$got" ] && continue
		[ "$got" = "$val" ] && continue
		echo "  $opt: wanted $val, got ${got:-unset}" >&2
		bad=1
	done < <(cat $frags)
	return $bad
}

if [ ! -f "$OBJ/.config" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	configure
fi
if ! config_ok 2>/dev/null; then
	# The tree gained or lost a Kconfig symbol since the last configure.
	configure
	config_ok || die "config fragment options did not take (missing dependency?)"
fi

note "building $target in $OBJ ($JOBS jobs)"
if ! kmake -s "$target" >"$OBJ/build.log" 2>&1; then
	grep -m30 -E 'error|Error|undefined reference' "$OBJ/build.log" >&2
	die "kernel build failed (log: $OBJ/build.log)"
fi
grep -v '^Kernel: ' "$OBJ/build.log" >&2 || true
[ "$target" = bzImage ] && ls -l "$OBJ/arch/x86/boot/bzImage" >&2
exit 0
