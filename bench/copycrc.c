// SPDX-License-Identifier: GPL-2.0
/*
 * copycrc.c - the copy+CRC bound of one vCPU (bench/run.sh).
 *
 * For each payload byte, sroce does two things on the CPU that handles
 * the packet, on the sender and again on the receiver: one copy between
 * the memory region and the skb (kernel/mem.c: skb_store_bits() and
 * skb_copy_bits(), both the kernel's memcpy) and the CRC-32 of the ICRC
 * (kernel/crc.c).  One vCPU doing both for a stream of packets cannot go
 * faster than
 *
 *	bound = 1 / (1 / copy + 1 / crc)
 *
 * This tool measures copy and crc on one pinned CPU, in packet-sized
 * pieces (-p, default 4096, IB MTU 4096), over a buffer of each size given
 * (default 64 KiB and 1 MiB), with the implementations the running kernel
 * would use:
 *
 *   copy  6.1's memcpy (arch/x86/lib/memcpy_64.S) is "rep movsb" on a CPU
 *         with ERMS, "rep movsq" + "rep movsb" with REP_GOOD (which qemu64
 *         gets as an AMD K8), otherwise a loop of 64-bit moves unrolled
 *         four times; the flags come from /proc/cpuinfo.  Written here in
 *         inline assembly, so that the compiler cannot turn them into
 *         something else.  glibc's memcpy is measured too, for reference.
 *   crc   crc32_le() is slice-by-8 in Debian's kernels (CRC32_SLICEBY8);
 *         sroce uses the crypto API's crc32-pclmul instead when the CPU
 *         has PCLMULQDQ (kernel/crc.c), which then shows in /proc/crypto.
 *         Both are implemented below (the PCLMUL one folds 64 bytes at a
 *         time, as the kernel's does) and checked against each other.
 *
 * "warm": the same source and destination every time, as perftest reuses
 * its one buffer; "cold": successive buffers of a 64 MiB pool each time.
 * The bound uses the warm copy and the kernel's CRC.  Each figure is the
 * median of -r samples (default 5) of -t milliseconds (default 200).
 * MB/s here is 2^20 bytes per second, perftest's unit.
 *
 * Output, one figure a line, for bench/run.sh:
 *   WHAT SIZE MBPS SAMPLES   e.g. "copy_warm.rep_movsq 65536 812.3 80;81;..."
 * WHAT is copy_warm.V, copy_cold.V, copy_warm.glibc, crc.sb8, crc.pclmul
 * or bound.V+C (V and C: the kernel's copy and CRC).
 */
#include <errno.h>
#include <getopt.h>
#include <immintrin.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MIB (1024.0 * 1024.0)
#define POOL_BYTES (64u << 20)
#define MAX_SAMPLES 31
/* CRC-32 (IEEE 802.3) generator with its x^32 term, and reflected. */
#define CRC32_POLY_FULL 0x104c11db7ull
#define CRC32_POLY_REV 0xedb88320u

typedef void copy_fn(void *dst, const void *src, size_t n);
typedef uint32_t crc_fn(uint32_t crc, const uint8_t *p, size_t len);

struct opts {
	int cpu;
	size_t pkt;
	double secs;
	int rounds;
};

/* One measurement: what to run over which bytes. */
struct job {
	const struct opts *o;
	size_t size; /* bytes per pass */
	uint8_t *src, *dst; /* pools of POOL_BYTES */
	size_t pos; /* next cold offset into the pools */
	bool cold;
	copy_fn *copy;
	crc_fn *crc;
	uint32_t sink; /* the last CRC */
};

/* ---- copies as the kernel's memcpy does them -------------------------- */

