// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * csum.c - the one's complement sum of netshim (netshim/checksum.c) beside
 * the scalar sum it replaced, on frame-sized buffers: GB/s and ns per
 * call, every result checked against the other.  Run by bench.sh into
 * DIR/csum.txt; alone:
 *   cc -O2 -I. -D_GNU_SOURCE -o csum tests/bench/csum.c netshim/checksum.c
 *   ./csum [SIZE...]
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "netshim/checksum.h"

/* netshim's sum before the vector one (312dfdd^): native 32-bit words in
 * four 64-bit sums, folded at the end
 */
static uint32_t csum_scalar(const void *buf, size_t len, uint32_t sum)
{
	uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, acc;
	const uint8_t *b = buf;
	uint32_t w[8], v;

	for (; len >= 32; b += 32, len -= 32) {
		memcpy(w, b, 32);
		a0 += (uint64_t)w[0] + w[4];
		a1 += (uint64_t)w[1] + w[5];
		a2 += (uint64_t)w[2] + w[6];
		a3 += (uint64_t)w[3] + w[7];
	}
	acc = a0 + a1 + a2 + a3;
	for (; len >= 4; b += 4, len -= 4) {
		memcpy(&v, b, 4);
		acc += v;
	}
	v = 0;
	memcpy(&v, b, len);
	acc += v;
	acc = (acc & 0xffffffff) + (acc >> 32);
	acc = (acc & 0xffffffff) + (acc >> 32);
	v = (uint32_t)acc;
	v = (v & 0xffff) + (v >> 16);
	v = (v & 0xffff) + (v >> 16);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	v = (uint16_t)(v << 8 | v >> 8);
#endif
	return sum + v;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* About 2 GB summed per case: a few tenths of a second each */
static double gbps(uint32_t (*f)(const void *, size_t, uint32_t),
		   const uint8_t *buf, size_t len, double *ns)
{
	long i, it = (long)(2e9 / (double)len);
	volatile uint32_t sink = 0;
	double t0 = now(), t;

	for (i = 0; i < it; i++)	/* odd offsets too: frames land so */
		sink += f(buf + (i & 7), len, 0);
	t = now() - t0;
	(void)sink;
	*ns = t / (double)it * 1e9;
	return (double)it * (double)len / t / 1e9;
}

int main(int argc, char **argv)
{
	static const size_t def[] = { 60, 576, 1460, 9000, 65000 };
	static uint8_t buf[65536 + 8];
	size_t i, n = argc > 1 ? (size_t)argc - 1 : sizeof(def) / sizeof(*def);

	srand(1);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)rand();
	printf("%-8s %12s %10s %12s %10s\n", "bytes", "netshim GB/s", "ns/call",
	       "scalar GB/s", "ns/call");
	for (i = 0; i < n; i++) {
		size_t len = argc > 1 ? strtoul(argv[i + 1], NULL, 0) : def[i];
		double v, s, vns, sns;
		unsigned int o;

		if (!len || len > 65536) {
			fprintf(stderr, "csum: size %zu: 1 to 65536\n", len);
			return 1;
		}
		for (o = 0; o < 8; o++)
			if (csum_fold(csum_add(buf + o, len, 0)) !=
			    csum_fold(csum_scalar(buf + o, len, 0))) {
				fprintf(stderr, "csum: the sums differ at %zu "
					"bytes, offset %u\n", len, o);
				return 1;
			}
		v = gbps(csum_add, buf, len, &vns);
		s = gbps(csum_scalar, buf, len, &sns);
		printf("%-8zu %12.1f %10.1f %12.1f %10.1f\n", len, v, vns, s, sns);
	}
	return 0;
}
