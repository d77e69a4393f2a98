/*
 * machlock.c: named machine-wide locks between devnets (see machlock.h).
 * Main thread only.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sys/machlock.h"
#include "xalloc.h"

#define MAX_HELD	64

static int	held[MAX_HELD];
static int	nheld;

/* The dir of the lock files: $DN_MACHINE_LOCK_DIR, else /run/devnet (or
 * /tmp/devnet-locks where /run cannot be written).  Static string. */
static const char *
machlock_dir(void)
{
	const char	*e = getenv("DN_MACHINE_LOCK_DIR");

	if (e != NULL && e[0] != '\0')
		return (e);
	if (mkdir("/run/devnet", 0755) == 0 || errno == EEXIST) {
		if (access("/run/devnet", W_OK) == 0)
			return ("/run/devnet");
	}
	(void)mkdir("/tmp/devnet-locks", 01777);
	return ("/tmp/devnet-locks");
}

/* What the lock NAME guards, for the message. */
static const char *
what_of(const char *name)
{
	if (strcmp(name, "conditions") == 0)
		return ("network conditions");
	return (name);
}

/* The holder of the lock at FD named NAME, as a sentence. */
static char *
describe_holder(int fd, const char *name)
{
	char		 buf[512] = "", db[400] = "?";
	ssize_t		 n;
	long		 pid = 0;
	long long	 since = 0;
	const char	*p;

	n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	if ((p = strstr(buf, "pid=")) != NULL)
		pid = strtol(p + 4, NULL, 10);
	if ((p = strstr(buf, "since=")) != NULL)
		since = strtoll(p + 6, NULL, 10);
	if ((p = strstr(buf, "db=")) != NULL)
		snprintf(db, sizeof(db), "%.*s", (int)strcspn(p + 3, "\n"),
		    p + 3);
	return (dn_xasprintf("%s (%s) held by devnet pid %ld (db %s) for "
	    "%lld s", what_of(name), name, pid, db, since > 0 ?
	    (long long)time(NULL) - since : 0));
}

int
dn_machlock_try(const char *const *names, const char *db, char **holder,
    char **cause)
{
	const char	*dir = machlock_dir();
	int		 fds[MAX_HELD], n = 0, i, fd, rv = 0;
	char		*path, *line;

	*holder = NULL;
	for (i = 0; names[i] != NULL && n + nheld < MAX_HELD; i++) {
		path = dn_xasprintf("%s/%s.lock", dir, names[i]);
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0) {
			*cause = dn_xasprintf("cannot open the machine lock "
			    "%s: %s (set DN_MACHINE_LOCK_DIR)", path,
			    strerror(errno));
			free(path);
			rv = -1;
			break;
		}
		free(path);
		if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
			*holder = describe_holder(fd, names[i]);
			close(fd);
			rv = 1;
			break;
		}
		fds[n++] = fd;
	}
	if (rv != 0) {
		for (i = 0; i < n; i++)
			close(fds[i]);
		return (rv);
	}
	/* db last: a path may hold spaces */
	line = dn_xasprintf("pid=%d since=%lld db=%s\n", (int)getpid(),
	    (long long)time(NULL), db != NULL ? db : "?");
	for (i = 0; i < n; i++) {
		/* a failed write loses the words, not the lock */
		if (ftruncate(fds[i], 0) == 0)
			(void)!pwrite(fds[i], line, strlen(line), 0);
		held[nheld++] = fds[i];
	}
	free(line);
	return (0);
}

void
dn_machlock_release(void)
{
	int	i;

	for (i = 0; i < nheld; i++)
		close(held[i]);
	nheld = 0;
}
