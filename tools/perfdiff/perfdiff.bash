# bash completion for perfdiff(1): the commands, each command's options,
# the words an option takes (formats, orders, ...), and files.
#
# The options are asked of the perfdiff being completed
# (`perfdiff --list-options CMD`, one "NAME<tab>VALUE" line each, VALUE
# empty for a flag, "a|b" for one of these words, FILE or DIR for a
# path), so the completion lists what that binary takes and nothing else.
# Installed as share/bash-completion/completions/perfdiff; plain bash, no
# bash-completion helpers needed.

# The option lines of command $2 (of the program $1; $2 empty: the top
# level's own, --help and --version).
_perfdiff_options()
{
	command "$1" --list-options ${2:+"$2"} 2>/dev/null
}

# The command the words before the cursor name: dump, script, report,
# diff (also for the bare form, whose first word is a file), explain,
# help, or nothing yet.
_perfdiff_command()
{
	local i w
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case $w in
		dump | script | report | diff | explain | record | tui | help) echo "$w"; return ;;
		-* | = ) ;;
		*) echo diff; return ;;
		esac
	done
}

# Complete the value of option $2 of command $3 (program $1).
_perfdiff_value()
{
	local line name arg
	while IFS=$'\t' read -r name arg; do
		[ "$name" = "$2" ] || continue
		[ -n "$arg" ] || return 1   # a flag: no value follows
		case $arg in
		FILE) compopt -o filenames; COMPREPLY=($(compgen -f -- "$cur")) ;;
		DIR) compopt -o filenames; COMPREPLY=($(compgen -d -- "$cur")) ;;
		*'|'*) COMPREPLY=($(compgen -W "${arg//|/ }" -- "$cur")) ;;
		esac
		return 0
	done < <(_perfdiff_options "$1" "$3")
	return 1
}

# Option names of command $2 (program $1): those that take a value end in
# '=' (but short ones, -o FILE), and no space is added after them.
_perfdiff_names()
{
	local name arg names=""
	while IFS=$'\t' read -r name arg; do
		if [ -n "$arg" ] && [ "${name#--}" != "$name" ]; then
			names+=" $name="
		else
			names+=" $name"
		fi
	done < <(_perfdiff_options "$1" "$2")
	COMPREPLY=($(compgen -W "$names" -- "$cur"))
	[[ ${COMPREPLY[0]} == *= ]] && compopt -o nospace
}

_perfdiff()
{
	local prog=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]}
	local prev=${COMP_WORDS[COMP_CWORD - 1]} opt=""
	local cmd
	cmd=$(_perfdiff_command)
	# "--format=js": bash splits at '=' into "--format" "=" "js"
	if [ "$cur" = "=" ]; then
		opt=$prev; cur=""
	elif [ "$prev" = "=" ]; then
		opt=${COMP_WORDS[COMP_CWORD - 2]}
	elif [[ $prev == -* ]]; then
		opt=$prev
	fi
	if [ "$cmd" = help ]; then
		COMPREPLY=($(compgen -W "dump script report diff explain record tui" -- "$cur"))
		return
	fi
	if [ -n "$opt" ] && _perfdiff_value "$prog" "$opt" "${cmd:-diff}"; then
		return
	fi
	if [[ $cur == -* ]]; then
		_perfdiff_names "$prog" "${cmd:-diff}"
		if [ -z "$cmd" ]; then
			# and the top level's own (--help, --version)
			local diff=("${COMPREPLY[@]}")
			_perfdiff_names "$prog" ""
			COMPREPLY+=("${diff[@]}")
		fi
		return
	fi
	compopt -o filenames
	COMPREPLY=($(compgen -f -- "$cur"))
	[ -z "$cmd" ] && COMPREPLY+=($(compgen -W "dump script report diff explain record tui help" -- "$cur"))
}

complete -F _perfdiff perfdiff
