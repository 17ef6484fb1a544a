/*
 * One debuginfod server named by the user (--symbols-from=URL), asked by
 * build-id for /buildid/ID/executable and /buildid/ID/debuginfo.
 *
 * libdebuginfod (debuginfod.c) takes its servers from DEBUGINFOD_URLS
 * alone: elfutils 0.188 and 0.190 read the variable at every query and
 * have no call that gives a client its own list, so per-side servers
 * would mean changing the process's environment around each request.
 * This is a plain HTTP GET through libcurl instead, the library
 * libdebuginfod itself uses: loaded with dlopen at the first request, as
 * libdebuginfod is, so that a user who names no server loads no libcurl
 * and the library gains no link dependency (the header is only for its
 * types and constants).  Each request is bounded: DEBUGINFOD_TIMEOUT
 * seconds (default 90, as elfutils) to connect and as the longest stall
 * of the transfer, and PD_TAR_MEMBER_CAP bytes.  The body goes to an
 * unlinked temporary file opened by /proc/self/fd/N like a tarball's
 * members (no cache on disk: the next run asks again).  What comes back
 * is checked by its build-id; a file of another build is refused.  After
 * a failure that is not "not found" (a timeout, a refused connection)
 * the server is asked nothing more: a hung server costs one timeout.
 * One request at a time (a mutex: the prefetch thread may ask too).
 */
#include <curl/curl.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "symb_internal.h"

typedef CURL *(*init_fn)(void);
typedef CURLcode (*setopt_fn)(CURL *, CURLoption, ...);
typedef CURLcode (*perform_fn)(CURL *);
typedef CURLcode (*getinfo_fn)(CURL *, CURLINFO, ...);
typedef void (*cleanup_fn)(CURL *);
typedef const char *(*strerror_fn)(CURLcode);

typedef struct curl_api {
	init_fn init;
	setopt_fn setopt;
	perform_fn perform;
	getinfo_fn getinfo;
	cleanup_fn cleanup;
	strerror_fn strerror;
} curl_api;

struct pd_symurl {
	char *url;                /* without a trailing '/' */
	pthread_mutex_t mu;       /* everything below */
	bool tried;
	curl_api api;
	bool dead;                /* failed: ask nothing more */
	char problem[PD_ERROR_MESSAGE_MAX];
	bool told;
	int *fds;                 /* the files fetched, closed at free */
	size_t nfds, capfds;
	pd_arena arena;           /* their /proc/self/fd paths */
};

int pd_symurl_new(pd_symurl **out, const char *url)
{
	*out = calloc(1, sizeof **out);
	if (!*out)
		return PD_ENOMEM;
	pd_symurl *u = *out;
	pd_arena_init(&u->arena);
	pthread_mutex_init(&u->mu, NULL);
	size_t n = strlen(url);
	while (n > 0 && url[n - 1] == '/')
		n--;
	if (!(u->url = pd_arena_strndup(&u->arena, url, n))) {
		pd_symurl_free(u);
		*out = NULL;
		return PD_ENOMEM;
	}
	return 0;
}

void pd_symurl_free(pd_symurl *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nfds; i++)
		close(u->fds[i]);
	free(u->fds);
	/* libcurl is never dlclose'd: libdebuginfod may share it */
	pthread_mutex_destroy(&u->mu);
	pd_arena_free(&u->arena);
	free(u);
}

const char *pd_symurl_url(const pd_symurl *u)
{
	return u->url;
}

bool pd_symurl_is_url(const char *s)
{
	return s && (strncmp(s, "http://", 7) == 0 || strncmp(s, "https://", 8) == 0);
}

/* libcurl's functions: Debian's libdebuginfod1 pulls in the GnuTLS
 * build, so that one first (one copy in the process). */
