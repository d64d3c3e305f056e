/* SPDX-License-Identifier: GPL-2.0-or-later
 * bench_util.h - what the single-file mechanism benchmarks share
 * (splice_uring.c, recv_uring.c): dying on a failed call, the monotonic
 * clock and this process's CPU time, in seconds
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static inline void die(const char *what)
{
	perror(what);
	exit(1);
}

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* User and system time of this process and its threads, not children */
static inline double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

#endif /* BENCH_UTIL_H */
