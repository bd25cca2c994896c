/* Userspace stand-ins for the kernel's asm linkage macros (harness only). */
#define SYM_FUNC_START(name)		.globl name; .type name, @function; name:
#define SYM_FUNC_START_LOCAL(name)	.type name, @function; name:
#define SYM_FUNC_END(name)		.size name, . - name
#define RET				ret
#define ALIGN				.p2align 4
