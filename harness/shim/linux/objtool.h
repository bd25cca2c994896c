/* Userspace: no objtool annotations. */
#define ANNOTATE_NOENDBR
