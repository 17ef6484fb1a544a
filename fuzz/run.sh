#!/usr/bin/env bash
# Build the libFuzzer harnesses and run each for SECONDS (default 60) on a
# seed corpus made from ../shared/corpus and tests/data.  Fails on any crash,
# leak or sanitizer report.  For long runs: fuzz/run.sh 3600
# Only some harnesses: fuzz/run.sh 60 kallsyms session
#   reader_file  a whole file-mode perf.data
#   reader_pipe  what follows a pipe-mode header
#   kallsyms     kallsyms text (seeds: slices of /proc/kallsyms)
#   session      a file-mode perf.data read, mapped and symbolized
#   debug_inflate  an ELF debug file whose compressed sections are inflated
#                (seeds: a tiny program compiled with cc -gz, objcopy'd)
#   pprof        a pprof profile, gzipped or raw (seeds: exports of
#                tests/data made by this build's perfdiff, and hostile
#                shapes made by tests/tools/pd-hostile: one field repeated
#                up to 127 M times, 200 to 250 KB gzipped)
#   robot        a kernel test robot's mail, explained and written as text
#                and JSON (seeds: the mails of tests/data/robot-mails)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-60}
shift || true
harnesses=${*:-reader_file reader_pipe kallsyms session debug_inflate pprof robot}
build=${PD_FUZZ_BUILD:-$here/build-fuzz}
work=${PD_FUZZ_WORK:-$build/work}
cmake -S "$here" -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DPERFDIFF_FUZZ=ON -DPERFDIFF_TESTS=OFF >/dev/null
targets=""
for h in $harnesses; do targets="$targets fuzz_$h"; done
# the pprof seeds are exports made by the CLI of the same build
case " $harnesses " in *" pprof "*) targets="$targets perfdiff_cli pd-hostile" ;; esac
# shellcheck disable=SC2086
cmake --build "$build" -j2 --target $targets >/dev/null

seeds_file=$work/seeds-file
seeds_pipe=$work/seeds-pipe
seeds_ksyms=$work/seeds-kallsyms
seeds_infl=$work/seeds-debug_inflate
seeds_pprof=$work/seeds-pprof
seeds_robot=$work/seeds-robot
mkdir -p "$seeds_file" "$seeds_pipe" "$seeds_ksyms" "$seeds_infl" "$seeds_pprof" "$seeds_robot" \
	"$work/artifacts"
# robot seeds: the real mails of the explain catalogue, cut to the fuzzer's length
for f in "$here"/tests/data/robot-mails/*.eml; do
	head -c 65536 "$f" > "$seeds_robot/$(basename "$f")" || true
done
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
# kallsyms seeds: slices of the running kernel's list (core kernel, the
# module tail, the middle) and the regression inputs kept for the parser
if [ -r /proc/kallsyms ]; then
	n=$(wc -l < /proc/kallsyms)
	head -n 400 /proc/kallsyms > "$seeds_ksyms/head" || true
	tail -n 400 /proc/kallsyms > "$seeds_ksyms/tail" || true
	sed -n "$((n / 2)),$((n / 2 + 400))p" /proc/kallsyms > "$seeds_ksyms/middle" || true
fi
find "$here/tests/data/regress" -name 'kallsyms-*' -exec cp {} "$seeds_ksyms/" \; 2>/dev/null || true
# debug_inflate seeds: one tiny program in each compressed layout the
# toolchain writes (SHF_COMPRESSED and legacy .zdebug, in relocatable
# objects whose .rela names share the .zdebug strings, in separate debug
# files as -dbg packages ship them, ELF32); each step may be unsupported
if command -v cc >/dev/null 2>&1; then
	src=$work/infl-seed.c
	cat > "$src" <<'EOF'
struct pt { int x, y; };
static inline int sq(int v) { return v * v; }
int dist(const struct pt *a, const struct pt *b) { return sq(a->x - b->x) + sq(a->y - b->y); }
int main(int argc, char **argv) { struct pt a = { argc, 1 }, b = { 2, argv[0][0] }; return dist(&a, &b); }
EOF
	cc -O1 -g -gz=zlib -c "$src" -o "$seeds_infl/zlib.o" 2>/dev/null || true
	cc -O1 -g -gz=zlib-gnu -c "$src" -o "$seeds_infl/zlib-gnu.o" 2>/dev/null || true
	cc -m32 -O1 -g -gz=zlib -c "$src" -o "$seeds_infl/zlib-32.o" 2>/dev/null || true
	if cc -O1 -g "$src" -o "$work/infl-seed" 2>/dev/null; then
		objcopy --only-keep-debug --compress-debug-sections=zlib "$work/infl-seed" \
			"$seeds_infl/keep-zlib.debug" 2>/dev/null || true
		objcopy --only-keep-debug --compress-debug-sections=zlib-gnu "$work/infl-seed" \
			"$seeds_infl/keep-zlib-gnu.debug" 2>/dev/null || true
	fi
	rm -f "$src" "$work/infl-seed"
fi

status=0
# pprof seeds: the fixtures exported, gzipped and raw (symbolized with
# whatever this machine has; the reader does not care)
for f in fp dwarf sys; do
	if "$build/perfdiff" report --format=pprof -o "$seeds_pprof/$f.pb.gz" \
		"$here/tests/data/$f.data" >/dev/null 2>&1; then
		gzip -dc "$seeds_pprof/$f.pb.gz" > "$seeds_pprof/$f.pb" || true
	fi
done
# ... and the shapes that once took 2.3 GB to refuse (issue 26), at the
# scale found: the harness must refuse them under its RSS limit
case " $harnesses " in *" pprof "*)
	for shape in strings:100000000 samples:127000000 unknown:85000000 locids:127000000 \
		period:60000000; do
		"$build/fuzz/pd-hostile" "${shape%%:*}" "${shape##*:}" \
			"$seeds_pprof/hostile-${shape%%:*}.pb.gz"
	done ;;
esac
for h in $harnesses; do
	timeout=10
	case $h in
	reader_file|session) seeds=$seeds_file; max_len=262144 ;;
	# the hostile seeds whole; each inflates 250 MB and is walked to
	# tens of millions of fields before it is refused: seconds under the
	# sanitizers, more on a loaded machine
	pprof) seeds=$seeds_pprof; max_len=262144; timeout=30 ;;
	reader_pipe) seeds=$seeds_pipe; max_len=262144 ;;
	kallsyms) seeds=$seeds_ksyms; max_len=65536 ;;
	debug_inflate) seeds=$seeds_infl; max_len=65536 ;;
	robot) seeds=$seeds_robot; max_len=65536 ;;
	*) echo "unknown harness $h"; exit 2 ;;
	esac
	echo "fuzz_$h: ${secs}s"
	log=$work/fuzz_$h.log
	short=${h#reader_} # corpus-file, corpus-pipe as before; corpus-kallsyms, ...
	mkdir -p "$work/corpus-$short"
	if ! "$build/fuzz/fuzz_$h" -max_total_time="$secs" -timeout=$timeout -rss_limit_mb=2048 \
		-max_len=$max_len -artifact_prefix="$work/artifacts/$short-" -print_final_stats=1 \
		"$work/corpus-$short" "$seeds" >"$log" 2>&1; then
		echo "fuzz_$h FAILED; see $log and $work/artifacts"
		tail -n 60 "$log"
		status=1
	fi
	grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|cov:' "$log" | tail -n 3 || true
done
exit $status
