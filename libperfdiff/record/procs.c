/*
 * What the samples' addresses need to be named later: each process's
 * executable maps, read from /proc/PID/maps when the sampler first sees
 * the process (it says so on its ring at once, and the drains catch any
 * it could not tell) and again after an exec, the build-ids of the
 * binaries mapped (their ELF notes, read once per path), and the
 * kernel's _text and build-id (/proc/kallsyms, /sys/kernel/notes), which
 * is how perf lays out a recording of its own.  A process gone before
 * its maps were read has its user frames as (build-id, file offset)
 * instead: each binary so named gets a synthetic map in that process
 * (pgoff 0, above every real address), found by its build-id among the
 * binaries other processes map or the paths execs ran, so that the
 * writers and the symbolizer take those frames as any other.
 */
#include <fcntl.h>
#include <gelf.h>
#include <elfutils/libdwelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* One line of /proc/PID/maps: an executable map of a file is kept. */
static int parse_map_line(const char *line, rec_map *m)
{
	uint64_t start, end, pgoff;
	char perm[5];
	int path_at = 0;

	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %*s %*u %n", &start, &end,
		   perm, &pgoff, &path_at) < 4 || path_at == 0)
		return 0;
	const char *path = line + path_at;
	if (perm[2] != 'x' || path[0] == '\0')
		return 0;
	*m = (rec_map){ .start = start, .end = end, .pgoff = pgoff,
			.path = strndup(path, strcspn(path, "\n")) };
	return m->path ? 1 : PD_ENOMEM;
}

static bool has_map(const rec_proc *p, const rec_map *m)
{
	for (size_t j = 0; j < p->nmaps; j++)
		if (p->maps[j].start == m->start && p->maps[j].end == m->end &&
		    p->maps[j].pgoff == m->pgoff && strcmp(p->maps[j].path, m->path) == 0)
			return true;
	return false;
}

/* Add the maps /proc lists now that `p` does not have yet (a process
 * first seen while the dynamic loader was still mapping its libraries
 * has them added at the next look). */
static int read_maps(rec_proc *p)
{
	char path[64], line[4096 + 256];

	snprintf(path, sizeof path, "/proc/%" PRIu32 "/maps", p->pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;    /* gone already: only build-id stacks name its frames */
	int rc = 1;
	while (rc == 1 && fgets(line, sizeof line, f)) {
		rec_map m;
		int got = parse_map_line(line, &m);
		if (got < 0)
			rc = got;
		else if (got && has_map(p, &m))
			free(m.path);
		else if (got && pd_grow(&p->maps, &p->cap, p->nmaps + 1, sizeof *p->maps) < 0)
			rc = PD_ENOMEM, free(m.path);
		else if (got)
			p->maps[p->nmaps++] = m;
	}
	fclose(f);
	return rc;
}

/* Read `pid`'s maps unless they were read before. */
int rec_proc_seen(struct pd_recorder *r, uint32_t pid)
{
	if (pd_u64map_get(&r->proc_index, pid))
		return 1;
	if (pd_grow(&r->procs, &r->procs_cap, r->nprocs + 1, sizeof *r->procs) < 0)
		return PD_ENOMEM;
	rec_proc *p = &r->procs[r->nprocs];
	*p = (rec_proc){ .pid = pid };
	int rc = read_maps(p);
	if (rc < 0) {
		for (size_t j = 0; j < p->nmaps; j++)
			free(p->maps[j].path);
		free(p->maps);
		return rc;
	}
	r->nprocs++;
	int put = pd_u64map_put(&r->proc_index, pid, (void *)(uintptr_t)r->nprocs);
	return put < 0 ? put : rc;
}

static bool covered(const rec_proc *p, uint64_t ip)
{
	for (size_t j = 0; j < p->nmaps; j++)
		if (ip >= p->maps[j].start && ip < p->maps[j].end)
			return true;
	return false;
}

/* A drain's entry of `pid` with user frames `ips`: the maps read when
 * the process was first seen, and read again (once a drain, `gen`) when
 * a frame is in none of them (a library mapped since). */
int rec_proc_cover(struct pd_recorder *r, uint32_t pid, const uint64_t *ips, size_t n,
		   uint64_t gen)
{
	int rc = rec_proc_seen(r, pid);
	if (rc < 0)
		return rc;
	rec_proc *p = &r->procs[(uintptr_t)pd_u64map_get(&r->proc_index, pid) - 1];
	if (p->gen == gen)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!covered(p, ips[i])) {
			p->gen = gen;
			rc = read_maps(p);
			return rc < 0 ? rc : 0;
		}
	return 0;
}

int rec_proc_more(struct pd_recorder *r, uint32_t pid)
{
	uintptr_t at = (uintptr_t)pd_u64map_get(&r->proc_index, pid);
	return at ? read_maps(&r->procs[at - 1]) : rec_proc_seen(r, pid);
}

static void free_maps(rec_map *maps, size_t n)
{
	for (size_t j = 0; j < n; j++)
		free(maps[j].path);
}

/* After an exec: the maps read again, the old image's dropped (but its
 * synthetic maps, which drained stacks use, kept).  A process gone
 * already keeps the maps it had, the best guess for its samples. */
