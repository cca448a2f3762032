// SPDX-License-Identifier: GPL-2.0
/*
 * memqp.c - kernel memory per RC QP of a verbs device (bench/run.sh).
 *
 *   memqp --snap                      one settled snapshot of the kernel's
 *                                     memory: "slab B vmalloc B other B
 *                                     ptables B" (bytes)
 *   memqp -d DEV [-n QPS] [-r ROUNDS] [-s init|rts] [-g GID_INDEX]
 *
 * Each round opens DEV, allocates one PD and one CQ, takes a snapshot,
 * creates QPS (default 256) RC QPs with perftest's shape (128 send and
 * 512 receive WRs, one SGE each way, no inline data), moves them to INIT
 * or (default) through RTR to RTS connected to themselves over the
 * device's own RoCE v2 GID, with 16 RDMA reads in flight each way as
 * perftest asks for, takes another snapshot and destroys it all.  It
 * prints each round's difference divided by QPS, then the medians:
 *
 *   round 1 slab 2048 vmalloc 8192 other 0 ptables 64
 *   qp slab 2048 vmalloc 8192 other 0 ptables 64
 *
 * What a snapshot counts (/proc/meminfo, /proc/zoneinfo):
 *   slab     SReclaimable + SUnreclaim, after dropping the page cache and
 *            the dentries and inodes and shrinking every slab cache (the
 *            objects the caches keep free on their CPU and partial lists)
 *   vmalloc  VmallocUsed, the pages vmalloc() holds: rings mapped to user
 *            space (vmalloc_user), kvmalloc() fallbacks, kernel stacks
 *   other    the rest of the memory in use that is neither slab, vmalloc,
 *            user memory (AnonPages), page cache (Buffers, Cached,
 *            SwapCached) nor page tables: pages a driver takes from the
 *            page allocator itself (alloc_pages, per-CPU areas, ...).
 *            "In use" is MemTotal - MemFree - the pages sitting in the
 *            per-CPU free lists (the "count" lines of /proc/zoneinfo),
 *            which MemFree leaves out and which come and go with any
 *            allocation.
 *   ptables  PageTables: page tables, here mostly those of this process's
 *            mappings of the rings; the process's, not the device's, so
 *            reported apart and left out of the other three.
 * The malloc()ed memory of the provider is user memory (AnonPages) and is
 * not counted.  Noise: whatever else the guest allocates meanwhile; many
 * QPs per round and the median of rounds keep it small.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_ROUNDS 31
#define MAX_RD_ATOM 16 /* perftest's reads in flight */

/* perftest's default queue shape for the bandwidth tests */
#define SEND_WRS 128
#define RECV_WRS 512

enum { SLAB, VMALLOC, OTHER, PTABLES, NR_KINDS };
static const char *const kind_name[NR_KINDS] = { "slab", "vmalloc", "other",
						 "ptables" };

struct opts {
	const char *dev;
	int nqp;
	int rounds;
	int rts; /* 0: stop in INIT */
	int gid_index; /* -1: the first IPv4 GID of port 1 */
};

/* ---- snapshots -------------------------------------------------------- */

static void write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0)
		return;
	/* a cache that cannot shrink is measured as it is */
	(void)!write(fd, s, strlen(s));
	close(fd);
}

/*
 * Free what caches hold without owning it (tests/integration/lib.sh's
 * shrink_caches, without starting a process per cache).
 */
static void shrink_caches(void)
{
	char path[512];
	struct dirent *d;
	DIR *dir;

	sync();
	write_str("/proc/sys/vm/drop_caches", "3");
	dir = opendir("/sys/kernel/slab");
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		/* aliases are symbolic links to a cache listed anyway */
		if (d->d_name[0] == '.' || d->d_type == DT_LNK)
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink",
			 d->d_name);
		write_str(path, "1");
	}
	closedir(dir);
}

/* /proc/meminfo's @name in bytes, from its text @mi; -1 if absent. */
static long long meminfo(const char *mi, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = mi; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, name, n) && p[n] == ':')
			return strtoll(p + n + 1, NULL, 10) * 1024;
	return -1;
}

