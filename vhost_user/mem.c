// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - vhost-user: the guest's memory, mapped from the front-end's table
 *
 * Every guest-physical address and front-end address netshim follows goes
 * through vu_gpa(), vu_gpa_contig() or vu_uva(): a range comes back as a
 * pointer only when all of it lies inside one mapped region.  The table is
 * checked as a whole when it arrives (sizes, overflow, overlaps), so a
 * translation never has to guess which of two regions was meant.
 *
 * A front-end may shrink a file after netshim mapped it: the pages past the
 * new end are then SIGBUS on first touch, checked bounds or not.  passt's
 * vhost-user code (2025-05) has no guard; QEMU's memfd back-end seals its
 * files against shrinking by default, a hostile front-end need not.  The
 * SIGBUS handler below puts anonymous zero pages where the file went, so
 * the access in flight completes, and flags the front-end, which the link
 * then drops (vu_mem_faulted()).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "mem.h"

/* The table the SIGBUS handler may patch: netshim serves one front-end */
static const struct vu_mem *vu_mem_guarded;
static volatile sig_atomic_t vu_mem_fault;
static uintptr_t vu_mem_page = 4096;

/**
 * range_ok() - does [start, start + len) fit in 64 bits
 * @start:	first byte
 * @len:	length, not zero
 *
 * Return: true if the last byte does not wrap around
 */
static bool range_ok(uint64_t start, uint64_t len)
{
	return len && start + (len - 1) >= start;
}

/**
 * ranges_overlap() - do two ranges share a byte
 * @a:		start of the first
 * @alen:	its length, range_ok()
 * @b:		start of the second
 * @blen:	its length, range_ok()
 *
 * Return: true if they overlap
 */
static bool ranges_overlap(uint64_t a, uint64_t alen, uint64_t b,
			   uint64_t blen)
{
	return a <= b + (blen - 1) && b <= a + (alen - 1);
}

/**
 * region_ok() - is one region of the front-end's usable on its own
 * @r:		region
 *
 * Return: true if it is non-empty and wraps neither in guest-physical
 * space, nor in the front-end's, nor in its file
 */
static bool region_ok(const struct vu_region *r)
{
	return range_ok(r->gpa, r->size) && range_ok(r->uva, r->size) &&
	       range_ok(r->mmap_off, r->size) &&
	       r->mmap_off + r->size <= SIZE_MAX;
}

/**
 * regions_overlap() - do two regions share a byte in either address space
 * @a:		one region, region_ok()
 * @b:		the other, region_ok()
 *
 * Return: true if they overlap in guest-physical or front-end addresses
 */
static bool regions_overlap(const struct vu_region *a,
			    const struct vu_region *b)
{
	return ranges_overlap(a->gpa, a->size, b->gpa, b->size) ||
	       ranges_overlap(a->uva, a->size, b->uva, b->size);
}

/**
 * vu_mem_regions_valid() - is a memory table from the front-end usable
 * @r:		regions as the front-end described them
 * @n:		how many
 *
 * Each region must be non-empty and not wrap, in guest-physical space, in
 * the front-end's space and in its file; no two regions may overlap in
 * either address space.
 *
 * Return: true if the table can be mapped
 */
bool vu_mem_regions_valid(const struct vu_region *r, unsigned int n)
{
	unsigned int i, j;

	if (n > VU_MEM_SLOTS)
		return false;
	for (i = 0; i < n; i++) {
		if (!region_ok(&r[i]))
			return false;
		for (j = 0; j < i; j++)
			if (regions_overlap(&r[i], &r[j]))
				return false;
	}
	return true;
}

/**
 * vu_gpa_contig() - translate the part of a range that one region holds
 * @m:		memory table
 * @gpa:	guest-physical address of the range
 * @len:	its length
 * @va:		set to our address of @gpa
 *
 * A buffer of the guest may span two adjacent regions: the caller
 * translates the rest from the returned length on.
 *
 * Return: bytes from @gpa that are mapped contiguously, at most @len, 0 if
 * @gpa is in no region (or @len is 0)
 */
