// SPDX-License-Identifier: GPL-2.0
/*
 * scenario.c - the scenario format of ccsim and its parser.
 *
 * An INI-like text file: "[section]" lines, "key = value" lines, comments
 * from '#' or ';' to the end of the line.  Units are part of the key name
 * (_ms, _us, _kb (1000 bytes), _gbps, _mbps).  Sections:
 *
 *   [sim]     name, duration_ms, seed, sample_us, mtu, measure_start_ms,
 *             measure_end_ms, conv_window_us, conv_jain,
 *             start_window_us, transport (none/gbn), rto_us,
 *             recovery (on/off: gbn with kernel/comp.c's window)
 *   [switch]  rate_gbps, buffer_kb, rx_delay_us, ecn (on/off), kmin_kb,
 *             kmax_kb, pmax, red_wlog, loss, pfc (on/off), pfc_xoff_kb,
 *             pfc_xon_kb, pfc_headroom_kb (fabric), ports (egress
 *             ports alike, a receiver behind each; 1 to SIM_MAX_PORTS)
 *   [cc]      algo (none/dcqcn/dctcp/hpcc/timely/fixed), flavour (paper/mlx),
 *             min_time_between_cnps_us, pace_burst_ns, and any reaction
 *             point knob by its NVIDIA name (rpg_ai_rate = 40 ...)
 *   [flow]    one per flow (or group): start_ms, stop_ms (0 = never),
 *             size_kb (0 = unlimited), rate_gbps (0 = port rate),
 *             speed_gbps (the cc's line rate; 0 = rate_gbps), window_kb
 *             (gbn; 0 = unlimited), delay_us, count, stagger_us, dst
 *             (the egress port, 0 to ports - 1), nic (flows with the
 *             same nic > 0 share one NIC, one host's QPs; they need the
 *             same rate_gbps); on the fabric src, dst (hosts), src_step,
 *             via
 *   [topo], [workload]: the fabric (fab_scenario.c)
 *
 * The command line may override any key as section.key=value; a flow.*
 * override applies to every [flow] section.
 */
#include <ctype.h>
#include <stdlib.h>

#include "fabric.h"

#define SIM_LINE_MAX 256

void sim_config_default(struct sim_config *c)
{
	memset(c, 0, sizeof(*c));
	strcpy(c->name, "unnamed");
	c->duration = 100 * SIM_PS_PER_MS;
	c->seed = 1;
	c->sample = 10 * SIM_PS_PER_US;
	c->mtu = 1024;
	c->conv_window = 500 * SIM_PS_PER_US;
	c->start_window = 50 * SIM_PS_PER_US;
	c->conv_jain_ppm = 950000;
	c->port_rate = 40000000;
	c->buffer = 12000 * 1000;
	c->rx_delay = 1 * SIM_PS_PER_US;
	c->nports = 1;
	c->ecn = true;
	c->kmin = 5000;
	c->kmax = 200000;
	c->pmax_ppm = 10000;
	c->xoff = 400000;
	c->xon = 380000;
	c->algo = SIM_CC_DCQCN;
	c->flavour = SROCE_CC_PAPER;
	c->cnp_gap = 50000;
	c->rto = 67108864ULL * SIM_PS_PER_NS; /* IBA 4.096 us * 2^14 */
	c->pace_burst = SROCE_CC_BURST_NS; /* kernel/proto/cc.h */
	/* the fabric's, used once a [topo] key is set */
	c->topo.spines = 2;
	c->topo.hosts_per_leaf = 8;
	c->topo.host_rate = 25000000;
	c->topo.core_rate = 100000000;
	c->topo.host_delay = 1 * SIM_PS_PER_US;
	c->topo.core_delay = 1 * SIM_PS_PER_US;
	c->wl.load_ppm = 500000;
	c->wl.incast_fanin = 8;
	c->wl.incast_size = 64000;
	c->wl.incast_dst = U32_MAX;
}

static int sim_num(const char *val, double *out)
{
	char *end;

	*out = strtod(val, &end);
	/* no NaN, no infinity, nothing that overflows u64 picoseconds */
	return end == val || *end || !(*out >= 0 && *out <= 1e9) ? -1 : 0;
}

static int sim_bool(const char *val, bool *out)
{
	if (!strcmp(val, "on") || !strcmp(val, "1") || !strcmp(val, "yes"))
		*out = true;
	else if (!strcmp(val, "off") || !strcmp(val, "0") || !strcmp(val, "no"))
		*out = false;
	else
		return -1;
	return 0;
}

static u64 sim_round(double v)
{
	return (u64)(v + 0.5);
}

