// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * dp_blast.c - send a set of ready-made IPv4 packets again and again, as
 * fast as a raw socket takes them (the flood of t-pktfuzz.sh; pkt_fuzz.py
 * builds the packets, ICRC included, this only sends them).
 *
 *   dp_blast FILE SECS
 *
 * FILE holds packets, each a 2-byte big-endian length and that many bytes
 * of IPv4 header and payload (IP_HDRINCL; the destination is taken from
 * the header).  They go out in file order, round after round, for SECS
 * seconds, with sendmmsg() in batches.  Prints "sent N" (packets the
 * socket took; ENOBUFS and EAGAIN are counted in "busy N").
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>


#define BL_MAX 65536 /* packets in a file */
#define BL_BATCH 32

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static struct mmsghdr mm[BL_MAX];
	static struct iovec iov[BL_MAX];
	static struct sockaddr_in dst[BL_MAX];
	unsigned long long sent = 0, busy = 0;
	unsigned int n = 0, i, k;
	uint8_t hdr[2];
	double end;
	FILE *f;
	int s;

	if (argc != 3) {
		fprintf(stderr, "usage: dp_blast FILE SECS\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	while (n < BL_MAX && fread(hdr, 1, 2, f) == 2) {
		size_t len = (size_t)hdr[0] << 8 | hdr[1];
		uint8_t *p = malloc(len);

		if (!p || len < 20 || fread(p, 1, len, f) != len) {
			fprintf(stderr, "dp_blast: bad packet %u\n", n);
			return 1;
		}
		iov[n].iov_base = p;
		iov[n].iov_len = len;
		dst[n].sin_family = AF_INET;
		memcpy(&dst[n].sin_addr, p + 16, 4);
		mm[n].msg_hdr.msg_iov = &iov[n];
		mm[n].msg_hdr.msg_iovlen = 1;
		mm[n].msg_hdr.msg_name = &dst[n];
		mm[n].msg_hdr.msg_namelen = sizeof(dst[n]);
		n++;
	}
	fclose(f);
	s = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (s < 0 || !n) {
		perror("dp_blast: socket or empty file");
		return 1;
	}
	end = now_s() + atof(argv[2]);
	for (i = 0; now_s() < end; i = (i + k) % n) {
		int r;

		k = n - i < BL_BATCH ? n - i : BL_BATCH;
		r = sendmmsg(s, &mm[i], k, 0);
		if (r < 0) {
			if (errno != ENOBUFS && errno != EAGAIN) {
				perror("dp_blast: sendmmsg");
				return 1;
			}
			busy++;
			k = 0;
			usleep(100);
			continue;
		}
		sent += (unsigned int)r;
		k = (unsigned int)r;
	}
	printf("sent %llu\nbusy %llu\n", sent, busy);
	return 0;
}
