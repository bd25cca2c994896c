/* No exception tables in userspace: the harness never faults on purpose. */
#define _ASM_EXTABLE_UA(from, to)
#define _ASM_EXTABLE_TYPE(from, to, type)