static bool load(pd_symurl *u)
{
	if (u->tried)
		return u->api.perform != NULL;
	u->tried = true;
	void *lib = dlopen("libcurl-gnutls.so.4", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
	curl_api a = { 0 };
	if (lib) {
		a.init = (init_fn)(uintptr_t)dlsym(lib, "curl_easy_init");
		a.setopt = (setopt_fn)(uintptr_t)dlsym(lib, "curl_easy_setopt");
		a.perform = (perform_fn)(uintptr_t)dlsym(lib, "curl_easy_perform");
		a.getinfo = (getinfo_fn)(uintptr_t)dlsym(lib, "curl_easy_getinfo");
		a.cleanup = (cleanup_fn)(uintptr_t)dlsym(lib, "curl_easy_cleanup");
		a.strerror = (strerror_fn)(uintptr_t)dlsym(lib, "curl_easy_strerror");
	}
	if (a.init && a.setopt && a.perform && a.getinfo && a.cleanup && a.strerror)
		u->api = a;
	else
		snprintf(u->problem, sizeof u->problem,
			 "%s: libcurl (libcurl3-gnutls or libcurl4) cannot be loaded; the server is not asked",
			 u->url);
	return u->api.perform != NULL;
}

typedef struct sink {
	int fd;
	uint64_t total;
	bool over;
} sink;

static size_t on_data(char *p, size_t size, size_t n, void *ctx)
{
	sink *s = ctx;
	size_t len = size * n, done = 0;
	if ((s->total += len) > PD_TAR_MEMBER_CAP) {
		s->over = true;
		return 0;
	}
	while (done < len) {
		ssize_t w = write(s->fd, p + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return 0;
		done += (size_t)w;
	}
	return len;
}

static long timeout_secs(void)
{
	const char *t = getenv("DEBUGINFOD_TIMEOUT");
	char *end;
	long v = t && t[0] ? strtol(t, &end, 10) : 90;
	return t && t[0] && (*end || v <= 0) ? 90 : v;
}

/* GET `url` into the temporary file `fd`: the HTTP status (200: the file),
 * or -1 with the reason in u->problem. */
static long get(pd_symurl *u, const char *url, int fd)
{
	CURL *c = u->api.init();
	if (!c) {
		snprintf(u->problem, sizeof u->problem, "%s: libcurl cannot make a handle", u->url);
		return -1;
	}
	sink s = { fd, 0, false };
	long secs = timeout_secs(), status = -1;
	u->api.setopt(c, CURLOPT_URL, url);
	u->api.setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	u->api.setopt(c, CURLOPT_WRITEDATA, &s);
	u->api.setopt(c, CURLOPT_NOSIGNAL, 1L);
	/* a redirect goes to a server, never to a file:// on this machine */
	u->api.setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	u->api.setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	u->api.setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	u->api.setopt(c, CURLOPT_MAXREDIRS, 5L);
	u->api.setopt(c, CURLOPT_CONNECTTIMEOUT, secs);
	u->api.setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	u->api.setopt(c, CURLOPT_LOW_SPEED_TIME, secs);
	u->api.setopt(c, CURLOPT_USERAGENT, "libperfdiff");
	CURLcode rc = u->api.perform(c);
	if (rc == CURLE_OK)
		u->api.getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	else
		snprintf(u->problem, sizeof u->problem, "%s: %s", url,
			 s.over ? "larger than the cap on a file" : u->api.strerror(rc));
	u->api.cleanup(c);
	return status;
}

/* Keep `fd` open until free; its /proc/self/fd path, or NULL. */
static const char *keep(pd_symurl *u, int fd)
{
	char p[40];
	snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
	char *path = pd_arena_strndup(&u->arena, p, strlen(p));
	if (!path || pd_grow(&u->fds, &u->capfds, u->nfds + 1, sizeof *u->fds) < 0) {
		close(fd);
		return NULL;
	}
	u->fds[u->nfds++] = fd;
	return path;
}

/* The file `kind` of build-id `hex` under the lock, or NULL. */
static const char *fetch(pd_symurl *u, const char *hex, const char *kind)
{
	if (u->dead || !load(u))
		return NULL;
	int fd = pd_tmpfd("url");
	if (fd < 0)
		return NULL;
	size_t n = strlen(u->url) + strlen(hex) + strlen(kind) + 16;
	char *url = malloc(n);
	long status = -1;
	if (url) {
		snprintf(url, n, "%s/buildid/%s/%s", u->url, hex, kind);
		status = get(u, url, fd);
		free(url);
	}
	if (status == 200)
		return keep(u, fd);
	close(fd);
	/* 404: the server lacks it; anything else: the server is failing */
	if (status != 404) {
		u->dead = true;
		if (status >= 0)
			snprintf(u->problem, sizeof u->problem,
				 "%s: HTTP status %ld for build-id %s; no more requests", u->url,
				 status, hex);
	}
	return NULL;
}

static void tell(pd_symurl *u, pd_warnings *warn)
{
	if (warn && u->problem[0] && !u->told) {
		u->told = true;
		pd_warnings_addf(warn, PD_WARN_NOT_FOUND, "%s; frames it should name stay [unknown]",
				 u->problem);
	}
}

const char *pd_symurl_file(pd_symurl *u, const uint8_t *id, size_t n, const char *kind,
			   pd_warnings *warn)
{
	if (!u || n == 0 || n > PD_BUILD_ID_MAX)
		return NULL;
	char hex[2 * PD_BUILD_ID_MAX + 1];
	pd_hex(hex, id, n);
	pthread_mutex_lock(&u->mu);
	const char *path = fetch(u, hex, kind);
	tell(u, warn);
	pthread_mutex_unlock(&u->mu);
	return path;
}
