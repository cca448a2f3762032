// SPDX-License-Identifier: GPL-2.0
/*
 * coll.c - MPI collectives at many message sizes, timed and checked.
 *
 * What an operator runs before trusting a fabric: MPI_Allreduce (MPI_SUM),
 * MPI_Alltoall and MPI_Bcast from 8 B to 16 MiB.  Every iteration's result
 * is compared element by element with what it must be, so a fabric that
 * loses, reorders or corrupts data fails the run instead of only looking
 * slow.  The bandwidths are those of nccl-tests (doc/PERFORMANCE.md there):
 * algbw = bytes / time, and busbw scales algbw by the share of the data
 * each rank must move over its links in the optimal algorithm, so that
 * busbw is comparable across rank counts and with the link speed:
 *
 *   allreduce  busbw = algbw * 2 (n - 1) / n
 *   alltoall   busbw = algbw * (n - 1) / n
 *   bcast      busbw = algbw
 *
 * Timing: each iteration starts after an MPI_Barrier and is timed on its
 * own with MPI_Wtime; filling and checking the buffers happen outside the
 * timed section.  A row reports the largest per-rank average.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Errors printed per rank and per row; the rest are only counted. */
#define MAX_REPORT 5
/* Default number of bytes one row moves at most: fewer iterations at big sizes. */
#define ROW_BYTES (256u << 20)
/* Receive buffers are poisoned with this before each collective. */
#define POISON 0xa5a5a5a5u

enum op { OP_ALLREDUCE, OP_ALLTOALL, OP_BCAST, NR_OPS };

static const char *const op_names[NR_OPS] = {
	[OP_ALLREDUCE] = "allreduce",
	[OP_ALLTOALL] = "alltoall",
	[OP_BCAST] = "bcast",
};

struct opts {
	unsigned int ops; /* bit mask of enum op */
	size_t min_size; /* bytes, at least one element */
	size_t max_size;
	unsigned int factor; /* 2 or 4 */
	long iters; /* upper bound per row; scaled down by size */
	long warmup;
	double budget; /* seconds per row, 0 for none */
	const char *csv;
	int use_float; /* MPI_FLOAT instead of MPI_INT32_T */
	int corrupt; /* -X: self-test of the checks */
};

/* One (op, size) row: the buffers and what the iterations found. */
struct row {
	enum op op;
	size_t size; /* the requested size */
	size_t count; /* elements per rank buffer actually used */
	size_t block; /* alltoall: elements per peer */
	void *sbuf;
	void *rbuf;
	long errors; /* on this rank */
	int rank;
	int nranks;
};

static struct opts opt = {
	.ops = (1u << NR_OPS) - 1,
	.min_size = 8,
	.max_size = 16u << 20,
	.factor = 2,
	.iters = 1000,
	.warmup = 5,
	.budget = 0.5,
};

/*
 * The value rank @r contributes at element @i in iteration @it: a 12-bit
 * hash of (it, i), so that a stale buffer from another iteration or an
 * element moved to another index is caught, plus a rank term, so that a
 * block from the wrong peer is caught.  The rank term is linear, so that
 * the allreduce sum has a closed form, and everything stays a small
 * integer: sums of them are exact in int32 and in float (below 2^24).
 */
static uint32_t pat_hash(long it, size_t i)
{
	uint32_t x = (uint32_t)i * 2654435761u ^ (uint32_t)it * 40503u;

	return (x >> 20) & 0xfff;
}

static int64_t pat(int r, long it, size_t i)
{
	return pat_hash(it, i) + (int64_t)r * (int64_t)(i % 7 + 1);
}

static int64_t pat_sum(int n, long it, size_t i)
{
	return (int64_t)n * pat_hash(it, i) +
	       (int64_t)(i % 7 + 1) * n * (n - 1) / 2;
}

static void put(void *buf, size_t i, int64_t v)
{
	if (opt.use_float)
		((float *)buf)[i] = (float)v;
	else
		((int32_t *)buf)[i] = (int32_t)v;
}

/* As a double: exact for every int32 and every float. */
static double get(const void *buf, size_t i)
{
	if (opt.use_float)
		return ((const float *)buf)[i];
	return ((const int32_t *)buf)[i];
}

static void poison(void *buf, size_t count)
{
	uint32_t *p = buf;
	size_t i;

	for (i = 0; i < count; i++)
		p[i] = POISON;
}

static void report(struct row *row, long it, size_t i, int64_t want, double got)
{
	if (++row->errors > MAX_REPORT)
		return;
	fprintf(stderr,
		"coll: FAIL op=%s bytes=%zu rank=%d iter=%ld index=%zu expected=%" PRId64
		" got=%.9g\n",
		op_names[row->op], row->count * 4, row->rank, it, i, want, got);
}

