/*
 * host-delay.c: `dn-host-delay NETNS MARK DELAY_US`, a slow real network
 * for the two-host swarm's tests (swarm-net.sh, issue 39): binds NFQUEUE
 * 0 in the network namespace at path NETNS with devnet's own link
 * emulator (orchestrator/net/delay.c: this kernel has no sch_netem) and
 * holds every packet the test's rule there marks MARK for DELAY_US,
 * until SIGTERM or SIGINT.  Prints "ready" once bound.  The rule (mark
 * and queue what leaves the host) is the test's; it is fail-closed, so
 * the test removes the rule before it stops this.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "net/delay.h"

int
main(int argc, char **argv)
{
	struct dn_delay		*d = NULL;
	struct dn_delay_link	 l;
	sigset_t		 set;
	char			 err[256];
	int			 fd, sig;

	if (argc != 4) {
		fprintf(stderr, "usage: dn-host-delay NETNS MARK DELAY_US\n");
		return (2);
	}
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if ((fd = open(argv[1], O_RDONLY | O_CLOEXEC)) == -1) {
		perror(argv[1]);
		return (1);
	}
	l.mark = (uint32_t)strtoul(argv[2], NULL, 10);
	l.delay_us = (uint32_t)strtoul(argv[3], NULL, 10);
	l.jitter_us = 0;
	if (dn_delay_start(&d, fd, 0, &l, 1, err, sizeof(err)) != 0) {
		fprintf(stderr, "dn-host-delay: %s\n", err);
		return (1);
	}
	close(fd);
	puts("ready");
	fflush(stdout);
	sigwait(&set, &sig);
	dn_delay_stop(d);
	return (0);
}
