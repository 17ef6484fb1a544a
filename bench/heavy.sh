#!/usr/bin/env bash
# The heavy recipe: the recording a new user makes of a busy machine, as
# opposed to bench-reader's few programs.  System-wide call chains while a
# generated C tree builds with `make -j2` over and over (thousands of
# short-lived compiler processes, each with its own maps, mostly in stripped
# binaries) and `tar | gzip` packs a large directory -- so that the benches
# measure fork/exec/exit churn, many maps and unnamed addresses, not only a
# few hot loops.  Records a pair, heavy-a and heavy-b (the same load twice),
# for bench-report.sh and bench-diff.sh; existing recordings are reused.
#
#   bench/heavy.sh [options]
#
#   -s SECONDS    length of each recorded load (default 150: >= 1 M samples
#                 at -F 4000 on 2 CPUs)
#   -F FREQ       sampling frequency per CPU (default 4000, perf's own)
#   -d DIR        the directory tar packs (default /usr/lib)
#   -o DIR        where the tree and the recordings go (default bench/out)
#
# Recorded: perf record -N -a -g -e cpu-clock -F FREQ -o OUT/heavy-{a,b}.data
set -euo pipefail

BENCH_NAME=heavy
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
SECONDS_REC=150
FREQ=4000
TAR_DIR=/usr/lib
while getopts "s:F:d:o:h" opt; do
	bench_opt "$opt" "${OPTARG:-}" || case $opt in
	d) TAR_DIR=$OPTARG ;;
	*) bench_usage 2 19 ;;
	esac
done
command -v perf >/dev/null || die "perf is not installed"
for c in make cc gzip tar; do
	command -v "$c" >/dev/null || die "no $c on this machine"
done
mkdir -p "$OUT"

TREE=$OUT/heavy-tree
heavy_generate_tree "$TREE"
for side in a b; do
	f=$OUT/heavy-$side.data
	if [ -s "$f" ]; then
		echo "reusing $f ($(size_mb "$f") MB)"
		continue
	fi
	record_heavy "$f" "$SECONDS_REC" "$TREE" "$TAR_DIR"
done
