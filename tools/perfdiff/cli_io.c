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

int cli_io_set(cli_io *io, const cli_optdef *o, const char *val)
{
	static const cli_color colors[] = { CLI_COLOR_AUTO, CLI_COLOR_ALWAYS, CLI_COLOR_NEVER };
	switch (o->id) {
	case CLI_IO_QUIET:
		io->verbosity = CLI_QUIET;
		break;
	case CLI_IO_VERBOSE:
		io->verbosity = CLI_VERBOSE;
		break;
	case CLI_IO_STRICT:
		io->strict = true;
		break;
	case CLI_IO_PROGRESS:
	case CLI_IO_NO_PROGRESS:
		io->progress = o->id == CLI_IO_PROGRESS ? 1 : -1;
		break;
	case CLI_IO_OUTPUT:
		io->out_path = strcmp(val, "-") == 0 ? NULL : val;
		break;
	case CLI_IO_COLOR:
		/* the words are checked: auto|always|never, in this order */
		io->color = colors[strcmp(val, "auto") == 0 ? 0 : strcmp(val, "always") == 0 ? 1 : 2];
		break;
	}
	return 0;
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
