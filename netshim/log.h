/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - logging to stderr, a log file, or syslog
 */
#ifndef NETSHIM_LOG_H
#define NETSHIM_LOG_H

#include <stdbool.h>
#include <syslog.h>
#include <time.h>

void log_open(const char *file, bool foreground, bool quiet, bool debug);
void log_set_trace(bool on);
bool log_tracing(void);
void log_set_size(unsigned int size);
void log_set_append(bool on);
void log_forked(void);
void log_msg(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
bool log_ratelimit(time_t *last, time_t now, time_t interval);

#define err(...)	log_msg(LOG_ERR, __VA_ARGS__)
#define warn(...)	log_msg(LOG_WARNING, __VA_ARGS__)
#define info(...)	log_msg(LOG_INFO, __VA_ARGS__)
#define debug(...)	log_msg(LOG_DEBUG, __VA_ARGS__)

/* Per-frame messages, for --trace only: cheap to skip otherwise */
#define trace(...)							\
	do {								\
		if (log_tracing())					\
			log_msg(LOG_DEBUG, __VA_ARGS__);		\
	} while (0)

/* Warn at most once every ten seconds from this call site */
#define warn_rl(now, ...)						\
	do {								\
		static time_t last_;					\
		if (log_ratelimit(&last_, (now), 10))			\
			warn(__VA_ARGS__);				\
	} while (0)

void __attribute__((format(printf, 4, 5)))
log_buf_add(char *buf, size_t size, size_t *len, const char *fmt, ...);

#endif /* NETSHIM_LOG_H */
