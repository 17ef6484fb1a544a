/*
 * The address-space model: hand-built record sequences whose outcome is
 * worked out by hand (ld.so's overlapping maps, fork, threads, exec, the
 * kernel's maps, KSYMBOL, dso identities), then a real recording replayed
 * through the reader and the machine, every sample's dso compared with
 * what `perf script` says.
 */
#include "testutil.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/machine.h"

#define R 1u
#define W 2u
#define X 4u
#define KTEXT 0xffffffff81000000ull

/* ---------------------------------------------------------------- records */

static pd_record mmap2(uint32_t pid, uint64_t addr, uint64_t len, uint64_t pgoff,
		       uint32_t prot, const char *name)
{
	pd_record r = { .type = PD_RECORD_MMAP2, .misc = PD_CPUMODE_USER, .attr = -1 };
	r.u.mmap = (pd_mmap){ .pid = pid, .tid = pid, .addr = addr, .len = len,
			      .pgoff = pgoff, .prot = prot, .filename = name };
	return r;
}

/* An old-style MMAP: no prot, data maps flagged in misc. */
static pd_record mmap1(uint32_t pid, uint64_t addr, uint64_t len, uint64_t pgoff,
		       bool data, const char *name)
{
	pd_record r = { .type = PD_RECORD_MMAP, .attr = -1,
			.misc = (uint16_t)(PD_CPUMODE_USER | (data ? PD_MISC_MMAP_DATA : 0)) };
	r.u.mmap = (pd_mmap){ .pid = pid, .tid = pid, .addr = addr, .len = len,
			      .pgoff = pgoff, .filename = name };
	return r;
}

static pd_record kmmap(uint64_t addr, uint64_t len, uint64_t pgoff, const char *name)
{
	pd_record r = { .type = PD_RECORD_MMAP, .misc = PD_CPUMODE_KERNEL, .attr = -1 };
	r.u.mmap = (pd_mmap){ .pid = UINT32_MAX, .addr = addr, .len = len,
			      .pgoff = pgoff, .filename = name };
	return r;
}

static pd_record task(uint32_t type, uint32_t pid, uint32_t ppid, uint32_t tid,
		      uint32_t ptid, uint16_t misc)
{
	pd_record r = { .type = type, .misc = misc, .attr = -1 };
	r.u.task = (pd_task){ .pid = pid, .ppid = ppid, .tid = tid, .ptid = ptid };
	return r;
}

static pd_record comm(uint32_t pid, uint32_t tid, const char *name, bool exec)
{
	pd_record r = { .type = PD_RECORD_COMM, .attr = -1,
			.misc = (uint16_t)(PD_CPUMODE_USER | (exec ? PD_MISC_COMM_EXEC : 0)) };
	r.u.comm = (pd_comm){ .pid = pid, .tid = tid, .comm = name, .exec = exec };
	return r;
}

static pd_record ksym(uint64_t addr, uint32_t len, bool unregister, const char *name)
{
	pd_record r = { .type = PD_RECORD_KSYMBOL, .misc = PD_CPUMODE_KERNEL, .attr = -1 };
	r.u.ksymbol = (pd_ksymbol){ .addr = addr, .len = len, .ksym_type = 1,
				    .flags = unregister ? 1 : 0, .name = name };
	return r;
}

static void apply(pd_machine *m, pd_record r)
{
	ck_assert_int_eq(pd_machine_apply(m, &r), 0);
}

/* The map at addr must be [start, end) @ pgoff of `dso`. */
static void expect_map(pd_machine *m, uint32_t pid, uint8_t mode, uint64_t addr,
		       uint64_t start, uint64_t end, uint64_t pgoff, const char *dso)
{
	const pd_map *map = pd_machine_find_map(m, pid, mode, addr);
	ck_assert_msg(map, "pid %u addr %#llx: no map", pid, (unsigned long long)addr);
	ck_assert_msg(map->start == start && map->end == end && map->pgoff == pgoff,
		      "pid %u addr %#llx: [%#llx, %#llx) @ %#llx, want [%#llx, %#llx) @ %#llx",
		      pid, (unsigned long long)addr, (unsigned long long)map->start,
		      (unsigned long long)map->end, (unsigned long long)map->pgoff,
		      (unsigned long long)start, (unsigned long long)end,
		      (unsigned long long)pgoff);
	ck_assert_str_eq(map->dso->name, dso);
}

static void expect_none(pd_machine *m, uint32_t pid, uint8_t mode, uint64_t addr)
{
	const pd_map *map = pd_machine_find_map(m, pid, mode, addr);
	ck_assert_msg(!map, "pid %u addr %#llx: unexpected map of %s", pid,
		      (unsigned long long)addr, map ? map->dso->name : "");
}

static pd_machine *machine(const pd_header_info *info)
{
	pd_machine *m = NULL;
	ck_assert_int_eq(pd_machine_new(&m, info), 0);
	ck_assert_ptr_nonnull(m);
	return m;
}

#define U PD_CPUMODE_USER
#define K PD_CPUMODE_KERNEL

/* --------------------------------------------------------------- overlaps */

/*
 * glibc's ld.so: the whole file read-only at pgoff 0, then the segments
 * MAP_FIXED over it.  Only the r-x segment may answer for its addresses,
 * and the read-only remainder must answer for nothing.
 */
START_TEST(ld_so_pattern)
{
	pd_machine *m = machine(NULL);
	const char *libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	apply(m, mmap2(100, 0x7f0000000000, 0x1d8000, 0, R, libc));
	apply(m, mmap2(100, 0x7f0000026000, 0x156000, 0x26000, R | X, libc));
	apply(m, mmap2(100, 0x7f000017c000, 0x53000, 0x17c000, R, libc));
	apply(m, mmap2(100, 0x7f00001cf000, 0x4000, 0x1ce000, R | W, libc));
	expect_none(m, 100, U, 0x7f0000000000);
	expect_none(m, 100, U, 0x7f0000025fff);
	expect_map(m, 100, U, 0x7f0000026000, 0x7f0000026000, 0x7f000017c000, 0x26000, libc);
	expect_map(m, 100, U, 0x7f000017bfff, 0x7f0000026000, 0x7f000017c000, 0x26000, libc);
	expect_none(m, 100, U, 0x7f000017c000);
	expect_none(m, 100, U, 0x7f00001d0000);
	expect_none(m, 101, U, 0x7f0000026000);   /* no such process */

	/*
	 * An old-layout library: the whole file mapped r-x, the data segment
	 * MAP_FIXED (rw-) over its tail: code stays, the data part is cut
	 * out, and the piece beyond it keeps its file offsets.
	 */
	const char *old = "/opt/old.so";
	apply(m, mmap2(100, 0x10000, 0x30000, 0, R | X, old));
	apply(m, mmap2(100, 0x30000, 0x2000, 0x20000, R | W, old));
	expect_map(m, 100, U, 0x2ffff, 0x10000, 0x30000, 0, old);
	expect_none(m, 100, U, 0x30000);
	expect_none(m, 100, U, 0x31fff);
	expect_map(m, 100, U, 0x32000, 0x32000, 0x40000, 0x22000, old);
	expect_none(m, 100, U, 0x40000);

	pd_machine_stats st;
	pd_machine_get_stats(m, &st);
	ck_assert_uint_eq(st.maps, 2);   /* only the executable ones are kept */
	ck_assert_uint_eq(st.processes, 1);
	pd_machine_free(m);
}
END_TEST

