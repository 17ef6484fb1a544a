#!/bin/sh
# The stage rule of docs/architecture.md, checked on every #include in
# libperfdiff/ and include/perfdiff/.  Data flows one way through the
# library's folders, util -> reader -> machine -> symbols -> unwind ->
# session -> profile -> pprof -> report -> robot -> diff -> output, and so do
# includes:
#
#   - a file of a stage includes its own stage's headers, and of an earlier
#     stage only the interface headers listed below (INTERFACES), never a
#     private one (internal.h and the like) and nothing of a later stage;
#   - the same for the public headers, each of which belongs to a stage
#     (PUBLIC); perfdiff.h, the umbrella, is for users only;
#   - an interface header includes no private header of its own stage
#     either, or it would hand that header on;
#   - every folder under libperfdiff/ is a stage, and docs/architecture.md
#     names every stage and interface header (the page must match the code);
#   - another folder's header is included as "stage/header.h", never "../";
#   - the page's table of which stages each stage calls is CMakeLists.txt's
#     PD_USES_<stage>, the graph cmake/stages.cmake has the linker enforce.
#
# Prints each offending include with its file and line and exits 1; 0 when
# all is well.  Tests, fuzzers and tools are not checked: they may look
# inside a stage to test it.  POSIX sh and awk only.
#
#   check_stages.sh [SOURCE_DIR]
set -u
cd "${1:-$(dirname "$0")/..}" || exit 2

STAGES='util reader machine symbols unwind session profile record pprof report robot diff output'
# What a later stage may include of an earlier one (paths under libperfdiff/).
INTERFACES='
	util/util.h util/u64map.h util/threads.h
	reader/record_move.h reader/bpf_info.h reader/options.h
	machine/machine.h
	symbols/symbolizer.h symbols/symfacts.h
	unwind/unwind.h unwind/lbr.h
	session/session.h
	profile/options.h profile/builder.h profile/sites.h profile/peek.h
'
# The stage of each public header (include/perfdiff/).
PUBLIC='
	common.h=util reader.h=reader symcache.h=symbols unwind.h=unwind
	session.h=session profile.h=profile record.h=record pprof.h=pprof report.h=report robot.h=robot diff.h=diff
	output.h=output
'
DOC=docs/architecture.md

files=$(find libperfdiff include/perfdiff -type f -name '*.[ch]' | LC_ALL=C sort)
[ -n "$files" ] || { echo "check_stages: no sources under $(pwd)"; exit 2; }

