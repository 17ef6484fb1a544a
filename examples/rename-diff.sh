#!/usr/bin/env bash
# The main job on real input: build one program twice -- the second time
# with its hot function renamed (hash_chunk -> hash_block), as a refactoring
# would -- record each build twice with perf, and compare the two sides with
# perfdiff.  Where perf diff or the robot would show a -X row and a +X row,
# perfdiff reports one renamed shift and no other significant change.
#
#   examples/rename-diff.sh [PERFDIFF | BUILD_DIR] [extra perfdiff options]
#
# Needs perf (Debian: linux-perf) and a C compiler; records with
# `perf record -N -e cpu-clock -g` (no hardware counters, no build-id
# cache).  Everything goes to a temporary directory that is removed at exit.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PERFDIFF=${1:-$ROOT/build/perfdiff}
[ -n "${PERFDIFF%%/*}" ] && PERFDIFF=$PWD/$PERFDIFF
[ $# -gt 0 ] && shift
[ -d "$PERFDIFF" ] && PERFDIFF=$PERFDIFF/perfdiff
[ -x "$PERFDIFF" ] || { echo "no perfdiff at $PERFDIFF (build first)" >&2; exit 2; }
command -v perf >/dev/null || { echo "perf is not installed (apt-get install linux-perf)" >&2; exit 2; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/old" "$WORK/new"
# -O0 and frame pointers: every function keeps its frame, so frame-pointer
# call chains are complete (see the workload's comment)
CFLAGS="-O0 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls"
SRC=$ROOT/tests/workloads/diff_rename.c
cc $CFLAGS -o "$WORK/old/app" "$SRC"
cc $CFLAGS -DPD_NEW -o "$WORK/new/app" "$SRC"

for side in old new; do
	for run in 1 2; do
		perf record -q -N -e cpu-clock -g -o "$WORK/$side$run.data" \
			-- "$WORK/$side/app" 600 2>/dev/null
	done
done

cd "$WORK"
echo "\$ perfdiff old1.data old2.data -- new1.data new2.data $*"
"$PERFDIFF" old1.data old2.data -- new1.data new2.data "$@"