/* One new map over many old ones: middle split, whole drops, both ends cut. */
START_TEST(overlap_splitting)
{
	pd_machine *m = machine(NULL);
	apply(m, mmap2(7, 0x1000, 0x8000, 0, R | X, "/a"));             /* [1000, 9000) */
	apply(m, mmap2(7, 0x3000, 0x2000, 0x100000, R | X, "/b"));      /* inside: split */
	expect_map(m, 7, U, 0x1000, 0x1000, 0x3000, 0, "/a");
	expect_map(m, 7, U, 0x2fff, 0x1000, 0x3000, 0, "/a");
	expect_map(m, 7, U, 0x3000, 0x3000, 0x5000, 0x100000, "/b");
	expect_map(m, 7, U, 0x5000, 0x5000, 0x9000, 0x4000, "/a");
	expect_map(m, 7, U, 0x8fff, 0x5000, 0x9000, 0x4000, "/a");
	expect_none(m, 7, U, 0x9000);
	expect_none(m, 7, U, 0xfff);

	apply(m, mmap2(7, 0x9000, 0x1000, 0, R | X, "/c"));              /* adjacent */
	/* [0x2000, 0x9800) swallows /b, cuts /a on both sides and /c's head */
	apply(m, mmap1(7, 0x2000, 0x7800, 0x40000, false, "/d"));
	expect_map(m, 7, U, 0x1fff, 0x1000, 0x2000, 0, "/a");
	expect_map(m, 7, U, 0x2000, 0x2000, 0x9800, 0x40000, "/d");
	expect_map(m, 7, U, 0x97ff, 0x2000, 0x9800, 0x40000, "/d");
	expect_map(m, 7, U, 0x9800, 0x9800, 0xa000, 0x800, "/c");
	expect_none(m, 7, U, 0xa000);

	/* An old MMAP flagged as data is not kept but replaces the code. */
	apply(m, mmap1(7, 0x1800, 0x1000, 0, true, "/data"));
	expect_map(m, 7, U, 0x17ff, 0x1000, 0x1800, 0, "/a");
	expect_none(m, 7, U, 0x1800);
	expect_none(m, 7, U, 0x27ff);
	expect_map(m, 7, U, 0x2800, 0x2800, 0x9800, 0x40800, "/d");

	/* The same range again: a plain replacement. */
	apply(m, mmap2(7, 0x2800, 0x7000, 0, R | X, "/e"));
	expect_map(m, 7, U, 0x2800, 0x2800, 0x9800, 0, "/e");
	expect_map(m, 7, U, 0x9800, 0x9800, 0xa000, 0x800, "/c");

	/* A map reaching the top of the address space does not wrap. */
	apply(m, mmap2(7, 0x7ffffffff000, UINT64_MAX, 0, R | X, "/top"));
	expect_map(m, 7, U, 0x7ffffffff000, 0x7ffffffff000, UINT64_MAX, 0, "/top");
	/* zero-length maps are ignored */
	apply(m, mmap2(7, 0x100, 0, 0, R | X, "/empty"));
	expect_none(m, 7, U, 0x100);
	pd_machine_free(m);
}
END_TEST

/* -------------------------------------------------------- fork and exec */

START_TEST(fork_copies_maps)
{
	pd_machine *m = machine(NULL);
	apply(m, comm(100, 100, "parent", false));
	apply(m, mmap2(100, 0x400000, 0x1000, 0, R | X, "/bin/p"));
	apply(m, task(PD_RECORD_FORK, 200, 100, 200, 100, 0));
	ck_assert_str_eq(pd_machine_comm(m, 200, 200), "parent");
	const pd_map *a = pd_machine_find_map(m, 100, U, 0x400000);
	const pd_map *b = pd_machine_find_map(m, 200, U, 0x400000);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_eq(a->dso, b->dso);
	expect_map(m, 200, U, 0x400800, 0x400000, 0x401000, 0, "/bin/p");

	/* The copies are separate from then on, both ways. */
	apply(m, mmap2(200, 0x400000, 0x1000, 0, R | X, "/bin/child"));
	apply(m, mmap2(100, 0x500000, 0x1000, 0, R | X, "/lib/late.so"));
	expect_map(m, 100, U, 0x400000, 0x400000, 0x401000, 0, "/bin/p");
	expect_map(m, 200, U, 0x400000, 0x400000, 0x401000, 0, "/bin/child");
	expect_none(m, 200, U, 0x500000);
	expect_map(m, 100, U, 0x500000, 0x500000, 0x501000, 0, "/lib/late.so");

	/* perf's synthesized FORK (FORK_EXEC): the process's own MMAPs follow. */
	apply(m, task(PD_RECORD_FORK, 300, 100, 300, 100, PD_MISC_FORK_EXEC));
	expect_none(m, 300, U, 0x400000);
	ck_assert_str_eq(pd_machine_comm(m, 300, 300), "parent");

	/* A pid reused by a new process: the old maps are gone. */
	apply(m, task(PD_RECORD_EXIT, 200, 100, 200, 100, 0));
	expect_map(m, 200, U, 0x400000, 0x400000, 0x401000, 0, "/bin/child");
	apply(m, task(PD_RECORD_FORK, 200, 300, 200, 300, 0));
	expect_none(m, 200, U, 0x400000);

	pd_machine_stats st;
	pd_machine_get_stats(m, &st);
	ck_assert_uint_eq(st.processes, 4);   /* 100, 200, 300, 200 again */
	ck_assert_uint_eq(st.threads, 4);
	ck_assert_uint_eq(st.maps, 3);
	pd_machine_free(m);
}
END_TEST

START_TEST(threads_and_comm)
{
	pd_machine *m = machine(NULL);
	ck_assert_ptr_null(pd_machine_comm(m, 100, 100));
	ck_assert_str_eq(pd_machine_comm(m, 0, 0), "swapper");
	apply(m, comm(100, 100, "server", false));
	apply(m, mmap2(100, 0x1000, 0x1000, 0, R | X, "/srv"));
	apply(m, task(PD_RECORD_FORK, 100, 100, 101, 100, 0));
	ck_assert_str_eq(pd_machine_comm(m, 100, 101), "server");
	char name[16] = "worker-1";
	apply(m, comm(100, 101, name, false));
	strcpy(name, "XXXXXXX");   /* the machine keeps its own copy */
	ck_assert_str_eq(pd_machine_comm(m, 100, 101), "worker-1");
	ck_assert_str_eq(pd_machine_comm(m, 100, 100), "server");
	ck_assert_ptr_null(pd_machine_comm(m, 999, 101));   /* wrong pid */
	/* a thread shares the process's maps */
	expect_map(m, 100, U, 0x1000, 0x1000, 0x2000, 0, "/srv");
	/* equal names are one string */
	apply(m, task(PD_RECORD_FORK, 100, 100, 102, 101, 0));
	ck_assert_ptr_eq(pd_machine_comm(m, 100, 102), pd_machine_comm(m, 100, 101));
	/* a COMM for a thread never seen creates it */
	apply(m, comm(100, 103, "late", false));
	ck_assert_str_eq(pd_machine_comm(m, 100, 103), "late");
	/* exit keeps the name: samples of the thread can come later */
	apply(m, task(PD_RECORD_EXIT, 100, 100, 101, 101, 0));
	ck_assert_str_eq(pd_machine_comm(m, 100, 101), "worker-1");
	/* a reused tid in another process starts afresh */
	apply(m, task(PD_RECORD_FORK, 500, 500, 101, 500, 0));
	ck_assert_ptr_null(pd_machine_comm(m, 500, 101));
	ck_assert_ptr_null(pd_machine_comm(m, 100, 101));

	pd_machine_stats st;
	pd_machine_get_stats(m, &st);
	ck_assert_uint_eq(st.processes, 2);
	ck_assert_uint_eq(st.threads, 5);   /* 100, 101, 102, 103, 101 again */
	ck_assert_uint_eq(st.exec_resets, 0);
	pd_machine_free(m);
}
END_TEST

