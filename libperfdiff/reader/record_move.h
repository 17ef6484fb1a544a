/*
 * Keeping a record past the reader's next call.  A delivered record points
 * into bytes the reader reuses, and so do a decoded SAMPLE's arrays
 * (callchain, registers, the user stack copy, ...).  A stage that holds
 * samples for a while (session/holdq.c, the session's read-ahead) copies
 * the bytes and the struct, then moves the struct over to its copy with
 * this.  Part of the reader stage's interface (docs/architecture.md).
 */
#ifndef PD_READER_RECORD_MOVE_H
#define PD_READER_RECORD_MOVE_H

#include "perfdiff/reader.h"

/*
 * `copy` is a struct copy of a delivered SAMPLE record and `data` a copy of
 * its `copy->size` bytes: point copy->data and every array of
 * copy->u.sample into `data`.  An array outside the record's bytes (none
 * is, for a decoded sample) becomes NULL rather than dangle.
 */
void pd_record_move_sample(pd_record *copy, const void *data);

#endif
