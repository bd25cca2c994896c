/* Userspace stand-in for <linux/cpufeature.h>, for the tree's nt_parts.c. */
#ifndef HARNESS_LINUX_CPUFEATURE_H
#define HARNESS_LINUX_CPUFEATURE_H
#include <asm/cpufeature.h>
#endif
