/*
 * A `perf archive` tarball read in place, as a build-id cache.
 *
 * perf archive packs the recording's part of perf's build-id cache:
 * `.build-id/xx/rest` links to `../../PATH/BUILDID` directories holding
 * `elf`, `debug`, `kallsyms` or `vdso` (old perf: the link names the file
 * itself).  Users were told to extract it into ~/.debug by hand; here it
 * is read where it lies, through libarchive (bzip2, xz, zstd and gzip
 * filters, tar formats only: a well-kept library that perf's users have,
 * where a tar reader of our own would be one more parser of hostile
 * input), and nothing is written into the user's directories.
 *
 * A compressed tarball can only be read from its start, so one pass both
 * indexes every member and copies the members that can hold symbols
 * (`.../BUILDID/{elf,debug,kallsyms,vdso}`) into unlinked temporary files
 * (O_TMPFILE in $TMPDIR); the rest of the symbolizer opens them by their
 * /proc/self/fd path, as it opens any file.  A member reached only through
 * a link of another shape costs a second pass, once.  Every copy is
 * bounded by a cap checked as bytes arrive, not by the header's size.
 * The pass happens at the first lookup, usually on the prefetch thread;
 * a mutex makes lookups from both threads safe.  What went wrong with the
 * tarball as a whole is kept and told once to the first caller with a
 * warning sink; the frames of the dsos it should have named stay
 * [unknown].  The build-id of a member is checked by the caller
 * (elf_find.c) like that of any other file.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symb_internal.h"

/* Links followed for one lookup: perf's layout needs one. */
#define PD_TAR_LINK_DEPTH 16
/* Members indexed at most: perf archive packs a few per sampled binary. */
#define PD_TAR_MEMBERS_MAX (1u << 20)

typedef struct tar_member {
	char *name;       /* normalized: no leading "./" or "/", no trailing "/" */
	char *symlink;    /* a symbolic link's target as stored, or NULL */
	char *hardlink;   /* a hard link's (normalized) target, or NULL */
	bool dir;
	int fd;           /* the copy, -1: none */
	char *path;       /* "/proc/self/fd/N" of the copy */
} tar_member;

struct pd_symarchive {
	char *file;
	uint64_t member_cap;
	pthread_mutex_t mu;
	bool indexed;              /* under mu, as everything below */
	tar_member *m;
	size_t n, cap;
	pd_arena arena;
	char problem[PD_ERROR_MESSAGE_MAX];  /* "" or what went wrong */
	bool told;
};

bool pd_symarchive_is_file(const char *path)
{
	struct stat st;
	return path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int pd_symarchive_new(pd_symarchive **out, const char *path, uint64_t member_cap)
{
	*out = NULL;
	pd_symarchive *a = calloc(1, sizeof *a);
	if (!a)
		return PD_ENOMEM;
	pd_arena_init(&a->arena);
	pthread_mutex_init(&a->mu, NULL);
	a->member_cap = member_cap ? member_cap : PD_TAR_MEMBER_CAP;
	a->file = pd_arena_strndup(&a->arena, path, strlen(path));
	if (!a->file) {
		pd_symarchive_free(a);
		return PD_ENOMEM;
	}
	*out = a;
	return 0;
}

void pd_symarchive_free(pd_symarchive *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n; i++)
		if (a->m[i].fd >= 0)
			close(a->m[i].fd);
	free(a->m);
	pthread_mutex_destroy(&a->mu);
	pd_arena_free(&a->arena);
	free(a);
}

const char *pd_symarchive_file(const pd_symarchive *a)
{
	return a->file;
}

/* `s` (n bytes) with "." segments, repeated and leading/trailing slashes
 * removed and ".." applied; NULL when ".." climbs above the root. */
