/*
 * pd-hostile — write a hostile pprof file: a gzipped Profile message made
 * of one small field repeated millions of times, which inflates 1000 to 1
 * and, decoded naively, takes tens of times its protobuf in memory
 * (protobuf-c allocates per field and per entry).  A 195 KB file of
 * 100 M empty strings once drove `perfdiff report` to 2.3 GB; files that
 * big are not committed, so the tests (test_regress) and the fuzzer's
 * seeds (fuzz/run.sh) make them here.
 *
 *   pd-hostile SHAPE COUNT OUT
 *
 *   strings  COUNT empty string_table entries
 *   samples  COUNT empty Samples
 *   unknown  COUNT varints of field 16, which Profile does not have
 *   locids   one Sample of COUNT location_ids, each a field of its own
 *   period   period_type (a single ValueType) given COUNT times
 *
 * The protobuf is written as one gzip member at level 9, streamed: the
 * tool never holds more than a chunk of it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define CHUNK (1u << 20)

typedef struct out {
	FILE *f;
	z_stream z;
	uint8_t buf[CHUNK];
} out;

static void die(const char *msg, const char *arg)
{
	fprintf(stderr, "pd-hostile: %s%s\n", msg, arg ? arg : "");
	exit(2);
}

static void deflate_out(out *o, const void *p, size_t n, int flush)
{
	o->z.next_in = (Bytef *)(uintptr_t)p;
	o->z.avail_in = (uInt)n;
	do {
		o->z.next_out = o->buf;
		o->z.avail_out = CHUNK;
		if (deflate(&o->z, flush) == Z_STREAM_ERROR)
			die("deflate failed", NULL);
		size_t have = CHUNK - o->z.avail_out;
		if (fwrite(o->buf, 1, have, o->f) != have)
			die("write failed", NULL);
	} while (o->z.avail_out == 0);
}

/* `unit` (of `len` bytes) `count` times, through the deflater. */
static void repeat(out *o, const uint8_t *unit, size_t len, uint64_t count)
{
	static uint8_t block[CHUNK];
	size_t per = CHUNK / len;
	for (size_t i = 0; i < per; i++)
		memcpy(block + i * len, unit, len);
	while (count) {
		size_t k = count < per ? (size_t)count : per;
		deflate_out(o, block, k * len, Z_NO_FLUSH);
		count -= k;
	}
}

static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	for (; v >= 0x80; v >>= 7)
		p[n++] = (uint8_t)(v | 0x80);
	p[n++] = (uint8_t)v;
	return n;
}

static void shape(out *o, const char *name, uint64_t count)
{
	static const uint8_t empty_string[] = { 6 << 3 | 2, 0 };
	static const uint8_t empty_sample[] = { 2 << 3 | 2, 0 };
	static const uint8_t unknown[] = { 0x80, 0x01, 0 };     /* field 16, varint 0 */
	static const uint8_t location_id[] = { 1 << 3 | 0, 1 }; /* Sample.location_id 1 */
	static const uint8_t period[] = { 11 << 3 | 2, 2, 1 << 3 | 0, 1 };
	if (strcmp(name, "strings") == 0) {
		repeat(o, empty_string, sizeof empty_string, count);
	} else if (strcmp(name, "samples") == 0) {
		repeat(o, empty_sample, sizeof empty_sample, count);
	} else if (strcmp(name, "unknown") == 0) {
		repeat(o, unknown, sizeof unknown, count);
	} else if (strcmp(name, "locids") == 0) {
		uint8_t head[16] = { 2 << 3 | 2 };
		size_t n = 1 + put_varint(head + 1, count * sizeof location_id);
		deflate_out(o, head, n, Z_NO_FLUSH);
		repeat(o, location_id, sizeof location_id, count);
	} else if (strcmp(name, "period") == 0) {
		repeat(o, period, sizeof period, count);
	} else {
		die("unknown shape ", name);
	}
}

int main(int argc, char **argv)
{
	if (argc != 4)
		die("usage: pd-hostile strings|samples|unknown|locids|period COUNT OUT", NULL);
	char *end;
	uint64_t count = strtoull(argv[2], &end, 10);
	if (*end || !*argv[2])
		die("bad count ", argv[2]);
	static out o;
	o.f = fopen(argv[3], "wb");
	if (!o.f)
		die("cannot create ", argv[3]);
	if (deflateInit2(&o.z, 9, Z_DEFLATED, 16 + 15, 9, Z_DEFAULT_STRATEGY) != Z_OK)
		die("deflateInit2 failed", NULL);
	shape(&o, argv[1], count);
	deflate_out(&o, NULL, 0, Z_FINISH);
	deflateEnd(&o.z);
	if (fclose(o.f) != 0)
		die("write failed to ", argv[3]);
	return 0;
}