static void check(struct row *row, long it, size_t i, int64_t want)
{
	double got = get(row->rbuf, i);

	if (got != (double)want)
		report(row, it, i, want, got);
}

static void fill(struct row *row, long it)
{
	int me = row->rank;
	size_t i;

	switch (row->op) {
	case OP_ALLREDUCE:
	case OP_ALLTOALL:
		/* alltoall: element d * block + j goes to rank d. */
		for (i = 0; i < row->count; i++)
			put(row->sbuf, i, pat(me, it, i));
		poison(row->rbuf, row->count);
		break;
	case OP_BCAST:
		/* One buffer; the root rotates to cover every sender. */
		if (me == it % row->nranks) {
			for (i = 0; i < row->count; i++)
				put(row->rbuf, i, pat(me, it, i));
		} else {
			poison(row->rbuf, row->count);
		}
		break;
	default:
		break;
	}
}

static void verify(struct row *row, long it)
{
	int n = row->nranks, me = row->rank, src;
	size_t i, j, b = row->block;

	switch (row->op) {
	case OP_ALLREDUCE:
		for (i = 0; i < row->count; i++)
			check(row, it, i, pat_sum(n, it, i));
		break;
	case OP_ALLTOALL:
		/* Block src holds what src sent to us: its block number me. */
		for (src = 0; src < n; src++)
			for (j = 0; j < b; j++)
				check(row, it, src * b + j,
				      pat(src, it, me * b + j));
		break;
	case OP_BCAST:
		for (i = 0; i < row->count; i++)
			check(row, it, i, pat(it % n, it, i));
		break;
	default:
		break;
	}
}

static void collective(struct row *row, long it)
{
	MPI_Datatype t = opt.use_float ? MPI_FLOAT : MPI_INT32_T;
	int c = (int)row->count;

	switch (row->op) {
	case OP_ALLREDUCE:
		MPI_Allreduce(row->sbuf, row->rbuf, c, t, MPI_SUM,
			      MPI_COMM_WORLD);
		break;
	case OP_ALLTOALL:
		MPI_Alltoall(row->sbuf, (int)row->block, t, row->rbuf,
			     (int)row->block, t, MPI_COMM_WORLD);
		break;
	case OP_BCAST:
		MPI_Bcast(row->rbuf, c, t, (int)(it % row->nranks),
			  MPI_COMM_WORLD);
		break;
	default:
		break;
	}
}

/*
 * -X: damage one element of the result on the last rank, as a fabric
 * would, after the collective and before the check.  Only in the first
 * iteration of a row, so the self-test sees exactly one report per row.
 */
static void inject(struct row *row, long it)
{
	size_t i = row->count / 2;

	if (!opt.corrupt || it != 0 || row->rank != row->nranks - 1)
		return;
	put(row->rbuf, i, (int64_t)get(row->rbuf, i) + 1);
}

/*
 * Start an iteration on every rank at once, and agree whether the row's
 * time budget is spent.  The MAX reduction is the barrier: no rank can
 * leave it before every rank has entered it, as with MPI_Barrier, and all
 * ranks see the same verdict, so all run the same number of iterations.
 */
static int sync_stop(double start, long done)
{
	double spent = MPI_Wtime() - start;

	MPI_Allreduce(MPI_IN_PLACE, &spent, 1, MPI_DOUBLE, MPI_MAX,
		      MPI_COMM_WORLD);
	return opt.budget > 0 && done > 0 && spent > opt.budget;
}

/*
 * At most @count iterations from @first on, fewer if the budget runs out
 * (budgeted: the timed ones); *@done says how many ran.  Returns their
 * summed time in seconds.
 */
static double run_iters(struct row *row, long first, long count, int budgeted,
			long *done)
{
	double t = 0, t0, start = MPI_Wtime();
	long it;

	for (it = first; it < first + count; it++) {
		fill(row, it);
		if (sync_stop(start, budgeted ? it - first : 0))
			break;
		t0 = MPI_Wtime();
		collective(row, it);
		t += MPI_Wtime() - t0;
		inject(row, it);
		verify(row, it);
	}
	*done = it - first;
	return t;
}

/* Elements per rank buffer for @size bytes, and per peer for alltoall. */
static void row_shape(struct row *row)
{
	size_t n = (size_t)row->nranks;

	row->count = row->size / 4;
	row->block = 0;
	if (row->op != OP_ALLTOALL)
		return;
	/* As nccl-tests: the buffer splits evenly, at least one per peer. */
	row->block = row->count / n ? row->count / n : 1;
	row->count = row->block * n;
}

