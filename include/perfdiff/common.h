/*
 * perfdiff/common.h — conventions shared by every libperfdiff header.
 *
 * Errors are values.  Every fallible function returns an int: 0 on success,
 * a negative PD_E* code on failure.  Functions that can fail take a
 * `pd_error *err` as their last argument; when it is non-NULL and the call
 * fails, it is filled with the code, the byte offset where the problem was
 * found (PD_NO_OFFSET when no offset applies) and a one-line message that
 * names the file and that offset, e.g.
 *
 *     perf.data: offset 49104: record header size 0 (corrupt record)
 *
 * pd_error lives in caller-owned memory, so libperfdiff keeps no global or
 * thread-local error state and needs no cleanup call for it.
 *
 * Iterators return PD_ITEROVER (a negative code that is not an error) when
 * they are exhausted.
 */
#ifndef PERFDIFF_COMMON_H
#define PERFDIFF_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(PD_STATIC_DEFINE)
#define PD_EXTERN(type) type
#elif defined(PD_BUILDING_LIBRARY)
#define PD_EXTERN(type) __attribute__((visibility("default"))) type
#else
#define PD_EXTERN(type) type
#endif

/** Library version, as numbers and as a string. */
#define PD_VERSION_MAJOR 0
#define PD_VERSION_MINOR 1
#define PD_VERSION_PATCH 0
#define PD_VERSION_STRING "0.1.0"

/** Return codes.  0 is success; everything else is negative. */
typedef enum pd_error_code {
	PD_OK = 0,
	PD_ITEROVER = -1,     /**< iteration finished: not an error */
	PD_EINVAL = -2,       /**< bad argument from the caller */
	PD_ENOMEM = -3,       /**< allocation failed */
	PD_EIO = -4,          /**< open/read/mmap failed (errno in the message) */
	PD_ENOTPERF = -5,     /**< input is not a perf.data file */
	PD_EUNSUPPORTED = -6, /**< a valid but unsupported variant */
	PD_ECORRUPT = -7,     /**< the input contradicts the format */
	PD_ELIMIT = -8,       /**< a configured resource cap was exceeded */
	PD_EPERM = -9,        /**< a privilege (capability) is missing */
} pd_error_code;

/** No byte offset applies to this error. */
#define PD_NO_OFFSET UINT64_MAX

/** Room for a message: a path plus a sentence. */
#define PD_ERROR_MESSAGE_MAX 512

/**
 * An error: code, where it happened, and what happened.
 *
 * `offset` is the byte offset in the input file (or in the stream for pipe
 * input); for records inside a compressed record it is the offset of the
 * enclosing COMPRESSED record.
 */
typedef struct pd_error {
	int code;
	uint64_t offset;
	char message[PD_ERROR_MESSAGE_MAX];
} pd_error;

/**
 * What a warning (pd_reader_warning_kind(), pd_session_warning_kind(),
 * pd_profile_warning_kind()) means for the result, so that a program can
 * tell a cut recording from a binary it could not verify without reading
 * the message.
 */
typedef enum pd_warning_kind {
	PD_WARN_OTHER = 0,      /**< none of the kinds below */
	PD_WARN_DATA_LOST = 1,  /**< the input is incomplete: cut short (inside its
	                             records, or in the header sections after them),
	                             ending in garbage or an incomplete record, or
	                             never finished by perf */
	PD_WARN_METADATA = 2,   /**< a header section that is there was skipped
	                             (malformed, above a cap); the records are all
	                             there */
	PD_WARN_UNVERIFIED = 3, /**< a file was used without a build-id check: the
	                             recording has no build-id for it */
	PD_WARN_NOT_FOUND = 4,  /**< a file (binary, kallsyms, JIT map) was not found
	                             or cannot be read: its frames stay [unknown] */
	PD_WARN_MISMATCH = 5,   /**< the file found is another build than the one
	                             recorded: its frames stay [unknown] */
} pd_warning_kind;

/**
 * A warning sink: `warn` and `warn_ctx` in pd_reader_options,
 * pd_session_options and pd_profile_options (libdwfl's callbacks in
 * spirit).  The library calls it once for each warning it keeps, as it
 * keeps it, on the thread that called into the library (the call that
 * read on: pd_reader_next(), pd_session_next(), pd_profile_add_file(),
 * ...), never on a thread of its own, and in the order of the object's
 * pd_*_warning() getters, which hold the same text and kind: a warning
 * beyond a cap that is only counted reaches neither.  `path` is the input
 * the warning is about as the caller named it (NULL when none applies);
 * `msg` is the warning's text, valid only during the call.  The sink must
 * not call back into the object that warns.
 */
typedef void (*pd_warn_fn)(void *ctx, pd_warning_kind kind, const char *path, const char *msg);

/** A short constant name for a return code ("corrupt input", ...). */
PD_EXTERN(const char *) pd_error_code_str(int code);

/** The version string of the library that is linked (not the header's). */
PD_EXTERN(const char *) pd_version(void);

#ifdef __cplusplus
}
#endif

#endif