static int sim_set_flow(struct sim_flow_cfg *f, const char *key, double v)
{
	if (!strcmp(key, "start_ms"))
		f->start = sim_round(v * SIM_PS_PER_MS);
	else if (!strcmp(key, "stop_ms"))
		f->stop = sim_round(v * SIM_PS_PER_MS);
	else if (!strcmp(key, "size_kb"))
		f->size = sim_round(v * 1000);
	else if (!strcmp(key, "rate_gbps"))
		f->rate = sim_round(v * 1000000);
	else if (!strcmp(key, "speed_gbps"))
		f->speed = sim_round(v * 1000000);
	else if (!strcmp(key, "window_kb"))
		f->window = sim_round(v * 1000);
	else if (!strcmp(key, "delay_us"))
		f->delay = sim_round(v * SIM_PS_PER_US);
	else if (!strcmp(key, "count"))
		f->count = (u32)sim_round(v);
	else if (!strcmp(key, "stagger_us"))
		f->stagger = sim_round(v * SIM_PS_PER_US);
	else if (!strcmp(key, "src") && v < U32_MAX)
		f->src = (u32)v;
	else if (!strcmp(key, "dst") && v < U32_MAX)
		f->dst = (u32)v;
	else if (!strcmp(key, "nic") && v <= SIM_MAX_FLOWS)
		f->nic = (u32)sim_round(v);
	else if (!strcmp(key, "src_step") && v < 65536)
		f->src_step = (u32)v;
	else
		return -1;
	return 0;
}

static int sim_set_sim(struct sim_config *c, const char *key, double v)
{
	if (!strcmp(key, "duration_ms"))
		c->duration = sim_round(v * SIM_PS_PER_MS);
	else if (!strcmp(key, "seed"))
		c->seed = sim_round(v);
	else if (!strcmp(key, "sample_us"))
		c->sample = sim_round(v * SIM_PS_PER_US);
	else if (!strcmp(key, "mtu"))
		c->mtu = (u32)sim_round(v);
	else if (!strcmp(key, "measure_start_ms"))
		c->measure_start = sim_round(v * SIM_PS_PER_MS);
	else if (!strcmp(key, "measure_end_ms"))
		c->measure_end = sim_round(v * SIM_PS_PER_MS);
	else if (!strcmp(key, "conv_window_us"))
		c->conv_window = sim_round(v * SIM_PS_PER_US);
	else if (!strcmp(key, "start_window_us"))
		c->start_window = sim_round(v * SIM_PS_PER_US);
	else if (!strcmp(key, "conv_jain"))
		c->conv_jain_ppm = (u32)sim_round(v * 1000000);
	else if (!strcmp(key, "rto_us"))
		c->rto = sim_round(v * SIM_PS_PER_US);
	else
		return -1;
	return 0;
}

static int sim_set_switch(struct sim_config *c, const char *key,
			  const char *val, double v)
{
	if (!strcmp(key, "ecn"))
		return sim_bool(val, &c->ecn);
	if (!strcmp(key, "pfc"))
		return sim_bool(val, &c->pfc);
	if (sim_num(val, &v))
		return -1;
	if (!strcmp(key, "rate_gbps"))
		c->port_rate = sim_round(v * 1000000);
	else if (!strcmp(key, "buffer_kb"))
		c->buffer = sim_round(v * 1000);
	else if (!strcmp(key, "rx_delay_us"))
		c->rx_delay = sim_round(v * SIM_PS_PER_US);
	else if (!strcmp(key, "kmin_kb"))
		c->kmin = sim_round(v * 1000);
	else if (!strcmp(key, "kmax_kb"))
		c->kmax = sim_round(v * 1000);
	else if (!strcmp(key, "pmax"))
		c->pmax_ppm = (u32)sim_round(v * 1000000);
	else if (!strcmp(key, "red_wlog") && v <= 24)
		c->red_wlog = (u32)sim_round(v);
	else if (!strcmp(key, "loss") && v <= 1)
		c->loss_ppm = (u32)sim_round(v * 1000000);
	else if (!strcmp(key, "pfc_xoff_kb"))
		c->xoff = sim_round(v * 1000);
	else if (!strcmp(key, "pfc_xon_kb"))
		c->xon = sim_round(v * 1000);
	else if (!strcmp(key, "pfc_headroom_kb"))
		c->topo.headroom = sim_round(v * 1000);
	else if (!strcmp(key, "ports") && v >= 1 && v <= SIM_MAX_PORTS)
		c->nports = (u32)sim_round(v);
	else
		return -1;
	return 0;
}

