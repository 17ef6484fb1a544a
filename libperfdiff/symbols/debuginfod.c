/*
 * Executables and debug files from debuginfod servers, by build-id.
 *
 * A recording read where its binaries are not installed can still be
 * named when a server has them: elfutils' debuginfod serves
 * /buildid/ID/executable and /buildid/ID/debuginfo.  libdwfl asks only
 * for debug files, and its client asks again for every dso however the
 * server failed; this one client per symbolizer asks for both, one
 * request at a time (a mutex: the prefetch thread asks for debug files),
 * and after a server failed for a reason that is no "not found"
 * (a timeout, a refused connection) it asks nothing more, so a hung
 * server costs one timeout.
 *
 * libdebuginfod is loaded with dlopen at the first request, as libdw
 * does: no libcurl in the process of a user who set no DEBUGINFOD_URLS,
 * and no build dependency on libdebuginfod-dev.  Its own environment is
 * honoured as elfutils documents it: DEBUGINFOD_URLS, DEBUGINFOD_TIMEOUT,
 * DEBUGINFOD_CACHE_PATH (the files it fetches are kept there, and found
 * there without a request the next time), DEBUGINFOD_PROGRESS.  What a
 * server returns is checked by its build-id: another build is refused.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "symb_internal.h"

/* libdebuginfod's interface (debuginfod.h, elfutils 0.179 and later). */
typedef struct debuginfod_client debuginfod_client;
typedef debuginfod_client *(*begin_fn)(void);
typedef int (*find_fn)(debuginfod_client *, const unsigned char *, int, char **);
typedef void (*end_fn)(debuginfod_client *);

struct pd_debuginfod {
	pthread_mutex_t mu;      /* everything below */
	bool tried;              /* dlopen attempted */
	void *lib;
	begin_fn begin;
	find_fn find_executable, find_debuginfo;
	end_fn end;
	debuginfod_client *client;
	bool dead;               /* a server failed: ask nothing more */
	char problem[PD_ERROR_MESSAGE_MAX];
	bool told;
};

int pd_debuginfod_new(pd_debuginfod **out)
{
	*out = calloc(1, sizeof **out);
	if (!*out)
		return PD_ENOMEM;
	pthread_mutex_init(&(*out)->mu, NULL);
	return 0;
}

void pd_debuginfod_free(pd_debuginfod *d)
{
	if (!d)
		return;
	if (d->client)
		d->end(d->client);
	/* never dlclose'd: libcurl's global state may be shared with libdw's
	 * own client, and unloading it under libdw is not safe */
	pthread_mutex_destroy(&d->mu);
	free(d);
}

/* Load libdebuginfod and make a client; false (and d->problem) when not. */
static bool ready(pd_debuginfod *d)
{
	if (d->tried)
		return d->client != NULL;
	d->tried = true;
	d->lib = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
	if (d->lib) {
		d->begin = (begin_fn)(uintptr_t)dlsym(d->lib, "debuginfod_begin");
		d->find_executable = (find_fn)(uintptr_t)dlsym(d->lib, "debuginfod_find_executable");
		d->find_debuginfo = (find_fn)(uintptr_t)dlsym(d->lib, "debuginfod_find_debuginfo");
		d->end = (end_fn)(uintptr_t)dlsym(d->lib, "debuginfod_end");
	}
	if (d->begin && d->find_executable && d->find_debuginfo && d->end)
		d->client = d->begin();
	if (!d->client)
		snprintf(d->problem, sizeof d->problem,
			 "debuginfod: DEBUGINFOD_URLS is set but libdebuginfod.so.1 %s",
			 d->lib ? "cannot make a client" : "cannot be loaded (libdebuginfod1)");
	return d->client != NULL;
}

/* One request under the lock: a descriptor, or -1 (and d->dead when the
 * servers failed rather than lacked the file). */
static int request(pd_debuginfod *d, bool executable, const uint8_t *id, size_t n, char **path)
{
	*path = NULL;
	pthread_mutex_lock(&d->mu);
	int fd = -1;
	if (!d->dead && ready(d)) {
		find_fn find = executable ? d->find_executable : d->find_debuginfo;
		fd = find(d->client, id, (int)n, path);
		if (fd < 0 && fd != -ENOENT) {
			d->dead = true;
			char hex[2 * PD_BUILD_ID_MAX + 1];
			pd_hex(hex, id, n < PD_BUILD_ID_MAX ? n : PD_BUILD_ID_MAX);
			snprintf(d->problem, sizeof d->problem,
				 "debuginfod: the request for build-id %s failed (%s); no more requests",
				 hex, strerror(-fd));
		}
		if (fd < 0) {
			free(*path);
			*path = NULL;
			fd = -1;
		}
	}
	pthread_mutex_unlock(&d->mu);
	return fd;
}

/* True when the ELF file at `path` has build-id `id`. */
static bool holds(const char *path, const uint8_t *id, size_t n)
{
	uint8_t got[64];
	int m = path ? pd_elf_file_build_id(path, got, sizeof got) : -1;
	return m > 0 && (size_t)m == n && memcmp(got, id, n) == 0;
}

int pd_debuginfod_debuginfo(pd_debuginfod *d, const uint8_t *id, size_t n, char **path)
{
	int fd = d ? request(d, false, id, n, path) : -1;
	if (fd >= 0 && !holds(*path, id, n)) {
		char hex[2 * PD_BUILD_ID_MAX + 1];
		pd_hex(hex, id, n < PD_BUILD_ID_MAX ? n : PD_BUILD_ID_MAX);
		pthread_mutex_lock(&d->mu);
		if (!d->problem[0])
			snprintf(d->problem, sizeof d->problem,
				 "debuginfod: the debug file returned for build-id %s holds another build-id; refused",
				 hex);
		pthread_mutex_unlock(&d->mu);
		close(fd);
		free(*path);
		*path = NULL;
		fd = -1;
	}
	return fd;
}

static void tell(pd_debuginfod *d, pd_warnings *warn)
{
	pthread_mutex_lock(&d->mu);
	if (warn && d->problem[0] && !d->told) {
		d->told = true;
		pd_warnings_addf(warn, PD_WARN_NOT_FOUND, "%s", d->problem);
	}
	pthread_mutex_unlock(&d->mu);
}

char *pd_debuginfod_executable(pd_debuginfod *d, const pd_dso_id *dso, pd_arena *arena,
			       pd_warnings *warn)
{
	if (!d || dso->build_id_size == 0)
		return NULL;
	char *got = NULL;
	int fd = request(d, true, dso->build_id, dso->build_id_size, &got);
	tell(d, warn);
	if (fd < 0)
		return NULL;
	close(fd);
	char *path = NULL;
	if (holds(got, dso->build_id, dso->build_id_size)) {
		path = pd_arena_strndup(arena, got, strlen(got));
	} else {
		uint8_t id[64];
		int n = got ? pd_elf_file_build_id(got, id, sizeof id) : -1;
		char want[2 * PD_BUILD_ID_MAX + 1], have[2 * 64 + 1] = "none";
		pd_hex(want, dso->build_id, dso->build_id_size);
		if (n > 0)
			pd_hex(have, id, (size_t)n);
		pd_warnings_addf(warn, PD_WARN_MISMATCH,
				 "%s: debuginfod returned %s for build-id %s, which holds build-id %s; refused, frames stay [unknown]",
				 dso->name ? dso->name : "?", got ? got : "a file", want,
				 n < 0 ? "(not an ELF file)" : have);
	}
	free(got);
	return path;
}
