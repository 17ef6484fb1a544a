/*
 * Interfaces between the parts of the pprof stage:
 *
 *   profile.proto  pprof's messages; protoc-c makes profile.pb-c.[ch]
 *   gzip.c      inflating (capped) and deflating with zlib
 *   prescan.c   the message's wire format counted and its decoded size
 *               estimated, before protobuf-c allocates anything
 *   decode.c    bytes → the Profile message, memory capped
 *   check.c     the message's ids and string indexes, all checked first
 *   lookup.c    id → entry maps of a checked message
 *   events.c    sample types ↔ events, and the comments an export adds
 *   import.c    a checked message → a run (profile/builder.h)
 *   head.c      an export's sample types, period and comments
 *   export.c    a profile → the message, from its trees
 *   sites.c     ... or from its sites: Locations per address, pid/tid labels
 *   samples.c   the export's samples, one per (stack, labels)
 *   tables.c    the export's string table, mappings, functions, locations
 *   api.c       the public calls (perfdiff/pprof.h) that read and write pprof
 *   base.h      what is built without protobuf-c and zlib too:
 *   detect.c    ... content sniffing,
 *   input.c     ... the export's options, reading either kind of input
 *   none.c      (PERFDIFF_PPROF=OFF only) the rest, refused
 *   handle.c    pd_pprof: a file held open as it is, its fields (handle.h)
 *   walk.c      ... and its samples one at a time, frames expanded
 *
 * Everything that reads a file's data goes through check.c first, so the
 * import can index arrays without checking again.
 */
#ifndef PD_PPROF_INTERNAL_H
#define PD_PPROF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base.h"
#include "perfdiff/pprof.h"
#include "perfdiff/reader.h"
#include "profile.pb-c.h"
#include "profile/builder.h"
#include "profile/sites.h"
#include "util/u64map.h"
#include "util/util.h"

typedef Perftools__Profiles__Profile pp_profile;
typedef Perftools__Profiles__Sample pp_sample;
typedef Perftools__Profiles__Location pp_location;
typedef Perftools__Profiles__Function pp_function;
typedef Perftools__Profiles__Mapping pp_mapping;
typedef Perftools__Profiles__ValueType pp_valuetype;
typedef Perftools__Profiles__Label pp_label;
typedef Perftools__Profiles__Line pp_line;

/* Caps on one input (docs/pprof.md): a hostile file is refused before it
 * can make the reader allocate or walk more.  The byte caps are the
 * reader options' (pd_reader_options.max_pprof_bytes, max_pprof_memory);
 * the counts are the format's. */
#define PP_MAX_STRINGS ((size_t)1 << 24)
#define PP_MAX_ENTRIES ((size_t)1 << 26)    /* samples, locations, ... each */
#define PP_MAX_DEPTH 4096                    /* locations of a sample */
#define PP_MAX_LINES 256                     /* lines of a location */
#define PP_MAX_TYPES 64                      /* sample types */
#define PP_MAX_ID ((uint64_t)1 << 40)

/* Frame names of unresolved frames, as the profile names them. */
#define PP_ADDR_NAME_LEN 18                  /* "0x" and 16 hex digits */
/* Whether `s` is such a name: how an export names an unresolved frame. */
static inline bool pp_is_addr_name(const char *s)
{
	return strlen(s) == PP_ADDR_NAME_LEN && strncmp(s, "0x", 2) == 0 &&
	       strspn(s + 2, "0123456789abcdef") == 16;
}

/* The byte caps of one input, from the reader options. */
typedef struct pp_caps {
	size_t max_bytes;            /* protobuf after gunzip, and the file */
	size_t max_memory;           /* the message decoded */
} pp_caps;
/* `o`'s caps (NULL: PD_READER_OPTIONS_INIT's). */
void pp_caps_of(pp_caps *c, const pd_reader_options *o);

/* gzip.c (pp_gunzip_head() and pp_is_gzip(): base.h).  Inflate a gzip stream (members one after another) of at most `cap`
 * bytes into *out (malloc'd).  0, PD_ECORRUPT (truncated or bad data, at
 * its input offset), PD_ELIMIT (beyond `cap`) or PD_ENOMEM, under `name`. */
int pp_gunzip(const uint8_t *in, size_t n, size_t cap, uint8_t **out, size_t *outn,
	      const char *name, pd_error *err);
