# shellcheck shell=bash
# What the bench/bench-*.sh scripts share: option defaults and parsing,
# the tool checks, recording a file big enough once, the banner, and timing
# a command (wall, CPU, peak RSS) into a table.  Sourced, not run:
#
#   BENCH_NAME=bench-foo
#   . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#
# Results travel in globals (WALL, CPU, RSS; W, C, R, ORDER), as a shell
# function cannot return more than a status.
# shellcheck disable=SC2034  # the globals are the scripts' to read

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Defaults of the options most scripts take (bench_opt); a script sets its
# own SECONDS_REC and FREQ after sourcing.
SECONDS_REC=12
FREQ=20000
RUNS=5
MIN_MB=50
OUT=$ROOT/bench/out
# How hyperfine runs a command: no shell (-N), and -i because perf and
# perfdiff exit non-zero when they only warn (missing binaries, ...).
HYPERFINE_OPTS=(-N -i --warmup 1)

die() { echo "$BENCH_NAME: $*" >&2; exit 1; }

# Take one of the shared options (-s SECONDS, -F FREQ, -r RUNS, -m MB,
# -o DIR) from getopts; status 1 when OPT is not one of them, so that the
# caller's own `case` handles it.
bench_opt() {
	case $1 in
	s) SECONDS_REC=$2 ;;
	F) FREQ=$2 ;;
	r) RUNS=$2 ;;
	m) MIN_MB=$2 ;;
	o) OUT=$2 ;;
	*) return 1 ;;
	esac
}

# The usage text is the script's own header comment, lines FIRST to LAST.
bench_usage() {
	sed -n "$1,$2p" "$0"
	exit 2
}

# The perfdiff to time: the path given (a binary, or the build directory
# holding one), else build/perfdiff.
bench_perfdiff() {
	local pd=${1:-$ROOT/build/perfdiff}
	[ -d "$pd" ] && pd=$pd/perfdiff
	echo "$pd"
}

# Die unless PERFDIFF, perf, the extra commands named after it and
# /usr/bin/time are there: better now than after minutes of recording.
bench_require() {
	local pd=$1 c
	shift
	[ -f "$pd" ] && [ -x "$pd" ] || die "no perfdiff binary at $pd (build it or pass its path)"
	command -v perf >/dev/null || die "perf is not installed"
	for c in "$@"; do
		command -v "$c" >/dev/null || die "no $c on this machine"
	done
	[ -x /usr/bin/time ] || die "/usr/bin/time is missing (apt-get install time)"
}

# Whole megabytes, for comparing with MIN_MB.
size_mb() { echo $(( $(stat -c %s "$1") / 1000000 )); }

# "12.3 MB" for a count of bytes.
bench_mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }

# Reuse FILE, or record it with the script's `record FILE SECS ARGS...`
# for SECONDS_REC seconds; when that gives less than MIN_MB, scale the
# duration and record again (the rate of a load varies by machine).
bench_ensure_recording() {
	local file=$1 mb secs
	shift
	if [ -s "$file" ]; then
		echo "reusing $file ($(size_mb "$file") MB)"
		return
	fi
	record "$file" "$SECONDS_REC" "$@"
	mb=$(size_mb "$file")
	if [ "$mb" -lt "$MIN_MB" ]; then
		secs=$(( SECONDS_REC * MIN_MB * 12 / 10 / (mb > 0 ? mb : 1) + 1 ))
		echo "only $mb MB; recording again for ${secs}s"
		record "$file" "$secs" "$@"
	fi
	mb=$(size_mb "$file")
	[ "$mb" -ge "$MIN_MB" ] || echo "warning: $file is $mb MB (< $MIN_MB MB)" >&2
}

# bench-reader.sh's and bench-script.sh's load, so that either script's
# big.data serves both: CPU and syscall heavy, with process churn so the
# file also carries COMM/MMAP/FORK/EXIT side-band -- one dd doing tiny
# read/write syscalls, one shell loop forking hashers.
system_workload() {
	local secs=$1
	timeout "$secs" dd if=/dev/zero of=/dev/null bs=64 2>/dev/null &
	timeout "$secs" sh -c 'while :; do head -c 4M /dev/urandom | sha256sum >/dev/null; done' &
	wait || true
}
export -f system_workload

