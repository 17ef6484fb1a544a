/*
 * The progress line (cli_progress.h).  A terminal only: a line redrawn
 * with a carriage return would be garbage in a log or a pipe, so it is
 * never drawn when standard error is not a terminal, whatever the
 * options.  By default it appears once a command has run for a second,
 * so that short commands print nothing extra; --progress shows it from
 * the first MiB.  Redrawn at most ten times a second.  Where the line
 * may be drawn, libdebuginfod draws its own for downloads
 * (DEBUGINFOD_PROGRESS, unless the user set it).
 */
#include "cli_progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CLI_PROGRESS_DELAY 1.0   /* seconds before the line appears */
#define CLI_PROGRESS_PERIOD 0.1  /* seconds between two drawings */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s && s[1] ? s + 1 : path;
}

/* One side: "base a.data 45% of 57.0 MB" (a pipe: "12.5 MB"). */
static int side_text(const cli_progress_side *s, char *buf, size_t n)
{
	const char *name = base_name(s->path);
	const char *sep = s->label ? " " : "";
	const char *label = s->label ? s->label : "";
	if (s->total)
		return snprintf(buf, n, "%s%s%s %.0f%% of %.1f MB", label, sep, name,
				100.0 * (double)s->bytes / (double)s->total,
				(double)s->total / 1e6);
	return snprintf(buf, n, "%s%s%s %.1f MB", label, sep, name, (double)s->bytes / 1e6);
}

static void draw(cli_progress *p, double t)
{
	char line[512];
	size_t len = (size_t)snprintf(line, sizeof line, "perfdiff: reading");
	uint64_t samples = 0;
	const char *sep = " ";
	for (int i = 0; i < p->nsides; i++) {
		const cli_progress_side *s = &p->side[i];
		samples += s->samples + s->file_samples;
		if (!s->path[0] || len >= sizeof line)
			continue;
		len += (size_t)snprintf(line + len, sizeof line - len, "%s", sep);
		sep = ", ";
		if (len < sizeof line)
			len += (size_t)side_text(s, line + len, sizeof line - len);
	}
	double secs = t - p->start;
	if (len < sizeof line && secs > 0)
		len += (size_t)snprintf(line + len, sizeof line - len, "; %.2f M samples/s",
					(double)samples / 1e6 / secs);
	if (len >= sizeof line)
		len = sizeof line - 1;
	/* spaces over what a longer line before left */
	fprintf(stderr, "\r%s%*s", line, p->shown > len ? (int)(p->shown - len) : 0, "");
	fflush(stderr);
	p->shown = len;
	p->last = t;
}

static void on_progress(const pd_reader *r, uint64_t bytes, uint64_t total, void *payload)
{
	cli_progress_side *s = payload;
	cli_progress *p = s->p;
	pthread_mutex_lock(&p->lock);
	const char *path = pd_reader_path(r);
	if (r != s->reader || bytes < s->bytes) { /* the side's next file */
		s->samples += s->file_samples;
		s->file_samples = 0;
		s->reader = r;
		snprintf(s->path, sizeof s->path, "%s", path);
	}
	s->bytes = bytes;
	s->total = total;
	s->file_samples = pd_reader_stats_get(r)->by_type[PD_RECORD_SAMPLE];
	double t = now();
	if ((p->eager || t - p->start >= CLI_PROGRESS_DELAY) &&
	    (p->shown == 0 || t - p->last >= CLI_PROGRESS_PERIOD))
		draw(p, t);
	pthread_mutex_unlock(&p->lock);
}

void cli_progress_start(cli_progress *p, const cli_io *io, int nsides,
			const char *const *labels)
{
	memset(p, 0, sizeof *p);
	p->on = isatty(STDERR_FILENO) && io->progress >= 0 &&
		(io->progress > 0 || io->verbosity != CLI_QUIET);
	p->eager = io->progress > 0;
	if (p->on)
		setenv("DEBUGINFOD_PROGRESS", "1", 0);
	p->nsides = nsides < CLI_PROGRESS_SIDES ? nsides : CLI_PROGRESS_SIDES;
	pthread_mutex_init(&p->lock, NULL);
	p->started = true;
	p->start = now();
	for (int i = 0; i < p->nsides; i++) {
		cli_progress_side *s = &p->side[i];
		s->p = p;
		s->label = labels ? labels[i] : NULL;
		s->ropts = PD_READER_OPTIONS_INIT; /* no error path here: the macro */
		s->ropts.progress = on_progress;
		s->ropts.progress_payload = s;
	}
}

const pd_reader_options *cli_progress_reader(cli_progress *p, int s)
{
	return p->on && s >= 0 && s < p->nsides ? &p->side[s].ropts : NULL;
}

void cli_progress_clear(cli_progress *p)
{
	if (!p->started)
		return;
	pthread_mutex_lock(&p->lock);
	if (p->shown) {
		fprintf(stderr, "\r%*s\r", (int)p->shown, "");
		fflush(stderr);
		p->shown = 0;
	}
	pthread_mutex_unlock(&p->lock);
}

void cli_progress_stop(cli_progress *p)
{
	if (!p->started)
		return;
	cli_progress_clear(p);
	pthread_mutex_destroy(&p->lock);
	p->started = p->on = false;
}
