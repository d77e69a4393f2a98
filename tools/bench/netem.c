/*
 * netem.c: dn-netem-bench, the link emulator's costs (docs/benchmarks.md,
 * "Link emulator"), on the lab of tests/net/netlab.h (two namespaces
 * through a routed hub).  Prints one key=value line per figure:
 *
 *   base: the hub without the emulator (no queue rule): one-way p50/p99;
 *   delay D: D ms asked, COUNT probes 1 ms apart: added error p50/p99
 *     (measured one-way minus D), the emulator's max hold error;
 *   rate R: R packets/s asked for SECS s at 10 ms: the rate sent, share
 *     delivered, error p50/p99, kernel queue drops, emulator CPU per
 *     1,000 packets.
 *
 * usage: dn-netem-bench [COUNT] [SECS] [RATE...]   (needs root)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net/delay.h"
#include "netlab.h"

#define QUEUE	9

static void
base(size_t count)
{
	struct netlab l;
	double *ms = calloc(count, sizeof(*ms));
	int ordered;
	size_t got;

	if (ms == NULL || netlab_up(&l, -1) != 0)
		exit(1);
	got = netlab_oneway(&l, LAB_A, count, 1000, ms, &ordered);
	printf("base: probes=%zu got=%zu oneway_p50_ms=%.3f oneway_p99_ms=%.3f\n",
	    count, got, netlab_pct(ms, count, 50), netlab_pct(ms, count, 99));
	netlab_down(&l);
	free(ms);
}

static struct dn_delay *
start(struct netlab *l, uint32_t delay_us)
{
	struct dn_delay_link link = { 1, delay_us, 0 };
	struct dn_delay *d;
	char err[256];

	if (dn_delay_start(&d, l->fd[LAB_HUB], QUEUE, &link, 1, err,
	    sizeof(err)) != 0) {
		fprintf(stderr, "dn-netem-bench: %s\n", err);
		netlab_down(l);
		exit(1);
	}
	return d;
}

static void
delays(struct netlab *l, size_t count)
{
	static const unsigned want[] = { 0, 10, 100 };
	double *ms = calloc(count, sizeof(*ms));
	struct dn_delay_stats st;
	struct dn_delay *d;
	size_t i, k, got;
	int ordered;

	if (ms == NULL)
		exit(1);
	for (k = 0; k < 3; k++) {
		d = start(l, want[k] * 1000);
		got = netlab_oneway(l, LAB_A, count, 1000, ms, &ordered);
		for (i = 0; i < count; i++)
			if (ms[i] >= 0)
				ms[i] = ms[i] - want[k] < 0 ? 0 :
				    ms[i] - want[k];
		dn_delay_stats(d, &st);
		printf("delay %u ms: probes=%zu got=%zu ordered=%d "
		    "added_err_p50_ms=%.3f added_err_p99_ms=%.3f "
		    "max_hold_err_us=%llu\n", want[k], count, got, ordered,
		    netlab_pct(ms, count, 50), netlab_pct(ms, count, 99),
		    (unsigned long long)st.max_hold_err_us);
		dn_delay_stop(d);
	}
	free(ms);
}

static void
rate(struct netlab *l, unsigned pps, double secs)
{
	size_t count = (size_t)(pps * secs), i, got;
	double *ms = calloc(count, sizeof(*ms));
	struct dn_delay_stats st;
	struct dn_delay *d;
	int ordered;

	if (ms == NULL)
		exit(1);
	d = start(l, 10000);
	got = netlab_oneway(l, LAB_A, count, 1000000 / pps, ms, &ordered);
	dn_delay_stats(d, &st);
	for (i = 0; i < count; i++)
		if (ms[i] >= 0)
			ms[i] = ms[i] < 10 ? 0 : ms[i] - 10;
	printf("rate %u pps: sent=%zu in_s=%.2f got=%zu delivered_pct=%.2f "
	    "ordered=%d err_p50_ms=%.3f err_p99_ms=%.3f queue_drops=%lld "
	    "cpu_ms_per_1000=%.3f\n", pps, count, l->last_send_s, got,
	    100.0 * (double)got / (double)count, ordered,
	    netlab_pct(ms, count, 50), netlab_pct(ms, count, 99),
	    st.drops == UINT64_MAX ? -1LL : (long long)st.drops,
	    st.packets ? (double)st.cpu_ns / 1e6 * 1000 / (double)st.packets :
	    -1.0);
	dn_delay_stop(d);
	free(ms);
}

int
main(int argc, char **argv)
{
	size_t count = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000;
	double secs = argc > 2 ? atof(argv[2]) : 2.0;
	struct netlab l;
	int i;

	if (geteuid() != 0) {
		fprintf(stderr, "dn-netem-bench: needs root\n");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	base(count);
	if (netlab_up(&l, QUEUE) != 0)
		return 1;
	delays(&l, count);
	for (i = 3; i < argc; i++)
		rate(&l, (unsigned)strtoul(argv[i], NULL, 10), secs);
	if (argc <= 3) {
		rate(&l, 10000, secs);
		rate(&l, 50000, secs);
	}
	netlab_down(&l);
	return 0;
}