# `record` for system_workload: system-wide with call chains, FREQ per CPU,
# ARGS added to perf record (-z).
record_system() {
	local file=$1 secs=$2
	shift 2
	echo "recording $file: -F $FREQ, ${secs}s system-wide${*:+ $*}"
	perf record -N -a -g -e cpu-clock -F "$FREQ" "$@" -o "$file" -- \
		bash -c "system_workload $secs" 2>&1 | sed 's/^/  perf: /'
}

# Who is measured, with what, on what: the first lines of every report.
bench_banner() {
	echo "perfdiff: $1"
	echo "perf:     $(perf --version)"
	echo "machine:  $(nproc) CPUs, $(uname -r); load now: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# The banner line that says how wall times are taken (see bench_measure).
bench_timing_line() {
	if command -v hyperfine >/dev/null; then
		echo "timing:   hyperfine -N, median of $RUNS runs; peak RSS from /usr/bin/time"
	else
		echo "timing:   shell loop, median of $RUNS runs; peak RSS from /usr/bin/time"
	fi
}

# Read FILE once so that every timed run finds it page-cached.
bench_cache() { cat "$@" >/dev/null; }

# The sample count of FILE, from perfdiff's own reader (0 when it fails).
bench_samples() {
	"$PERFDIFF" dump --stats --no-symbols --format=json "$1" 2>/dev/null |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["samples"])' 2>/dev/null ||
		echo 0
}

# Median wall seconds of RUNS runs of "$@" (output discarded), after one
# warm-up run.  Sets WALL.
bench_loop_median() {
	local walls=() t0 t1 med
	"$@" >/dev/null 2>&1 || true
	for _ in $(seq "$RUNS"); do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1 || true
		t1=$(date +%s%N)
		walls+=("$(( (t1 - t0) / 1000 ))")
	done
	med=$(printf '%s\n' "${walls[@]}" | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p")
	WALL=$(awk -v us="$med" 'BEGIN { printf "%.4f", us / 1e6 }')
}

# hyperfine, when present, measures with less overhead and noise than a
# shell loop; status 1 when it (or reading its JSON) fails.  Sets WALL.
bench_hyperfine_median() {
	local json ok=0
	json=$(mktemp)
	if hyperfine "${HYPERFINE_OPTS[@]}" --runs "$RUNS" --export-json "$json" "$1" >/dev/null 2>&1; then
		if command -v python3 >/dev/null; then
			WALL=$(python3 -c 'import json,sys; print("%.4f" % json.load(open(sys.argv[1]))["results"][0]["median"])' "$json") || ok=1
		elif command -v jq >/dev/null; then
			WALL=$(jq -r '.results[0].median' "$json" | awk '{ printf "%.4f", $1 }') || ok=1
		else
			ok=1
		fi
	else
		ok=1
	fi
	rm -f "$json"
	return $ok
}

# Median CPU seconds (user + system) and the largest peak RSS (KB) of
# three runs of "$@", from /usr/bin/time.  Sets CPU and RSS.  CPU time is
# less disturbed than wall time by other jobs on a shared machine.
bench_cpu_rss() {
	local tmp r u s st cpus=()
	tmp=$(mktemp)
	RSS=0
	for _ in 1 2 3; do
		st=0
		/usr/bin/time -f '%M %U %S' -o "$tmp" "$@" >/dev/null 2>&1 || st=$?
		# perfdiff exits 1 on warnings; 2 and above is an error, whose
		# timing would mean nothing
		[ "$st" -lt 2 ] || { rm -f "$tmp"; die "$* failed (exit status $st)"; }
		read -r r u s < <(tail -1 "$tmp")
		[ "$r" -gt "$RSS" ] && RSS=$r
		cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.3f", u + s }')")
	done
	rm -f "$tmp"
	CPU=$(printf '%s\n' "${cpus[@]}" | sort -n | sed -n 2p)
}

# Time "$@": WALL (median seconds), CPU (seconds), RSS (KB).  hyperfine -N
# splits the command on blanks, so a command with blanks in an argument
# goes the shell-loop way.
bench_measure() {
	local a plain=1
	for a in "$@"; do
		[[ $a == *[[:space:]]* ]] && plain=0
	done
	if ! { [ "$plain" = 1 ] && command -v hyperfine >/dev/null && bench_hyperfine_median "$*"; }; then
		bench_loop_median "$@"
	fi
	bench_cpu_rss "$@"
}