static int reread(rec_proc *p)
{
	rec_proc fresh = { .pid = p->pid };
	int rc = read_maps(&fresh);
	if (rc <= 0 || pd_grow(&p->maps, &p->cap, p->nmaps + fresh.nmaps,
			       sizeof *p->maps) < 0) {
		free_maps(fresh.maps, fresh.nmaps);
		free(fresh.maps);
		return rc <= 0 ? rc : PD_ENOMEM;
	}
	size_t kept = 0;
	for (size_t j = 0; j < p->nmaps; j++) {
		if (p->maps[j].synth)
			p->maps[kept++] = p->maps[j];
		else
			free(p->maps[j].path);
	}
	memcpy(p->maps + kept, fresh.maps, fresh.nmaps * sizeof *p->maps);
	p->nmaps = kept + fresh.nmaps;
	free(fresh.maps);
	return 1;
}

static uint8_t elf_build_id(const char *path, uint8_t id[20])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	uint8_t len = 0;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *bits;
	ssize_t n = e ? dwelf_elf_gnu_build_id(e, &bits) : -1;
	if (n > 0 && n <= 20) {
		memcpy(id, bits, (size_t)n);
		len = (uint8_t)n;
	}
	elf_end(e);
	close(fd);
	return len;
}

/* The build-id of `path` (len 0: none), or NULL when out of memory. */
const rec_buildid *rec_buildid_of(struct pd_recorder *r, const char *path)
{
	for (size_t i = 0; i < r->nids; i++)
		if (strcmp(r->ids[i].path, path) == 0)
			return &r->ids[i];
	if (pd_grow(&r->ids, &r->ids_cap, r->nids + 1, sizeof *r->ids) < 0)
		return NULL;
	rec_buildid *b = &r->ids[r->nids];
	*b = (rec_buildid){ .path = strdup(path) };
	if (!b->path)
		return NULL;
	b->len = path[0] == '/' ? elf_build_id(path, b->id) : 0;
	r->nids++;
	return b;
}

/* The absolute path of what `pid` exec'd (`full`, PATH_MAX bytes), read
 * now, while the file is surely there, for its build-id: a relative path
 * is the process's working directory's.  NULL when it cannot be told. */
static const char *exec_path(uint32_t pid, const char *path, char *full)
{
	char cwd_link[64];

	if (path[0] == '\0' || path[0] == '/')
		return path[0] ? path : NULL;
	snprintf(cwd_link, sizeof cwd_link, "/proc/%" PRIu32 "/cwd", pid);
	ssize_t n = readlink(cwd_link, full, PATH_MAX - 1);
	if (n <= 0 || (size_t)n + 1 + strlen(path) >= PATH_MAX)
		return NULL;
	full[n] = '/';
	strcpy(full + n + 1, path);
	return full;
}

/* The file offset of `path`'s code (its first executable PT_LOAD). */
static bool text_offset(const char *path, uint64_t *off)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t n = 0;
	bool found = false;
	if (e && elf_getphdrnum(e, &n) == 0)
		for (size_t i = 0; i < n && !found; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
				*off = ph.p_offset, found = true;
		}
	elf_end(e);
	close(fd);
	return found;
}

/* A process gone before its maps after an exec were read: its code's
 * map, from where the kernel put it (mm's start_code, end_code) and the
 * binary's program headers, names the frames the kernel gave as plain
 * addresses (when it could not take a build-id). */
static int add_exec_map(rec_proc *p, const char *path, uint64_t start_code, uint64_t end_code)
{
	uint64_t off;
	if (!path || !start_code || end_code <= start_code || !text_offset(path, &off))
		return 0;
	rec_map m = { .start = start_code & ~4095ull, .end = (end_code + 4095) & ~4095ull,
		      .pgoff = off & ~4095ull };
	if (pd_grow(&p->maps, &p->cap, p->nmaps + 1, sizeof *p->maps) < 0 ||
	    !(m.path = strdup(path)))
		return PD_ENOMEM;
	p->maps[p->nmaps++] = m;
	return 0;
}

int rec_proc_exec(struct pd_recorder *r, uint32_t pid, const char *path, uint64_t start_code,
		  uint64_t end_code)
{
	char full[PATH_MAX];
	const char *exe = exec_path(pid, path, full);
	if (exe && !rec_buildid_of(r, exe))
		return PD_ENOMEM;
	uintptr_t at = (uintptr_t)pd_u64map_get(&r->proc_index, pid);
	if (!at && r->o.system_wide)
		return 0;    /* every exec of the machine: its maps wait for a sample */
	int rc = at ? reread(&r->procs[at - 1]) : rec_proc_seen(r, pid);
	at = (uintptr_t)pd_u64map_get(&r->proc_index, pid);
	if (rc == 0 && at)
		rc = add_exec_map(&r->procs[at - 1], exe, start_code, end_code);
	return rc;
}

