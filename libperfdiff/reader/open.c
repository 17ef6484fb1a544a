/*
 * Opening an input: detect file / pipe / directory mode and byte order, read
 * the file header, the attrs with their id tables and the feature sections,
 * and set up the record streams.
 */
#include "reader_impl.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#define PD_MAGIC_V2 0x32454c4946524550ull       /* "PERFILE2" */
#define PD_MAGIC_V2_SWAPPED 0x50455246494c4532ull
#define PD_MAGIC_V1 0x454c494646524550ull       /* "PERFFILE" */
#define PD_FILE_HEADER_SIZE 104
#define PD_FILE_HEADER_SIZE_OLD 72              /* no feature bitmap */
#define PD_PIPE_HEADER_SIZE 16

static const uint32_t known_attr_sizes[] = {64, 72, 80, 96, 104, 112, 120, 128, 136};

static bool is_known_attr_size(uint64_t n)
{
	for (size_t i = 0; i < sizeof known_attr_sizes / sizeof *known_attr_sizes; i++)
		if (known_attr_sizes[i] == n)
			return true;
	return false;
}

int pd_reader_add_attr(pd_reader *r, const uint8_t *p, uint32_t size, pd_attr **out)
{
	if (r->nattrs >= r->opts.max_attrs)
		return PD_ELIMIT;
	if (r->nattrs == r->cap_attrs) {
		size_t cap = r->cap_attrs ? r->cap_attrs * 2 : 8;
		pd_attr **a = realloc(r->attrs, cap * sizeof *a);
		if (!a)
			return PD_ENOMEM;
		r->attrs = a;
		uint64_t *s = realloc(r->attr_samples, cap * sizeof *s);
		if (!s)
			return PD_ENOMEM;
		r->attr_samples = s;
		r->cap_attrs = cap;
	}
	pd_attr *a = pd_arena_alloc(&r->meta.arena, sizeof *a);
	if (!a)
		return PD_ENOMEM;
	pd_attr_decode(a, p, size, r->swap);
	r->attrs[r->nattrs] = a;
	r->attr_samples[r->nattrs] = 0;
	r->nattrs++;
	if (r->nattrs == 1)
		pd_reader_update_id_pos(r);
	*out = a;
	return 0;
}

int pd_reader_add_ids(pd_reader *r, pd_attr *a, uint32_t idx, const uint8_t *ids,
		      uint64_t n, bool swap)
{
	if (n > r->opts.max_ids_per_attr)
		return PD_ELIMIT;
	uint64_t *v = pd_arena_alloc(&r->meta.arena, (size_t)(n ? n : 1) * sizeof *v);
	if (!v)
		return PD_ENOMEM;
	for (uint64_t i = 0; i < n; i++) {
		v[i] = pd_ld64(ids + 8 * i, swap);
		int rc = pd_id_table_add(&r->ids, v[i], idx);
		if (rc < 0)
			return rc;
	}
	a->ids = v;
	a->nr_ids = (size_t)n;
	return 0;
}

void pd_reader_update_id_pos(pd_reader *r)
{
	r->id_pos = r->is_pos = -1;
	if (r->nattrs > 0)
		pd_id_positions(r->attrs[0]->sample_type, &r->id_pos, &r->is_pos);
}

/* perf's names for the events a VM or a laptop records most. */
static const char *builtin_event_name(uint32_t type, uint64_t config)
{
	static const char *const hw[] = {
		"cycles", "instructions", "cache-references", "cache-misses",
		"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
		"stalled-cycles-backend", "ref-cycles"};
	static const char *const sw[] = {
		"cpu-clock", "task-clock", "page-faults", "context-switches",
		"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
		"emulation-faults", "dummy", "bpf-output", "cgroup-switches"};
	uint64_t low = config & 0xffffffffull;
	if (type == 0 && low < sizeof hw / sizeof *hw)
		return hw[low];
	if (type == 1 && config < sizeof sw / sizeof *sw)
		return sw[config];
	return NULL;
}

static const char *find_pmu(const pd_reader *r, uint32_t type)
{
	for (size_t i = 0; i < r->meta.nr_pmus; i++)
		if (r->meta.pmus[i].type == type)
			return r->meta.pmus[i].name;
	return NULL;
}

