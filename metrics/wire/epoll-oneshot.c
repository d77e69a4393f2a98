/*
 * epoll-oneshot.c: nng 1.5.2's poller without its spin (issue 26).
 *
 * nng adds every new socket to its epoll set with no events (src/platform/
 * posix/posix_pollq_epoll.c, nni_posix_pfd_init) and arms it later with
 * EPOLL_CTL_MOD and EPOLLONESHOT.  The kernel reports EPOLLHUP and
 * EPOLLERR whatever the events asked for, and a stream socket that is
 * neither connected nor listening reports EPOLLHUP: from nng's add to the
 * connect(2) or listen(2) that follows it, the poller thread wakes for
 * that HUP, which it drops (it hands only IN, OUT and ERR on), as fast as
 * it can call epoll_wait.  The window is a few instructions, but on a
 * machine busy starting nodes the thread in it is off the CPU for
 * milliseconds: 11,000-20,000 epoll_wait calls in a 10-node start here,
 * ~280 with this file (docs/benchmarks.md).
 *
 * Linked into an executable (not a library: the executable's symbol comes
 * first for libnng's call, as the allocation counter's malloc does), this
 * epoll_ctl adds a socket asked for no events with EPOLLONESHOT: its HUP
 * or ERR is reported once, then nothing until nng arms it, with
 * EPOLL_CTL_MOD, which re-enables a one-shot item.  What nng does with
 * the one report is what it did with the first of the repeats (a HUP:
 * nothing; an ERR: it closes the connection, once).  Every other call
 * passes through unchanged; nothing else in the processes that link it
 * (devnet-node, the spawn floor) adds with no events.
 */
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

int
epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
	struct epoll_event	once;

	if (op == EPOLL_CTL_ADD && ev != NULL && ev->events == 0) {
		once = *ev;
		once.events = EPOLLONESHOT;
		ev = &once;
	}
	return ((int)syscall(SYS_epoll_ctl, epfd, op, fd, ev));
}
