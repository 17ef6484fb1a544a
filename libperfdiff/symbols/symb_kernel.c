/*
 * Kernel addresses (kallsyms, or a vmlinux for core text) and JIT code
 * (perf-PID.map) for the symbolizer.  kallsyms is only used when it
 * belongs to the recorded kernel: an explicit file, perf's cached copy for
 * the recorded build-id, or /proc/kallsyms when the running kernel has
 * that build-id.  A configured vmlinux must carry the recorded build-id
 * too; it names core kernel text only (modules are not in it).  Without
 * --vmlinux, the debuginfod servers (URL symbol sources in order, then
 * $DEBUGINFOD_URLS; none offline) are asked once per kernel build-id for
 * its vmlinux, which is then checked and used the same way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jitmap.h"
#include "kallsyms.h"
#include "symb_internal.h"
#include "symfacts.h"

/* A kallsyms table seen through one relocation (KASLR slide). */
typedef struct pd_kview {
	struct pd_kview *next;
	pd_kstate *ks;
	uint64_t delta;          /* runtime − kallsyms, for core kernel text */
	uint64_t vm_delta;       /* runtime − vmlinux */
	uint64_t core_lo, core_hi;
} pd_kview;

struct pd_kstate {
	pd_kstate *next;
	uint8_t build_id[PD_BUILD_ID_MAX];
	uint8_t build_id_size;
	const pd_kallsyms *ks;   /* NULL: no usable kallsyms */
	const char *ks_path;     /* the file ks was read from (symbol facts) */
	const char *ks_from;     /* where that is, for the footer (pd_kallsyms_choose_from) */
	unsigned ks_flags;       /* and how */
	pd_kallsyms *ks_owned;   /* ks when not the pd_symcache's */
	pd_symcache_entry *ks_ref;  /* ks when the cache's: held */
	bool have_text;
	uint64_t text;
	pd_kallsyms *vm;         /* from the vmlinux; NULL: none or not ours */
	const char *vm_label;    /* the vmlinux as the footer names it */
	const char *vm_path;     /* a file symbol facts may read later, or NULL */
	bool vm_have_text;
	uint64_t vm_text;
	pd_kview *views;
};

typedef struct pd_jitstate {
	pd_jitmap *map;          /* NULL: no readable map */
} pd_jitstate;

void pd_symbolizer_free_kernel(pd_symbolizer *z)
{
	for (pd_kstate *k = z->kernels, *next; k; k = next) {
		next = k->next;
		for (pd_kview *v = k->views, *vn; v; v = vn) {
			vn = v->next;
			free(v);
		}
		pd_kallsyms_free(k->ks_owned);
		pd_symcache_release(z->cfg.cache, k->ks_ref);
		pd_kallsyms_free(k->vm);
		free(k);
	}
	z->kernels = NULL;
	for (size_t i = 0; i < z->jits.cap; i++) {
		pd_jitstate *j = z->jits.slots[i].v;
		if (j) {
			pd_jitmap_free(j->map);
			free(j);
		}
	}
	pd_symhash_free(&z->jits);
	pd_symhash_free(&z->kresults);
	pd_symhash_free(&z->jresults);
}

static bool is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

const char *pd_kallsyms_choose(const pd_symbolizer *z, const uint8_t *bid, size_t n,
			       char *cached, size_t cap, pd_kallsyms_choice *why)
{
	const char *from;
	return pd_kallsyms_choose_from((pd_symbolizer *)(uintptr_t)z, bid, n, cached, cap, why,
				       &from);
}

