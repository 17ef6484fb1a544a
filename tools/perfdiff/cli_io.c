/*
 * The options every command shares about its output and its messages
 * (cli_io.h): -o FILE (opened and finished here, written by
 * cli_outfile.c), -q, -v, --strict, --[no-]progress and --color.  Colour follows git
 * and perf: on a terminal only unless asked for, never for a terminal
 * that says it cannot (TERM=dumb), never when NO_COLOR is set
 * (https://no-color.org) unless --color=always asks for it.
 */
#include "cli_io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cli_io_init(cli_io *io, const char *cmd, bool takes_color)
{
	memset(io, 0, sizeof *io);
	io->cmd = cmd;
	io->takes_color = takes_color;
	io->color = CLI_COLOR_AUTO;
}

static int parse_color(cli_io *io, const char *val)
{
	if (strcmp(val, "auto") == 0)
		io->color = CLI_COLOR_AUTO;
	else if (strcmp(val, "always") == 0)
		io->color = CLI_COLOR_ALWAYS;
	else if (strcmp(val, "never") == 0)
		io->color = CLI_COLOR_NEVER;
	else {
		cli_usage_error(io->cmd, "--color is auto, always or never, not '%s'", val);
		return -1;
	}
	return 1;
}

/* The flags: -q, -v, --strict, --[no-]progress.  1 taken, 0 not. */
static int parse_flag(cli_io *io, const char *a)
{
	if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0)
		io->verbosity = CLI_QUIET;
	else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0)
		io->verbosity = CLI_VERBOSE;
	else if (strcmp(a, "--strict") == 0)
		io->strict = true;
	else if (strcmp(a, "--progress") == 0)
		io->progress = 1;
	else if (strcmp(a, "--no-progress") == 0)
		io->progress = -1;
	else
		return 0;
	return 1;
}

int cli_io_parse(cli_io *io, int argc, char **argv, int *i)
{
	if (parse_flag(io, argv[*i]))
		return 1;
	const char *name = argv[*i], *val;
	int m = cli_opt_value(argc, argv, i, "-o", &val);
	if (m == 0)
		m = cli_opt_value(argc, argv, i, "--output", &val);
	if (m == 0 && io->takes_color) {
		m = cli_opt_value(argc, argv, i, "--color", &val);
		if (m > 0)
			return parse_color(io, val);
	}
	if (m < 0) {
		cli_usage_error(io->cmd, "option '%s' needs a value", name);
		return -1;
	}
	if (m > 0)
		io->out_path = strcmp(val, "-") == 0 ? NULL : val;
	return m;
}

int cli_io_open(cli_io *io, const char *const *inputs, size_t n)
{
	if (!io->out_path) {
		io->out = stdout;
		return 0;
	}
	if (cli_out_check(io->out_path, inputs, n) < 0)
		return -1;
	io->file = cli_out_open(io->out_path, io->out_path);
	if (!io->file)
		return -1;
	io->out = pd_outfile_stream(io->file);
	return 0;
}

bool cli_io_colored(const cli_io *io, pd_format f)
{
	if (f != PD_FORMAT_TEXT || !io->takes_color || io->color == CLI_COLOR_NEVER)
		return false;
	if (io->color == CLI_COLOR_ALWAYS)
		return true;
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");
	if ((no && no[0]) || (term && strcmp(term, "dumb") == 0))
		return false;
	return io->out && isatty(fileno(io->out));
}

/* Standard output flushed: 0, or -1 after the error. */
static int close_stdout(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	cli_error("standard output: cannot write: %s", strerror(errno));
	return -1;
}

int cli_io_close(cli_io *io, int status)
{
	pd_outfile *f = io->file;
	bool open = io->out != NULL;
	io->out = NULL;
	io->file = NULL;
	if (!open)
		return status;
	if (!f)
		return close_stdout() < 0 ? CLI_EXIT_ERROR : status;
	if (status == CLI_EXIT_ERROR) {
		cli_out_abort(f, io->out_path);
		return status;
	}
	return cli_out_commit(f) < 0 ? CLI_EXIT_ERROR : status;
}