START_TEST(exec_resets_maps)
{
	pd_machine *m = machine(NULL);
	apply(m, comm(100, 100, "sh", false));
	apply(m, mmap2(100, 0x1000, 0x1000, 0, R | X, "/bin/sh"));
	apply(m, mmap2(100, 0x7000, 0x1000, 0, R | X, "/lib/libc"));
	apply(m, task(PD_RECORD_FORK, 200, 100, 200, 100, 0));
	apply(m, comm(200, 200, "ls", true));
	ck_assert_str_eq(pd_machine_comm(m, 200, 200), "ls");
	/* the new image has been entered: the old one is gone */
	pd_machine_note_sample(m, 200, U);
	expect_none(m, 200, U, 0x1000);
	expect_none(m, 200, U, 0x7000);
	/* the parent keeps its maps */
	expect_map(m, 100, U, 0x1000, 0x1000, 0x2000, 0, "/bin/sh");
	apply(m, mmap2(200, 0x5000, 0x1000, 0, R | X, "/bin/ls"));
	expect_map(m, 200, U, 0x5000, 0x5000, 0x6000, 0, "/bin/ls");
	expect_none(m, 200, U, 0x7000);
	/* a COMM without exec (prctl) keeps them */
	apply(m, comm(200, 200, "renamed", false));
	expect_map(m, 200, U, 0x5000, 0x5000, 0x6000, 0, "/bin/ls");

	pd_machine_stats st;
	pd_machine_get_stats(m, &st);
	ck_assert_uint_eq(st.exec_resets, 1);
	pd_machine_free(m);
}
END_TEST

/*
 * execve: after the COMM exec record the kernel is still loading the new
 * image (load_elf_binary...) and a kernel sample's user call chain holds the
 * old image's return addresses (libc's execve).  perf names them from the
 * old maps; the new MMAPs take precedence where they overlap.
 */
START_TEST(exec_keeps_previous_image)
{
	pd_machine *m = machine(NULL);
	apply(m, comm(100, 100, "sh", false));
	apply(m, mmap2(100, 0x1000, 0x1000, 0, R | X, "/bin/sh"));
	apply(m, mmap2(100, 0x7000, 0x2000, 0x10000, R | X, "/lib/libc"));
	apply(m, task(PD_RECORD_FORK, 200, 100, 200, 100, 0));
	pd_machine_note_sample(m, 200, U);   /* the child ran sh's code */
	apply(m, comm(200, 200, "ls", true));
	/* kernel sample in execve: old return address in libc's execve */
	pd_machine_note_sample(m, 200, K);
	expect_map(m, 200, U, 0x7123, 0x7000, 0x9000, 0x10000, "/lib/libc");
	expect_map(m, 200, K, 0x7123, 0x7000, 0x9000, 0x10000, "/lib/libc");
	expect_map(m, 200, U, 0x1000, 0x1000, 0x2000, 0, "/bin/sh");
	expect_none(m, 200, U, 0x3000);
	/* the new image's maps come first where they overlap */
	apply(m, mmap2(200, 0x8000, 0x1000, 0, R | X, "/bin/ls"));
	expect_map(m, 200, U, 0x8000, 0x8000, 0x9000, 0, "/bin/ls");
	expect_map(m, 200, U, 0x7fff, 0x7000, 0x9000, 0x10000, "/lib/libc");
	/* a data map of the new image hides the old code under it */
	apply(m, mmap2(200, 0x1000, 0x800, 0, R | W, "/etc/ld.so.cache"));
	expect_none(m, 200, U, 0x1000);
	expect_map(m, 200, U, 0x1800, 0x1800, 0x2000, 0x800, "/bin/sh");
	/* the parent's maps are untouched by the child's changes */
	expect_map(m, 100, U, 0x1000, 0x1000, 0x2000, 0, "/bin/sh");
	expect_map(m, 100, U, 0x8000, 0x7000, 0x9000, 0x10000, "/lib/libc");
	/* another process's user sample changes nothing for this one */
	pd_machine_note_sample(m, 100, U);
	expect_map(m, 200, U, 0x7123, 0x7000, 0x9000, 0x10000, "/lib/libc");
	/* the first user sample: the new image runs, the old one is gone */
	pd_machine_note_sample(m, 200, PD_CPUMODE_GUEST_USER);
	pd_machine_note_sample(m, 200, PD_CPUMODE_HYPERVISOR);
	expect_map(m, 200, U, 0x7123, 0x7000, 0x9000, 0x10000, "/lib/libc");
	pd_machine_note_sample(m, 200, U);
	expect_none(m, 200, U, 0x7123);
	expect_none(m, 200, K, 0x7123);
	expect_none(m, 200, U, 0x1800);
	expect_map(m, 200, U, 0x8000, 0x8000, 0x9000, 0, "/bin/ls");
	expect_map(m, 100, U, 0x7123, 0x7000, 0x9000, 0x10000, "/lib/libc");
	/* a later exec keeps this image in turn */
	apply(m, comm(200, 200, "ls2", true));
	expect_map(m, 200, U, 0x8000, 0x8000, 0x9000, 0, "/bin/ls");
	pd_machine_note_sample(m, 200, U);
	expect_none(m, 200, U, 0x8000);
	pd_machine_free(m);
}
END_TEST

/*
 * An exec of an exec with no user sample between them: only the image
 * being replaced now can be on the stack, the one before it is dropped.
 */
START_TEST(exec_of_exec)
{
	pd_machine *m = machine(NULL);
	apply(m, comm(100, 100, "a", false));
	apply(m, mmap2(100, 0x1000, 0x1000, 0, R | X, "/bin/a"));
	apply(m, comm(100, 100, "b", true));
	apply(m, mmap2(100, 0x5000, 0x1000, 0, R | X, "/bin/b"));
	expect_map(m, 100, U, 0x1000, 0x1000, 0x2000, 0, "/bin/a");
	pd_machine_note_sample(m, 100, K);
	apply(m, comm(100, 100, "c", true));
	expect_none(m, 100, U, 0x1000);
	expect_map(m, 100, U, 0x5000, 0x5000, 0x6000, 0, "/bin/b");
	apply(m, mmap2(100, 0x9000, 0x1000, 0, R | X, "/bin/c"));
	expect_map(m, 100, U, 0x9000, 0x9000, 0xa000, 0, "/bin/c");
	expect_map(m, 100, K, 0x5000, 0x5000, 0x6000, 0, "/bin/b");
	/* the exec'd process exits before running a user instruction, its pid
	 * is reused: nothing of the old images is left */
	apply(m, task(PD_RECORD_EXIT, 100, 100, 100, 100, 0));
	expect_map(m, 100, U, 0x5000, 0x5000, 0x6000, 0, "/bin/b");
	apply(m, task(PD_RECORD_FORK, 100, 1, 100, 1, 0));
	expect_none(m, 100, U, 0x5000);
	expect_none(m, 100, U, 0x9000);
	/* a process never seen, a sample of a pid never seen */
	pd_machine_note_sample(m, 4242, U);
	expect_none(m, 4242, U, 0x5000);

	pd_machine_stats st;
	pd_machine_get_stats(m, &st);
	ck_assert_uint_eq(st.exec_resets, 2);
	pd_machine_free(m);
}
END_TEST