static int read_file(const char *path, char *buf, size_t size)
{
	ssize_t n;
	size_t got = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while (got + 1 < size && (n = read(fd, buf + got, size - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	return 0;
}

/* Bytes in the per-CPU free lists of all zones. */
static long long pcp_bytes(void)
{
	static char zi[1 << 20];
	long long pages = 0;
	const char *p;

	if (read_file("/proc/zoneinfo", zi, sizeof(zi)))
		return 0;
	for (p = zi; (p = strstr(p, " count: ")); p += 8)
		pages += strtoll(p + 8, NULL, 10);
	return pages * sysconf(_SC_PAGESIZE);
}

/* A settled snapshot into @v (bytes); -1 if /proc/meminfo is unreadable. */
static int snapshot(long long v[NR_KINDS])
{
	static const char *const user[] = { "AnonPages", "Buffers", "Cached",
					    "SwapCached" };
	char mi[8192];
	long long used;
	size_t i;

	shrink_caches();
	/* objects freed after an RCU grace period, then shrink again */
	usleep(300 * 1000);
	shrink_caches();
	if (read_file("/proc/meminfo", mi, sizeof(mi)))
		return -1;
	used = meminfo(mi, "MemTotal") - meminfo(mi, "MemFree") - pcp_bytes();
	v[SLAB] = meminfo(mi, "SReclaimable") + meminfo(mi, "SUnreclaim");
	v[VMALLOC] = meminfo(mi, "VmallocUsed");
	v[PTABLES] = meminfo(mi, "PageTables");
	v[OTHER] = used - v[SLAB] - v[VMALLOC] - v[PTABLES];
	for (i = 0; i < ARRAY_SIZE(user); i++)
		v[OTHER] -= meminfo(mi, user[i]);
	return 0;
}

/* ---- the QPs ---------------------------------------------------------- */

/* Index of the first IPv4-mapped GID (::ffff:a.b.c.d) of port 1, or -1. */
static int ipv4_gid(struct ibv_context *ctx, int len)
{
	static const uint8_t v4[12] = { [10] = 0xff, [11] = 0xff };
	union ibv_gid gid;
	int i;

	for (i = 0; i < len; i++)
		if (!ibv_query_gid(ctx, 1, i, &gid) &&
		    !memcmp(gid.raw, v4, sizeof(v4)))
			return i;
	return -1;
}

/* RESET -> INIT, and with @o->rts on to RTR and RTS, connected to itself. */
static int qp_up(struct ibv_qp *qp, const struct opts *o,
		 const struct ibv_port_attr *port, const union ibv_gid *gid,
		 int rd_atom)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};
	int err;

	err = ibv_modify_qp(qp, &a,
			    IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				    IBV_QP_ACCESS_FLAGS);
	if (err || !o->rts)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = port->active_mtu;
	a.dest_qp_num = qp->qp_num;
	a.max_dest_rd_atomic = rd_atom;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = o->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	err = ibv_modify_qp(qp, &a,
			    IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				    IBV_QP_MAX_DEST_RD_ATOMIC |
				    IBV_QP_MIN_RNR_TIMER);
	if (err)
		return err;
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = rd_atom;
	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				     IBV_QP_MAX_QP_RD_ATOMIC);
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

/* One round: the kernel memory of @o->nqp QPs in @d (bytes, in total). */
static int round_once(const struct opts *o, struct ibv_context *ctx,
		      long long d[NR_KINDS])
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = SEND_WRS,
			 .max_recv_wr = RECV_WRS,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	long long before[NR_KINDS], after[NR_KINDS];
	struct ibv_device_attr dattr;
	struct ibv_port_attr port;
	struct ibv_qp **qps;
	union ibv_gid gid;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	int i, k, n = 0, rd_atom, err = -1;

	if (ibv_query_device(ctx, &dattr) || ibv_query_port(ctx, 1, &port) ||
	    (o->rts && ibv_query_gid(ctx, 1, o->gid_index, &gid)))
		return -1;
	rd_atom = dattr.max_qp_rd_atom < MAX_RD_ATOM ? dattr.max_qp_rd_atom :
						       MAX_RD_ATOM;
	qps = calloc(o->nqp, sizeof(*qps));
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 1024, NULL, NULL, 0) : NULL;
	if (!qps || !cq || snapshot(before))
		goto out;
	init.send_cq = cq;
	init.recv_cq = cq;
	for (n = 0; n < o->nqp; n++) {
		qps[n] = ibv_create_qp(pd, &init);
		if (!qps[n]) {
			perror("memqp: ibv_create_qp");
			goto out;
		}
		if (qp_up(qps[n], o, &port, &gid, rd_atom)) {
			perror("memqp: ibv_modify_qp");
			n++;
			goto out;
		}
	}
	if (snapshot(after))
		goto out;
	for (k = 0; k < NR_KINDS; k++)
		d[k] = after[k] - before[k];
	err = 0;
