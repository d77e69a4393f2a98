/*
 * test-sampler.c: the node's process sampler (metrics/agent/sampler.c)
 * gives the figures /proc says, whatever it reads them from: faults and
 * CPU times as /proc/self/stat sums them over every thread (the sampler
 * takes them from getrusage since issue 26), threads, RSS and HWM as
 * /proc/self/status, open files as /proc/self/fd.  Work done on another
 * thread, which has ended, must count too.  Storage I/O as
 * /proc/self/io gives it, byte for byte, though the sampler reads it
 * from getrusage since issue 26 (a thread's that has ended included; a
 * reaped child's not, as for CPU and faults).  What it cannot read (no container's cgroup file) it
 * reports absent, never as a 0.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "metric-table.h"
#include "procfs.h"
#include "sampler.h"

#define PAGES	2000
#define TMPFS_MAGIC	0x01021994

/* Spin for MS of this thread's CPU, partly in the kernel. */
static void
burn(int ms)
{
	struct timespec	t;
	double		end;
	char		buf[256];
	int		fd = open("/proc/self/stat", 0);

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	end = (double)t.tv_sec + t.tv_nsec / 1e9 + ms / 1e3;
	do {
		(void)dn_procfs_read(fd, buf, sizeof(buf));
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((double)t.tv_sec + t.tv_nsec / 1e9 < end);
	close(fd);
}

/* A thread that faults PAGES pages in and burns CPU, then ends. */
static void *
worker(void *arg)
{
	size_t	len = PAGES * (size_t)sysconf(_SC_PAGESIZE);
	char	*p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t	i;

	(void)arg;
	if (p == MAP_FAILED)
		return (NULL);
	for (i = 0; i < len; i += (size_t)sysconf(_SC_PAGESIZE))
		p[i] = 1;
	munmap(p, len);
	burn(300);
	return (NULL);
}

static void *
idle(void *arg)
{
	(void)arg;
	pause();
	return (NULL);
}

static void
stat_fields(unsigned long long *f)
{
	char	buf[4096];
	int	fd = open("/proc/self/stat", 0);

	assert_true(dn_procfs_read(fd, buf, sizeof(buf)) > 0);
	close(fd);
	assert_true(dn_procfs_stat(buf, f, 20) != 0);
}

static void
figures_as_proc_gives_them(void **state)
{
	struct dn_sampler	sp = { -1, -1, -1 };
	double			v[DN_METRIC_COUNT];
	unsigned long long	f0[20] = { 0 }, f1[20] = { 0 };
	char			buf[4096], *cause = NULL;
	double			tck = (double)sysconf(_SC_CLK_TCK);
	pthread_t		w, t[3];
	int			fd, i;

	(void)state;
	assert_int_equal(dn_sampler_open(&sp, &cause), 0);
	pthread_create(&w, NULL, worker, NULL);
	pthread_join(w, NULL);
	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, idle, NULL);
	burn(200);

	stat_fields(f0);
	memset(v, 0, sizeof(v));
	/* no $DN_CGROUP_MEM_FILE: cgroup_mem_bytes, and only it, absent */
	assert_true(dn_sampler_read(&sp, v) ==
	    1ull << DN_M_CGROUP_MEM_BYTES);
	stat_fields(f1);

	/* faults: between the two stat reads, and the ended thread's
	 * PAGES among them */
	assert_true(v[DN_M_MINFLT] >= (double)f0[10]);
	assert_true(v[DN_M_MINFLT] <= (double)f1[10]);
	assert_true(v[DN_M_MINFLT] >= PAGES);
	assert_true(v[DN_M_MAJFLT] >= (double)f0[12] &&
	    v[DN_M_MAJFLT] <= (double)f1[12]);
	/* CPU: the ended thread's 300 ms and ours; stat counts in clock
	 * ticks, the sampler in microseconds: one tick apart at most */
	assert_true(v[DN_M_CPU_USER_S] + v[DN_M_CPU_SYS_S] >= 0.45);
	assert_true(v[DN_M_CPU_USER_S] >= (double)f0[14] / tck - 1 / tck);
	assert_true(v[DN_M_CPU_USER_S] <= (double)f1[14] / tck + 1 / tck);
	assert_true(v[DN_M_CPU_SYS_S] >= (double)f0[15] / tck - 1 / tck);
	assert_true(v[DN_M_CPU_SYS_S] <= (double)f1[15] / tck + 1 / tck);
	/* threads and memory: status's */
	fd = open("/proc/self/status", 0);
	assert_true(dn_procfs_read(fd, buf, sizeof(buf)) > 0);
	close(fd);
	assert_true(v[DN_M_THREADS] == 4);
	assert_true(v[DN_M_THREADS] ==
	    (double)dn_procfs_field(buf, "Threads:"));
	assert_true(v[DN_M_HWM_BYTES] >= v[DN_M_RSS_BYTES]);
	assert_true(v[DN_M_HWM_BYTES] ==
	    (double)dn_procfs_field(buf, "VmHWM:") * 1024);
	assert_true(v[DN_M_RSS_BYTES] > 0);
	assert_true(v[DN_M_CTX_VOL] > 0);
	/* open files, without the sampler's own /proc/self/fd */
	{
		DIR	*d = opendir("/proc/self/fd");
		int	 n = 0;

		while (readdir(d) != NULL)
			n++;
		closedir(d);
		/* ".", "..", and the DIR's own fd */
		assert_true(v[DN_M_FDS] == (double)(n - 3 - 1));
	}
	dn_sampler_close(&sp);
	assert_int_equal(sp.fd_status, -1);
}

