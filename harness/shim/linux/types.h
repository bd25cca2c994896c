/*
 * Userspace: the kernel's fixed-width types, for the tree's asm/nt_stores.h
 * and <linux/device-id/x86_cpu.h> (struct x86_cpu_id).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
typedef uint64_t u64;
typedef uint32_t u32;
typedef uint16_t __u16;
typedef uint8_t __u8;
typedef uint8_t u8;
typedef uint32_t __u32;
