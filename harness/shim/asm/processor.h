/*
 * Userspace stand-in for <asm/processor.h>, for the tree's nt_parts.c: the
 * fields of struct cpuinfo_x86 that nt_decide() and x86_match_cpu_info()
 * read (the vendor numbers are in shim/asm/cpu_device_id.h).
 */
#ifndef HARNESS_PROCESSOR_H
#define HARNESS_PROCESSOR_H
#include <linux/types.h>

struct cpuinfo_x86 {
	__u8 x86_vendor, x86, x86_model, x86_stepping;
	__u16 x86_clflush_size;
	__u32 x86_capability[32];
};
#endif