/*
 * Write LEN bytes to PATH and sync them (write_bytes, counted when the
 * pages are dirtied), drop them from the page cache and read them back
 * (read_bytes, counted when the block layer is asked).
 */
static int
disk_io(const char *path, size_t len)
{
	char	buf[8192];
	size_t	done;
	int	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600), ok = 1;

	if (fd == -1)
		return (0);
	memset(buf, 'x', sizeof(buf));
	for (done = 0; ok && done < len; done += sizeof(buf))
		ok = write(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf);
	ok = ok && fsync(fd) == 0 &&
	    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0;
	for (done = 0; ok && done < len; done += sizeof(buf))
		ok = pread(fd, buf, sizeof(buf), (off_t)done) ==
		    (ssize_t)sizeof(buf);
	close(fd);
	unlink(path);
	return (ok);
}

static char	io_path[64];

static void *
io_worker(void *arg)
{
	(void)arg;
	return ((void *)(intptr_t)disk_io(io_path, 1 << 20));
}

/* /proc/self/io's field NAME */
static double
proc_io(const char *name)
{
	char	buf[1024];
	int	fd = open("/proc/self/io", O_RDONLY);
	double	v;

	assert_true(dn_procfs_read(fd, buf, sizeof(buf)) > 0);
	close(fd);
	v = (double)dn_procfs_field(buf, name);
	return (v);
}

/*
 * Storage I/O of a thread that has ended, on a real file system
 * (/var/tmp: never a tmpfs on Debian, whose pages no disk sees): the
 * sampler's figures are /proc/self/io's, to the byte.  Then a child's,
 * reaped: /proc/self/io adds it, the sampler does not (the process's own
 * threads, as its CPU and faults).
 */
static void
io_as_proc_gives_it(void **state)
{
	struct dn_sampler	sp;
	struct statfs		fs;
	double			v[DN_METRIC_COUNT], rd, wr;
	char			dir[] = "/var/tmp/dn-sampler-io-XXXXXX";
	char			*cause = NULL;
	pthread_t		w;
	void			*ok;
	pid_t			pid;
	int			st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(statfs(dir, &fs), 0);
	if (fs.f_type == TMPFS_MAGIC) {
		rmdir(dir);
		skip();	/* no disk below: every I/O figure is 0 */
	}
	snprintf(io_path, sizeof(io_path), "%s/thread", dir);
	rd = proc_io("read_bytes:");
	wr = proc_io("write_bytes:");
	pthread_create(&w, NULL, io_worker, NULL);
	pthread_join(w, &ok);
	assert_true(ok != NULL);

	assert_int_equal(dn_sampler_open(&sp, &cause), 0);
	memset(v, 0, sizeof(v));
	assert_true((dn_sampler_read(&sp, v) &
	    (1ull << DN_M_IO_READ_BYTES | 1ull << DN_M_IO_WRITE_BYTES)) == 0);
	/* the ended thread's 1 MiB each way, and just what /proc says */
	assert_true(v[DN_M_IO_WRITE_BYTES] - wr >= 1 << 20);
	assert_true(v[DN_M_IO_READ_BYTES] - rd >= 1 << 20);
	assert_true(v[DN_M_IO_READ_BYTES] == proc_io("read_bytes:"));
	assert_true(v[DN_M_IO_WRITE_BYTES] == proc_io("write_bytes:"));

	rd = v[DN_M_IO_READ_BYTES];
	wr = v[DN_M_IO_WRITE_BYTES];
	pid = fork();
	if (pid == 0) {
		char	p[80];

		snprintf(p, sizeof(p), "%s/child", dir);
		_exit(disk_io(p, 256 << 10) ? 0 : 1);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	rmdir(dir);
	(void)dn_sampler_read(&sp, v);
	dn_sampler_close(&sp);
	assert_true(proc_io("read_bytes:") >= rd + (256 << 10));
	assert_true(v[DN_M_IO_READ_BYTES] == rd);
	assert_true(v[DN_M_IO_WRITE_BYTES] == wr);
}

/* With $DN_CGROUP_MEM_FILE, its number is the figure, and nothing is
 * absent; a file that cannot be opened is absent again, never a 0. */
static void
cgroup_file_read_or_absent(void **state)
{
	struct dn_sampler	sp;
	double			v[DN_METRIC_COUNT];
	char			path[] = "/tmp/dn-sampler-XXXXXX", *cause = NULL;
	int			fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "123456789\n", 10), 10);
	close(fd);
	setenv("DN_CGROUP_MEM_FILE", path, 1);
	assert_int_equal(dn_sampler_open(&sp, &cause), 0);
	memset(v, 0, sizeof(v));
	assert_true(dn_sampler_read(&sp, v) == 0);
	assert_true(v[DN_M_CGROUP_MEM_BYTES] == 123456789);
	dn_sampler_close(&sp);
	unlink(path);
	assert_int_equal(dn_sampler_open(&sp, &cause), 0);
	memset(v, 0, sizeof(v));
	assert_true(dn_sampler_read(&sp, v) == 1ull << DN_M_CGROUP_MEM_BYTES);
	assert_true(v[DN_M_CGROUP_MEM_BYTES] == 0);
	dn_sampler_close(&sp);
	unsetenv("DN_CGROUP_MEM_FILE");
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test(figures_as_proc_gives_them),
		cmocka_unit_test(io_as_proc_gives_it),
		cmocka_unit_test(cgroup_file_read_or_absent),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
