# Expand "; include NAME" lines of a manual page (docs/man/*.scd) with the
# text of docs/man/include/NAME (whose own include lines are expanded in
# turn), so that options several commands share are described once;
# scdoc itself has no includes (and takes the line for a comment, so a
# page still reads as scdoc before the expansion).
#
#   awk -v dir=docs/man/include -f scd-include.awk page.scd > expanded.scd
#
# POSIX awk only.

function expand(line,    file, l, parts) {
	if (line !~ /^; include [^ ]+$/) {
		print line
		return
	}
	split(line, parts, " ")
	file = dir "/" parts[3]
	while ((getline l < file) > 0)
		expand(l)
	close(file)
}

{ expand($0) }