out:
	for (i = 0; i < n; i++)
		if (qps[i])
			ibv_destroy_qp(qps[i]);
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	free(qps);
	return err;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static void print_line(const char *head, const long long v[NR_KINDS])
{
	int k;

	printf("%s", head);
	for (k = 0; k < NR_KINDS; k++)
		printf(" %s %lld", kind_name[k], v[k]);
	printf("\n");
}

static int per_qp(struct opts *o)
{
	long long d[MAX_ROUNDS][NR_KINDS], col[MAX_ROUNDS], med[NR_KINDS];
	struct ibv_context *ctx = open_dev(o->dev);
	char head[32];
	int r, k;

	if (!ctx) {
		fprintf(stderr, "memqp: no device %s\n", o->dev);
		return 1;
	}
	if (o->rts && o->gid_index < 0)
		o->gid_index = ipv4_gid(ctx, 256);
	if (o->rts && o->gid_index < 0) {
		fprintf(stderr, "memqp: %s has no IPv4 GID on port 1\n",
			o->dev);
		return 1;
	}
	printf("# memqp: %s, %d RC QPs (%d send, %d recv WRs, 1 SGE, inline 0) in %s, bytes per QP\n",
	       o->dev, o->nqp, SEND_WRS, RECV_WRS, o->rts ? "RTS" : "INIT");
	for (r = 0; r < o->rounds; r++) {
		if (round_once(o, ctx, d[r])) {
			fprintf(stderr, "memqp: round %d failed\n", r + 1);
			return 1;
		}
		for (k = 0; k < NR_KINDS; k++)
			d[r][k] /= o->nqp;
		snprintf(head, sizeof(head), "round %d", r + 1);
		print_line(head, d[r]);
		fflush(stdout);
	}
	for (k = 0; k < NR_KINDS; k++) {
		for (r = 0; r < o->rounds; r++)
			col[r] = d[r][k];
		qsort(col, o->rounds, sizeof(col[0]), cmp_ll);
		med[k] = (col[(o->rounds - 1) / 2] + col[o->rounds / 2]) / 2;
	}
	print_line("qp", med);
	ibv_close_device(ctx);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: memqp --snap\n"
		"       memqp -d DEV [-n QPS] [-r ROUNDS] [-s init|rts] [-g GID_INDEX]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "snap", no_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .nqp = 256, .rounds = 5, .rts = 1, .gid_index = -1 };
	long long v[NR_KINDS];
	int c, snap = 0;

	while ((c = getopt_long(argc, argv, "d:n:r:s:g:", lopts, NULL)) != -1) {
		switch (c) {
		case 'S':
			snap = 1;
			break;
		case 'd':
			o.dev = optarg;
			break;
		case 'n':
			o.nqp = atoi(optarg);
			break;
		case 'r':
			o.rounds = atoi(optarg);
			break;
		case 's':
			if (strcmp(optarg, "init") && strcmp(optarg, "rts"))
				usage();
			o.rts = !strcmp(optarg, "rts");
			break;
		case 'g':
			o.gid_index = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (snap) {
		if (snapshot(v))
			return 1;
		print_line("snap", v);
		return 0;
	}
	if (!o.dev || o.nqp < 1 || o.rounds < 1 || o.rounds > MAX_ROUNDS)
		usage();
	return per_qp(&o);
}