static void copy_rep_movsb(void *dst, const void *src, size_t n)
{
	asm volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

static void copy_rep_movsq(void *dst, const void *src, size_t n)
{
	size_t q = n >> 3, b = n & 7;

	asm volatile("rep movsq\n\t"
		     "movq %3, %%rcx\n\t"
		     "rep movsb"
		     : "+D"(dst), "+S"(src), "+c"(q)
		     : "r"(b)
		     : "memory");
}

/* 32 bytes per iteration in four 64-bit registers, then the tail. */
static void copy_movq(void *dst, const void *src, size_t n)
{
	size_t blk = n & ~(size_t)31;

	if (blk)
		asm volatile("1:\n\t"
			     "movq 0(%1), %%r8\n\t"
			     "movq 8(%1), %%r9\n\t"
			     "movq 16(%1), %%r10\n\t"
			     "movq 24(%1), %%r11\n\t"
			     "movq %%r8, 0(%0)\n\t"
			     "movq %%r9, 8(%0)\n\t"
			     "movq %%r10, 16(%0)\n\t"
			     "movq %%r11, 24(%0)\n\t"
			     "leaq 32(%1), %1\n\t"
			     "leaq 32(%0), %0\n\t"
			     "subq $32, %2\n\t"
			     "jnz 1b"
			     : "+r"(dst), "+r"(src), "+r"(blk)
			     :
			     : "r8", "r9", "r10", "r11", "memory", "cc");
	copy_rep_movsb(dst, src, n & 31);
}

static void copy_glibc(void *dst, const void *src, size_t n)
{
	memcpy(dst, src, n);
}

/* ---- CRC-32, the register kept as crc32_le() keeps it ------------------- */

static uint32_t sb8_tab[8][256];

static void sb8_init(void)
{
	uint32_t c;
	int i, k;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (c & 1 ? CRC32_POLY_REV : 0);
		sb8_tab[0][i] = c;
	}
	for (k = 1; k < 8; k++)
		for (i = 0; i < 256; i++) {
			c = sb8_tab[k - 1][i];
			sb8_tab[k][i] = (c >> 8) ^ sb8_tab[0][c & 0xff];
		}
}

/* One byte at a time (Sarwate): the reference of the self-test. */
static uint32_t crc_bytes(uint32_t crc, const uint8_t *p, size_t len)
{
	while (len--)
		crc = (crc >> 8) ^ sb8_tab[0][(crc ^ *p++) & 0xff];
	return crc;
}

/* Slice-by-8: eight bytes per step, byte i through table 7 - i. */
static uint32_t crc_sb8(uint32_t crc, const uint8_t *p, size_t len)
{
	uint64_t q;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&q, p, 8); /* little endian: p[0] lowest */
		q ^= crc;
		crc = sb8_tab[7][q & 0xff] ^ sb8_tab[6][(q >> 8) & 0xff] ^
		      sb8_tab[5][(q >> 16) & 0xff] ^
		      sb8_tab[4][(q >> 24) & 0xff] ^
		      sb8_tab[3][(q >> 32) & 0xff] ^
		      sb8_tab[2][(q >> 40) & 0xff] ^
		      sb8_tab[1][(q >> 48) & 0xff] ^ sb8_tab[0][q >> 56];
	}
	return crc_bytes(crc, p, len);
}

/*
 * Carry-less folding (Intel, "Fast CRC Computation for Generic Polynomials
 * Using PCLMULQDQ", 2009).  A 16-byte block loaded little endian holds, in
 * bit k, the coefficient of x^(127 - k) of its polynomial B = H x^64 + L
 * (H in the low quadword).  Moving B forward by F bits means replacing it
 * by a 128-bit value congruent to B x^F modulo P.  With a constant c whose
 * bit j stands for x^(32 - j), clmul(H, c) read the same way is
 * x^32 H c(x), so c = x^(F + 32) mod P for H and x^(F - 32) mod P for L;
 * the products stay below bit 96.  fold_const() builds c: x^n mod P,
 * bit-reflected into 32 bits, shifted up by one.
 */
static uint64_t fold_const(unsigned int n)
{
	uint64_t r = 1;
	uint32_t v = 0;
	int i;

	while (n--) {
		r <<= 1;
		if (r >> 32)
			r ^= CRC32_POLY_FULL;
	}
	for (i = 0; i < 32; i++)
		if (r >> i & 1)
			v |= 1u << (31 - i);
	return (uint64_t)v << 1;
}