size_t vu_gpa_contig(const struct vu_mem *m, uint64_t gpa, uint64_t len,
		     void **va)
{
	unsigned int i;

	if (!len)
		return 0;
	for (i = 0; i < m->n; i++) {
		const struct vu_region *r = &m->r[i];
		uint64_t off, avail;

		if (gpa < r->gpa || gpa - r->gpa >= r->size)
			continue;
		off = gpa - r->gpa;
		avail = r->size - off;
		*va = r->map + r->mmap_off + off;
		return avail < len ? (size_t)avail : (size_t)len;
	}
	return 0;
}

/**
 * vu_gpa() - translate a guest-physical range that must be in one region
 * @m:		memory table
 * @gpa:	guest-physical address
 * @len:	length, not zero
 *
 * Return: our address of @gpa, or NULL unless all @len bytes are mapped
 */
void *vu_gpa(const struct vu_mem *m, uint64_t gpa, uint64_t len)
{
	void *va;

	if (!len || vu_gpa_contig(m, gpa, len, &va) != len)
		return NULL;
	return va;
}

/**
 * vu_uva() - translate a range given in the front-end's own addresses
 * @m:		memory table
 * @uva:	front-end address (SET_VRING_ADDR gives these)
 * @len:	length, not zero
 *
 * Return: our address of @uva, or NULL unless all @len bytes are in one
 * region
 */
void *vu_uva(const struct vu_mem *m, uint64_t uva, uint64_t len)
{
	unsigned int i;

	if (!len)
		return NULL;
	for (i = 0; i < m->n; i++) {
		const struct vu_region *r = &m->r[i];
		uint64_t off;

		if (uva < r->uva || uva - r->uva >= r->size)
			continue;
		off = uva - r->uva;
		if (len > r->size - off)
			return NULL;
		return r->map + r->mmap_off + off;
	}
	return NULL;
}

/**
 * vu_mem_sigbus() - a guest memory page went away under us: patch it
 * @sig:	SIGBUS
 * @si:		the faulting address
 * @uc:		unused
 *
 * Only mmap() and write() here, both async-signal-safe and in the seccomp
 * allow-list.  From the faulting page to the end of its region, anonymous
 * private pages replace the truncated file: the access that faulted then
 * reads zeros or writes into memory nobody else sees.  A SIGBUS anywhere
 * else is a bug of netshim's: exit as the signal would have.
 */
static void vu_mem_sigbus(int sig, siginfo_t *si, void *uc)
{
	static const char msg[] = "netshim: SIGBUS outside guest memory\n";
	const struct vu_mem *m = vu_mem_guarded;
	uintptr_t a = (uintptr_t)si->si_addr;
	unsigned int i;
	ssize_t n;

	(void)uc;
	for (i = 0; m && i < m->n; i++) {
		uintptr_t start = (uintptr_t)m->r[i].map;
		uintptr_t end = start + m->r[i].map_len;
		uintptr_t page = a & ~(vu_mem_page - 1);

		if (a < start || a >= end)
			continue;
		if (mmap((void *)page, end - page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED |
			 MAP_NORESERVE, -1, 0) == MAP_FAILED)
			break;
		vu_mem_fault = 1;
		return;
	}
	n = write(STDERR_FILENO, msg, sizeof(msg) - 1);
	(void)n;
	_exit(128 + sig);
}

/**
 * vu_mem_guard_init() - catch SIGBUS on guest memory from now on
 *
 * Return: 0 on success, -1 with errno set on failure
 */
int vu_mem_guard_init(void)
{
	struct sigaction sa = { .sa_sigaction = vu_mem_sigbus,
				.sa_flags = SA_SIGINFO };
	long page = sysconf(_SC_PAGESIZE);

	if (page > 0)
		vu_mem_page = (uintptr_t)page;
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGBUS, &sa, NULL);
}

