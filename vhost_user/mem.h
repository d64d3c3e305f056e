/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - vhost-user: the guest's memory, mapped from the front-end's table
 */
#ifndef VHOST_USER_MEM_H
#define VHOST_USER_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* SET_MEM_TABLE carries at most 8 regions (VHOST_MEMORY_BASELINE_NREGIONS
 * of the spec); with CONFIGURE_MEM_SLOTS the front-end adds regions one by
 * one, up to the number netshim advertises in GET_MAX_MEM_SLOTS: the size
 * of this fixed table, never allocated.  QEMU merges the sections of one
 * file: QEMU 10 adds the tests' 512 MiB memfd guest as a single region,
 * and only memory hot-plug takes more.
 */
#define VU_MEM_REGIONS_MAX	8
#define VU_MEM_SLOTS		32

/**
 * struct vu_region - one region of guest memory
 * @gpa:	guest-physical address of its first byte
 * @size:	length in bytes
 * @uva:	the front-end's own address of it (vring addresses use these)
 * @mmap_off:	offset of the region in the file descriptor sent with it
 * @map:	our mapping of the file, from offset 0, or NULL
 * @map_len:	length of @map
 * @fd:		the file, kept while mapped (-1 if the caller kept it): a
 *		new netshim taking over maps it again (daemon/upgrade.c)
 */
struct vu_region {
	uint64_t gpa;
	uint64_t size;
	uint64_t uva;
	uint64_t mmap_off;
	uint8_t *map;
	size_t map_len;
	int fd;
};

/**
 * struct vu_mem - the memory table
 * @n:		regions in use, the first @n of @r
 * @r:		the regions
 */
struct vu_mem {
	unsigned int n;
	struct vu_region r[VU_MEM_SLOTS];
};

/* The dirty log (vhost-user.rst, "Migration"): one bit per 4 KiB page of
 * guest-physical memory, set for every page the back-end writes while the
 * front-end migrates the guest, so that its memory copy is complete
 */
#define VU_LOG_PAGE		4096

/**
 * struct vu_log - the log the front-end gave with SET_LOG_BASE
 * @map:	the bitmap, shared with the front-end, or NULL
 * @len:	its length in bytes: pages past 8 * @len are not logged
 * @on:		VHOST_F_LOG_ALL is negotiated: writes are logged
 * @fd:		its file, kept while mapped (-1 if the caller kept it)
 * @off:	where the log starts in it
 */
struct vu_log {
	uint8_t *map;
	size_t len;
	bool on;
	int fd;
	uint64_t off;
};

bool vu_mem_regions_valid(const struct vu_region *r, unsigned int n);
void *vu_gpa(const struct vu_mem *m, uint64_t gpa, uint64_t len);
size_t vu_gpa_contig(const struct vu_mem *m, uint64_t gpa, uint64_t len,
		     void **va);
void *vu_uva(const struct vu_mem *m, uint64_t uva, uint64_t len);
int vu_mem_map(struct vu_mem *m, const struct vu_region *r, unsigned int n,
	       const int *fds);
void vu_mem_unmap(struct vu_mem *m);
int vu_mem_add(struct vu_mem *m, const struct vu_region *r, int fd);
int vu_mem_remove(struct vu_mem *m, const struct vu_region *r);
int vu_log_set(struct vu_log *l, int fd, uint64_t size, uint64_t off);
void vu_log_unmap(struct vu_log *l);
void vu_log_gpa(const struct vu_log *l, uint64_t gpa, uint64_t len);
void vu_log_va(const struct vu_log *l, const struct vu_mem *m,
	       const void *va, size_t len);
int vu_mem_guard_init(void);
bool vu_mem_faulted(void);

#endif /* VHOST_USER_MEM_H */