/* The path of a binary known with build-id `id` (zero-padded), or NULL. */
static const char *find_id(const struct pd_recorder *r, const uint8_t id[20])
{
	static const uint8_t zero[20];

	for (size_t i = 0; i < r->nids; i++) {
		const rec_buildid *b = &r->ids[i];
		if (b->len && memcmp(b->id, id, b->len) == 0 &&
		    memcmp(id + b->len, zero, 20u - b->len) == 0)
			return b->path;
	}
	return NULL;
}

/* A binary that neither a process's maps nor an exec named: called by
 * its build-id, which the symbolizer finds in the build-id caches. */
static const char *name_by_id(struct pd_recorder *r, const uint8_t id[20])
{
	char name[64] = "[buildid:";
	for (int i = 0; i < 20; i++)
		snprintf(name + 9 + 2 * i, 3, "%02x", id[i]);
	strcat(name, "]");
	if (pd_grow(&r->ids, &r->ids_cap, r->nids + 1, sizeof *r->ids) < 0)
		return NULL;
	rec_buildid *b = &r->ids[r->nids];
	*b = (rec_buildid){ .path = strdup(name), .len = 20 };
	if (!b->path)
		return NULL;
	memcpy(b->id, id, 20);
	r->nids++;
	return b->path;
}

/* The path of build-id `id`: the binaries every process maps have their
 * ids read (once each) when an id is not known yet. */
static const char *path_of_id(struct pd_recorder *r, const uint8_t id[20])
{
	const char *path = find_id(r, id);
	for (size_t i = 0; !path && i < r->nprocs; i++)
		for (size_t j = 0; j < r->procs[i].nmaps; j++)
			if (!r->procs[i].maps[j].synth &&
			    !rec_buildid_of(r, r->procs[i].maps[j].path))
				return NULL;
	if (!path)
		path = find_id(r, id);
	return path ? path : name_by_id(r, id);
}

int rec_proc_synth(struct pd_recorder *r, uint32_t pid, const uint8_t id[20], uint64_t offset,
		   uint64_t *addr)
{
	int rc = rec_proc_seen(r, pid);
	const char *path = rc < 0 ? NULL : path_of_id(r, id);
	if (!path)
		return PD_ENOMEM;
	rec_proc *p = &r->procs[(uintptr_t)pd_u64map_get(&r->proc_index, pid) - 1];
	for (size_t j = 0; j < p->nmaps; j++)
		if (p->maps[j].synth && strcmp(p->maps[j].path, path) == 0) {
			*addr = p->maps[j].start + offset;
			return 0;
		}
	if (pd_grow(&p->maps, &p->cap, p->nmaps + 1, sizeof *p->maps) < 0)
		return PD_ENOMEM;
	uint64_t start = REC_SYNTH_BASE + (uint64_t)p->nsynth * REC_SYNTH_SLOT;
	rec_map *m = &p->maps[p->nmaps];
	*m = (rec_map){ .start = start, .end = start + REC_SYNTH_SLOT, .path = strdup(path),
			.synth = true };
	if (!m->path)
		return PD_ENOMEM;
	p->nmaps++;
	p->nsynth++;
	*addr = start + offset;
	return 0;
}

/* The GNU build-id note of the running kernel, as perf reads it. */
static uint8_t kernel_build_id(uint8_t id[20])
{
	uint8_t buf[4096];
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
	if (fd >= 0)
		close(fd);
	for (size_t at = 0; n > 0 && at + 12 <= (size_t)n;) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, buf + at, 4);
		memcpy(&descsz, buf + at + 4, 4);
		memcpy(&type, buf + at + 8, 4);
		size_t name_at = at + 12, desc_at = name_at + ((namesz + 3u) & ~3u);
		if (desc_at + descsz > (size_t)n)
			break;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && memcmp(buf + name_at, "GNU", 4) == 0 &&
		    descsz > 0 && descsz <= 20) {
			memcpy(id, buf + desc_at, descsz);
			return (uint8_t)descsz;
		}
		at = desc_at + ((descsz + 3u) & ~3u);
	}
	return 0;
}

/* _text and the kernel's build-id.  0, or PD_EIO when /proc/kallsyms
 * hides its addresses (kptr_restrict), which naming kernel frames needs. */
int rec_kernel_read(struct pd_recorder *r)
{
	char line[512];
	FILE *f = fopen("/proc/kallsyms", "re");

	r->kbuildid_len = kernel_build_id(r->kbuildid);
	if (!f)
		return PD_EIO;
	while (fgets(line, sizeof line, f)) {
		uint64_t a;
		char t, name[256];
		if (sscanf(line, "%" SCNx64 " %c %255s", &a, &t, name) == 3 &&
		    strcmp(name, "_text") == 0) {
			r->ktext = a;
			break;
		}
	}
	fclose(f);
	return r->ktext ? 0 : PD_EIO;
}

void rec_procs_free(struct pd_recorder *r)
{
	for (size_t i = 0; i < r->nprocs; i++) {
		for (size_t j = 0; j < r->procs[i].nmaps; j++)
			free(r->procs[i].maps[j].path);
		free(r->procs[i].maps);
	}
	free(r->procs);
	for (size_t i = 0; i < r->nids; i++)
		free(r->ids[i].path);
	free(r->ids);
	pd_u64map_free(&r->proc_index);
}