/**
 * vu_mem_faulted() - whether guest memory faulted since the last call
 *
 * Return: true once after the front-end shrank a file under its table
 */
bool vu_mem_faulted(void)
{
	if (!vu_mem_fault)
		return false;
	vu_mem_fault = 0;
	return true;
}

/**
 * vu_mem_unmap() - forget the memory table, unmapping every region
 * @m:		memory table
 */
void vu_mem_unmap(struct vu_mem *m)
{
	unsigned int i;

	if (vu_mem_guarded == m)
		vu_mem_guarded = NULL;

	for (i = 0; i < m->n; i++) {
		if (!m->r[i].map)
			continue;
		munmap(m->r[i].map, m->r[i].map_len);
		if (m->r[i].fd >= 0)
			close(m->r[i].fd);
	}
	memset(m, 0, sizeof(*m));
}

/**
 * region_map() - map the file of one region, checked against its size
 * @r:		region, region_ok(); its mapping is filled in on success
 * @fd:		its file, left open for the caller
 *
 * The file is mapped from offset 0 to the end of the region (the front-end
 * may place several regions in one file, each at its own offset), shared:
 * the guest and netshim see each other's writes.  A region past the end of
 * its file is refused: touching it would be SIGBUS, not an error.
 *
 * Return: 0 on success, -EINVAL if the region lies past its file, -errno
 * if it cannot be mapped
 */
static int region_map(struct vu_region *r, int fd)
{
	size_t len = (size_t)(r->mmap_off + r->size);
	struct stat st;
	void *p;

	if (fstat(fd, &st) || st.st_size < 0 || (uint64_t)st.st_size < len)
		return -EINVAL;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE,
		 fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	r->map = p;
	r->map_len = len;
	r->fd = -1;
	return 0;
}

/**
 * vu_mem_map() - replace the memory table with a new one, mapping it
 * @m:		memory table, emptied first
 * @r:		regions from the front-end, vu_mem_regions_valid()
 * @n:		how many
 * @fds:	one file descriptor per region, left open for the caller
 *
 * Return: 0 on success, -errno with the table left empty on failure
 */
int vu_mem_map(struct vu_mem *m, const struct vu_region *r, unsigned int n,
	       const int *fds)
{
	unsigned int i;

	vu_mem_unmap(m);
	if (!vu_mem_regions_valid(r, n))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		int ret;

		m->r[i] = r[i];
		ret = region_map(&m->r[i], fds[i]);
		if (ret) {
			vu_mem_unmap(m);
			return ret;
		}
		m->n = i + 1;
	}
	vu_mem_fault = 0;
	vu_mem_guarded = m;
	return 0;
}

/**
 * vu_mem_add() - add one region to the table (ADD_MEM_REG)
 * @m:		memory table
 * @r:		the region as the front-end described it
 * @fd:		its file, left open for the caller
 *
 * The region is checked alone and against every region in the table, as
 * a whole table would be; the table is left as it was on failure.
 *
 * Return: 0 on success, -EINVAL if the region is malformed, overlaps one
 * already there or lies past its file, -ENOSPC if every slot is taken,
 * -errno if mmap() fails
 */
int vu_mem_add(struct vu_mem *m, const struct vu_region *r, int fd)
{
	struct vu_region *slot;
	unsigned int i;
	int ret;

	if (!region_ok(r))
		return -EINVAL;
	for (i = 0; i < m->n; i++)
		if (regions_overlap(r, &m->r[i]))
			return -EINVAL;
	if (m->n >= VU_MEM_SLOTS)
		return -ENOSPC;
	slot = &m->r[m->n];
	*slot = *r;
	ret = region_map(slot, fd);
	if (ret) {
		memset(slot, 0, sizeof(*slot));
		return ret;
	}
	if (!m->n)
		vu_mem_fault = 0;
	m->n++;
	vu_mem_guarded = m;
	return 0;
}