/*
 * pd_machine_note_sample()'s map generation: what the session's memo of
 * named chains is keyed by.  It must change with every change to that
 * process's user maps, and with nothing that leaves them as they were.
 */
START_TEST(process_map_generation)
{
	pd_machine *m = machine(NULL);
	ck_assert_uint_eq(pd_machine_note_sample(m, 100, U), 0);   /* no such process */
	apply(m, comm(100, 100, "sh", false));
	uint64_t g = pd_machine_note_sample(m, 100, U);
	ck_assert_uint_ne(g, 0);
	apply(m, mmap2(100, 0x1000, 0x1000, 0, R | X, "/bin/sh"));
	uint64_t g1 = pd_machine_note_sample(m, 100, U);
	ck_assert_uint_ne(g1, g);
	/* samples, other processes, threads and names leave it */
	ck_assert_uint_eq(pd_machine_note_sample(m, 100, K), g1);
	apply(m, mmap2(300, 0x1000, 0x1000, 0, R | X, "/bin/other"));
	apply(m, task(PD_RECORD_FORK, 100, 100, 101, 100, 0));
	apply(m, comm(100, 101, "worker", false));
	apply(m, task(PD_RECORD_EXIT, 100, 100, 101, 101, 0));
	ck_assert_uint_eq(pd_machine_note_sample(m, 100, U), g1);
	/* a data map punches the code maps */
	apply(m, mmap2(100, 0x1800, 0x100, 0, R | W, "/etc/ld.so.cache"));
	uint64_t g2 = pd_machine_note_sample(m, 100, U);
	ck_assert_uint_ne(g2, g1);
	/* a child starts with its parent's maps, under a generation of its own */
	apply(m, task(PD_RECORD_FORK, 200, 100, 200, 100, 0));
	uint64_t c = pd_machine_note_sample(m, 200, K);
	ck_assert_uint_ne(c, 0);
	ck_assert_uint_ne(c, g2);
	/* exec: the maps go behind (one change), then the first user sample
	 * drops them (another); a kernel sample drops nothing */
	apply(m, comm(200, 200, "ls", true));
	uint64_t c1 = pd_machine_note_sample(m, 200, K);
	ck_assert_uint_ne(c1, c);
	ck_assert_uint_eq(pd_machine_note_sample(m, 200, K), c1);
	uint64_t c2 = pd_machine_note_sample(m, 200, U);
	ck_assert_uint_ne(c2, c1);
	ck_assert_uint_eq(pd_machine_note_sample(m, 200, U), c2);
	/* the parent's is untouched by all of it */
	ck_assert_uint_eq(pd_machine_note_sample(m, 100, U), g2);
	/* a reused pid is a new process */
	apply(m, task(PD_RECORD_EXIT, 200, 200, 200, 200, 0));
	ck_assert_uint_eq(pd_machine_note_sample(m, 200, U), c2);
	apply(m, task(PD_RECORD_FORK, 200, 1, 200, 1, 0));
	ck_assert_uint_ne(pd_machine_note_sample(m, 200, U), c2);
	pd_machine_free(m);
}
END_TEST

/* ----------------------------------------------------------------- kernel */

START_TEST(kernel_maps)
{
	pd_machine *m = machine(NULL);
	ck_assert_ptr_null(pd_machine_kernel_map(m));
	/* no kernel map yet: a kernel address still never falls to user maps */
	apply(m, mmap2(100, 0x1000, 0x1000, 0, R | X, "/bin/u"));
	expect_none(m, 100, K, KTEXT);
	expect_none(m, 100, U, KTEXT);

	apply(m, kmmap(KTEXT, 0x1209988, KTEXT, "[kernel.kallsyms]_text"));
	apply(m, kmmap(0xffffffffc0000000, 0x5000, 0, "/lib/modules/6.1/kernel/fs/xfs/xfs.ko"));
	apply(m, kmmap(0xffffffffc0010000, 0x3000, 0, "[virtio_net]"));
	apply(m, kmmap(0xffffffffc0020000, 0x3000, 0, "bogus-name"));   /* ignored */

	const pd_map *k = pd_machine_kernel_map(m);
	ck_assert_ptr_nonnull(k);
	ck_assert_uint_eq(k->start, KTEXT);
	ck_assert_uint_eq(k->end, KTEXT + 0x1209988);
	ck_assert_uint_eq(k->pgoff, KTEXT);
	ck_assert_str_eq(k->dso->name, "[kernel.kallsyms]");
	ck_assert(k->dso->kernel);

	ck_assert_ptr_eq(pd_machine_find_map(m, 100, K, KTEXT + 0x123), k);
	/* perf's fallback: a kernel address is kernel whatever the cpumode */
	ck_assert_ptr_eq(pd_machine_find_map(m, 100, U, KTEXT + 0x123), k);
	ck_assert_ptr_eq(pd_machine_find_map(m, 55555, PD_CPUMODE_UNKNOWN, KTEXT), k);
	expect_none(m, 100, K, KTEXT + 0x1209988);   /* past _etext */
	expect_none(m, 100, K, 0xfffffe0000001000);  /* cpu_entry_area: kernel, unmapped */

	const pd_map *xfs = pd_machine_find_map(m, 0, K, 0xffffffffc0004fff);
	ck_assert_ptr_nonnull(xfs);
	ck_assert_str_eq(xfs->dso->name, "/lib/modules/6.1/kernel/fs/xfs/xfs.ko");
	ck_assert(xfs->dso->kernel);
	expect_map(m, 0, K, 0xffffffffc0010000, 0xffffffffc0010000, 0xffffffffc0013000, 0,
		   "[virtio_net]");
	expect_none(m, 0, K, 0xffffffffc0005000);
	expect_none(m, 0, K, 0xffffffffc0020000);

	/* user addresses: the process's maps; kernel mode below the kernel
	 * falls back to them; the hypervisor has none */
	expect_map(m, 100, U, 0x1000, 0x1000, 0x2000, 0, "/bin/u");
	expect_map(m, 100, K, 0x1000, 0x1000, 0x2000, 0, "/bin/u");
	expect_none(m, 100, PD_CPUMODE_HYPERVISOR, 0x1000);
	expect_none(m, 100, U, 0x3000);
	/* the kernel's maps are not a process's */
	ck_assert(!pd_machine_find_map(m, 100, U, 0x1000)->dso->kernel);
	pd_machine_free(m);
}
END_TEST

/* kptr_restrict at record time: a text map at 0 must not swallow user space. */
START_TEST(kernel_map_at_zero)
{
	pd_machine *m = machine(NULL);
	apply(m, kmmap(0, UINT64_MAX, 0, "[kernel.kallsyms]_text"));
	apply(m, mmap2(100, 0x1000, 0x1000, 0, R | X, "/bin/u"));
	expect_map(m, 100, U, 0x1000, 0x1000, 0x2000, 0, "/bin/u");
	ck_assert_ptr_eq(pd_machine_find_map(m, 100, K, 0xffffffff81234567),
			 pd_machine_kernel_map(m));
	pd_machine_free(m);
}
END_TEST

/*
 * Which addresses count as kernel whatever the cpumode: above 2^63 for a
 * 64-bit kernel, even when perf 3.8 wrote its text map from 0x15600000
 * (pgoff, the runtime _stext, tells it is 64-bit); above _text for a
 * 32-bit one, whose map perf wrote up to 2^64 - 1.
 */
