//go:build cgo

package syntax

/*
#include <stdlib.h>

// api.h's, declared here: the bindings' include path is theirs.
void ts_set_allocator(void *(*)(size_t), void *(*)(size_t, size_t), void *(*)(void *, size_t), void (*)(void *));

static void use_libc(void) { ts_set_allocator(malloc, calloc, realloc, free); }
*/
import "C"

// The bindings route every allocation of the C library through Go
// callbacks (their SetAllocator, defaulting to C.malloc and the like):
// a cgo callback per malloc. libc's own functions, the same memory, spare
// those calls.
func init() { C.use_libc() }
