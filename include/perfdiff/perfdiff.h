/*
 * perfdiff/perfdiff.h — everything libperfdiff offers, in one include.
 *
 * Stages, in the order data flows through them:
 *   reader.h   perf.data → decoded records
 *   session.h  records → samples with their frames named (address spaces,
 *              ELF/DWARF symbols, kallsyms, JIT maps); it includes
 *              symcache.h (a symbol cache sessions share) and unwind.h
 *              (DWARF unwinders), the parts of its API below it
 *   profile.h  samples → calling-context trees, self/children/calltrace
 *   report.h   profiles → the kernel test robot's perf-profile keys
 *   diff.h     two profiles → aligned trees, explained shifts, significance
 *   output.h   profiles, diffs and samples → text, JSON, CSV, folded, lkp
 * Conventions for errors, versions and exports: common.h.
 */
#ifndef PERFDIFF_PERFDIFF_H
#define PERFDIFF_PERFDIFF_H

#include "common.h"
#include "reader.h"
#include "session.h"
#include "profile.h"
#include "pprof.h"
#include "report.h"
#include "robot.h"
#include "diff.h"
#include "output.h"

#endif