/**
 * vu_mem_remove() - remove one region from the table (REM_MEM_REG)
 * @m:		memory table
 * @r:		the region: its guest-physical address, front-end address and
 *		size name it (the spec ignores its file offset)
 *
 * The last region takes the freed slot, so the table stays dense.  Any
 * pointer into the region is stale afterwards: the caller maps the rings
 * again.
 *
 * Return: 0 on success, -ENOENT if no region matches
 */
int vu_mem_remove(struct vu_mem *m, const struct vu_region *r)
{
	unsigned int i;

	for (i = 0; i < m->n; i++) {
		struct vu_region *t = &m->r[i];

		if (t->gpa != r->gpa || t->uva != r->uva || t->size != r->size)
			continue;
		munmap(t->map, t->map_len);
		if (t->fd >= 0)
			close(t->fd);
		*t = m->r[--m->n];
		memset(&m->r[m->n], 0, sizeof(m->r[m->n]));
		return 0;
	}
	return -ENOENT;
}

/**
 * vu_log_set() - map the dirty log the front-end sent (SET_LOG_BASE)
 * @l:		log, replaced
 * @fd:		the log's file, left open for the caller
 * @size:	bytes of log
 * @off:	where they start in @fd
 *
 * Return: 0 on success, -EINVAL for a log that lies past its file or
 * whose size is absurd, -errno if it cannot be mapped
 */
int vu_log_set(struct vu_log *l, int fd, uint64_t size, uint64_t off)
{
	struct stat st;
	void *p;

	if (!size || !range_ok(off, size) || (off % (uint64_t)sysconf(_SC_PAGESIZE)))
		return -EINVAL;
	if (fstat(fd, &st) || st.st_size < 0 ||
	    (uint64_t)st.st_size < off + size)
		return -EINVAL;
	p = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)off);
	if (p == MAP_FAILED)
		return -errno;
	vu_log_unmap(l);
	l->map = p;
	l->len = (size_t)size;
	l->fd = -1;
	l->off = off;
	return 0;
}

/**
 * vu_log_unmap() - forget the dirty log
 * @l:		log
 */
void vu_log_unmap(struct vu_log *l)
{
	if (l->map) {
		munmap(l->map, l->len);
		if (l->fd >= 0)
			close(l->fd);
	}
	l->map = NULL;
	l->len = 0;
	l->fd = -1;
}

/**
 * vu_log_gpa() - mark guest-physical memory written, if the front-end logs
 * @l:		log
 * @gpa:	first byte written
 * @len:	bytes written
 *
 * Bits are set atomically: the front-end clears them as it copies pages,
 * from another thread.
 */
void vu_log_gpa(const struct vu_log *l, uint64_t gpa, uint64_t len)
{
	uint64_t page, last;

	if (!l->on || !l->map || !len)
		return;
	page = gpa / VU_LOG_PAGE;
	last = (gpa + len - 1) / VU_LOG_PAGE;
	for (; page <= last && page / 8 < l->len; page++)
		__atomic_fetch_or(&l->map[page / 8], (uint8_t)(1U << (page % 8)),
				  __ATOMIC_RELAXED);
}

/**
 * vu_log_va() - mark memory written through our mapping, if the front-end
 *		 logs
 * @l:		log
 * @m:		memory table
 * @va:		first byte written, in our mapping of a region
 * @len:	bytes written, within that region
 */
void vu_log_va(const struct vu_log *l, const struct vu_mem *m,
	       const void *va, size_t len)
{
	const uint8_t *p = va;
	unsigned int i;

	if (!l->on || !l->map || !len)
		return;
	for (i = 0; i < m->n; i++) {
		const struct vu_region *r = &m->r[i];
		const uint8_t *start = r->map + r->mmap_off;

		if (p >= start && p < start + r->size) {
			vu_log_gpa(l, r->gpa + (uint64_t)(p - start), len);
			return;
		}
	}
}