static char *normalize(pd_arena *arena, const char *s, size_t n)
{
	char *out = pd_arena_alloc(arena, n + 1);
	if (!out)
		return NULL;
	size_t o = 0, i = 0;
	while (i < n) {
		size_t j = i;
		while (j < n && s[j] != '/')
			j++;
		size_t len = j - i;
		if (len == 2 && s[i] == '.' && s[i + 1] == '.') {
			if (o == 0)
				return NULL;
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
		} else if (len > 0 && !(len == 1 && s[i] == '.')) {
			if (o > 0)
				out[o++] = '/';
			memcpy(out + o, s + i, len);
			o += len;
		}
		i = j + 1;
	}
	out[o] = '\0';
	return out;
}

/* True for `.../HEX/KIND`: a member that may hold symbols. */
static bool symbol_member(const char *name)
{
	static const char *const kinds[] = { "elf", "debug", "kallsyms", "vdso" };
	const char *base = strrchr(name, '/');
	if (!base)
		return false;
	const char *dir = base;
	while (dir > name && dir[-1] != '/')
		dir--;
	size_t hexlen = (size_t)(base - dir);
	if (hexlen < 2 || hexlen > 2 * PD_BUILD_ID_MAX || strspn(dir, "0123456789abcdef") < hexlen)
		return false;
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (strcmp(base + 1, kinds[i]) == 0)
			return true;
	return false;
}

static int add_member(pd_symarchive *a, struct archive_entry *e)
{
	const char *p = archive_entry_pathname(e);
	if (!p)
		return 0;
	if (a->n >= PD_TAR_MEMBERS_MAX)
		return PD_ELIMIT;
	if (pd_grow(&a->m, &a->cap, a->n + 1, sizeof *a->m) < 0)
		return PD_ENOMEM;
	tar_member *m = &a->m[a->n];
	memset(m, 0, sizeof *m);
	m->fd = -1;
	m->name = normalize(&a->arena, p, strlen(p));
	if (!m->name)
		return 0; /* a name above the root names nothing we look up */
	mode_t t = archive_entry_filetype(e);
	const char *hl = archive_entry_hardlink(e);
	const char *sl = archive_entry_symlink(e);
	m->dir = t == AE_IFDIR;
	if (hl && !(m->hardlink = normalize(&a->arena, hl, strlen(hl))))
		m->hardlink = NULL;
	if (t == AE_IFLNK && sl && !(m->symlink = pd_arena_strndup(&a->arena, sl, strlen(sl))))
		return PD_ENOMEM;
	a->n++;
	return 0;
}

static tar_member *member(pd_symarchive *a, const char *name)
{
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->m[i].name, name) == 0)
			return &a->m[i];
	return NULL;
}