static uint64_t k512_lo, k512_hi, k128_lo, k128_hi;

static void pclmul_init(void)
{
	k512_lo = fold_const(512 + 32);
	k512_hi = fold_const(512 - 32);
	k128_lo = fold_const(128 + 32);
	k128_hi = fold_const(128 - 32);
}

/* Functions that may use PCLMULQDQ, called only when the CPU has it. */
#define PCLMUL_FN __attribute__((target("pclmul,sse2")))

static PCLMUL_FN __m128i fold(__m128i x, __m128i k, __m128i next)
{
	return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00),
					   _mm_clmulepi64_si128(x, k, 0x11)),
			     next);
}

/*
 * Four blocks in flight over 64 bytes a step, then folded into one; the
 * last block and the tail go through slice-by-8 (the kernel's glue also
 * leaves heads, tails and buffers under 79 bytes to crc32_le()).
 */
static PCLMUL_FN uint32_t crc_pclmul(uint32_t crc, const uint8_t *p, size_t len)
{
	const __m128i *b = (const __m128i *)p;
	__m128i x[4], k;
	uint8_t last[16];
	int i;

	if (len < 64)
		return crc_sb8(crc, p, len);
	for (i = 0; i < 4; i++)
		x[i] = _mm_loadu_si128(b + i);
	/* The running register is XORed into the first four bytes. */
	x[0] = _mm_xor_si128(x[0], _mm_cvtsi32_si128((int)crc));
	p += 64;
	len -= 64;
	k = _mm_set_epi64x((long long)k512_hi, (long long)k512_lo);
	for (; len >= 64; p += 64, len -= 64)
		for (i = 0, b = (const __m128i *)p; i < 4; i++)
			x[i] = fold(x[i], k, _mm_loadu_si128(b + i));
	k = _mm_set_epi64x((long long)k128_hi, (long long)k128_lo);
	for (i = 1; i < 4; i++)
		x[0] = fold(x[0], k, x[i]);
	for (; len >= 16; p += 16, len -= 16)
		x[0] = fold(x[0], k, _mm_loadu_si128((const __m128i *)p));
	_mm_storeu_si128((__m128i *)last, x[0]);
	return crc_sb8(crc_bytes(0, last, 16), p, len);
}

/* 0 if the three CRCs agree with each other and with the check value. */
static int crc_selftest(bool pclmul)
{
	static uint8_t buf[4096 + 64];
	size_t off, len;
	uint32_t a;

	for (len = 0; len < sizeof(buf); len++)
		buf[len] = (uint8_t)(len * 131 + 7);
	/* CRC-32 check value: ~crc32_le(~0, "123456789") */
	if (~crc_sb8(~0u, (const uint8_t *)"123456789", 9) != 0xcbf43926u)
		return -1;
	for (off = 0; off < 16; off++)
		for (len = 0; len + off <= sizeof(buf); len += 37) {
			a = crc_bytes(off * 0x1010101u, buf + off, len);
			if (crc_sb8(off * 0x1010101u, buf + off, len) != a)
				return -1;
			if (pclmul &&
			    crc_pclmul(off * 0x1010101u, buf + off, len) != a)
				return -1;
		}
	return 0;
}

/* 0 if the three copies copy what they must and nothing more. */
static int copy_selftest(void)
{
	static copy_fn *const fns[] = { copy_rep_movsb, copy_rep_movsq,
					copy_movq };
	static uint8_t src[300], dst[320];
	size_t f, off, len;

	for (len = 0; len < sizeof(src); len++)
		src[len] = (uint8_t)(len * 131 + 7);
	for (f = 0; f < ARRAY_SIZE(fns); f++)
		for (off = 0; off < 8; off++)
			for (len = 0; len + off <= sizeof(src); len += 13) {
				memset(dst, 0xa5, sizeof(dst));
				fns[f](dst + 8, src + off, len);
				if (memcmp(dst + 8, src + off, len) ||
				    dst[7] != 0xa5 || dst[8 + len] != 0xa5)
					return -1;
			}
	return 0;
}

