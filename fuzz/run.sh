#!/usr/bin/env bash
# Build the libFuzzer harnesses and run each for SECONDS (default 60) on a
# seed corpus made from ../shared/corpus and tests/data.  Fails on any crash,
# leak or sanitizer report.  For long runs: fuzz/run.sh 3600
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-60}
build=${PD_FUZZ_BUILD:-$here/build-fuzz}
work=${PD_FUZZ_WORK:-$build/work}
cmake -S "$here" -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DPERFDIFF_FUZZ=ON -DPERFDIFF_TESTS=OFF >/dev/null
cmake --build "$build" -j2 --target fuzz_reader_file fuzz_reader_pipe >/dev/null

seeds_file=$work/seeds-file
seeds_pipe=$work/seeds-pipe
mkdir -p "$seeds_file" "$seeds_pipe" "$work/corpus-file" "$work/corpus-pipe" "$work/artifacts"
corpus=$here/../shared/corpus
# file-mode seeds: whole files; pipe seeds: pipe files without their 16-byte header
while IFS= read -r -d '' f; do
	magic=$(head -c 16 "$f" | od -An -tx1 | tr -d ' \n')
	name=$(echo "$f" | md5sum | cut -c1-16)
	if [ "${magic:16:16}" = "1000000000000000" ]; then
		{ tail -c +17 "$f" | head -c 262144 > "$seeds_pipe/$name"; } || true
	else
		head -c 262144 "$f" > "$seeds_file/$name"
	fi
done < <(find "$corpus" "$here/tests/data" -type f \( -name '*.data*' -o -name 'perf.data*' -o -name 'poc-*' -o -name 'clusterfuzz-*' \) \
	! -name '*.txt' ! -name '*.buildids' ! -name '*.stats' -print0 2>/dev/null)

status=0
for mode in file pipe; do
	echo "fuzz_reader_$mode: ${secs}s"
	log=$work/fuzz_reader_$mode.log
	if ! "$build/fuzz/fuzz_reader_$mode" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-max_len=262144 -artifact_prefix="$work/artifacts/$mode-" -print_final_stats=1 \
		"$work/corpus-$mode" "$work/seeds-$mode" >"$log" 2>&1; then
		echo "fuzz_reader_$mode FAILED; see $log and $work/artifacts"
		tail -n 60 "$log"
		status=1
	fi
	grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|cov:' "$log" | tail -n 3 || true
done
exit $status
