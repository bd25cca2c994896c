/* Userspace: the kernel's fixed-width types, for the tree's nt_calibrate.h. */
#include <stdbool.h>
#include <stdint.h>
typedef uint64_t u64;
typedef uint32_t u32;
