/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - common includes for the cmocka unit tests
 */
#ifndef NETSHIM_UNIT_H
#define NETSHIM_UNIT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#endif