START_TEST(kernel_start_rules)
{
	pd_machine *m = machine(NULL);
	apply(m, kmmap(0x15600000, 0xffffffffaa9fffff, 0xffffffff96600198,
		       "[kernel.kallsyms]_stext"));
	apply(m, mmap2(13642, 0x7fe8cd000000, 0x4000000, 0, R | X, "/opt/google/chrome/chrome"));
	expect_map(m, 13642, U, 0x7fe8cfa4593e, 0x7fe8cd000000, 0x7fe8d1000000, 0,
		   "/opt/google/chrome/chrome");
	ck_assert_ptr_eq(pd_machine_find_map(m, 13642, U, 0xffffffff96613abf),
			 pd_machine_kernel_map(m));
	pd_machine_free(m);

	m = machine(NULL);
	apply(m, kmmap(0x80008200, 0xffffffff7fff7dff, 0x80008200, "[kernel.kallsyms]_stext"));
	apply(m, mmap2(1243, 0x8000, 0x10000, 0, R | X, "/bin/arm"));
	expect_map(m, 1243, U, 0x8000, 0x8000, 0x18000, 0, "/bin/arm");
	expect_none(m, 1243, U, 0x7fff0000);
	ck_assert_ptr_eq(pd_machine_find_map(m, 1243, U, 0xffff0fa0), pd_machine_kernel_map(m));
	ck_assert_ptr_eq(pd_machine_find_map(m, 1243, U, 0x80008200), pd_machine_kernel_map(m));
	pd_machine_free(m);
}
END_TEST

START_TEST(ksymbols)
{
	pd_machine *m = machine(NULL);
	char name[64] = "bpf_prog_6deef7357e7b4530_sd_fw_egress";
	apply(m, ksym(0xffffffffa0000000, 0x100, false, name));
	strcpy(name, "overwritten");
	apply(m, ksym(0xffffffffa0000100, 0x80, false, "bpf_trampoline_6442"));
	const pd_ksym *s = pd_machine_find_ksym(m, 0xffffffffa00000ff);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s->name, "bpf_prog_6deef7357e7b4530_sd_fw_egress");
	ck_assert_uint_eq(s->start, 0xffffffffa0000000);
	ck_assert_uint_eq(s->end, 0xffffffffa0000100);
	ck_assert_uint_eq(s->ksym_type, 1);
	ck_assert_str_eq(pd_machine_find_ksym(m, 0xffffffffa0000100)->name,
			 "bpf_trampoline_6442");
	ck_assert_ptr_null(pd_machine_find_ksym(m, 0xffffffffa0000180));
	ck_assert_ptr_null(pd_machine_find_ksym(m, 0xffffffff9fffffff));

	/* unregister, then the range is reused by another program */
	apply(m, ksym(0xffffffffa0000000, 0x100, true, "bpf_prog_6deef7357e7b4530_sd_fw_egress"));
	ck_assert_ptr_null(pd_machine_find_ksym(m, 0xffffffffa0000000));
	ck_assert_ptr_nonnull(pd_machine_find_ksym(m, 0xffffffffa0000100));
	apply(m, ksym(0xffffffffa0000040, 0x40, false, "bpf_prog_1_new"));
	ck_assert_str_eq(pd_machine_find_ksym(m, 0xffffffffa000007f)->name, "bpf_prog_1_new");
	ck_assert_ptr_null(pd_machine_find_ksym(m, 0xffffffffa000003f));
	/* a registration over a live range (its unload was lost) replaces it */
	apply(m, ksym(0xffffffffa00000f0, 0x20, false, "bpf_prog_2"));
	ck_assert_str_eq(pd_machine_find_ksym(m, 0xffffffffa0000100)->name, "bpf_prog_2");
	ck_assert_ptr_null(pd_machine_find_ksym(m, 0xffffffffa0000170));
	ck_assert_str_eq(pd_machine_find_ksym(m, 0xffffffffa0000040)->name, "bpf_prog_1_new");
	pd_machine_free(m);
}
END_TEST

/* ------------------------------------------------------------ dso identity */

static void fill_id(uint8_t *id, uint8_t v)
{
	for (int i = 0; i < 20; i++)
		id[i] = (uint8_t)(v + i);
}

static const pd_dso_id *dso_at(pd_machine *m, uint32_t pid, uint8_t mode, uint64_t addr)
{
	const pd_map *map = pd_machine_find_map(m, pid, mode, addr);
	ck_assert_msg(map, "pid %u addr %#llx: no map", pid, (unsigned long long)addr);
	return map->dso;
}

