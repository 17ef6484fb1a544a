/*
 * What every subcommand shares: messages on stderr with the program's
 * name in front, the default input (./perf.data) and opening a reader,
 * so that the commands say the same things the same way.
 */
#include "cli_common.h"

#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

static void vmessage(const char *kind, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s", CLI_PROG, kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("", fmt, ap);
	va_end(ap);
}

int cli_options_init_rc(int rc, const char *what)
{
	if (rc >= 0)
		return 0;
	cli_error("this libperfdiff refuses the %s of this perfdiff, built with another one",
		  what);
	return -1;
}

void cli_warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("warning: ", fmt, ap);
	va_end(ap);
}

void cli_note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("", fmt, ap);
	va_end(ap);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("", fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s%s%s --help'.\n", CLI_PROG, cmd ? " " : "",
		cmd ? cmd : "");
	return CLI_EXIT_ERROR;
}

const char *cli_mode_name(pd_input_mode m)
{
	switch (m) {
	case PD_MODE_FILE:
		return "file";
	case PD_MODE_PIPE:
		return "pipe";
	case PD_MODE_DIRECTORY:
		return "directory";
	}
	return "unknown";
}

bool cli_is_pprof(const char *path)
{
	pd_input_kind kind;
	pd_error err;
	return pd_input_detect(path, &kind, &err) == 0 && kind == PD_INPUT_PPROF;
}

void cli_print_pd_error(const char *path, const pd_error *err)
{
	const char *msg = err->message[0] ? err->message
					  : pd_error_code_str(err->code);
	if (!msg)
		msg = "unknown error";
	/* The library names standard input "<stdin>" or similar. */
	const char *shown = path && strcmp(path, "-") == 0 ? "<stdin>" : path;
	if (shown && !strstr(msg, shown) && !strstr(msg, path))
		cli_error("%s: %s", shown, msg);
	else
		cli_error("%s", msg);
	/* a profile that travelled: say which commands take it */
	if (err->code == PD_ENOTPERF && cli_is_pprof(path))
		cli_error("%s is a pprof profile: this command needs the perf.data recording",
			  shown);
}

int cli_open_reader(const char *path, unsigned flags, const pd_reader_options *base,
		    pd_reader **out, pd_error *err)
{
	/* the defaults from the header perfdiff was built with: no call that
	 * could refuse them */
	pd_reader_options opts = base ? *base : PD_READER_OPTIONS_INIT;
	opts.flags = flags;
	*out = NULL;
	memset(err, 0, sizeof *err);
	return pd_reader_open(out, path, &opts, err);
}

int cli_default_input(const char *cmd, const char **path)
{
	struct stat sb;
	if (stat(CLI_DEFAULT_INPUT, &sb) < 0) {
		cli_usage_error(cmd, "no FILE given, and there is no ./%s to read (give FILE, "
				"-i FILE, or '-' for standard input)", CLI_DEFAULT_INPUT);
		return -1;
	}
	*path = CLI_DEFAULT_INPUT;
	return 0;
}

bool cli_default_pair(void)
{
	struct stat sb;
	return stat(CLI_DEFAULT_BASE, &sb) == 0 && stat(CLI_DEFAULT_INPUT, &sb) == 0;
}
