# Turn `perf report -D` output into one line per SAMPLE:
#
#   offset time cpu pid tid misc ip period nr chain...
#
# offset is the record's byte offset in its file (perf prints pipe-mode
# offsets without the 16-byte pipe header: pass -v base=16 to add it back;
# records inside a compressed record show the COMPRESSED record's offset),
# cpu is -1 when the sample has no CPU field, chain entries are the raw
# u64s including PERF_CONTEXT_* markers.  perf prints samples in delivery
# (time) order; consumers compare them as a multiset.
function hex(s,    v, i, c) {
	v = 0
	s = tolower(s)
	sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1))
		if (c == 0)
			break
		v = v * 16 + c - 1
	}
	return v
}
function flush() {
	if (have)
		print off, time, cpu, pid, tid, misc, ip, period, nr chain
	have = 0
	inchain = 0
}
/ PERF_RECORD_SAMPLE\(/ {
	flush()
	i = 1
	cpu = -1
	if ($3 !~ /^\[/) {
		cpu = $1
		i = 2
	}
	time = $i
	off = sprintf("0x%x", hex($(i + 1)) + base)
	misc = $(i + 4)
	sub(/\):$/, "", misc)
	split($(i + 5), pt, "/")
	pid = pt[1]
	tid = pt[2]
	sub(/:$/, "", tid)
	ip = $(i + 6)
	period = $(i + 8)
	nr = 0
	chain = ""
	have = 1
	next
}
have && /^\.\.\. FP chain: nr:/ {
	nr = $4
	sub(/^nr:/, "", nr)
	inchain = 1
	next
}
inchain && /^\.\.\.\.\. +[0-9]+: [0-9a-f]+$/ {
	chain = chain " " $3
	next
}
{ inchain = 0 }
END { flush() }