START_TEST(build_id_interning)
{
	pd_build_id bids[5] = {
		{ .pid = -1, .misc = U, .size = 20, .path = "/usr/lib/libc.so.6" },
		{ .pid = -1, .misc = K, .size = 20, .path = "[kernel.kallsyms]" },
		{ .pid = -1, .misc = U, .size = 20, .path = "/opt/x" },
		{ .pid = 300, .misc = U, .size = 20, .path = "/opt/x" },
		{ .pid = -1, .misc = U, .size = 0, .path = "/opt/nosize" },
	};
	fill_id(bids[0].id, 0xa0);
	fill_id(bids[1].id, 0x10);
	fill_id(bids[2].id, 0x20);
	fill_id(bids[3].id, 0x30);
	pd_header_info info = { .nr_build_ids = 5, .build_ids = bids };
	pd_machine *m = machine(&info);

	/* from the header, by path: two inodes, one build-id, one dso */
	pd_record r = mmap2(100, 0x1000, 0x1000, 0, R | X, "/usr/lib/libc.so.6");
	r.u.mmap.maj = 8;
	r.u.mmap.ino = 1;
	apply(m, r);
	r.u.mmap.pid = 101;
	r.u.mmap.ino = 2;
	apply(m, r);
	const pd_dso_id *libc = dso_at(m, 100, U, 0x1000);
	ck_assert_ptr_eq(dso_at(m, 101, U, 0x1000), libc);
	ck_assert_uint_eq(libc->build_id_size, 20);
	ck_assert_mem_eq(libc->build_id, bids[0].id, 20);
	ck_assert(!libc->kernel);

	/* MMAP2 with a build-id wins over the header */
	char path[64] = "/usr/lib/libc.so.6";
	r = mmap2(102, 0x1000, 0x1000, 0, R | X, path);
	r.misc |= PD_MISC_MMAP_BUILD_ID;
	r.u.mmap.build_id_size = 20;
	fill_id(r.u.mmap.build_id, 0xb0);
	apply(m, r);
	strcpy(path, "/garbage");
	const pd_dso_id *libc2 = dso_at(m, 102, U, 0x1000);
	ck_assert_ptr_ne(libc2, libc);
	ck_assert_str_eq(libc2->name, "/usr/lib/libc.so.6");
	ck_assert_uint_eq(libc2->build_id[0], 0xb0);
	/* the same bytes at another path are another dso, as in perf (which
	 * keys dsos by path): samples name the path their process mapped */
	r.u.mmap.pid = 103;
	r.u.mmap.filename = "/elsewhere/libc.so.6";
	apply(m, r);
	const pd_dso_id *moved = dso_at(m, 103, U, 0x1000);
	ck_assert_ptr_ne(moved, libc2);
	ck_assert_str_eq(moved->name, "/elsewhere/libc.so.6");
	ck_assert_mem_eq(moved->build_id, libc2->build_id, 20);
	/* a shorter build-id (MD5 style, 16 bytes) is another identity */
	r.u.mmap.pid = 104;
	r.u.mmap.build_id_size = 16;
	apply(m, r);
	const pd_dso_id *short_id = dso_at(m, 104, U, 0x1000);
	ck_assert_ptr_ne(short_id, libc2);
	ck_assert_uint_eq(short_id->build_id_size, 16);

	/* the entry with the process's pid first, else the host's */
	apply(m, mmap2(300, 0x1000, 0x1000, 0, R | X, "/opt/x"));
	apply(m, mmap2(301, 0x1000, 0x1000, 0, R | X, "/opt/x"));
	ck_assert_uint_eq(dso_at(m, 300, U, 0x1000)->build_id[0], 0x30);
	ck_assert_uint_eq(dso_at(m, 301, U, 0x1000)->build_id[0], 0x20);

	/* no build-id: path + device + inode; the inode generation is not
	 * compared (perf's synthesized maps leave it 0) */
	r = mmap2(400, 0x1000, 0x1000, 0, R | X, "/opt/nosize");
	r.u.mmap.maj = 254;
	r.u.mmap.ino = 42;
	apply(m, r);
	r.u.mmap.pid = 401;
	r.u.mmap.ino_generation = 77;
	apply(m, r);
	r.u.mmap.pid = 402;
	r.u.mmap.ino = 43;
	apply(m, r);
	r.u.mmap.pid = 403;
	r.u.mmap.ino = 42;
	r.u.mmap.min = 1;
	apply(m, r);
	const pd_dso_id *n400 = dso_at(m, 400, U, 0x1000);
	ck_assert_uint_eq(n400->build_id_size, 0);   /* size-0 entry ignored */
	ck_assert_uint_eq(n400->ino, 42);
	ck_assert_uint_eq(n400->maj, 254);
	ck_assert_ptr_eq(dso_at(m, 401, U, 0x1000), n400);
	ck_assert_ptr_ne(dso_at(m, 402, U, 0x1000), n400);
	ck_assert_ptr_ne(dso_at(m, 403, U, 0x1000), n400);
	ck_assert_ptr_ne(dso_at(m, 403, U, 0x1000), dso_at(m, 402, U, 0x1000));
	/* special names have no inode: one dso however many processes */
	apply(m, mmap2(400, 0x9000, 0x2000, 0, R | X, "[vdso]"));
	apply(m, mmap2(401, 0xa000, 0x2000, 0, R | X, "[vdso]"));
	ck_assert_ptr_eq(dso_at(m, 400, U, 0x9000), dso_at(m, 401, U, 0xa000));

	/* the kernel's: "[kernel.kallsyms]" entry of the header */
	apply(m, kmmap(KTEXT, 0x1000000, KTEXT, "[kernel.kallsyms]_text"));
	const pd_dso_id *kd = pd_machine_kernel_map(m)->dso;
	ck_assert_str_eq(kd->name, "[kernel.kallsyms]");
	ck_assert_uint_eq(kd->build_id_size, 20);
	ck_assert_mem_eq(kd->build_id, bids[1].id, 20);
	ck_assert(kd->kernel);
	/* a second text map (older perf's _stext) is the same dso */
	apply(m, kmmap(KTEXT, 0x1000000, KTEXT, "[kernel.kallsyms]_stext"));
	ck_assert_ptr_eq(pd_machine_kernel_map(m)->dso, kd);
	pd_machine_free(m);
}
END_TEST

/* Pipe mode: build-ids arrive while the machine runs; later maps see them. */
START_TEST(build_ids_growing)
{
	pd_build_id bids[2] = {
		{ .pid = -1, .size = 20, .path = "/bin/a" },
		{ .pid = -1, .size = 20, .path = "/bin/b" },
	};
	fill_id(bids[0].id, 1);
	fill_id(bids[1].id, 2);
	pd_header_info info = { .nr_build_ids = 1, .build_ids = bids };
	pd_machine *m = machine(&info);
	apply(m, mmap2(1, 0x1000, 0x1000, 0, R | X, "/bin/b"));
	ck_assert_uint_eq(dso_at(m, 1, U, 0x1000)->build_id_size, 0);
	info.nr_build_ids = 2;
	apply(m, mmap2(2, 0x1000, 0x1000, 0, R | X, "/bin/b"));
	ck_assert_uint_eq(dso_at(m, 2, U, 0x1000)->build_id[0], 2);
	/* the reader reallocated the array: it is indexed afresh */
	pd_build_id moved[2] = { bids[1], bids[0] };
	fill_id(moved[0].id, 7);
	info.build_ids = moved;
	apply(m, mmap2(4, 0x1000, 0x1000, 0, R | X, "/bin/b"));
	ck_assert_uint_eq(dso_at(m, 4, U, 0x1000)->build_id[0], 7);
	apply(m, mmap2(5, 0x1000, 0x1000, 0, R | X, "/bin/a"));
	ck_assert_uint_eq(dso_at(m, 5, U, 0x1000)->build_id[0], 1);
	info.nr_build_ids = 0;
	info.build_ids = NULL;
	apply(m, mmap2(3, 0x1000, 0x1000, 0, R | X, "/bin/a"));
	ck_assert_uint_eq(dso_at(m, 3, U, 0x1000)->build_id_size, 0);
	pd_machine_free(m);
}
END_TEST

/* Many processes and maps: the tables grow and everything is freed (ASan). */
START_TEST(many_processes)
{
	pd_machine *m = machine(NULL);
	char name[32];
	for (uint32_t pid = 1; pid <= 3000; pid++) {
		apply(m, task(PD_RECORD_FORK, pid, pid > 1 ? pid - 1 : 0, pid,
			      pid > 1 ? pid - 1 : 0, 0));
		snprintf(name, sizeof name, "/lib/l%u.so", pid % 50);
		apply(m, mmap2(pid, 0x10000ull * pid, 0x1000, 0, R | X, name));
	}
	/* each child inherited every map of its ancestors */
	for (uint32_t a = 1; a <= 3000; a += 333) {
		snprintf(name, sizeof name, "/lib/l%u.so", a % 50);
		expect_map(m, 3000, U, 0x10000ull * a, 0x10000ull * a,
			   0x10000ull * a + 0x1000, 0, name);
	}
	expect_none(m, 1, U, 0x20000);
	pd_machine_stats st;
	pd_machine_get_stats(m, &st);
	ck_assert_uint_eq(st.processes, 3000);
	ck_assert_uint_eq(st.maps, 3000);
	pd_machine_free(m);
}
END_TEST

/* --------------------------------------------------------- a real recording */

/* The name perf gives a dso: modules show as "[name]", '-' turned to '_'. */
static void perf_dso_name(const char *name, char *out, size_t n)
{
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	const char *ko = strstr(base, ".ko");
	if (name[0] == '/' && ko && strstr(name, "/lib/modules/")) {
		size_t len = (size_t)(ko - base);
		snprintf(out, n, "[%.*s]", (int)len, base);
		for (char *p = out; *p; p++)
			if (*p == '-')
				*p = '_';
		return;
	}
	snprintf(out, n, "%s", base);
}

/* Our dso name for an address, in perf's form. */
static void our_dso(const pd_machine *m, uint32_t pid, uint8_t mode, uint64_t addr,
		    char *out, size_t n)
{
	const pd_map *map = pd_machine_find_map(m, pid, mode, addr);
	if (map) {
		perf_dso_name(map->dso->name, out, n);
		return;
	}
	const pd_ksym *k = pd_machine_find_ksym(m, addr);
	snprintf(out, n, "%s", k ? k->name : "[unknown]");
}

typedef struct perf_line {
	uint64_t ip;
	char dso[256];
} perf_line;

