/*
 * What every subcommand shares: messages on stderr with the program's
 * name in front, the spellings of options that take a value, --format,
 * inputs (-i, ./perf.data) and opening a reader, so that the commands
 * accept the same forms and say the same things the same way.
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

int cli_opt_value(int argc, char **argv, int *i, const char *name,
		  const char **value)
{
	const char *a = argv[*i];
	size_t n = strlen(name);
	if (strncmp(a, name, n) != 0)
		return 0;
	if (a[n] == '=') {
		*value = a + n + 1;
		return 1;
	}
	if (a[n] != '\0')
		return 0;
	if (*i + 1 >= argc)
		return -1;
	*value = argv[++*i];
	return 1;
}

int cli_format_parse(const char *cmd, const char *val, unsigned allowed, const char *names,
		     pd_format *out)
{
	int f = pd_format_parse(val);
	if (f < 0 || !(allowed & CLI_FORMAT_BIT(f))) {
		cli_usage_error(cmd, "unknown format '%s' (use %s)", val, names);
		return -1;
	}
	*out = (pd_format)f;
	return 0;
}

int cli_value_opt_match(const cli_value_opt *opts, size_t n, const char *cmd,
			int argc, char **argv, int *i, int *kind, const char **value)
{
	for (size_t k = 0; k < n; k++) {
		int m = cli_opt_value(argc, argv, i, opts[k].name, value);
		if (m == 0)
			continue;
		if (m < 0) {
			cli_usage_error(cmd, "option '%s' needs a value", opts[k].name);
			return -1;
		}
		*kind = opts[k].kind;
		return 1;
	}
	return 0;
}

int cli_value_opt_last(const cli_value_opt *opts, size_t n, const char *cmd,
		       int argc, char **argv, int *i, int *kind, const char **value)
{
	const char *a = argv[*i];
	int m = cli_value_opt_match(opts, n, cmd, argc, argv, i, kind, value);
	if (m == 0) {
		cli_unknown_option(cmd, a);
		return -1;
	}
	return m;
}

int cli_format_opt(const char *cmd, int argc, char **argv, int *i, pd_format *out)
{
	const char *val;
	int m = cli_opt_value(argc, argv, i, "--format", &val);
	if (m < 0) {
		cli_usage_error(cmd, "option '--format' needs a value (text or json)");
		return -1;
	}
	if (m > 0 && cli_format_parse(cmd, val, CLI_FORMAT_BIT(PD_FORMAT_TEXT) |
				      CLI_FORMAT_BIT(PD_FORMAT_JSON), "text or json", out) < 0)
		return -1;
	return m;
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

int cli_input_opt(const char *cmd, int argc, char **argv, int *i, const char **path)
{
	const char *name = argv[*i];
	int m = cli_opt_value(argc, argv, i, "-i", path);
	if (m == 0)
		m = cli_opt_value(argc, argv, i, "--input", path);
	if (m < 0)
		cli_usage_error(cmd, "option '%s' needs a FILE", name);
	return m;
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
