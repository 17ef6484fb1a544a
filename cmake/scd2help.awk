# The manual pages (docs/man/*.1.scd, scdoc's markup) as the plain text of
# the commands' --help, written as C strings: one source for both, so that
# the built-in help and `man perfdiff-diff` cannot drift apart.
#
#   awk -f scd2help.awk docs/man/perfdiff.1.scd docs/man/perfdiff-diff.1.scd ... > help_text.c
#
# Each FILE gives `const char cli_help_NAME[]`, NAME the page's name
# without "perfdiff-" ("perfdiff" for perfdiff.1.scd).  The subset of
# scdoc the pages use is rendered as man lays it out, with less indent:
# "# SECTION" at the margin, text at 2 columns, each leading tab 4 more,
# *bold* and _underline_ as plain words, ``` blocks verbatim (but for \x
# escapes, as scdoc), "- " lists as they are; lines break where the source breaks them (the pages keep
# them under 78 columns with their indent).  POSIX awk only.

# character by character: awks differ in what "\\" means in gsub()
function cstr(s,    out, i, c) {
	out = ""
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (c == "\\" || c == "\"" || c == "?")   # "?": no trigraphs (-std=c11)
			out = out "\\" c
		else if (c == "\t")
			out = out "\\t"
		else
			out = out c
	}
	return out
}

function emit(s) {
	printf "\t\"%s\\n\"\n", cstr(s)
}

# scdoc's inline markup: \x is x; * toggles bold; _ toggles underline
# where scdoc takes it as markup (not inside a word: snake_case stays)
function plain(s,    out, i, c, last, next_, ul) {
	out = ""; last = " "; ul = 0
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		next_ = substr(s, i + 1, 1)
		if (c == "\\" && i < length(s)) {
			out = out next_; i++; last = next_; continue
		}
		if (c == "*") { last = c; continue }
		if (c == "_" && (last !~ /[A-Za-z0-9]/ || (ul && next_ !~ /[A-Za-z0-9]/))) {
			ul = !ul; last = c; continue
		}
		out = out c; last = c
	}
	sub(/\+\+$/, "", out)
	return out
}

function indent(d,    s, i) {
	s = "  "
	for (i = 0; i < d; i++)
		s = s "    "
	return s
}

function finish_page() {
	if (page != "")
		print "\t;\n"
}

FNR == 1 {
	finish_page()
	page = FILENAME
	sub(/^.*\//, "", page)
	sub(/\.[0-9]\.scd$/, "", page)
	sub(/^perfdiff-/, "", page)
	printf "const char cli_help_%s[] =\n", page
	literal = 0; blank = 0; header = 0; started = 0
	next
}

# a comment
/^;/ { next }

/^\t*```/ {
	if (!literal) {
		lit_tabs = $0
		sub(/```.*/, "", lit_tabs)
		lit_depth = length(lit_tabs)
	}
	literal = !literal
	next
}

# as scdoc: no markup in a literal block, but \x is still x
function unescape(s,    out, i, c) {
	out = ""
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (c == "\\" && i < length(s))
			c = substr(s, ++i, 1)
		out = out c
	}
	return out
}

literal {
	line = $0
	for (i = 0; i < lit_depth && substr(line, 1, 1) == "\t"; i++)
		line = substr(line, 2)
	emit(line == "" ? "" : indent(lit_depth + 1) unescape(line))
	blank = 0; header = 0
	next
}

/^$/ {
	# blank lines collapse; none leads the page or follows a heading
	if (started && !blank && !header)
		emit("")
	blank = 1
	next
}

/^#+ / {
	level = $0
	sub(/ .*/, "", level)
	title = substr($0, length(level) + 2)
	if (started && !blank)
		emit("")
	emit((length(level) > 1 ? "  " : "") plain(title))
	blank = 0; header = 1; started = 1
	next
}

{
	line = $0
	d = 0
	while (substr(line, 1, 1) == "\t") {
		line = substr(line, 2); d++
	}
	emit(indent(d) plain(line))
	blank = 0; header = 0; started = 1
}

END {
	finish_page()
}