/*
 * The "<hex ip> (<dso>)" lines of `perf script -F ip,dso`.  With call
 * chains a blank line ends each sample: ends[i] is the index after sample
 * i's last frame.
 */
static size_t parse_perf_script(char *text, perf_line **out, size_t **ends, size_t *nends)
{
	size_t cap = 1024, n = 0, ecap = 1024, ne = 0, blanks = 0;
	perf_line *v = malloc(cap * sizeof *v);
	size_t *e = malloc(ecap * sizeof *e);
	ck_assert(v && e);
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		while (isspace((unsigned char)*line))
			line++;
		if (!*line) {
			/* with these fields a sample prints an empty header line,
			 * its frames and a blank line: every second blank line
			 * ends a sample, also one whose chain has no frame */
			if (++blanks % 2)
				continue;
			if (ne == ecap) {
				ecap *= 2;
				e = realloc(e, ecap * sizeof *e);
				ck_assert_ptr_nonnull(e);
			}
			e[ne++] = n;
			continue;
		}
		char *open = strchr(line, '(');
		char *close = strrchr(line, ')');
		if (!open || !close || close < open)
			continue;
		if (n == cap) {
			cap *= 2;
			v = realloc(v, cap * sizeof *v);
			ck_assert_ptr_nonnull(v);
		}
		v[n].ip = strtoull(line, NULL, 16);
		*close = '\0';
		perf_dso_name(open + 1, v[n].dso, sizeof v[n].dso);
		n++;
	}
	*out = v;
	*ends = e;
	*nends = ne;
	return n;
}

static bool record_workload(const char *dir, char *data, size_t n)
{
	snprintf(data, n, "%s/x.data", dir);
	char cmd[8400];
	snprintf(cmd, sizeof cmd,
		 "perf record -N -e cpu-clock -g -o '%s' -- /bin/sh -c "
		 "'ls -R /usr/lib >/dev/null; sleep 0.01' >/dev/null 2>&1",
		 data);
	return pd_test_sh_ok(cmd);
}

static uint8_t marker_mode(uint64_t marker)
{
	switch (marker) {
	case PD_CONTEXT_HV: return PD_CPUMODE_HYPERVISOR;
	case PD_CONTEXT_KERNEL: return PD_CPUMODE_KERNEL;
	case PD_CONTEXT_USER: return PD_CPUMODE_USER;
	case PD_CONTEXT_GUEST_KERNEL: return PD_CPUMODE_GUEST_KERNEL;
	case PD_CONTEXT_GUEST_USER: return PD_CPUMODE_GUEST_USER;
	default: return PD_CPUMODE_UNKNOWN;
	}
}

typedef struct compare_counts {
	size_t samples, match, ipmiss, kernel, user, comm_match;
	size_t chains, chain_len_miss, frames, frame_match, perf_frames;
} compare_counts;

/*
 * Replay `data` through the reader and a machine; compare each sample's
 * leaf dso with `leaf` (perf script -G) and, when `chain` is given, every
 * call-chain frame with it (perf script with call chains; perf follows the
 * context markers' cpumode, starting from user).
 */
static void compare(const char *data, const perf_line *leaf, size_t nleaf,
		    const perf_line *chain, const size_t *ends, size_t nends,
		    char *const *comms, compare_counts *c, pd_machine_stats *ms)
{
	memset(c, 0, sizeof *c);
	pd_reader *r;
	pd_error err;
	ck_assert_int_eq(pd_reader_open(&r, data, NULL, &err), 0);
	pd_machine *m = machine(pd_reader_header(r));
	const pd_record *rec;
	int rc;
	size_t k = 0, shown = 0;
	while ((rc = pd_reader_next(r, &rec, &err)) == 0) {
		if (rec->type != PD_RECORD_SAMPLE) {
			ck_assert_int_eq(pd_machine_apply(m, rec), 0);
			continue;
		}
		const pd_sample *s = &rec->u.sample;
		uint8_t mode = rec->misc & PD_MISC_CPUMODE_MASK;
		pd_machine_note_sample(m, s->pid, mode);
		ck_assert_uint_lt(k, nleaf);
		/* perf names a thread it never saw ":TID" */
		const char *name = pd_machine_comm(m, s->pid, s->tid);
		char unnamed[32];
		if (!name) {
			snprintf(unnamed, sizeof unnamed, ":%d", (int)s->tid);
			name = unnamed;
		}
		c->comm_match += strcmp(name, comms[k]) == 0;
		char got[256];
		if (leaf[k].ip != s->ip) {
			c->ipmiss++;
		} else {
			our_dso(m, s->pid, mode, s->ip, got, sizeof got);
			if (strcmp(got, leaf[k].dso) == 0)
				c->match++;
			else if (shown++ < 20)
				fprintf(stderr, "sample %zu pid %u ip %#llx mode %u: ours %s, perf %s\n",
					k, s->pid, (unsigned long long)s->ip, mode, got,
					leaf[k].dso);
			if (mode == PD_CPUMODE_KERNEL)
				c->kernel++;
			else
				c->user++;
		}
		if (chain && k < nends) {
			size_t from = k ? ends[k - 1] : 0, nframes = 0;
			for (uint64_t i = 0; i < s->callchain_nr; i++)
				nframes += s->callchain[i] < PD_CONTEXT_MAX;
			c->chains++;
			c->perf_frames += ends[k] - from;
			if (nframes != ends[k] - from) {
				c->chain_len_miss++;
			} else {
				uint8_t cm = PD_CPUMODE_USER;
				size_t f = from;
				for (uint64_t i = 0; i < s->callchain_nr; i++) {
					uint64_t ip = s->callchain[i];
					if (ip >= PD_CONTEXT_MAX) {
						cm = marker_mode(ip);
						continue;
					}
					our_dso(m, s->pid, cm, ip, got, sizeof got);
					c->frames++;
					if (strcmp(got, chain[f].dso) == 0)
						c->frame_match++;
					else if (shown++ < 20)
						fprintf(stderr, "sample %zu frame %zu ip %#llx mode %u: "
							"ours %s, perf %s\n", k, f - from,
							(unsigned long long)ip, cm, got, chain[f].dso);
					f++;
				}
			}
		}
		k++;
	}
	ck_assert_int_eq(rc, PD_ITEROVER);
	c->samples = k;
	pd_machine_get_stats(m, ms);
	pd_machine_free(m);
	pd_reader_free(r);
}

static char *perf_script(const char *data, const char *args, perf_line **lines,
			 size_t *n, size_t **ends, size_t *nends)
{
	char cmd[8400];
	snprintf(cmd, sizeof cmd, "perf script %s -i '%s' 2>/dev/null", args, data);
	int st = -1;
	char *text = pd_test_run(cmd, &st);
	ck_assert_ptr_nonnull(text);
	ck_assert_int_eq(st, 0);
	*n = parse_perf_script(text, lines, ends, nends);
	return text;
}

/* `perf script -F comm`: one name per sample, into `out` (freed by the caller). */
static char *perf_comms(const char *data, size_t nsamples, char ***out)
{
	char cmd[8400];
	snprintf(cmd, sizeof cmd, "perf script -F comm -i '%s' 2>/dev/null", data);
	int st = -1;
	char *text = pd_test_run(cmd, &st);
	ck_assert_ptr_nonnull(text);
	ck_assert_int_eq(st, 0);
	char **v = calloc(nsamples + 1, sizeof *v);
	ck_assert_ptr_nonnull(v);
	size_t n = 0;
	for (char *line = text, *next; line && *line && n <= nsamples; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		while (*line == ' ')
			line++;
		size_t len = strlen(line);
		while (len && line[len - 1] == ' ')
			line[--len] = '\0';
		v[n++] = line;
	}
	ck_assert_uint_eq(n, nsamples);
	*out = v;
	return text;
}