const char *pd_kallsyms_choose_from(pd_symbolizer *z, const uint8_t *bid, size_t n,
				    char *cached, size_t cap, pd_kallsyms_choice *why,
				    const char **from)
{
	*why = PD_KALLSYMS_VERIFIED;
	*from = z->cfg.kallsyms;
	if (z->cfg.kallsyms)
		return z->cfg.kallsyms;
	*from = "/proc/kallsyms";
	if (n == 0) {
		/* perf does the same for recordings without a kernel build-id
		 * (pipe mode): right when analysed on the recording host. */
		*why = PD_KALLSYMS_UNVERIFIED;
		return "/proc/kallsyms";
	}
	char hex[2 * PD_BUILD_ID_MAX + 1];
	pd_hex(hex, bid, n);
	/* the user's sources first, in order (a server has no kallsyms) */
	for (size_t i = 0; i < z->cfg.nsources; i++) {
		const pd_usersrc *s = &z->sources[i];
		const char *p = NULL;
		if (s->archive) {
			p = pd_symarchive_member(s->archive, bid, n, "kallsyms", NULL);
		} else if (!s->url) {
			snprintf(cached, cap, "%s/[kernel.kallsyms]/%s/kallsyms", s->where, hex);
			p = is_file(cached) ? cached : NULL;
		}
		if (p) {
			snprintf(cached, cap, "%s", p);
			*from = s->where;
			return cached;
		}
	}
	if (z->archive) {
		/* the recording machine's table, packed by perf archive: it
		 * comes before this machine's, which describes another kernel */
		const char *p = pd_symarchive_member(z->archive, bid, n, "kallsyms", NULL);
		if (p) {
			snprintf(cached, cap, "%s", p);
			*from = pd_symarchive_file(z->archive);
			return cached;
		}
	} else if (z->buildid_dir) {
		snprintf(cached, cap, "%s/[kernel.kallsyms]/%s/kallsyms", z->buildid_dir, hex);
		if (is_file(cached)) {
			*from = z->buildid_dir;
			return cached;
		}
	}
	*from = "/proc/kallsyms";
	uint8_t run[64];
	size_t rn = pd_running_kernel_build_id(run, sizeof run);
	if (rn == n && memcmp(run, bid, n) == 0)
		return "/proc/kallsyms";
	*why = PD_KALLSYMS_NONE;
	return NULL;
}

static void load_kallsyms(pd_symbolizer *z, pd_kstate *k)
{
	char cached[4400];
	pd_kallsyms_choice choice;
	const char *path = pd_kallsyms_choose_from(z, k->build_id, k->build_id_size, cached,
						   sizeof cached, &choice, &k->ks_from);
	if (choice == PD_KALLSYMS_NONE) {
		char hex[2 * PD_BUILD_ID_MAX + 1], rhex[2 * 64 + 1];
		uint8_t run[64];
		size_t n = pd_running_kernel_build_id(run, sizeof run);
		pd_hex(hex, k->build_id, k->build_id_size);
		pd_hex(rhex, run, n);
		pd_symbolizer_warn(z, PD_WARN_NOT_FOUND,
			"[kernel.kallsyms]: no kallsyms for build-id %s (not in the build-id cache; running kernel %s); kernel frames stay [unknown]",
			hex, n ? rhex : "unknown");
		return;
	}
	if (choice == PD_KALLSYMS_UNVERIFIED)
		pd_symbolizer_warn(z, PD_WARN_UNVERIFIED, "[kernel.kallsyms]: no kernel build-id in the recording; using /proc/kallsyms unverified");
	pd_error e;
	e.message[0] = '\0'; /* PD_ENOMEM may come back without words */
	pd_kallsyms *ks = NULL;
	const pd_kallsyms *shared = NULL;
	pd_symcache_entry *ref = NULL;
	unsigned kflags = z->cfg.kernel_padding_names ? PD_KALLSYMS_KEEP_PADDING : 0;
	if (z->cfg.cache && !pd_symarchive_owns(path)) {
		/* another thread may be reading it: open dsos meanwhile */
		shared = pd_symcache_kallsyms(z->cfg.cache, path, kflags, &e, pd_prefetch_help, z,
					      &ref);
		if (!shared) {
			pd_symbolizer_warn(z, PD_WARN_NOT_FOUND, "%s: %s; kernel frames stay [unknown]", path,
					   e.message);
			return;
		}
	} else if (!pd_prefetch_take_kallsyms(z, path, &ks) &&
		   pd_kallsyms_load_flags(&ks, path, kflags, &e) < 0) {
		pd_symbolizer_warn(z, PD_WARN_NOT_FOUND, "%s: %s; kernel frames stay [unknown]", path,
				   e.message[0] ? e.message : "cannot be read");
		return;
	}
	const pd_kallsyms *table = shared ? shared : ks;
	if (pd_kallsyms_all_zero(table)) {
		pd_symbolizer_warn(z, PD_WARN_NOT_FOUND, "%s: every address is 0 (kptr_restrict); kernel frames stay [unknown]",
				   path);
		pd_kallsyms_free(ks);
		pd_symcache_release(z->cfg.cache, ref);
		return;
	}
	k->ks = table;
	k->ks_owned = ks;
	k->ks_ref = ref;
	k->ks_path = pd_arena_strndup(&z->arena, path, strlen(path));
	k->ks_flags = kflags;
	k->have_text = pd_kallsyms_addr(table, "_text", &k->text) ||
		       pd_kallsyms_addr(table, "_stext", &k->text);
}

