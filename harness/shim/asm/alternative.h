/* Userspace has no alternatives patching: keep the original instruction. */
#ifndef HARNESS_ALTERNATIVE_H
#define HARNESS_ALTERNATIVE_H
.macro ALTERNATIVE oldinstr, newinstr, ft_flags
	\oldinstr
.endm
#endif