static int sim_set_cc(struct sim_config *c, const char *key, const char *val)
{
	struct sroce_cc_params probe;
	double v;

	if (!strcmp(key, "algo")) {
		if (!strcmp(val, "none"))
			c->algo = SIM_CC_NONE;
		else if (!strcmp(val, "dcqcn"))
			c->algo = SIM_CC_DCQCN;
		else if (!strcmp(val, "dctcp"))
			c->algo = SIM_CC_DCTCP;
		else if (!strcmp(val, "hpcc"))
			c->algo = SIM_CC_HPCC;
		else if (!strcmp(val, "timely"))
			c->algo = SIM_CC_TIMELY;
		else if (!strcmp(val, "fixed"))
			c->algo = SIM_CC_FIXED;
		else
			return -1;
		return 0;
	}
	if (!strcmp(key, "flavour")) {
		if (!strcmp(val, "paper"))
			c->flavour = SROCE_CC_PAPER;
		else if (!strcmp(val, "mlx"))
			c->flavour = SROCE_CC_MLX;
		else
			return -1;
		return 0;
	}
	if (!strcmp(key, "min_time_between_cnps_us") && !sim_num(val, &v)) {
		c->cnp_gap = sim_round(v * 1000);
		return 0;
	}
	if (!strcmp(key, "pace_burst_ns") && !sim_num(val, &v)) {
		c->pace_burst = sim_round(v);
		return 0;
	}
	/* a reaction point knob: check it now, apply per flow later */
	sroce_cc_params_default(&probe, SROCE_CC_PAPER, 1);
	if (c->ncc_ov >= SIM_MAX_CC_OV ||
	    strlen(key) >= sizeof(c->cc_ov[0].key) ||
	    strlen(val) >= sizeof(c->cc_ov[0].val) ||
	    sim_cc_param_set(&probe, key, val))
		return -1;
	strcpy(c->cc_ov[c->ncc_ov].key, key);
	strcpy(c->cc_ov[c->ncc_ov].val, val);
	c->ncc_ov++;
	return 0;
}

/* Apply one key of @sect; flow keys go to @flow (or every flow if NULL). */
static int sim_set(struct sim_config *c, const char *sect,
		   struct sim_flow_cfg *flow, const char *key, const char *val)
{
	double v = 0;
	int i;

	if (!strcmp(sect, "sim")) {
		if (!strcmp(key, "name")) {
			if (strlen(val) >= sizeof(c->name))
				return -1;
			strcpy(c->name, val);
			return 0;
		}
		if (!strcmp(key, "transport")) {
			if (!strcmp(val, "gbn"))
				c->gbn = true;
			else if (!strcmp(val, "none"))
				c->gbn = false;
			else
				return -1;
			return 0;
		}
		if (!strcmp(key, "recovery")) {
			if (!strcmp(val, "on"))
				c->recovery = true;
			else if (!strcmp(val, "off"))
				c->recovery = false;
			else
				return -1;
			return 0;
		}
		return sim_num(val, &v) ? -1 : sim_set_sim(c, key, v);
	}
	if (!strcmp(sect, "switch"))
		return sim_set_switch(c, key, val, v);
	if (!strcmp(sect, "cc"))
		return sim_set_cc(c, key, val);
	if (!strcmp(sect, "topo"))
		return fab_set_topo(c, key, val);
	if (!strcmp(sect, "workload"))
		return fab_set_workload(c, key, val);
	if (!strcmp(sect, "flow") && !strcmp(key, "via")) {
		if (strlen(val) >= sizeof(flow->via))
			return -1;
		if (flow) {
			strcpy(flow->via, val);
			return 0;
		}
		for (i = 0; i < c->nflows; i++)
			strcpy(c->flows[i].via, val);
		return 0;
	}
	if (strcmp(sect, "flow") || sim_num(val, &v))
		return -1;
	if (flow)
		return sim_set_flow(flow, key, v);
	for (i = 0; i < c->nflows; i++)
		if (sim_set_flow(&c->flows[i], key, v))
			return -1;
	return 0;
}

