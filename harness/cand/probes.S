/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Measured beside the tree's routines, never kernel candidates as they
 * stand (issue 14):
 *  - a VMOVNTDQ loop (AVX, 32-byte non-temporal stores): the limit probe,
 *    since the page fault path takes no FPU state;
 *  - a MOVDIR64B memory-to-memory copy, to compare with copy_mc_movnti(),
 *    without the exception table that a machine-check safe copy needs;
 *  - v3's MOVDIR64B clear (series v3, patch 9), left out of v4 (it ran at
 *    0.76-0.88 of MOVNTI on every Intel part measured, and was used only
 *    on a VM that hid CLZERO): kept here as a measured column.
 */
#include <linux/linkage.h>

	.text
/* Probe only: 32-byte VMOVNTDQ from a zeroed %ymm0 (clobbered). */
SYM_FUNC_START(__clear_pages_vmovntdq_probe)
	vpxor	%ymm0, %ymm0, %ymm0
	shrq	$7, %rcx
	.p2align 4
.Lvmovntdq_loop:
	decq	%rcx
	vmovntdq %ymm0, (%rdi)
	vmovntdq %ymm0, 32(%rdi)
	vmovntdq %ymm0, 64(%rdi)
	vmovntdq %ymm0, 96(%rdi)
	leaq	128(%rdi), %rdi
	jnz	.Lvmovntdq_loop
	vzeroupper
	sfence
	RET
SYM_FUNC_END(__clear_pages_vmovntdq_probe)

/*
 * v3's __clear_pages_movdir64b(): clear_pages()'s registers (%rdi, %rcx a
 * multiple of 256, not 0, %rax zero), one 64-byte direct store a line from
 * the zero page; leaves %rax zero.
 */
SYM_FUNC_START(__clear_pages_movdir64b_probe)
	leaq	empty_zero_page(%rip), %rax
	shrq	$8, %rcx
	.p2align 4
.Lmovdir64b_loop:
	decq	%rcx
	/* MOVDIR64B (%rax), %rdi */
	.byte	0x66, 0x0f, 0x38, 0xf8, 0x38
	leaq	64(%rdi), %rdi
	.byte	0x66, 0x0f, 0x38, 0xf8, 0x38
	leaq	64(%rdi), %rdi
	.byte	0x66, 0x0f, 0x38, 0xf8, 0x38
	leaq	64(%rdi), %rdi
	.byte	0x66, 0x0f, 0x38, 0xf8, 0x38
	leaq	64(%rdi), %rdi
	jnz	.Lmovdir64b_loop
	xorl	%eax, %eax
	sfence
	RET
SYM_FUNC_END(__clear_pages_movdir64b_probe)

/*
 * Candidate CoW copy with MOVDIR64B (memory to memory, one direct store per
 * line), C convention (to, from, len): measured against copy_mc_movnti().
 * Not machine-check safe as written here (no exception table in userspace).
 */
SYM_FUNC_START(copy_movdir64b_cand)
	movq	%rdx, %rcx
	shrq	$8, %rcx
	.p2align 4
.Lcopy64b_loop:
	decq	%rcx
	movdir64b (%rsi), %rdi
	leaq	64(%rdi), %rax
	movdir64b 64(%rsi), %rax
	leaq	128(%rdi), %rax
	movdir64b 128(%rsi), %rax
	leaq	192(%rdi), %rax
	movdir64b 192(%rsi), %rax
	leaq	256(%rdi), %rdi
	leaq	256(%rsi), %rsi
	jnz	.Lcopy64b_loop
	sfence
	xorl	%eax, %eax
	RET
SYM_FUNC_END(copy_movdir64b_cand)