# bench_measure "$@" and keep the figures under LABEL: W[LABEL] (wall s),
# C[LABEL] (CPU s), R[LABEL] (peak RSS in MB); ORDER lists the labels as
# run, for the table.
declare -A W C R
ORDER=()
bench_run() {
	local label=$1
	shift
	bench_measure "$@"
	W[$label]=$WALL
	C[$label]=$CPU
	R[$label]=$(awk -v r="$RSS" 'BEGIN { printf "%.1f", r / 1024 }')
	ORDER+=("$label")
}

# ---------------------------------------------------------- heavy recipe

# A generated C tree for the heavy recipe's compiler load, in DIR (kept
# when there): FILES sources of FUNCS functions each -- loops, switches
# and calls that give the optimizer work -- in static libraries linked
# into one program by a Makefile, so that `make -j2` spawns the driver,
# cc1, as, ar, collect2 and ld by the thousand.
heavy_generate_tree() {
	local dir=$1 files=${2:-300} funcs=${3:-20} i
	[ -s "$dir/Makefile" ] && return
	mkdir -p "$dir/src"
	for i in $(seq 0 $((files - 1))); do
		awk -v f="$i" -v n="$funcs" 'BEGIN {
			printf "/* generated by bench/lib.sh heavy_generate_tree */\n"
			printf "struct s%d { long a[16]; int k; };\n", f
			for (j = 0; j < n; j++) {
				printf "static long g%d_%d(struct s%d *s, long x)\n{\n", f, j, f
				printf "\tlong r = x;\n\tfor (int i = 0; i < 16; i++) {\n"
				printf "\t\tswitch ((x + i) %% %d) {\n", 3 + j % 5
				for (c = 0; c < 3 + j % 5; c++)
					printf "\t\tcase %d: r = r * %d + s->a[(i + %d) & 15]; break;\n", c, c + j + 3, c
				printf "\t\tdefault: r ^= x >> %d;\n\t\t}\n", 1 + j % 7
				printf "\t\ts->a[i] += r & %d;\n\t}\n", 255 + j
				if (j > 0)
					printf "\tif (r & 1)\n\t\tr += g%d_%d(s, r >> 3);\n", f, j - 1
				printf "\treturn r + s->k;\n}\n\n"
			}
			printf "long f%d(long x)\n{\n\tstruct s%d s = { .k = %d };\n", f, f, f
			printf "\treturn g%d_%d(&s, x);\n}\n", f, n - 1
		}' >"$dir/src/f$i.c"
	done
	{
		printf 'long f%d(long);\n' $(seq 0 $((files - 1)))
		printf 'int main(int argc, char **argv)\n{\n\t(void)argv;\n\tlong r = 0;\n'
		printf '\tr += f%d(argc);\n' $(seq 0 $((files - 1)))
		printf '\treturn (int)(r & 1);\n}\n'
	} >"$dir/src/main.c"
	cat >"$dir/Makefile" <<'MK'
# generated by bench/lib.sh heavy_generate_tree
CFLAGS = -O2 -g
SRC = $(sort $(wildcard src/f*.c))
OBJ = $(SRC:.c=.o)
LIBS = $(foreach d,0 1 2 3 4 5 6 7 8 9,lib$(d).a)
prog: src/main.o $(LIBS)
	$(CC) -o $@ src/main.o -Wl,--start-group $(LIBS) -Wl,--end-group
lib%.a: $(OBJ)
	ar rcs $@ $(filter src/f%$*.o,$(OBJ))