/* Deflate `in` as one gzip member into `b`.  0 or PD_ENOMEM. */
int pp_gzip(const uint8_t *in, size_t n, pd_buf *b);

/* decode.c.  The Profile in `data` (gzip or raw) within `caps`: free with
 * pp_profile_free().  0, PD_ECORRUPT, PD_ELIMIT or PD_ENOMEM. */
int pp_decode(const uint8_t *data, size_t n, const char *name, const pp_caps *caps,
	      pp_profile **out, pd_error *err);
void pp_profile_free(pp_profile *m);
/* decode.c's counting allocator puts this many bytes in front of a block. */
#define PP_ALLOC_HDR 16
/* What an allocation of `n` bytes costs, as decode.c's counting
 * allocator charges it and prescan.c estimates it: the bytes, the
 * allocator's header and malloc's own (glibc: 8 bytes of size, 16-byte
 * steps, 32 at least). */
static inline size_t pp_alloc_cost(size_t n)
{
	if (n > SIZE_MAX / 2)
		return SIZE_MAX;
	size_t c = (n + PP_ALLOC_HDR + 8 + 15) & ~(size_t)15;
	return c < 32 ? 32 : c;
}

/* prescan.c.  Walk the Profile of `n` bytes at `buf` over its wire format
 * without allocating: the entries of each repeated field counted against
 * their caps, and what protobuf-c takes to decode it (pp_alloc_cost() of
 * each of its allocations) against `max_memory`.  0 with the estimate in
 * *need, or PD_ECORRUPT (malformed) / PD_ELIMIT (a cap) with the bare
 * reason in `err` and in *at the byte offset of the field at fault. */
int pp_prescan(const uint8_t *buf, size_t n, size_t max_memory, size_t *need, size_t *at,
	       pd_error *err);

/* lookup.c.  Entries by id, of a message pp_check() passed. */
typedef struct pp_index {
	pd_u64map loc, fn, map;   /* id → entry pointer */
} pp_index;
/* 0, PD_ECORRUPT (an id twice, in `err`) or PD_ENOMEM. */
int pp_index_build(pp_index *ix, const pp_profile *m, const char *name, pd_error *err);
void pp_index_free(pp_index *ix);
const char *pp_str(const pp_profile *m, int64_t i);

/* check.c.  Every index and count of `m` checked, every id it refers to
 * in `ix`: 0 or PD_ECORRUPT / PD_ELIMIT naming the message, entry and
 * field. */
int pp_check(const pp_profile *m, const pp_index *ix, const char *name, pd_error *err);

/* events.c.  One event of an input: which values of a sample are its
 * sample count and period. */
typedef struct pp_event {
	int samples_at, period_at;   /* value indexes; -1: none (count 1 / period = samples) */
	uint32_t type;
	uint64_t config;
	const char *pmu, *name;      /* strings of the message, or static */
} pp_event;

/* The run facts an export wrote in its comments. */
typedef struct pp_runinfo {
	pd_pbuild_run run;
	bool from_perfdiff;          /* a "perfdiff" comment was there */
} pp_runinfo;

/* The events of `m` (at most PP_MAX_TYPES) into `ev`, *nev of them. */
int pp_events(const pp_profile *m, pp_event *ev, size_t *nev, const char *name,
	      pd_error *err);
/* The run facts of `m`'s comments and header fields. */
void pp_runinfo_read(const pp_profile *m, pp_runinfo *ri);
/* The comment lines of event `ev` / of the run, written by export.c. */
#define PP_EVENT_COMMENT "perfdiff.event "
#define PP_RUN_COMMENT "perfdiff.run "
/* The comments of perf's header facts, one a field of pd_run_info, each
 * the prefix then the value ("perf version 6.1.187", "kernel 6.1.0-9"). */
typedef struct pp_infokey {
	const char *prefix;
	size_t off;                  /* offsetof(pd_run_info, the field) */
} pp_infokey;
#define PP_NINFOKEYS 5
extern const pp_infokey pp_info_keys[PP_NINFOKEYS];
static inline const char **pp_info_field(pd_run_info *ri, const pp_infokey *k)
{
	return (const char **)((char *)ri + k->off);
}

