#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-soak.sh - the soak with faults of soak.sh (its header says what runs,
# which faults hit and what is checked), for `make check`: two minutes
# (SROCE_SOAK_SECONDS, 120 unless set), a fault every 6 s, none in the last
# 30 s.  `make soak DURATION=1h` runs soak.sh alone for longer.

here=$(dirname "${BASH_SOURCE[0]}")
SROCE_SOAK_SECONDS=${SROCE_SOAK_SECONDS:-120} exec bash "$here/soak.sh"