void pd_reader_name_attrs(pd_reader *r)
{
	/* EVENT_DESC names: by id when the entry has one, else by position */
	const char **names = calloc(r->nattrs ? r->nattrs : 1, sizeof *names);
	if (!names)
		return;
	for (size_t i = 0; i < r->meta.nr_event_names; i++) {
		const struct pd_event_name *e = &r->meta.event_names[i];
		int idx = -1;
		if (e->has_id)
			idx = pd_id_table_find(&r->ids, e->first_id);
		if (idx < 0 && i < r->nattrs && r->attrs[i]->type == e->attr_type &&
		    r->attrs[i]->config == e->attr_config)
			idx = (int)i;
		if (idx >= 0 && (size_t)idx < r->nattrs && e->name)
			names[idx] = e->name;
	}
	for (size_t i = 0; i < r->nattrs; i++) {
		pd_attr *a = r->attrs[i];
		uint32_t pmu_type = 0;
		if (a->type >= 6)
			pmu_type = a->type;
		else if ((a->type == 0 || a->type == 3) && (a->config >> 32))
			pmu_type = (uint32_t)(a->config >> 32); /* hybrid: PMU type in 63:32 */
		if (pmu_type)
			a->pmu_name = find_pmu(r, pmu_type);
		if (names[i]) {
			a->name = names[i];
			continue;
		}
		if (a->name)
			continue; /* EVENT_UPDATE or an earlier synthesized name */
		const char *b = builtin_event_name(a->type, a->config);
		char buf[96];
		if (b && a->pmu_name && pmu_type)
			snprintf(buf, sizeof buf, "%s/%s/", a->pmu_name, b);
		else if (b)
			snprintf(buf, sizeof buf, "%s", b);
		else if (a->pmu_name)
			snprintf(buf, sizeof buf, "%s/config=0x%llx/", a->pmu_name,
				 (unsigned long long)a->config);
		else
			snprintf(buf, sizeof buf, "%u:0x%llx", a->type,
				 (unsigned long long)a->config);
		a->name = pd_arena_strndup(&r->meta.arena, buf, sizeof buf);
	}
	free(names);
}

static int add_stream(pd_reader *r, const char *path, uint32_t index, pd_error *err,
		      pd_stream **out)
{
	pd_stream *s = realloc(r->streams, (r->nstreams + 1) * sizeof *s);
	if (!s)
		return pd_error_set(err, PD_ENOMEM, path, PD_NO_OFFSET, "out of memory");
	r->streams = s;
	pd_stream *st = &s[r->nstreams];
	memset(st, 0, sizeof *st);
	st->src.fd = -1;
	st->index = index;
	st->path = strdup(path);
	if (!st->path)
		return pd_error_set(err, PD_ENOMEM, path, PD_NO_OFFSET, "out of memory");
	r->nstreams++;
	*out = st;
	return 0;
}

/* Decode the feature bitmap; a swapped file may have written it as 32-bit words. */
static void read_feature_bitmap(pd_reader *r, const uint8_t *p)
{
	uint64_t *f = r->meta.info.features;
	for (int i = 0; i < 4; i++)
		f[i] = pd_ld64(p + 8 * i, r->swap);
	if (r->swap && !(f[0] & (1ull << PD_FEAT_HOSTNAME))) {
		for (int i = 0; i < 4; i++) {
			uint64_t lo = pd_ld32(p + 8 * i, true);
			uint64_t hi = pd_ld32(p + 8 * i + 4, true);
			f[i] = lo | hi << 32;
		}
		if (!(f[0] & (1ull << PD_FEAT_HOSTNAME))) {
			memset(f, 0, 4 * sizeof *f);
			f[0] = 1ull << PD_FEAT_BUILD_ID;
		}
	}
}