/* import.c.  `m`, checked, as one more run of `p` named `name`. */
int pp_import(pd_profile *p, const pp_profile *m, const pp_index *ix, const char *name,
	      pd_error *err);

/* tables.c: the export's tables, interned as it goes. */
typedef struct pp_tables {
	pd_u64map strs;              /* string hash → index + 1 (chained by probe) */
	char **str;                  /* the string table, owned */
	size_t nstr, cap_str;
	pd_u64map fn_of_frame;       /* frame key hash → function id */
	void **fkeys;                /* the frame key of each function */
	size_t cap_fkeys;
	pd_u64map loc_of_chain;      /* chain hash → location id */
	pd_u64map map_of_dso;        /* (dso, kernel) → mapping id */
	pd_u64map map_of_site;       /* the profile's site map + 1 → mapping id */
	pp_function **fn;
	size_t nfn, cap_fn;
	pp_location **loc;
	size_t nloc, cap_loc;
	pp_mapping **map;
	size_t nmap, cap_map;
	pd_arena arena;              /* the entries and their line arrays */
	const pd_profile *p;         /* the profile exported, for build-ids */
	size_t run;                  /* the run exported (SIZE_MAX: all) */
} pp_tables;

void pp_tables_init(pp_tables *t);
void pp_tables_free(pp_tables *t);
/* The index of `s` in the string table, added if new; -1 without memory. */
int64_t pp_tables_str(pp_tables *t, const char *s);
/* The location of the inline chain nodes[0] (innermost) .. nodes[n-1]
 * (the function it lies in): 0 without memory. */
uint64_t pp_tables_location(pp_tables *t, const pd_cct_node *const *nodes, size_t n);
/* The same for a chain at sites[0..n) (profile/sites.h, all of one
 * address): one Location per (mapping, address, chain), in the Mapping of
 * the recording's map, functions keyed by raw name too.  0 without memory;
 * pp_tables_location()'s made-up place when the map would read as the
 * wrong mode (kernel or not) on import. */
uint64_t pp_tables_site_location(pp_tables *t, const pd_cct_node *const *nodes,
				 const struct pd_site *sites, size_t n);

/* samples.c: the export's samples. */
typedef struct pp_labels {
	const char *comm;
	bool has_pid, has_cpu, timed;
	uint32_t pid, tid, cpu, block;
} pp_labels;

typedef struct pp_samples {
	pp_sample **v;
	size_t n, cap;
	pd_u64map of;                /* (locations, labels) hash → index + 1 */
	size_t ntypes;
	int64_t k_comm, k_block, k_pid, k_tid, k_cpu;
} pp_samples;

void pp_samples_init(pp_samples *s, size_t ntypes);
void pp_samples_free(pp_samples *s);
/* Add (samples, period) at values[slot], [slot + 1] of the sample of
 * locations loc[0..nloc) (leaf first) and labels `l`.  0, PD_ENOMEM or
 * PD_ELIMIT (a value beyond int64). */
int pp_samples_add(pp_samples *s, pp_tables *t, const uint64_t *loc, size_t nloc,
		   const pp_labels *l, size_t slot, uint64_t samples, uint64_t period);

/* sites.c.  Event `ev`'s samples from the profile's sites
 * (pd_profile_has_sites()), of run `run` (SIZE_MAX: all), at value slot
 * `slot`.  0, PD_ENOMEM, PD_ELIMIT. */
int pp_export_sites(pp_samples *s, pp_tables *t, const pd_profile *p, size_t ev, size_t run,
		    size_t slot, bool timed);

/* head.c: the Profile's fields besides samples and tables. */
typedef struct pp_head {
	size_t *evs, nev;            /* the events written, in sample-type order */
	pp_valuetype **types;
	size_t ntypes;
	int64_t *comments;
	size_t ncomments;
	pp_valuetype *period_type;   /* NULL: no event with samples */
	int64_t period, default_type;
} pp_head;

/* The fields of `o`'s run of `p`, strings interned in `t`.  0 or
 * PD_ENOMEM. */
int pp_head_build(pp_head *h, pp_tables *t, pd_profile *p, const pd_pprof_write_options *o);
void pp_head_free(pp_head *h);

/* export.c.  `p` as a packed Profile (gzipped as `o` says) in `b`. */
int pp_export(pd_profile *p, const pd_pprof_write_options *o, pd_buf *b, pd_error *err);

#endif