static char *sim_trim(char *p)
{
	char *e;

	while (isspace((unsigned char)*p))
		p++;
	e = p + strlen(p);
	while (e > p && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return p;
}

int sim_config_load(struct sim_config *c, const char *path)
{
	char line[SIM_LINE_MAX], sect[32] = "";
	struct sim_flow_cfg *flow = NULL;
	FILE *fp = fopen(path, "r");
	int lineno = 0, rc = 0;

	if (!fp) {
		perror(path);
		return -1;
	}
	/* the directory relative paths in the file start from */
	snprintf(c->dir, sizeof(c->dir), "%.*s",
		 strrchr(path, '/') ? (int)(strrchr(path, '/') - path) : 1,
		 strrchr(path, '/') ? path : ".");
	while (fgets(line, sizeof(line), fp)) {
		char *p, *eq;

		lineno++;
		p = line + strcspn(line, "#;\n");
		*p = '\0';
		p = sim_trim(line);
		if (!*p)
			continue;
		if (*p == '[') {
			char *e = strchr(p, ']');

			if (!e || e[1] || e - p - 1 >= (long)sizeof(sect)) {
				fprintf(stderr, "%s:%d: bad section\n", path,
					lineno);
				rc = -1;
				break;
			}
			*e = '\0';
			strcpy(sect, p + 1);
			flow = NULL;
			if (!strcmp(sect, "flow")) {
				if (c->nflows >= SIM_MAX_FLOWS) {
					fprintf(stderr,
						"%s:%d: too many flows\n", path,
						lineno);
					rc = -1;
					break;
				}
				flow = &c->flows[c->nflows++];
				memset(flow, 0, sizeof(*flow));
				flow->count = 1;
			}
			continue;
		}
		eq = strchr(p, '=');
		if (!eq || !*sect) {
			fprintf(stderr,
				"%s:%d: expected key = value in a section\n",
				path, lineno);
			rc = -1;
			break;
		}
		*eq = '\0';
		if (sim_set(c, sect, flow, sim_trim(p), sim_trim(eq + 1))) {
			fprintf(stderr, "%s:%d: bad key or value in [%s]: %s\n",
				path, lineno, sect, sim_trim(p));
			rc = -1;
			break;
		}
	}
	fclose(fp);
	return rc;
}

int sim_config_override(struct sim_config *c, const char *arg)
{
	char buf[SIM_LINE_MAX], *dot, *eq;

	if (strlen(arg) >= sizeof(buf))
		return -1;
	strcpy(buf, arg);
	dot = strchr(buf, '.');
	eq = strchr(buf, '=');
	if (!dot || !eq || dot > eq) {
		fprintf(stderr, "override %s: expected section.key=value\n",
			arg);
		return -1;
	}
	*dot = '\0';
	*eq = '\0';
	if (sim_set(c, buf, NULL, dot + 1, eq + 1)) {
		fprintf(stderr, "override %s: bad key or value\n", arg);
		return -1;
	}
	return 0;
}

int sim_config_finish(struct sim_config *c)
{
	struct sim_flow_cfg tmpl[SIM_MAX_FLOWS];
	int ntmpl = c->nflows, i, n = 0;
	u32 k;

	memcpy(tmpl, c->flows, sizeof(tmpl));
	for (i = 0; i < ntmpl; i++) {
		for (k = 0; k < tmpl[i].count; k++) {
			struct sim_flow_cfg *f = &c->flows[n];

			if (n >= SIM_MAX_FLOWS) {
				fprintf(stderr, "more than %d flows\n",
					SIM_MAX_FLOWS);
				return -1;
			}
			*f = tmpl[i];
			f->count = 1;
			f->start += k * tmpl[i].stagger;
			f->src += k * tmpl[i].src_step;
			if (!f->rate)
				f->rate = c->port_rate;
			if (!f->speed)
				f->speed = f->rate;
			if (!fab_enabled(c) && f->dst >= c->nports) {
				fprintf(stderr,
					"flow %d: dst %u, but %u ports\n", n,
					f->dst, c->nports);
				return -1;
			}
			n++;
		}
	}
	c->nflows = n;
	for (i = 0; i < n; i++)
		for (k = 0; k < (u32)i; k++)
			if (c->flows[i].nic &&
			    c->flows[i].nic == c->flows[k].nic &&
			    c->flows[i].rate != c->flows[k].rate) {
				fprintf(stderr, "nic %u: flows at two rates\n",
					c->flows[i].nic);
				return -1;
			}
	if (fab_enabled(c) && fab_config_finish(c))
		return -1;
	if ((!n && !fab_enabled(c)) || !c->duration || !c->sample ||
	    c->mtu < 64 || !c->port_rate || c->kmax <= c->kmin ||
	    c->pmax_ppm > 1000000 || c->xon > c->xoff || c->buffer < c->mtu ||
	    (c->gbn && !c->rto)) {
		fprintf(stderr,
			"scenario: need flows, duration, sample, mtu >= 64, rate, kmax > kmin, pmax <= 1, xon <= xoff, buffer >= mtu, rto with gbn\n");
		return -1;
	}
	if (!c->measure_end || c->measure_end > c->duration)
		c->measure_end = c->duration;
	if (c->measure_start >= c->measure_end)
		c->measure_start = 0;
	return 0;
}