static int write_all(int fd, const char *buf, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Copy the current entry's data into m's temporary file, at most the cap. */
static int copy_member(pd_symarchive *a, struct archive *ar, tar_member *m, pd_error *err)
{
	int fd = pd_tmpfd("tar");
	if (fd < 0)
		return pd_error_reason(err, PD_EIO, "cannot make a temporary file: %s",
				       strerror(errno));
	char buf[65536];
	uint64_t total = 0;
	for (;;) {
		la_ssize_t r = archive_read_data(ar, buf, sizeof buf);
		if (r == 0)
			break;
		if (r < 0 || (total += (uint64_t)r) > a->member_cap ||
		    write_all(fd, buf, (size_t)r) < 0) {
			int code = r < 0 ? PD_ECORRUPT : total > a->member_cap ? PD_ELIMIT : PD_EIO;
			pd_error_reason(err, code, "member %s: %s", m->name,
					r < 0 ? archive_error_string(ar)
					: code == PD_ELIMIT ? "larger than the cap on a member"
							    : strerror(errno));
			close(fd);
			return code;
		}
	}
	char p[40];
	snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
	if (!(m->path = pd_arena_strndup(&a->arena, p, strlen(p)))) {
		close(fd);
		return PD_ENOMEM;
	}
	m->fd = fd;
	return 0;
}

/* The compressed bytes read so far: where a corrupt tarball failed. */
static uint64_t tar_offset(struct archive *ar)
{
	la_int64_t off = archive_filter_bytes(ar, -1);
	return off >= 0 ? (uint64_t)off : PD_NO_OFFSET;
}

static struct archive *tar_open(const pd_symarchive *a, pd_error *err)
{
	struct archive *ar = archive_read_new();
	if (!ar) {
		pd_error_set(err, PD_ENOMEM, a->file, PD_NO_OFFSET, "out of memory");
		return NULL;
	}
	/* these four only (Debian's libarchive decodes them itself; one built
	 * without a library would run its command-line program instead) */
	archive_read_support_filter_bzip2(ar);
	archive_read_support_filter_xz(ar);
	archive_read_support_filter_zstd(ar);
	archive_read_support_filter_gzip(ar);
	archive_read_support_format_tar(ar);
	if (archive_read_open_filename(ar, a->file, 65536) != ARCHIVE_OK) {
		pd_error_set(err, PD_EIO, a->file, PD_NO_OFFSET, "not a readable tarball: %s",
			     archive_error_string(ar) ? archive_error_string(ar) : "unknown");
		archive_read_free(ar);
		return NULL;
	}
	return ar;
}

/*
 * One pass over the tarball.  `index`: record every member and copy those
 * of symbol_member() shape; else copy only the members named `want`.
 */
static int tar_pass(pd_symarchive *a, bool index, const char *want, pd_error *err)
{
	struct archive *ar = tar_open(a, err);
	if (!ar)
		return err ? err->code : PD_EIO;
	struct archive_entry *e;
	int rc = 0, r;
	size_t seen = 0;
	while ((r = archive_read_next_header(ar, &e)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
		if (index && (rc = add_member(a, e)) < 0) {
			pd_error_set(err, rc, a->file, tar_offset(ar), "%s",
				     rc == PD_ELIMIT ? "more members than a perf archive has"
						     : "out of memory");
			break;
		}
		tar_member *m = NULL;
		if (index) {
			m = a->n > seen ? &a->m[a->n - 1] : NULL;
			seen = a->n;
		} else {
			const char *p = archive_entry_pathname(e);
			char *name = p ? normalize(&a->arena, p, strlen(p)) : NULL;
			if (name && strcmp(name, want) == 0)
				m = member(a, want);
		}
		bool copy = m && archive_entry_filetype(e) == AE_IFREG && !m->hardlink &&
			    m->fd < 0 && (index ? symbol_member(m->name) : true);
		pd_error why;
		why.message[0] = '\0';
		if (copy && (rc = copy_member(a, ar, m, &why)) < 0) {
			pd_error_wrap(&why, rc, a->file, tar_offset(ar), NULL);
			if (err)
				*err = why;
			break;
		}
	}
	if (rc == 0 && r != ARCHIVE_EOF)
		rc = pd_error_set(err, PD_ECORRUPT, a->file, tar_offset(ar), "corrupt tarball: %s",
				  archive_error_string(ar) ? archive_error_string(ar) : "unknown");
	archive_read_free(ar);
	return rc;
}

/* A directory: a member of that name or the parent of one. */
static bool is_dir(pd_symarchive *a, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < a->n; i++)
		if (strncmp(a->m[i].name, name, n) == 0 &&
		    (a->m[i].name[n] == '/' || (a->m[i].name[n] == '\0' && a->m[i].dir)))
			return true;
	return false;
}

/* `name` with its links followed; NULL (and *loop) after too many. */
static const char *follow(pd_symarchive *a, const char *name, bool *loop)
{
	for (int depth = 0; depth < PD_TAR_LINK_DEPTH; depth++) {
		tar_member *m = member(a, name);
		if (!m || (!m->symlink && !m->hardlink))
			return name;
		if (m->hardlink) {
			name = m->hardlink;
			continue;
		}
		/* relative to the link's directory; an absolute target is taken
		 * inside the tarball, never on this machine */
		const char *slash = strrchr(m->name, '/');
		size_t dl = m->symlink[0] == '/' ? 0 : slash ? (size_t)(slash - m->name) : 0;
		size_t tl = strlen(m->symlink);
		char *joined = pd_arena_alloc(&a->arena, dl + tl + 2);
		if (!joined)
			return NULL;
		memcpy(joined, m->name, dl);
		joined[dl] = '/';
		memcpy(joined + dl + 1, m->symlink, tl + 1);
		if (!(name = normalize(&a->arena, joined, dl + tl + 1)))
			return NULL;
	}
	*loop = true;
	return NULL;
}

static void tell(pd_symarchive *a, pd_warnings *warn)
{
	if (warn && a->problem[0] && !a->told) {
		a->told = true;
		pd_warnings_addf(warn, PD_WARN_NOT_FOUND, "%s; frames it should name stay [unknown]",
				 a->problem);
	}
}

/* The member `dir/kind` with dir reached through `.build-id/xx/rest`, or
 * NULL; words for a link loop go to `warn`. */
static tar_member *find(pd_symarchive *a, const char *hex, const char *kind, pd_warnings *warn)
{
	char rel[64 + 2 * PD_BUILD_ID_MAX];
	snprintf(rel, sizeof rel, ".build-id/%.2s/%s", hex, hex + 2);
	bool loop = false;
	const char *target = follow(a, rel, &loop);
	if (loop)
		pd_warnings_addf(warn, PD_WARN_NOT_FOUND,
				 "%s: %s: a loop of links; frames stay [unknown]", a->file, rel);
	if (!target)
		return NULL;
	if (!is_dir(a, target)) {
		/* old perf: the link is the file itself */
		tar_member *m = strcmp(kind, "elf") == 0 ? member(a, target) : NULL;
		return m && !m->dir ? m : NULL;
	}
	size_t tl = strlen(target), kl = strlen(kind);
	char *p = pd_arena_alloc(&a->arena, tl + kl + 2);
	if (!p)
		return NULL;
	memcpy(p, target, tl);
	p[tl] = '/';
	memcpy(p + tl + 1, kind, kl + 1);
	target = follow(a, p, &loop);
	if (loop)
		pd_warnings_addf(warn, PD_WARN_NOT_FOUND,
				 "%s: %s: a loop of links; frames stay [unknown]", a->file, p);
	tar_member *m = target ? member(a, target) : NULL;
	return m && !m->dir ? m : NULL;
}

/* Index once; the first failure is kept for tell(). */
static void ensure_indexed(pd_symarchive *a)
{
	if (a->indexed)
		return;
	a->indexed = true;
	pd_error err;
	err.message[0] = '\0';
	if (tar_pass(a, true, NULL, &err) < 0)
		snprintf(a->problem, sizeof a->problem, "%s",
			 err.message[0] ? err.message : "cannot read the tarball");
}

const char *pd_symarchive_member(pd_symarchive *a, const uint8_t *id, size_t idlen,
				 const char *kind, pd_warnings *warn)
{
	if (!a || idlen == 0 || idlen > PD_BUILD_ID_MAX)
		return NULL;
	char hex[2 * PD_BUILD_ID_MAX + 1];
	pd_hex(hex, id, idlen);
	pthread_mutex_lock(&a->mu);
	ensure_indexed(a);
	tell(a, warn);
	tar_member *m = find(a, hex, kind, warn);
	if (m && m->fd < 0 && !m->symlink && !m->hardlink) {
		pd_error err;
		err.message[0] = '\0';
		if (tar_pass(a, false, m->name, &err) < 0 && warn)
			pd_warnings_addf(warn, PD_WARN_NOT_FOUND, "%s; frames stay [unknown]",
					 err.message);
	}
	const char *path = m && m->fd >= 0 ? m->path : NULL;
	pthread_mutex_unlock(&a->mu);
	return path;
}

bool pd_symarchive_owns(const char *path)
{
	return path && strncmp(path, "/proc/self/fd/", 14) == 0;
}
