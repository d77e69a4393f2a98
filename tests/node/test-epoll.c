/*
 * test-epoll.c: the epoll_ctl devnet-node links in place of libc's for
 * nng (metrics/wire/epoll-oneshot.c, issue 26).  The kernel's behaviour
 * it works around first (a stream socket neither connected nor listening,
 * added with no events, reports EPOLLHUP at every wait: the spin of nng
 * 1.5.2's poller), then that the socket added through it reports the HUP
 * once, that nng's later EPOLL_CTL_MOD arms it as before, that what asks
 * for events is untouched, and that nng itself, dialling and listening
 * over ipc and tcp through it, still carries messages.
 */
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include <netinet/in.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "transport.h"
#include "xalloc.h"

/* Events reported by one wait on EPFD that does not block. */
static unsigned
wait_once(int epfd)
{
	struct epoll_event	ev;

	memset(&ev, 0, sizeof(ev));
	if (epoll_wait(epfd, &ev, 1, 0) != 1)
		return (0);
	return (ev.events);
}

/* The kernel, without the file: HUP at every wait (what nng spun on). */
static void
kernel_reports_hup_each_wait(void **state)
{
	struct epoll_event	ev = { .events = 0 };
	int			epfd = epoll_create1(EPOLL_CLOEXEC);
	int			s = socket(AF_UNIX, SOCK_STREAM, 0);

	(void)state;
	assert_true(epfd >= 0 && s >= 0);
	assert_int_equal(syscall(SYS_epoll_ctl, epfd, EPOLL_CTL_ADD, s, &ev),
	    0);
	assert_true(wait_once(epfd) & EPOLLHUP);
	assert_true(wait_once(epfd) & EPOLLHUP);
	assert_true(wait_once(epfd) & EPOLLHUP);
	close(s);
	close(epfd);
}

/* Through the file: once; then a MOD with events (nng arming a listener
 * once it listens) reports them again. */
static void
hup_once_then_armed(void **state)
{
	struct epoll_event	ev = { .events = 0 };
	struct sockaddr_un	sa = { .sun_family = AF_UNIX };
	socklen_t		len;
	int			epfd = epoll_create1(EPOLL_CLOEXEC);
	int			s = socket(AF_UNIX, SOCK_STREAM, 0), c;

	(void)state;
	assert_true(epfd >= 0 && s >= 0);
	ev.data.fd = s;
	assert_int_equal(epoll_ctl(epfd, EPOLL_CTL_ADD, s, &ev), 0);
	assert_true(wait_once(epfd) & EPOLLHUP);
	assert_int_equal(wait_once(epfd), 0);
	assert_int_equal(wait_once(epfd), 0);

	/* an abstract name: no file to clean up */
	snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, "dn-epoll-%d",
	    (int)getpid());
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	    strlen(sa.sun_path + 1));
	assert_int_equal(bind(s, (struct sockaddr *)&sa, len), 0);
	assert_int_equal(listen(s, 4), 0);
	ev.events = EPOLLIN | EPOLLONESHOT;
	assert_int_equal(epoll_ctl(epfd, EPOLL_CTL_MOD, s, &ev), 0);
	assert_int_equal(wait_once(epfd), 0);	/* nobody yet */
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_int_equal(connect(c, (struct sockaddr *)&sa, len), 0);
	assert_true(wait_once(epfd) & EPOLLIN);
	close(c);
	close(s);
	close(epfd);
}

/* A socket added asking for events keeps level-triggered reports. */
static void
events_asked_untouched(void **state)
{
	struct epoll_event	ev = { .events = EPOLLIN };
	int			epfd = epoll_create1(EPOLL_CLOEXEC), sv[2];

	(void)state;
	assert_true(epfd >= 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(write(sv[1], "x", 1), 1);
	assert_int_equal(epoll_ctl(epfd, EPOLL_CTL_ADD, sv[0], &ev), 0);
	assert_true(wait_once(epfd) & EPOLLIN);
	assert_true(wait_once(epfd) & EPOLLIN);
	close(sv[0]);
	close(sv[1]);
	close(epfd);
}

/* A loopback TCP port free a moment ago. */
static int
free_port(void)
{
	struct sockaddr_in	sa = { .sin_family = AF_INET };
	socklen_t		len = sizeof(sa);
	int			fd = socket(AF_INET, SOCK_STREAM, 0), port;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, len), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	port = ntohs(sa.sin_port);
	close(fd);
	return (port);
}

/* nng through it: PUSH dials PULL, over ipc and tcp, messages arrive. */
static void
nng_still_carries(void **state)
{
	char	 dir[] = "/tmp/dn-epoll-XXXXXX", *urls[2], *cause = NULL;
	int	 u, i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	urls[0] = dn_xasprintf("ipc://%s/s", dir);
	urls[1] = dn_xasprintf("tcp://127.0.0.1:%d", free_port());
	for (u = 0; u < 2; u++) {
		struct dn_sock	*pull = NULL, *push = NULL;
		void		*msg;
		size_t		 len;

		if (dn_sock_open(&pull, DN_SOCK_PULL, &cause) != 0 ||
		    dn_sock_listen(pull, urls[u], &cause) != 0 ||
		    dn_sock_open(&push, DN_SOCK_PUSH, &cause) != 0 ||
		    dn_sock_set_timeouts(push, 5000, 5000) != 0 ||
		    dn_sock_dial(push, urls[u], &cause) != 0)
			fail_msg("%s: %s", urls[u], cause);
		for (i = 0; i < 100; i++)
			assert_int_equal(dn_sock_send(push, "hello", 6, 0), 0);
		for (i = 0; i < 100; i++) {
			assert_int_equal(dn_sock_recv(pull, &msg, &len, 2000),
			    0);
			assert_int_equal(len, 6);
			assert_string_equal(msg, "hello");
			dn_msg_free(msg, len);
		}
		dn_sock_close(push);
		dn_sock_close(pull);
		if (u == 0)
			(void)unlink(urls[u] + strlen("ipc://"));
		free(urls[u]);
	}
	(void)rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test(kernel_reports_hup_each_wait),
		cmocka_unit_test(hup_once_then_armed),
		cmocka_unit_test(events_asked_untouched),
		cmocka_unit_test(nng_still_carries),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
