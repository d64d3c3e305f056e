/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - what the sk_lookup program and its loader both know
 */
#ifndef NETSHIM_SK_LOOKUP_BPF_H
#define NETSHIM_SK_LOOKUP_BPF_H

/* Port sets: one bit a port, 64 ports a word */
#define SK_LOOKUP_WORDS		(65536 / 64)

/* Keys of netshim's listening sockets in the program's socket map */
#define SK_LOOKUP_V4		0
#define SK_LOOKUP_V6		1

/* The program is built without the C library's headers */
#define SK_LOOKUP_AF_INET6	10

#endif /* NETSHIM_SK_LOOKUP_BPF_H */