static void read_features(pd_reader *r, pd_stream *st, uint64_t index_off)
{
	const uint64_t *bits = r->meta.info.features;
	uint64_t size = st->src.map_size;
	uint64_t at = index_off;
	for (unsigned feat = 1; feat < 256; feat++) {
		if (!(bits[feat / 64] & (1ull << (feat % 64))))
			continue;
		if (at > size || size - at < 16) {
			pd_reader_warn(r, PD_WARN_DATA_LOST, st->path, at,
				       "feature index cut off at feature %u; remaining features skipped",
				       feat);
			return;
		}
		const uint8_t *e = st->src.map + at;
		uint64_t off = pd_ld64(e, r->swap), len = pd_ld64(e + 8, r->swap);
		at += 16;
		const char *name = pd_feature_name(feat);
		if (off > size || len > size - off) {
			pd_reader_warn(r, PD_WARN_DATA_LOST, st->path, at - 16,
				       "feature %s: section [%llu, +%llu) lies outside the file; skipped",
				       name ? name : "?", (unsigned long long)off,
				       (unsigned long long)len);
			continue;
		}
		if (len > r->opts.max_feature_bytes) {
			pd_reader_warn(r, PD_WARN_METADATA, st->path, off,
				       "feature %s: %llu bytes exceed the cap of %llu "
				       "(pd_reader_options.max_feature_bytes); skipped",
				       name ? name : "?", (unsigned long long)len,
				       (unsigned long long)r->opts.max_feature_bytes);
			continue;
		}
		if (len == 0)
			continue; /* an announced feature with no payload says nothing */
		pd_error err;
		int rc = pd_feature_parse(&r->meta, feat, st->src.map + off, (size_t)len,
					  r->swap, &r->opts, &err);
		if (rc == PD_ENOMEM) {
			pd_reader_warn(r, PD_WARN_METADATA, st->path, off, "feature %s: out of memory", name);
			return;
		}
		if (rc < 0)
			pd_reader_warn(r, PD_WARN_METADATA, st->path, off, "feature %s: %s; skipped",
				       name ? name : "?", err.message);
	}
}

/*
 * Version 1 ("PERFFILE", perf until Linux 2.6.3x) spells its magic as
 * text, so the magic gives no byte order.  perf takes it from the header
 * size of a pipe (16) and otherwise from attr_size, a known
 * perf_event_attr size + 16 (its id section) in one order only.
 */
static int v1_byte_order(pd_reader *r, pd_stream *st, pd_error *err)
{
	const uint8_t *h;
	uint64_t hs = 0;
	if (pd_source_get(&st->src, 0, 16, &h) == 16)
		hs = pd_ld64(h + 8, false);
	if (hs == PD_PIPE_HEADER_SIZE || __builtin_bswap64(hs) == PD_PIPE_HEADER_SIZE) {
		r->swap = hs != PD_PIPE_HEADER_SIZE;
		return 0;
	}
	if (pd_source_get(&st->src, 0, 24, &h) < 24)
		return pd_error_set(err, PD_ECORRUPT, st->path, 16,
				    "perf.data v1 (PERFFILE): input ends inside the file header");
	uint64_t nat = pd_ld64(h + 16, false), sw = pd_ld64(h + 16, true);
	if (nat >= 16 && is_known_attr_size(nat - 16))
		r->swap = false;
	else if (sw >= 16 && is_known_attr_size(sw - 16))
		r->swap = true;
	else
		return pd_error_set(err, PD_EUNSUPPORTED, st->path, 16,
				    "perf.data v1 (PERFFILE) with attr_size %llu: "
				    "byte order cannot be determined",
				    (unsigned long long)nat);
	return 0;
}