clean:
	rm -f prog lib*.a src/*.o
MK
}

# The heavy recipe's load for SECS seconds: `make -j2` of TREE again and
# again, and `tar | gzip` of TAR_DIR.
heavy_workload() {
	local secs=$1 tree=$2 tar_dir=$3
	timeout "$secs" sh -c "while :; do make -s -C '$tree' clean; make -s -j2 -C '$tree' >/dev/null 2>&1; done" &
	timeout "$secs" sh -c "while :; do tar -cf - '$tar_dir' 2>/dev/null | gzip >/dev/null; done" &
	wait || true
}
export -f heavy_workload

# Record FILE: the heavy load for SECS seconds, system-wide, FREQ per CPU.
record_heavy() {
	local file=$1 secs=$2 tree=$3 tar_dir=$4
	echo "recording $file: -F $FREQ, ${secs}s system-wide, make -j2 of $tree and tar | gzip of $tar_dir"
	perf record -N -a -g -e cpu-clock -F "$FREQ" -o "$file" -- \
		bash -c "heavy_workload $secs '$tree' '$tar_dir'" 2>&1 | sed 's/^/  perf: /'
}

# ------------------------------------------------- interleaved rounds

# Commands timed in rounds (the heavy recipe's way, and any command too
# slow for bench_run's warm-up and extra runs): every round runs each
# command once, so a load that comes and goes on a shared machine stretches
# them alike and their ratios hold.  Each run is one /usr/bin/time: wall,
# CPU (user + system) and peak RSS of the same run.
#
#   bench_il_add LABEL RUNS CMD...   (RUNS: this command's rounds)
#   bench_il_run                      sets W, C, R (medians; RSS the largest)
#                                     and ORDER, as bench_run does
IL_LABELS=()
IL_RUNS=()
IL_CMDS=()
bench_il_add() {
	IL_LABELS+=("$1")
	IL_RUNS+=("$2")
	shift 2
	IL_CMDS+=("$(printf '%q ' "$@")")
}

# The median of the numbers given.
bench_median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
		if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# One timed run of command I of bench_il_add's list; appends its wall and
# CPU seconds to IL_W[I] and IL_C[I] and keeps the largest RSS in IL_R[I].
bench_il_once() {
	local i=$1 tmp st=0 e u s m
	tmp=$(mktemp)
	eval "/usr/bin/time -f '%e %U %S %M' -o $tmp ${IL_CMDS[i]}" >/dev/null 2>&1 || st=$?
	# perfdiff exits 1 on warnings; 2 and above is an error
	[ "$st" -lt 2 ] || { rm -f "$tmp"; die "${IL_CMDS[i]}failed (exit status $st)"; }
	read -r e u s m < <(tail -1 "$tmp")
	rm -f "$tmp"
	IL_W[i]+="$e "
	IL_C[i]+="$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.3f", u + s }') "
	[ "$m" -gt "${IL_R[i]:-0}" ] && IL_R[i]=$m
	return 0
}

IL_W=()
IL_C=()
IL_R=()
bench_il_run() {
	local max=0 r i l
	for r in "${IL_RUNS[@]}"; do
		[ "$r" -gt "$max" ] && max=$r
	done
	for ((r = 1; r <= max; r++)); do
		for i in "${!IL_LABELS[@]}"; do
			[ "$r" -le "${IL_RUNS[i]}" ] && bench_il_once "$i"
		done
	done
	for i in "${!IL_LABELS[@]}"; do
		l=${IL_LABELS[i]}
		# shellcheck disable=SC2086  # the lists are blank-separated numbers
		W[$l]=$(bench_median ${IL_W[$i]})
		# shellcheck disable=SC2086
		C[$l]=$(bench_median ${IL_C[$i]})
		R[$l]=$(awk -v r="${IL_R[$i]}" 'BEGIN { printf "%.1f", r / 1024 }')
		ORDER+=("$l")
	done
	IL_LABELS=() IL_RUNS=() IL_CMDS=()
	IL_W=() IL_C=() IL_R=()
}

# KDAB hotspot's perf.data parser (Debian package hotspot), or nothing.
bench_perfparser() {
	local p
	for p in /usr/lib/*/libexec/hotspot-perfparser /usr/libexec/hotspot-perfparser \
		 "$(command -v hotspot-perfparser 2>/dev/null)"; do
		[ -x "$p" ] && { echo "$p"; return; }
	done
	return 0  # none installed: the caller skips it, under set -e too
}

# Print the table of LABELS (ORDER by default) with ratios to BASE's
# figures: wall, CPU and RSS / BASE.
bench_table() {
	local base=$1 t
	shift
	printf '%-40s %9s %9s %10s %8s %8s %8s\n' command "wall (s)" "CPU (s)" "RSS (MB)" \
		"wall /" "CPU /" "RSS /"
	for t in "$@"; do
		awk -v l="$t" -v w="${W[$t]}" -v c="${C[$t]}" -v r="${R[$t]}" \
		    -v w0="${W[$base]}" -v c0="${C[$base]}" -v r0="${R[$base]}" 'BEGIN {
			printf "%-40s %9.3f %9.3f %10.1f %8.3f %8.3f %8.3f\n", l, w, c, r,
			       (w0 > 0 ? w / w0 : 0), (c0 > 0 ? c / c0 : 0), (r0 > 0 ? r / r0 : 0) }'
	done
	echo "(ratios: to \"$base\")"
}