# One line each: some awks refuse a newline in a -v value.
ifaces=$(printf '%s' "$INTERFACES" | tr -s ' \t\n' '   ')
public=$(printf '%s' "$PUBLIC" | tr -s ' \t\n' '   ')
# shellcheck disable=SC2086  # the file list splits on white space on purpose
awk -v stages="$STAGES" -v ifaces="$ifaces" -v public="$public" '
function exists(p,   r, line) {
	r = (getline line < p)
	if (r >= 0)
		close(p)
	return r >= 0
}
# p without "." and ".." components
function norm(p,   n, i, part, out, k) {
	n = split(p, part, "/")
	k = 0
	for (i = 1; i <= n; i++) {
		if (part[i] == "." || part[i] == "")
			continue
		if (part[i] == ".." && k > 0 && out[k] != "..")
			k--
		else
			out[++k] = part[i]
	}
	p = out[1]
	for (i = 2; i <= k; i++)
		p = p "/" out[i]
	return p
}
# where the compiler finds x included from f: f'"'"'s folder first (quoted
# includes only), then -I include, then -I libperfdiff; "" when outside
function resolve(f, x, quoted,   d) {
	d = f
	sub(/\/[^\/]*$/, "", d)
	if (quoted && exists(norm(d "/" x)))
		return norm(d "/" x)
	if (exists(norm("include/" x)))
		return norm("include/" x)
	if (exists(norm("libperfdiff/" x)))
		return norm("libperfdiff/" x)
	return ""
}
# the stage of a file: its folder under libperfdiff/, or the table entry of
# a public header; "*" for the umbrella, "?" for what has no stage
function stage_of(p,   s) {
	if (p ~ /^libperfdiff\/[^\/]+\//) {
		s = substr(p, 13)
		sub(/\/.*/, "", s)
		return s
	}
	if (p == "include/perfdiff/perfdiff.h")
		return "*"
	if (p in pubstage)
		return pubstage[p]
	return "?"
}
function bad(why) {
	printf "%s:%d: %s\n    %s\n", FILENAME, FNR, $0, why
	nbad++
}
BEGIN {
	n = split(stages, st, " ")
	for (i = 1; i <= n; i++)
		rank[st[i]] = i
	rank["*"] = n + 1
	m = split(ifaces, list, " ")
	for (i = 1; i <= m; i++)
		iface["libperfdiff/" list[i]] = 1
	m = split(public, list, " ")
	for (i = 1; i <= m; i++) {
		split(list[i], kv, "=")
		pubstage["include/perfdiff/" kv[1]] = kv[2]
	}
	nbad = 0
}
FNR == 1 {
	own = stage_of(FILENAME)
	staged = own in rank
	if (!staged) {
		printf "%s: not in a stage: add its folder (or public header) to %s and %s\n",
		       FILENAME, "tests/check_stages.sh", "docs/architecture.md"
		nbad++
	}
}
staged && /^[ \t]*#[ \t]*include[ \t]*["<]/ {
	line = $0
	sub(/^[ \t]*#[ \t]*include[ \t]*/, "", line)
	quoted = substr(line, 1, 1) == "\""
	x = substr(line, 2)
	sub(/[">].*/, "", x)
	t = resolve(FILENAME, x, quoted)
	if (t == "") {
		first = x
		sub(/\/.*/, "", first)
		if (first in rank || first == "perfdiff")
			bad("no such header")
		next   # a system or third-party header
	}
	ts = stage_of(t)
	if (t == "include/perfdiff/perfdiff.h")
		bad("perfdiff.h, the umbrella header, is for users of the library")
	else if (ts == "?" || !(ts in rank))
		bad(t " is in no stage (tests/check_stages.sh lists them)")
	else if (FILENAME ~ /^include\// && t !~ /^include\//)
		bad("a public header includes the library'"'"'s own headers")
	else if (rank[ts] > rank[own])
		bad(own " includes " t ": " ts " is a later stage")
	else if (ts == own && t ~ /^libperfdiff\// && FILENAME in iface && !(t in iface))
		bad("the interface header hands on " t ", private to " ts)
	else if (ts != own && t ~ /^libperfdiff\// && !(t in iface))
		bad(own " includes " t ", private to " ts " (not one of its interface headers)")
}
END {
	for (h in iface)
		if (!exists(h)) {
			printf "tests/check_stages.sh: interface header %s does not exist\n", h
			nbad++
		}
	for (h in pubstage)
		if (!exists(h)) {
			printf "tests/check_stages.sh: public header %s does not exist\n", h
			nbad++
		}
	exit (nbad > 0)
}
' $files
st=$?

# One spelling for another folder's header: "util/util.h", never
# "../util/util.h" (libperfdiff/ is on the include path of every stage).
if grep -rn '^#include "\.\./' libperfdiff include/perfdiff; then
	echo "check_stages: include another stage's header as \"stage/header.h\", not \"../\""
	st=1
fi

# The page describes what this script checks: every stage, interface
# header and public header appears in it.
missing=0
for name in $STAGES; do
	grep -q "\`$name/\`" "$DOC" 2>/dev/null || {
		echo "$DOC: stage $name/ not described"
		missing=1
	}
done
for h in $INTERFACES; do
	grep -qF "$h" "$DOC" 2>/dev/null || {
		echo "$DOC: interface header $h not listed"
		missing=1
	}
done
for kv in $PUBLIC; do
	grep -qF "perfdiff/${kv%%=*}" "$DOC" 2>/dev/null || {
		echo "$DOC: public header perfdiff/${kv%%=*} not listed"
		missing=1
	}
done

# The graph the linker enforces (CMakeLists.txt's PD_USES_<stage>, linked
# by cmake/stages.cmake) is the page's: one line "| `STAGE` | USES |" per
# stage in its table of calls, the same stages in any order.
for name in $STAGES; do
	cm=$(sed -n "s/^set(PD_USES_$name \(.*\))$/\1/p" CMakeLists.txt | tr -d '"' |
		tr -s ' ' '\n' | sed '/^$/d' | LC_ALL=C sort | tr '\n' ' ')
	doc=$(sed -n "s/^| \`$name\` calls | \(.*\) |$/\1/p" "$DOC" | tr -d '—,' |
		tr -s ' ' '\n' | sed '/^$/d' | LC_ALL=C sort | tr '\n' ' ')
	[ "$cm" = "$doc" ] || {
		echo "$DOC: $name/ calls \"$doc\", but CMakeLists.txt's PD_USES_$name is \"$cm\""
		missing=1
	}
done

if [ "$st" -ne 0 ] || [ "$missing" -ne 0 ]; then
	echo "check_stages: the stage rule is broken (docs/architecture.md)"
	exit 1
fi
echo "check_stages: $(echo "$files" | wc -l) files, every include follows the stage order"
exit 0