/* Header, attrs and features of a file-mode file whose first 16 bytes are read. */
static int open_file_mode(pd_reader *r, pd_stream *st, uint64_t hsize, bool v1,
			  pd_error *err)
{
	const char *path = st->path;
	if (st->src.is_stream)
		return pd_error_set(err, PD_EUNSUPPORTED, path, 0,
				    "a file-mode perf.data cannot be read from a pipe; "
				    "give its path, or record with `perf record -o -`");
	const uint8_t *h = st->src.map;
	uint64_t fsize = st->src.map_size;
	if (fsize < hsize)
		return pd_error_set(err, PD_ECORRUPT, path, fsize,
				    "file ends inside the %llu-byte file header",
				    (unsigned long long)hsize);
	uint64_t attr_size = pd_ld64(h + 16, r->swap);
	r->meta.info.v1 = v1;
	uint64_t attrs_off = pd_ld64(h + 24, r->swap), attrs_len = pd_ld64(h + 32, r->swap);
	uint64_t data_off = pd_ld64(h + 40, r->swap), data_len = pd_ld64(h + 48, r->swap);
	r->meta.info.data_offset = data_off;
	r->meta.info.data_size = data_len;
	if (hsize == PD_FILE_HEADER_SIZE)
		read_feature_bitmap(r, h + 72);

	if (attr_size < 64 + 16 || attr_size > 65536)
		return pd_error_set(err, PD_ECORRUPT, path, 16,
				    "attr_size %llu is not a perf_event_attr size + 16",
				    (unsigned long long)attr_size);
	if (attrs_off > fsize || attrs_len > fsize - attrs_off)
		return pd_error_set(err, PD_ECORRUPT, path, 24,
				    "attrs section [%llu, +%llu) lies outside the %llu-byte file",
				    (unsigned long long)attrs_off, (unsigned long long)attrs_len,
				    (unsigned long long)fsize);
	uint64_t nattrs = attrs_len / attr_size;
	if (nattrs > r->opts.max_attrs)
		return pd_error_set(err, PD_ELIMIT, path, 32,
				    "%llu events exceed the cap of %u (pd_reader_options.max_attrs)",
				    (unsigned long long)nattrs, r->opts.max_attrs);
	for (uint64_t i = 0; i < nattrs; i++) {
		uint64_t at = attrs_off + i * attr_size;
		const uint8_t *a = h + at;
		/* perf writes attr.size + 16 == attr_size; decode the known prefix
		 * of whichever is smaller and step by the header's size */
		uint32_t asz = pd_ld32(a + 4, r->swap);
		if (asz == 0)
			asz = 64;
		if (asz > attr_size - 16)
			asz = (uint32_t)(attr_size - 16);
		pd_attr *attr;
		int rc = pd_reader_add_attr(r, a, asz, &attr);
		if (rc < 0)
			return pd_error_set(err, rc, path, at, "cannot add event %llu",
					    (unsigned long long)i);
		attr->size = pd_ld32(a + 4, r->swap);
		const uint8_t *sec = a + attr_size - 16;
		uint64_t ids_off = pd_ld64(sec, r->swap), ids_len = pd_ld64(sec + 8, r->swap);
		if (ids_off > fsize || ids_len > fsize - ids_off)
			return pd_error_set(err, PD_ECORRUPT, path, at + attr_size - 16,
					    "id table of event %llu [%llu, +%llu) lies outside the file",
					    (unsigned long long)i, (unsigned long long)ids_off,
					    (unsigned long long)ids_len);
		rc = pd_reader_add_ids(r, attr, (uint32_t)i, h + ids_off, ids_len / 8, r->swap);
		if (rc == PD_ELIMIT)
			return pd_error_set(err, rc, path, ids_off,
					    "%llu ids for event %llu exceed the cap of %llu "
					    "(pd_reader_options.max_ids_per_attr)",
					    (unsigned long long)(ids_len / 8), (unsigned long long)i,
					    (unsigned long long)r->opts.max_ids_per_attr);
		if (rc < 0)
			return pd_error_set(err, rc, path, ids_off, "out of memory");
	}

	if (data_off > fsize)
		return pd_error_set(err, PD_ECORRUPT, path, 40,
				    "data section starts at %llu, past the end of the %llu-byte file",
				    (unsigned long long)data_off, (unsigned long long)fsize);
	st->pos = data_off;
	if (data_len == 0) {
		st->end = fsize;
		st->end_is_eof = true;
		if (fsize > data_off)
			pd_reader_warn(r, PD_WARN_DATA_LOST, path, 48,
				       "data size is 0: perf record was not terminated properly; "
				       "reading records up to the end of the file, features not read");
	} else if (data_len > fsize - data_off) {
		st->end = fsize;
		st->end_is_eof = true;
		pd_reader_warn(r, PD_WARN_DATA_LOST, path, fsize,
			       "file is truncated: the data section should end at %llu; "
			       "records up to the cut are read, features not read",
			       (unsigned long long)(data_off + data_len));
	} else {
		st->end = data_off + data_len;
		read_features(r, st, data_off + data_len);
		/* parsed into the arena: the sections are not read again */
		pd_window_drop(&st->src, data_off + data_len, st->src.map_size);
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* `perf record --threads`: data plus headerless data.N streams. */
static int add_directory_streams(pd_reader *r, const char *dir, pd_error *err)
{
	DIR *d = opendir(dir);
	if (!d)
		return pd_error_set(err, PD_EIO, dir, PD_NO_OFFSET, "cannot list: %s",
				    strerror(errno));
	uint32_t *nums = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *s = de->d_name;
		if (strncmp(s, "data.", 5) != 0 || !s[5])
			continue;
		char *end;
		errno = 0;
		unsigned long v = strtoul(s + 5, &end, 10);
		if (*end || errno || v > UINT32_MAX - 2)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			uint32_t *nn = realloc(nums, cap * sizeof *nn);
			if (!nn) {
				free(nums);
				closedir(d);
				return pd_error_set(err, PD_ENOMEM, dir, PD_NO_OFFSET, "out of memory");
			}
			nums = nn;
		}
		nums[n++] = (uint32_t)v;
	}
	closedir(d);
	if (n)
		qsort(nums, n, sizeof *nums, cmp_u32);
	int rc = 0;
	bool no_mmap = r->opts.flags & PD_READER_NO_MMAP;
	for (size_t i = 0; i < n && rc == 0; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/data.%u", dir, nums[i]);
		pd_stream *st;
		rc = add_stream(r, path, nums[i] + 1, err, &st);
		if (rc == 0)
			rc = pd_source_open(&st->src, path, no_mmap, true, err);
		if (rc == 0) {
			st->pos = 0;
			st->end = pd_source_size(&st->src);
			st->end_is_eof = true;
		}
	}
	free(nums);
	return rc;
}

