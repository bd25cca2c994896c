#!/usr/bin/env bash
# Say whether the realised tree holds work that patches/ does not.
. "$(dirname "$0")/lib.sh"

[ -d "$SRC/.git" ] || { echo "no realised tree at $SRC (make realise)"; exit 0; }
rc=0
dirty=$(tree_dirty)
if [ -n "$dirty" ]; then
	echo "UNCOMMITTED edits in $SRC (commit them there, then make export):"
	sed 's/^/  /' <<<"$dirty"
	rc=1
fi
lost=$(unexported_commits)
if [ -n "$lost" ]; then
	echo "NOT EXPORTED commits in $SRC (make export):"
	sed 's/^/  /' <<<"$lost"
	rc=1
fi
pend=$(git -C "$TOP" status --porcelain -- patches)
if [ -n "$pend" ]; then
	echo "patches/ has changes not committed to the project:"
	sed 's/^/  /' <<<"$pend"
	rc=1
fi
[ $rc = 0 ] && echo "clean: $(git -C "$SRC" rev-list --count base..HEAD) commits in $SRC, all in patches/ and committed"
exit $rc