START_TEST(real_recording_dsos)
{
	if (!pd_test_have_perf())
		PD_SKIP("perf not available");
	char *dir = pd_test_tmpdir();
	ck_assert_ptr_nonnull(dir);
	char data[4200];
	if (!record_workload(dir, data, sizeof data)) {
		pd_test_rmrf(dir);
		free(dir);
		PD_SKIP("perf record failed (perf_event_paranoid?)");
	}
	perf_line *leaf, *chain;
	size_t nleaf, nchain, *ends, *ends2, nends, nends2;
	char *t1 = perf_script(data, "-G -F ip,dso", &leaf, &nleaf, &ends2, &nends2);
	char *t2 = perf_script(data, "-F ip,dso", &chain, &nchain, &ends, &nends);
	ck_assert_uint_gt(nleaf, 100);
	ck_assert_uint_eq(nends, nleaf);   /* one call chain per sample */
	char **comms;
	char *t3 = perf_comms(data, nleaf, &comms);

	compare_counts c;
	pd_machine_stats ms;
	compare(data, leaf, nleaf, chain, ends, nends, comms, &c, &ms);
	fprintf(stderr,
		"real recording: %zu/%zu sample dsos as perf (%.2f%%), %zu kernel / %zu user, "
		"%zu ip order mismatches; call chains: %zu/%zu frames as perf (%.2f%%), "
		"%zu chains of another length; %zu/%zu comms as perf; machine: %llu "
		"processes, %llu threads, %llu maps, %llu exec resets\n",
		c.match, c.samples, 100.0 * (double)c.match / (double)c.samples, c.kernel,
		c.user, c.ipmiss, c.frame_match, c.perf_frames,
		c.perf_frames ? 100.0 * (double)c.frame_match / (double)c.perf_frames : 0.0,
		c.chain_len_miss, c.comm_match, c.samples, (unsigned long long)ms.processes,
		(unsigned long long)ms.threads, (unsigned long long)ms.maps,
		(unsigned long long)ms.exec_resets);
	/* Both sides order samples by perf's rule; a differing order (ties)
	 * only counts against the match rate. */
	ck_assert_uint_eq(c.samples, nleaf);
	ck_assert_msg(c.match * 100 >= c.samples * 99, "%zu of %zu samples match",
		      c.match, c.samples);
	ck_assert_uint_gt(c.user, 0);
	ck_assert_uint_gt(c.kernel, 0);
	/* Kernel samples inside execve after the COMM exec record name the
	 * old image's return addresses from the previous image, as perf does. */
	ck_assert_msg(c.frame_match == c.perf_frames, "%zu of %zu frames match",
		      c.frame_match, c.perf_frames);
	ck_assert_uint_eq(c.comm_match, c.samples);
	ck_assert_uint_ge(ms.exec_resets, 3);   /* sh, ls and sleep exec'd */
	ck_assert_uint_ge(ms.processes, 3);

	free(leaf);
	free(chain);
	free(ends);
	free(ends2);
	free(t1);
	free(t2);
	free(t3);
	free(comms);
	pd_test_rmrf(dir);
	free(dir);
}
END_TEST

/*
 * Third-party recordings against perf 6.1's own reading of them: old perf
 * (3.x) wrote the kernel map with a bogus low start, 32-bit ARM has user
 * samples in the kuser helpers, pipe mode and perf 6.x files.  `min_match`
 * is in per mille; the shortfalls are perf's missing fallback for sample
 * IPs (see kernel_start() in machine.c): ours names the kernel there.
 */
static const struct corpus_case {
	const char *rel;
	unsigned min_match;
} corpus_cases[] = {
	{ "perf_data_converter/src/quipper/testdata/perf.data.forkexit-3.8", 1000 },
	{ "perf_data_converter/src/quipper/testdata/perf.data.callgraph-3.8", 1000 },
	{ "perf_data_converter/src/quipper/testdata/perf.data.armv7-3.4", 999 },
	{ "perf_data_converter/src/quipper/testdata/perf.data.i686-3.4", 1000 },
	{ "perf_data_converter/src/quipper/testdata/perf.data.piped.hw_and_sw-3.4", 1000 },
	{ "perf_data_converter/src/quipper/testdata/perf.data.lost_samples-4.4", 980 },
	{ "perf_data_converter/src/quipper/testdata/perf.data.piped.header_features_aligned-6.12", 1000 },
	{ "perfparser/tests/auto/perfdata/vector_static_gcc/perf.data", 1000 },
	{ "linux-perf-data/tests/fixtures/sleep.compressed.pipe.data", 1000 },
};

START_TEST(corpus_dsos)
{
	const struct corpus_case *cc = &corpus_cases[_i];
	char path[4200];
	if (!pd_test_corpus(path, sizeof path, cc->rel))
		PD_SKIP("corpus absent");
	if (!pd_test_have_perf())
		PD_SKIP("perf not available");
	perf_line *leaf;
	size_t nleaf, *ends, nends;
	char *text = perf_script(path, "-G -F ip,dso", &leaf, &nleaf, &ends, &nends);
	char **comms;
	char *ctext = perf_comms(path, nleaf, &comms);
	compare_counts c;
	pd_machine_stats ms;
	compare(path, leaf, nleaf, NULL, NULL, 0, comms, &c, &ms);
	fprintf(stderr, "%s: %zu/%zu sample dsos as perf, %zu ip order mismatches, "
		"%zu comms as perf, %llu processes, %llu maps\n", cc->rel, c.match, c.samples,
		c.ipmiss, c.comm_match, (unsigned long long)ms.processes,
		(unsigned long long)ms.maps);
	ck_assert_uint_eq(c.comm_match, c.samples);
	ck_assert_uint_eq(c.samples, nleaf);
	ck_assert_uint_gt(c.samples, 0);
	ck_assert_msg(c.match * 1000 >= c.samples * cc->min_match, "%zu of %zu samples match",
		      c.match, c.samples);
	free(leaf);
	free(ends);
	free(text);
	free(ctext);
	free(comms);
}
END_TEST

static Suite *machine_suite(void)
{
	Suite *s = suite_create("machine");
	TCase *tc = tcase_create("model");
	tcase_add_test(tc, ld_so_pattern);
	tcase_add_test(tc, overlap_splitting);
	tcase_add_test(tc, fork_copies_maps);
	tcase_add_test(tc, threads_and_comm);
	tcase_add_test(tc, exec_resets_maps);
	tcase_add_test(tc, exec_keeps_previous_image);
	tcase_add_test(tc, exec_of_exec);
	tcase_add_test(tc, process_map_generation);
	tcase_add_test(tc, kernel_maps);
	tcase_add_test(tc, kernel_map_at_zero);
	tcase_add_test(tc, kernel_start_rules);
	tcase_add_test(tc, ksymbols);
	tcase_add_test(tc, build_id_interning);
	tcase_add_test(tc, build_ids_growing);
	tcase_add_test(tc, many_processes);
	suite_add_tcase(s, tc);
	TCase *tr = tcase_create("recording");
	tcase_set_timeout(tr, 120);
	tcase_add_test(tr, real_recording_dsos);
	tcase_add_loop_test(tr, corpus_dsos, 0,
			    (int)(sizeof corpus_cases / sizeof corpus_cases[0]));
	suite_add_tcase(s, tr);
	return s;
}

int main(void)
{
	return pd_test_main(machine_suite());
}
