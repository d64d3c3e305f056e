// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - allocation guard: proof that the event loop never allocates
 *
 * Linked into build/netshim-allocguard only.  It replaces malloc and
 * friends for the whole process (glibc supports replacing them, and its own
 * internal calls then come here too, unlike -Wl,--wrap, which only catches
 * calls from our objects) and forwards to glibc's until the loop starts.
 * From then on any allocation aborts with a message: the integration tests
 * and the hostile-guest suite run against this binary.
 */
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);
void *__libc_memalign(size_t align, size_t size);
void __libc_free(void *p);

static volatile bool armed;

/**
 * netshim_loop_starts() - called by main() as the event loop starts
 */
void netshim_loop_starts(void)
{
	armed = true;
}

/**
 * guard() - abort if the loop runs
 * @what:	the function called
 */
static void guard(const char *what)
{
	static const char msg[] = "netshim-allocguard: allocation in the "
				  "event loop: ";

	if (!armed)
		return;
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0 ||
	    write(STDERR_FILENO, what, strlen(what)) < 0 ||
	    write(STDERR_FILENO, "\n", 1) < 0)
		_exit(134);
	abort();
}

void *malloc(size_t size)
{
	guard("malloc");
	return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
	guard("calloc");
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	guard("realloc");
	return __libc_realloc(p, size);
}

void *memalign(size_t align, size_t size)
{
	guard("memalign");
	return __libc_memalign(align, size);
}

void *aligned_alloc(size_t align, size_t size)
{
	guard("aligned_alloc");
	return __libc_memalign(align, size);
}

int posix_memalign(void **p, size_t align, size_t size)
{
	guard("posix_memalign");
	*p = __libc_memalign(align, size);
	return *p ? 0 : 12;	/* ENOMEM */
}

void free(void *p)
{
	if (p)
		guard("free");
	__libc_free(p);
}
