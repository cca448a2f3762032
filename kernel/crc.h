/* SPDX-License-Identifier: GPL-2.0 */
/*
 * crc.h - module init/exit of the ICRC's CRC-32 (crc.c).  The function
 * itself, sroce_crc32_le(), is declared in proto/env.h for the pure core.
 */
#ifndef _SROCE_CRC_H
#define _SROCE_CRC_H

#include <linux/init.h>

int __init sroce_crc_init(void);
void sroce_crc_exit(void);

#endif /* _SROCE_CRC_H */