static bool load_vmlinux(pd_symbolizer *z, pd_kstate *k, const char *path)
{
	uint8_t bid[PD_BUILD_ID_MAX];
	size_t nbid = sizeof bid;
	pd_error e;
	e.message[0] = '\0'; /* PD_ENOMEM may come back without words */
	pd_kallsyms *vm = NULL;
	bool have_text = false;
	uint64_t text = 0;
	if (pd_vmlinux_load(path, &vm, &have_text, &text, bid, &nbid, &e) < 0) {
		pd_symbolizer_warn(z, PD_WARN_NOT_FOUND, "%s: %s; kernel names come from kallsyms", path,
				   e.message[0] ? e.message : "cannot be read");
		return false;
	}
	if (k->build_id_size &&
	    (nbid != k->build_id_size || memcmp(bid, k->build_id, nbid) != 0)) {
		char want[2 * PD_BUILD_ID_MAX + 1], got[2 * PD_BUILD_ID_MAX + 1];
		pd_hex(want, k->build_id, k->build_id_size);
		pd_hex(got, bid, nbid);
		pd_symbolizer_warn(z, PD_WARN_MISMATCH, "%s: build-id %s is not the recorded kernel's %s; kernel names come from kallsyms",
				   path, nbid ? got : "(none)", want);
		pd_kallsyms_free(vm);
		return false;
	}
	if (!k->build_id_size)
		pd_symbolizer_warn(z, PD_WARN_UNVERIFIED, "%s: no kernel build-id in the recording; vmlinux used unverified",
				   path);
	if (!have_text)
		pd_symbolizer_warn(z, PD_WARN_OTHER, "%s: no _text or _stext symbol; kernel addresses not relocated",
				   path);
	k->vm = vm;
	k->vm_have_text = have_text;
	k->vm_text = text;
	return true;
}

/* A URL source's vmlinux of the kernel `k`: its debug file, else its
 * executable.  The path opens the client's copy while it lives. */
static const char *url_vmlinux(pd_symbolizer *z, pd_usersrc *s, const pd_kstate *k)
{
	const char *p = pd_symurl_file(s->url, k->build_id, k->build_id_size, "debuginfo",
				       &z->warnings);
	return p ? p : pd_symurl_file(s->url, k->build_id, k->build_id_size, "executable",
				      &z->warnings);
}

/* The footer's words for a vmlinux of `k` fetched from `from`. */
static const char *fetched_label(pd_symbolizer *z, const pd_kstate *k, const char *from)
{
	char hex[2 * PD_BUILD_ID_MAX + 1];
	pd_hex(hex, k->build_id, k->build_id_size);
	size_t n = strlen(hex) + strlen(from) + sizeof "vmlinux (build-id ) from ";
	char *l = pd_arena_alloc(&z->arena, n);
	if (l)
		snprintf(l, n, "vmlinux (build-id %s) from %s", hex, from);
	return l;
}

/* The vmlinux of `k` from the servers of $DEBUGINFOD_URLS (libdebuginfod,
 * with its cache and timeouts): its debug file, else its executable. */
static void dfd_vmlinux(pd_symbolizer *z, pd_kstate *k)
{
	char *p = NULL;
	int fd = pd_debuginfod_debuginfo(z->debuginfod, k->build_id, k->build_id_size, &p);
	if (fd >= 0) {
		close(fd);
		if (load_vmlinux(z, k, p)) {
			k->vm_label = fetched_label(z, k, "debuginfod");
			k->vm_path = pd_arena_strndup(&z->arena, p, strlen(p));
		}
		free(p);
		return;
	}
	pd_dso_id id = { .name = "[kernel.kallsyms]", .kernel = true };
	id.build_id_size = k->build_id_size < sizeof id.build_id ? k->build_id_size
								  : (uint8_t)sizeof id.build_id;
	memcpy(id.build_id, k->build_id, id.build_id_size);
	const char *e = pd_debuginfod_executable(z->debuginfod, &id, &z->arena, &z->warnings);
	if (e && load_vmlinux(z, k, e)) {
		k->vm_label = fetched_label(z, k, "debuginfod");
		k->vm_path = e;
	}
}