static long row_iters(size_t bytes)
{
	long n = (long)(ROW_BYTES / bytes);

	if (n > opt.iters)
		n = opt.iters;
	return n < 1 ? 1 : n;
}

static double busbw_factor(enum op op, int n)
{
	switch (op) {
	case OP_ALLREDUCE:
		return 2.0 * (n - 1) / n;
	case OP_ALLTOALL:
		return (double)(n - 1) / n;
	default:
		return 1.0;
	}
}

static void print_header(FILE *csv, int n)
{
	printf("# coll: %d ranks, %s, %zu..%zu bytes (x%u), %ld iterations at most, %ld warm-up, %.2f s per row\n",
	       n, opt.use_float ? "float" : "int32", opt.min_size, opt.max_size,
	       opt.factor, opt.iters, opt.warmup, opt.budget);
	printf("# %-9s %10s %10s %7s %12s %12s %12s %7s\n", "op", "size",
	       "bytes", "iters", "avg_us", "algbw_GB/s", "busbw_GB/s",
	       "errors");
	if (csv)
		fprintf(csv,
			"op,size,bytes,ranks,iters,avg_us,algbw_GBps,busbw_GBps,errors\n");
}

static void print_row(FILE *csv, struct row *row, long iters, double avg,
		      long errors)
{
	size_t bytes = row->count * 4;
	double algbw = bytes / avg / 1e9;
	double busbw = algbw * busbw_factor(row->op, row->nranks);

	printf("  %-9s %10zu %10zu %7ld %12.2f %12.4f %12.4f %7ld\n",
	       op_names[row->op], row->size, bytes, iters, avg * 1e6, algbw,
	       busbw, errors);
	if (csv)
		fprintf(csv, "%s,%zu,%zu,%d,%ld,%.9g,%.9g,%.9g,%ld\n",
			op_names[row->op], row->size, bytes, row->nranks, iters,
			avg * 1e6, algbw, busbw, errors);
	fflush(stdout);
}

/* One row: warm-up, timed iterations, and the reduced result on rank 0. */
static long run_row(FILE *csv, struct row *row)
{
	long n, warm, iters, errors;
	double t;

	row_shape(row);
	row->errors = 0;
	n = row_iters(row->count * 4);
	run_iters(row, 0, opt.warmup < n ? opt.warmup : n, 0, &warm);
	t = run_iters(row, warm, n, 1, &iters) / iters;
	MPI_Reduce(row->rank ? &t : MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, 0,
		   MPI_COMM_WORLD);
	errors = row->errors;
	MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_LONG, MPI_SUM,
		      MPI_COMM_WORLD);
	if (row->rank == 0)
		print_row(csv, row, iters, t, errors);
	return errors;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: coll [-o OPS] [-b MIN] [-e MAX] [-f FACTOR] [-n ITERS]\n"
		"            [-w WARMUP] [-t SECONDS] [-d TYPE] [-c FILE] [-h]\n"
		"  -o OPS      comma list of allreduce,alltoall,bcast (default: all)\n"
		"  -b MIN      smallest size in bytes, K/M suffix (default 8)\n"
		"  -e MAX      largest size (default 16M)\n"
		"  -f FACTOR   size step, 2 or 4 (default 2)\n"
		"  -n ITERS    timed iterations per size at most (default 1000);\n"
		"              fewer at big sizes (256 MiB per size)\n"
		"  -w WARMUP   untimed iterations per size (default 5)\n"
		"  -t SECONDS  time budget per size, 0 for none (default 0.5)\n"
		"  -d TYPE     int32 or float (default int32)\n"
		"  -c FILE     also write the rows as CSV to FILE\n"
		"  -h          this help\n"
		"Every result is checked; the exit status is 1 if any was wrong.\n");
}

static int parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	if (*end || v == 0 || v > (1ull << 30))
		return -1;
	*out = (size_t)v;
	return 0;
}

static int parse_ops(char *s)
{
	char *tok, *save = NULL;
	int i;

	opt.ops = 0;
	for (tok = strtok_r(s, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < NR_OPS; i++)
			if (!strcmp(tok, op_names[i]))
				break;
		if (i == NR_OPS)
			return -1;
		opt.ops |= 1u << i;
	}
	return opt.ops ? 0 : -1;
}

static long parse_long(const char *s, long min)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min)
		return -1;
	return v;
}