int pd_reader_setup(pd_reader *r, const char *path, int fd, pd_error *err)
{
	pd_stream *st;
	bool directory = false;
	bool no_mmap = r->opts.flags & PD_READER_NO_MMAP;
	char mainpath[4096];
	int rc;
	if (fd < 0 && strcmp(path, "-") != 0) {
		struct stat sb;
		if (stat(path, &sb) < 0)
			return pd_error_set(err, PD_EIO, path, PD_NO_OFFSET, "cannot open: %s",
					    pd_open_strerror(errno));
		if (S_ISDIR(sb.st_mode)) {
			directory = true;
			snprintf(mainpath, sizeof mainpath, "%s/data", path);
			if (stat(mainpath, &sb) < 0 && errno == ENOENT)
				return pd_error_set(err, PD_ENOTPERF, path, PD_NO_OFFSET,
						    "a directory without a `data` file is not a "
						    "perf.data directory");
		}
	}
	rc = add_stream(r, directory ? mainpath : path, 0, err, &st);
	if (rc < 0)
		return rc;
	if (fd >= 0)
		rc = pd_source_open_fd(&st->src, fd, false, no_mmap, path, err);
	else
		rc = pd_source_open(&st->src, st->path, no_mmap, directory, err);
	if (rc < 0)
		return rc;

	const uint8_t *h;
	size_t got = pd_source_get(&st->src, 0, 16, &h);
	if (got < 16)
		return pd_error_set(err, got == 0 ? PD_ENOTPERF : PD_ECORRUPT, st->path, got,
				    got == 0 ? "empty input is not a perf.data file"
					     : "input ends inside the 16-byte perf.data magic");
	uint64_t magic = pd_ld64(h, false);
	bool v1 = false;
	if (magic == PD_MAGIC_V2)
		r->swap = false;
	else if (magic == PD_MAGIC_V2_SWAPPED)
		r->swap = true;
	else if (magic == PD_MAGIC_V1 || magic == __builtin_bswap64(PD_MAGIC_V1))
		v1 = true;
	else
		return pd_error_set(err, PD_ENOTPERF, st->path, 0,
				    "not a perf.data file (no PERFILE2 magic)");
	if (v1 && (rc = v1_byte_order(r, st, err)) < 0)
		return rc;
	if (v1)  /* its look-ups may have moved the window */
		pd_source_get(&st->src, 0, 16, &h);
	r->meta.info.swapped = r->swap;
	uint64_t hsize = pd_ld64(h + 8, r->swap);

	if (hsize == PD_PIPE_HEADER_SIZE) {
		if (directory)
			return pd_error_set(err, PD_ECORRUPT, st->path, 8,
					    "directory data file has a pipe header");
		r->meta.info.mode = PD_MODE_PIPE;
		st->pos = 16;
		st->end = UINT64_MAX;
		st->end_is_eof = true;
		if (!st->src.is_stream)
			st->end = st->src.map_size;
		return 0;
	}
	if (hsize != PD_FILE_HEADER_SIZE && hsize != PD_FILE_HEADER_SIZE_OLD)
		return pd_error_set(err, PD_ECORRUPT, st->path, 8,
				    "header size %llu is neither 104 (file), 72 (old file) "
				    "nor 16 (pipe)", (unsigned long long)hsize);
	r->meta.info.mode = directory ? PD_MODE_DIRECTORY : PD_MODE_FILE;
	r->meta.info.file_size = st->src.map_size;
	rc = open_file_mode(r, st, hsize, v1, err);
	if (rc < 0)
		return rc;
	if (directory) {
		rc = add_directory_streams(r, path, err);
		if (rc < 0)
			return rc;
	}
	pd_reader_name_attrs(r);
	return 0;
}