/* The recorded kernel's vmlinux from the servers, asked once per build-id
 * (a miss is remembered by the pd_kstate): the URL sources in order, then
 * $DEBUGINFOD_URLS.  Another build is refused by load_vmlinux() with a
 * warning, and kallsyms names the frames. */
static void fetch_vmlinux(pd_symbolizer *z, pd_kstate *k)
{
	if (z->cfg.offline || !k->build_id_size)
		return;
	for (size_t i = 0; i < z->cfg.nsources; i++) {
		pd_usersrc *s = &z->sources[i];
		const char *p = s->url ? url_vmlinux(z, s, k) : NULL;
		if (p && load_vmlinux(z, k, p)) {
			k->vm_label = fetched_label(z, k, pd_symurl_url(s->url));
			return;
		}
	}
	if (z->debuginfod)
		dfd_vmlinux(z, k);
}

static pd_kstate *kstate_for(pd_symbolizer *z, const uint8_t *bid, size_t n)
{
	if (n > PD_BUILD_ID_MAX)
		n = PD_BUILD_ID_MAX;
	for (pd_kstate *k = z->kernels; k; k = k->next)
		if (k->build_id_size == n && memcmp(k->build_id, bid, n) == 0)
			return k;
	pd_kstate *k = calloc(1, sizeof *k);
	if (!k)
		return NULL;
	k->build_id_size = (uint8_t)n;
	if (n)
		memcpy(k->build_id, bid, n);
	k->next = z->kernels;
	z->kernels = k;
	if (z->cfg.vmlinux) {
		if (load_vmlinux(z, k, z->cfg.vmlinux))
			k->vm_label = k->vm_path = z->cfg.vmlinux;
	} else {
		fetch_vmlinux(z, k);
	}
	load_kallsyms(z, k);
	return k;
}

static pd_kview *kview_for(pd_kstate *k, const pd_map *map)
{
	uint64_t delta = 0, vm_delta = 0, lo = 0, hi = 0;
	/* The kernel map's pgoff is the runtime _text: the difference to the
	 * table's _text is the KASLR slide between the two boots.  Modules
	 * are placed independently, so only core text moves by it. */
	if (map && map->pgoff && k->have_text) {
		delta = map->pgoff - k->text;
	}
	if (map && map->pgoff && k->vm_have_text)
		vm_delta = map->pgoff - k->vm_text;
	if (map && (delta || k->vm)) {
		lo = map->start;
		hi = map->end;
	}
	for (pd_kview *v = k->views; v; v = v->next)
		if (v->delta == delta && v->vm_delta == vm_delta && v->core_lo == lo &&
		    v->core_hi == hi)
			return v;
	pd_kview *v = calloc(1, sizeof *v);
	if (!v)
		return NULL;
	*v = (pd_kview){ .next = k->views, .ks = k, .delta = delta, .vm_delta = vm_delta,
			 .core_lo = lo, .core_hi = hi };
	k->views = v;
	return v;
}

bool pd_symbolizer_kernel_loading(pd_symbolizer *z)
{
	return z && !z->kernels && pd_prefetch_kallsyms_loading(z);
}

const pd_symres *pd_symbolizer_kernel(pd_symbolizer *z, const pd_map *kernel_map,
				      const uint8_t *build_id, size_t build_id_size,
				      uint64_t addr)
{
	if (!z)
		return pd_symres_unknown(NULL, addr);
	pd_kstate *k = kstate_for(z, build_id, build_id ? build_id_size : 0);
	pd_kview *v = k ? kview_for(k, kernel_map) : NULL;
	if (!v)
		return pd_symres_unknown(z, addr);
	const pd_symres *hit = pd_symhash_get(&z->kresults, (uintptr_t)v, addr);
	if (hit)
		return hit;

	const pd_kallsym *s = NULL;
	uint64_t delta = 0;
	bool in_core = addr >= v->core_lo && addr < v->core_hi;
	if (k->vm && in_core) {
		delta = v->vm_delta;
		s = pd_kallsyms_find(k->vm, addr - delta);
	}
	if (!s && k->ks) {
		bool core = v->delta && in_core;
		delta = core ? v->delta : 0;
		s = pd_kallsyms_find(k->ks, addr - delta);
	}
	const pd_symres *res;
	pd_symframe *f;
	pd_symres *r = s ? pd_symres_new(z, 1, &f) : NULL;
	if (r) {
		r->addr = addr;
		r->sym_start = s->start + delta;
		f[0].raw = s->name;
		f[0].name = s->name;
		res = r;
	} else {
		res = pd_symres_unknown(z, addr);
	}
	pd_symhash_put(&z->kresults, (uintptr_t)v, addr, (void *)res);
	return res;
}

