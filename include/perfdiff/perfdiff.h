/*
 * perfdiff/perfdiff.h — everything libperfdiff offers, in one include.
 *
 * Stages, in the order data flows through them:
 *   reader.h   perf.data → decoded records (this release)
 * Conventions for errors, versions and exports: common.h.
 */
#ifndef PERFDIFF_PERFDIFF_H
#define PERFDIFF_PERFDIFF_H

#include "common.h"
#include "reader.h"

#endif