static int parse_type(const char *s)
{
	if (!strcmp(s, "int32"))
		opt.use_float = 0;
	else if (!strcmp(s, "float"))
		opt.use_float = 1;
	else
		return -1;
	return 0;
}

/* Returns 0 to run, 1 for -h, -1 for a bad option. */
static int parse_args(int argc, char **argv)
{
	char *end;
	int c;

	while ((c = getopt(argc, argv, "o:b:e:f:n:w:t:d:c:Xh")) != -1) {
		switch (c) {
		case 'o':
			if (parse_ops(optarg))
				return -1;
			break;
		case 'b':
			if (parse_size(optarg, &opt.min_size))
				return -1;
			break;
		case 'e':
			if (parse_size(optarg, &opt.max_size))
				return -1;
			break;
		case 'f':
			opt.factor = (unsigned int)parse_long(optarg, 2);
			if (opt.factor != 2 && opt.factor != 4)
				return -1;
			break;
		case 'n':
			opt.iters = parse_long(optarg, 1);
			if (opt.iters < 0)
				return -1;
			break;
		case 'w':
			opt.warmup = parse_long(optarg, 0);
			if (opt.warmup < 0)
				return -1;
			break;
		case 't':
			opt.budget = strtod(optarg, &end);
			if (end == optarg || *end || opt.budget < 0)
				return -1;
			break;
		case 'd':
			if (parse_type(optarg))
				return -1;
			break;
		case 'c':
			opt.csv = optarg;
			break;
		case 'X': /* undocumented: for selftest.sh */
			opt.corrupt = 1;
			break;
		case 'h':
			return 1;
		default:
			return -1;
		}
	}
	if (optind != argc || opt.min_size > opt.max_size)
		return -1;
	/* Whole elements, at least one. */
	opt.min_size = opt.min_size < 4 ? 4 : opt.min_size & ~(size_t)3;
	opt.max_size &= ~(size_t)3;
	return 0;
}

/*
 * The patterns' sums must stay exact: below 2^31 in int32, 2^24 in float
 * (see pat()).  The largest value is pat_sum() with hash 0xfff and i % 7 == 6.
 */
static int ranks_ok(int n)
{
	int64_t top = (int64_t)n * 0xfff + (int64_t)7 * n * (n - 1) / 2;

	return top < (opt.use_float ? (1 << 24) : INT32_MAX);
}

static long run_all(FILE *csv, int rank, int n)
{
	struct row row = { .rank = rank, .nranks = n };
	size_t alloc, size;
	long errors = 0;
	int op;

	/* Alltoall may round up to one element per peer. */
	alloc = opt.max_size > (size_t)n * 4 ? opt.max_size : (size_t)n * 4;
	row.sbuf = malloc(alloc);
	row.rbuf = malloc(alloc);
	if (!row.sbuf || !row.rbuf) {
		fprintf(stderr, "coll: rank %d: no memory for %zu bytes\n",
			rank, 2 * alloc);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (rank == 0)
		print_header(csv, n);
	for (op = 0; op < NR_OPS; op++) {
		if (!(opt.ops & (1u << op)))
			continue;
		row.op = op;
		for (size = opt.min_size; size <= opt.max_size;
		     size *= opt.factor) {
			row.size = size;
			errors += run_row(csv, &row);
		}
	}
	free(row.sbuf);
	free(row.rbuf);
	return errors;
}

int main(int argc, char **argv)
{
	FILE *csv = NULL;
	int rank, n, rc;
	long errors;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	/* Every rank parses the same arguments and reaches the same verdict. */
	rc = parse_args(argc, argv);
	if (rc || !ranks_ok(n)) {
		if (rank == 0 && rc >= 0 && !ranks_ok(n))
			fprintf(stderr, "coll: %d ranks overflow the %s sums\n",
				n, opt.use_float ? "float" : "int32");
		else if (rank == 0)
			usage(rc > 0 ? stdout : stderr);
		MPI_Finalize();
		return rc > 0 ? 0 : 2;
	}
	if (rank == 0 && opt.csv) {
		csv = fopen(opt.csv, "w");
		if (!csv) {
			fprintf(stderr, "coll: %s: %s\n", opt.csv,
				strerror(errno));
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
	}
	errors = run_all(csv, rank, n);
	if (csv && fclose(csv)) {
		fprintf(stderr, "coll: %s: %s\n", opt.csv, strerror(errno));
		errors++;
	}
	if (rank == 0)
		printf("# coll: %s, %ld wrong elements\n",
		       errors ? "FAIL" : "ok", errors);
	MPI_Finalize();
	return errors ? 1 : 0;
}