/* ---- what the running kernel uses --------------------------------------- */

/* Is @flag among the "flags" of /proc/cpuinfo's first CPU? */
static bool cpu_flag(const char *flag)
{
	char line[8192], *tok, *save, *colon;
	bool found = false;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		colon = strchr(line, ':');
		if (strncmp(line, "flags", 5) || !colon)
			continue;
		for (tok = strtok_r(colon + 1, "\n\t ", &save); tok;
		     tok = strtok_r(NULL, "\n\t ", &save))
			if (!strcmp(tok, flag))
				found = true;
		break;
	}
	fclose(f);
	return found;
}

/* Does /proc/crypto list a driver called @drv? */
static bool crypto_driver(const char *drv)
{
	char line[256], name[128];
	bool found = false;
	FILE *f = fopen("/proc/crypto", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "driver : %127s", name) == 1 &&
			!strcmp(name, drv);
	fclose(f);
	return found;
}

/* ---- timing -------------------------------------------------------------- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One pass over job->size bytes in packets; cold jobs move on each time. */
static void pass(struct job *j)
{
	uint8_t *s = j->src, *d = j->dst;
	size_t off, n;

	if (j->cold) {
		s += j->pos;
		d += j->pos;
		j->pos += j->size;
		if (j->pos + j->size > POOL_BYTES)
			j->pos = 0;
	}
	for (off = 0; off < j->size; off += n) {
		n = j->size - off < j->o->pkt ? j->size - off : j->o->pkt;
		if (j->copy)
			j->copy(d + off, s + off, n);
		else
			j->sink = j->crc(j->sink, s + off, n);
	}
	/* the result is "used": the CRC cannot be optimised away */
	asm volatile("" : : "r"(j->sink));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median MB/s of the job's samples; prints its output line. */
static double measure(struct job *j, const char *what)
{
	double v[MAX_SAMPLES], sorted[MAX_SAMPLES], t0, t;
	long n;
	int r;

	pass(j); /* fault the pages in, warm what is warm */
	for (r = 0; r < j->o->rounds; r++) {
		n = 0;
		t0 = now();
		do {
			pass(j);
			n++;
			t = now();
		} while (t - t0 < j->o->secs);
		v[r] = n * (double)j->size / (t - t0) / MIB;
	}
	memcpy(sorted, v, sizeof(v[0]) * j->o->rounds);
	qsort(sorted, j->o->rounds, sizeof(v[0]), cmp_double);
	t = (sorted[(j->o->rounds - 1) / 2] + sorted[j->o->rounds / 2]) / 2;
	printf("%s %zu %.1f ", what, j->size, t);
	for (r = 0; r < j->o->rounds; r++)
		printf("%s%.1f", r ? ";" : "", v[r]);
	printf("\n");
	return t;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: copycrc [-c CPU] [-p PACKET] [-t MS] [-r SAMPLES] [SIZE...]\n");
	exit(2);
}

static int parse(int argc, char **argv, struct opts *o)
{
	int c;

	o->cpu = -1;
	o->pkt = 4096;
	o->secs = 0.2;
	o->rounds = 5;
	while ((c = getopt(argc, argv, "c:p:t:r:h")) != -1) {
		switch (c) {
		case 'c':
			o->cpu = atoi(optarg);
			break;
		case 'p':
			o->pkt = strtoul(optarg, NULL, 0);
			break;
		case 't':
			o->secs = atoi(optarg) / 1000.0;
			break;
		case 'r':
			o->rounds = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (!o->pkt || o->secs <= 0 || o->rounds < 1 || o->rounds > MAX_SAMPLES)
		usage();
	return optind;
}

/* Pin to @cpu, or to the last CPU this process may run on. */
static int pin(int cpu)
{
	cpu_set_t set;
	int i;

	if (cpu < 0) {
		if (sched_getaffinity(0, sizeof(set), &set))
			return -1;
		for (i = CPU_SETSIZE - 1; i >= 0 && !CPU_ISSET(i, &set); i--)
			;
		cpu = i;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -1;
	return cpu;
}

int main(int argc, char **argv)
{
	static const size_t def_sizes[] = { 65536, 1048576 };
	bool has_pclmul, k_pclmul;
	const char *cname;
	copy_fn *kcopy;
	struct opts o;
	struct job j;
	double copy, crc;
	size_t size;
	int i, nsizes, first, cpu;

	first = parse(argc, argv, &o);
	nsizes = argc > first ? argc - first : 2;
	cpu = pin(o.cpu);
	if (cpu < 0) {
		perror("copycrc: sched_setaffinity");
		return 1;
	}
	sb8_init();
	pclmul_init();
	has_pclmul = __builtin_cpu_supports("pclmul");
	if (crc_selftest(has_pclmul) || copy_selftest()) {
		fprintf(stderr, "copycrc: self-test failed\n");
		return 1;
	}
	/* The kernel's memcpy: ERMS over REP_GOOD over the plain loop. */
	if (cpu_flag("erms")) {
		kcopy = copy_rep_movsb;
		cname = "rep_movsb";
	} else if (cpu_flag("rep_good")) {
		kcopy = copy_rep_movsq;
		cname = "rep_movsq";
	} else {
		kcopy = copy_movq;
		cname = "movq";
	}
	/* sroce loads crc32-pclmul through the crypto API when it can. */
	k_pclmul = has_pclmul && crypto_driver("crc32-pclmul");
	printf("# copycrc: CPU %d, %zu-byte packets, median of %d samples of %.0f ms, MB/s = 2^20 B/s\n",
	       cpu, o.pkt, o.rounds, o.secs * 1000);
	printf("# kernel memcpy: %s; kernel CRC: %s (pclmulqdq %s, crc32-pclmul %s in /proc/crypto)\n",
	       cname, k_pclmul ? "crc32-pclmul" : "crc32_le slice-by-8",
	       has_pclmul ? "present" : "absent",
	       crypto_driver("crc32-pclmul") ? "listed" : "not listed");

	memset(&j, 0, sizeof(j));
	j.o = &o;
	j.src = aligned_alloc(4096, POOL_BYTES);
	j.dst = aligned_alloc(4096, POOL_BYTES);
	if (!j.src || !j.dst) {
		fprintf(stderr, "copycrc: out of memory\n");
		return 1;
	}
	for (size = 0; size < POOL_BYTES; size++)
		j.src[size] = (uint8_t)(size * 131 + 7);
	memset(j.dst, 0, POOL_BYTES);

	for (i = 0; i < nsizes; i++) {
		char what[64];

		j.size = argc > first ? strtoul(argv[first + i], NULL, 0) :
					def_sizes[i];
		if (!j.size || j.size > POOL_BYTES / 2) {
			fprintf(stderr, "copycrc: bad size '%s'\n",
				argv[first + i]);
			return 2;
		}
		j.crc = NULL;
		j.copy = kcopy;
		j.cold = false;
		snprintf(what, sizeof(what), "copy_warm.%s", cname);
		copy = measure(&j, what);
		j.cold = true;
		snprintf(what, sizeof(what), "copy_cold.%s", cname);
		measure(&j, what);
		j.cold = false;
		j.copy = copy_glibc;
		measure(&j, "copy_warm.glibc");
		j.copy = NULL;
		j.crc = crc_sb8;
		crc = measure(&j, "crc.sb8");
		if (has_pclmul) {
			j.crc = crc_pclmul;
			if (k_pclmul)
				crc = measure(&j, "crc.pclmul");
			else
				measure(&j, "crc.pclmul");
		}
		printf("bound.%s+%s %zu %.1f -\n", cname,
		       k_pclmul ? "pclmul" : "sb8", j.size,
		       1 / (1 / copy + 1 / crc));
	}
	return 0;
}
