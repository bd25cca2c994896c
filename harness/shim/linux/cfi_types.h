/* Userspace: no kCFI type hashes; a typed function is a plain one. */
#define SYM_TYPED_FUNC_START(name)	SYM_FUNC_START(name)
