/*
 * faketime.c: libfaketime's shared objects, made and removed by devnet
 * (see faketime.h).
 */
#include <sys/mman.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sys/faketime.h"
#include "xalloc.h"

#define PREFIX	"devnet-ft-"

/* libfaketime 0.9.10's struct ft_shared_s (src/faketime_common.h) */
struct ft_shared {
	uint64_t	 ticks;
	uint64_t	 file_idx;
	struct timespec	 real, mon, mon_raw;	/* its start time */
};

void
dn_faketime_name(const char *run_dir, int k, char *buf, size_t cap)
{
	uint64_t	h = 14695981039346656037ull;	/* FNV-1a */
	const char	*p;

	for (p = run_dir; *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	snprintf(buf, cap, "/" PREFIX "%ld-%016llx-%d", (long)getpid(),
	    (unsigned long long)h, k);
}

int
dn_faketime_create(const char *name, char **cause)
{
	struct ft_shared	 z = { .real.tv_nsec = -1, .mon.tv_nsec = -1,
		.mon_raw.tv_nsec = -1 };
	sem_t			*sem;
	int			 fd;

	dn_faketime_remove(name);	/* a pid's leftover */
	if ((sem = sem_open(name, O_CREAT | O_EXCL, 0600, 1)) == SEM_FAILED) {
		*cause = dn_xasprintf("libfaketime's semaphore %s: %s", name,
		    strerror(errno));
		return (-1);
	}
	sem_close(sem);
	if ((fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC,
	    0600)) == -1 || write(fd, &z, sizeof(z)) != (ssize_t)sizeof(z)) {
		*cause = dn_xasprintf("libfaketime's shared memory %s: %s",
		    name, strerror(errno));
		if (fd != -1)
			close(fd);
		dn_faketime_remove(name);
		return (-1);
	}
	close(fd);
	return (0);
}

void
dn_faketime_remove(const char *name)
{
	(void)sem_unlink(name);
	(void)shm_unlink(name);
}

int
dn_faketime_sweep(void)
{
	DIR		*d;
	struct dirent	*e;
	int		 n = 0;

	if ((d = opendir("/dev/shm")) == NULL)
		return (0);
	while ((e = readdir(d)) != NULL) {
		const char	*s = e->d_name;
		char		 name[300];
		long		 pid;

		if (strncmp(s, "sem.", 4) == 0)
			s += 4;
		if (strncmp(s, PREFIX, strlen(PREFIX)) != 0)
			continue;
		pid = strtol(s + strlen(PREFIX), NULL, 10);
		if (pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;	/* its devnet lives */
		snprintf(name, sizeof(name), "/%s", s);
		dn_faketime_remove(name);
		n += s == e->d_name;	/* a pair counted at its segment */
	}
	closedir(d);
	return (n);
}