const pd_symres *pd_symbolizer_jit(pd_symbolizer *z, uint32_t pid, uint64_t addr)
{
	if (!z)
		return pd_symres_unknown(NULL, addr);
	pd_jitstate *j = pd_symhash_get(&z->jits, pid, 0);
	if (!j) {
		j = calloc(1, sizeof *j);
		if (!j || pd_symhash_put(&z->jits, pid, 0, j) < 0) {
			free(j);
			return pd_symres_unknown(z, addr);
		}
		char path[4200];
		snprintf(path, sizeof path, "%s/perf-%u.map", z->cfg.jit_dir, pid);
		pd_error e;
		e.message[0] = '\0'; /* PD_ENOMEM may come back without words */
		if (pd_jitmap_load(&j->map, path, &e) < 0) {
			j->map = NULL;
			pd_symbolizer_warn(z, PD_WARN_NOT_FOUND, "%s: %s; JIT frames stay [unknown]", path,
					   e.message[0] ? e.message : "cannot be read");
		}
	}
	const pd_symres *hit = pd_symhash_get(&z->jresults, (uintptr_t)j, addr);
	if (hit)
		return hit;
	const pd_jitsym *s = j->map ? pd_jitmap_find(j->map, addr) : NULL;
	const pd_symres *res;
	pd_symframe *f;
	pd_symres *r = s ? pd_symres_new(z, 1, &f) : NULL;
	if (r) {
		r->addr = addr;
		r->sym_start = s->start;
		f[0].raw = s->name;
		f[0].name = pd_symbolizer_display(z, s->name);
		res = r;
	} else {
		res = pd_symres_unknown(z, addr);
	}
	pd_symhash_put(&z->jresults, (uintptr_t)j, addr, (void *)res);
	return res;
}

/* ---- symbol facts: the files kernel frames were named from ---- */

/* The module a kernel dso is ("[ext4]", "/lib/modules/.../nf-nat.ko.xz"
 * → "ext4", "nf_nat", as kallsyms spells it); false for other names. */
static bool module_name(const char *dso, char *out, size_t n)
{
	const char *b = strrchr(dso, '/');
	b = b ? b + 1 : dso;
	if (*b == '[')
		b++;
	size_t len = strcspn(b, dso[0] == '[' ? "]." : ".");
	if (len == 0 || len >= n || (dso[0] == '[' && b[len] != ']') ||
	    strcmp(dso, "[bpf_prog]") == 0 || strcmp(dso, "[unknown]") == 0)
		return false;
	for (size_t i = 0; i < len; i++)
		out[i] = b[i] == '-' ? '_' : b[i];
	out[len] = '\0';
	return true;
}

bool pd_symbolizer_kernel_origin(pd_symbolizer *z, pd_symorigin *out)
{
	memset(out, 0, sizeof *out);
	pd_kstate *k = z->kernels;
	if (!k)
		return false;
	/* a session reads one kernel: the first build named */
	out->build_id = k->build_id;
	out->build_id_size = k->build_id_size;
	out->from = k->ks ? k->ks_from : NULL;
	out->vmlinux = k->vm ? k->vm_label : NULL;
	return true;
}

int pd_symbolizer_kernel_sources(pd_symbolizer *z, const char *dso, pd_symsrc_fn fn, void *ctx)
{
	char mod[128];
	bool core = strcmp(dso, "[kernel.kallsyms]") == 0;
	if (!core && !module_name(dso, mod, sizeof mod))
		return 0;
	for (pd_kstate *k = z->kernels; k; k = k->next) {
		const char *vm = core && k->vm ? k->vm_path : NULL;
		/* a tarball's table goes with the symbolizer, and the facts
		 * read their files later: unknown */
		bool mine = k->ks && k->ks_path && !pd_symarchive_owns(k->ks_path);
		if (!mine && !vm)
			continue;
		pd_symsrc src = { .kind = PD_SYMSRC_KALLSYMS, .kallsyms = mine ? k->ks_path : NULL,
				  .vmlinux = vm, .module = core ? NULL : mod, .kflags = k->ks_flags };
		int rc = fn(ctx, &src);
		if (rc < 0)
			return rc;
	}
	return 0;
}
