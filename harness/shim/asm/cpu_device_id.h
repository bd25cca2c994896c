/*
 * Userspace stand-in for <asm/cpu_device_id.h>, for the tree's nt_parts.c.
 * From the tree itself, found through -idirafter (harness/Makefile):
 * struct x86_cpu_id and the wildcards (<linux/device-id/x86_cpu.h>) and
 * the INTEL_* names (<asm/intel-family.h>). Here: the VFM encoding and the
 * X86_MATCH_VFM* initialisers that nt_parts.h uses (as the tree's, whose
 * header needs <asm/processor.h>), the vendor numbers of <asm/processor.h>,
 * and the two feature bits an entry may ask for. An entry that needs
 * another macro fails to compile here: add it. x86_match_cpu_info() is
 * match.c's loop, for the fields an entry of nt_parts.c sets.
 */
#ifndef HARNESS_CPU_DEVICE_ID_H
#define HARNESS_CPU_DEVICE_ID_H

#include <linux/types.h>
typedef unsigned long kernel_ulong_t;
#include <linux/device-id/x86_cpu.h>

#define VFM_MODEL_BIT	0
#define VFM_FAMILY_BIT	8
#define VFM_VENDOR_BIT	16
#define VFM_MODEL_MASK	(0xffU << VFM_MODEL_BIT)
#define VFM_FAMILY_MASK	(0xffU << VFM_FAMILY_BIT)
#define VFM_VENDOR_MASK	(0xffU << VFM_VENDOR_BIT)
#define VFM_MODEL(vfm)	(((vfm) & VFM_MODEL_MASK) >> VFM_MODEL_BIT)
#define VFM_FAMILY(vfm)	(((vfm) & VFM_FAMILY_MASK) >> VFM_FAMILY_BIT)
#define VFM_VENDOR(vfm)	(((vfm) & VFM_VENDOR_MASK) >> VFM_VENDOR_BIT)
#define VFM_MAKE(_vendor, _family, _model) (	\
	((_model) << VFM_MODEL_BIT) |		\
	((_family) << VFM_FAMILY_BIT) |		\
	((_vendor) << VFM_VENDOR_BIT))

#include <asm/intel-family.h>

/* <asm/processor.h> */
#define X86_VENDOR_INTEL	0
#define X86_VENDOR_CYRIX	1
#define X86_VENDOR_AMD		2
#define X86_VENDOR_UMC		3
#define X86_VENDOR_CENTAUR	5
#define X86_VENDOR_TRANSMETA	7
#define X86_VENDOR_NSC		8
#define X86_VENDOR_HYGON	9
#define X86_VENDOR_ZHAOXIN	10
#define X86_VENDOR_VORTEX	11
#define X86_VENDOR_UNKNOWN	0xff

/*
 * <asm/cpufeatures.h>. Only compared with each other (the table is
 * compiled with these), so the values need only be distinct; they are the
 * tree's.
 */
#define X86_FEATURE_CLZERO	(13 * 32 + 0)
#define X86_FEATURE_MOVDIR64B	(16 * 32 + 28)

#define X86_CPU_ID_FLAG_ENTRY_VALID	1U

#define X86_MATCH_CPU(_vendor, _family, _model, _steppings, _feature, _type, _data) { \
	.vendor		= _vendor,					\
	.family		= _family,					\
	.model		= _model,					\
	.steppings	= _steppings,					\
	.feature	= _feature,					\
	.flags		= X86_CPU_ID_FLAG_ENTRY_VALID,			\
	.type		= _type,					\
	.driver_data	= (unsigned long) _data				\
}

#define X86_MATCH_VFM(vfm, data)					\
	X86_MATCH_CPU(VFM_VENDOR(vfm), VFM_FAMILY(vfm), VFM_MODEL(vfm),	\
		      X86_STEPPING_ANY, X86_FEATURE_ANY, X86_CPU_TYPE_ANY, data)

/* GENMASK(maxs, mins), for steppings 0 to 15 */
#define __X86_STEPPINGS(mins, maxs)					\
	(((1U << ((maxs) + 1)) - 1) & ~((1U << (mins)) - 1))

#define X86_MATCH_VFM_STEPS(vfm, min_step, max_step, data)		\
	X86_MATCH_CPU(VFM_VENDOR(vfm), VFM_FAMILY(vfm), VFM_MODEL(vfm),	\
		      __X86_STEPPINGS(min_step, max_step), X86_FEATURE_ANY, \
		      X86_CPU_TYPE_ANY, data)

#define X86_MATCH_VFM_FEATURE(vfm, feature, data)			\
	X86_MATCH_CPU(VFM_VENDOR(vfm), VFM_FAMILY(vfm), VFM_MODEL(vfm),	\
		      X86_STEPPING_ANY, feature, X86_CPU_TYPE_ANY, data)

#define X86_MATCH_VENDOR_FEATURE(vendor, feature, data)			\
	X86_MATCH_CPU(X86_VENDOR_##vendor, X86_FAMILY_ANY, X86_MODEL_ANY,	\
		      X86_STEPPING_ANY, feature, X86_CPU_TYPE_ANY, data)

#include <asm/processor.h>

static inline const struct x86_cpu_id *x86_match_cpu_info(const struct cpuinfo_x86 *c,
							  const struct x86_cpu_id *match)
{
	const struct x86_cpu_id *m;

	for (m = match; m->flags & X86_CPU_ID_FLAG_ENTRY_VALID; m++) {
		if (m->vendor != X86_VENDOR_ANY && c->x86_vendor != m->vendor)
			continue;
		if (m->family != X86_FAMILY_ANY && c->x86 != m->family)
			continue;
		if (m->model != X86_MODEL_ANY && c->x86_model != m->model)
			continue;
		if (m->steppings != X86_STEPPING_ANY &&
		    !(m->steppings & (1U << c->x86_stepping)))
			continue;
		if (m->feature != X86_FEATURE_ANY &&
		    !(c->x86_capability[m->feature / 32] & (1U << (m->feature % 32))))
			continue;
		return m;
	}
	return NULL;
}

#endif /* HARNESS_CPU_DEVICE_ID_H */
