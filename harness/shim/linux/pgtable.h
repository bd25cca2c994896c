/* Userspace stand-in for <linux/pgtable.h>: x86-64's folio orders. */
#ifndef HARNESS_PGTABLE_H
#define HARNESS_PGTABLE_H
#define PMD_ORDER	9
#define PUD_ORDER	18
#endif
