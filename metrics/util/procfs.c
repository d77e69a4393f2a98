/*
 * procfs.c: /proc readers shared by the node's sampler and the probe (see
 * procfs.h).  Nothing here allocates: getdents64 instead of readdir, and
 * caller buffers.
 */
#include <sys/stat.h>
#include <sys/syscall.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"

ssize_t
dn_procfs_read(int fd, char *buf, size_t cap)
{
	ssize_t	n;

	if (fd < 0)
		return (-1);
	n = pread(fd, buf, cap - 1, 0);
	if (n < 0)
		return (-1);
	buf[n] = '\0';
	return (n);
}

unsigned long long
dn_procfs_field(const char *buf, const char *name)
{
	const char	*p = buf;
	size_t		 len = strlen(name);

	if (len == 0)
		return (*buf != '\0' ? strtoull(buf, NULL, 10) : 0);
	/* strstr over the text, not a compare per line: a status file has
	 * ~55 lines, and the probe looks up two of them per thread per
	 * sample (docs/benchmarks.md, probe cost) */
	while ((p = strstr(p, name)) != NULL) {
		if (p == buf || p[-1] == '\n')
			return (strtoull(p + len, NULL, 10));
		p++;
	}
	return (0);
}

char
dn_procfs_stat(const char *buf, unsigned long long *f, int nf)
{
	const char	*p = strrchr(buf, ')');
	char		*end;
	char		 state;
	int		 i;

	if (p == NULL || p[1] != ' ' || p[2] == '\0')
		return (0);
	state = p[2];
	p += 3;
	for (i = 4; i < nf; i++) {
		while (*p == ' ')
			p++;
		f[i] = strtoull(p, &end, 10);
		if (end == p) {
			/* a '-' with no digits reads 0 */
			if (*p == '-') {
				f[i] = 0;
				p++;
				(void)strtoull(p, &end, 10);
			} else
				break;
		}
		p = end;
	}
	return (state);
}

int
dn_procfs_dirents(int dirfd, void (*fn)(void *, const char *), void *arg)
{
	char	buf[4096];
	long	n, off;
	int	count = 0;

	if (dirfd < 0 || lseek(dirfd, 0, SEEK_SET) == -1)
		return (0);
	for (;;) {
		n = syscall(SYS_getdents64, dirfd, buf, sizeof(buf));
		if (n <= 0)
			break;
		for (off = 0; off < n;) {
			/* struct linux_dirent64: u64 ino, s64 off, u16
			 * reclen, u8 type, char name[] */
			unsigned short	reclen;
			const char	*name = buf + off + 19;

			memcpy(&reclen, buf + off + 16, sizeof(reclen));
			if (reclen == 0)
				break;
			if (strcmp(name, ".") != 0 &&
			    strcmp(name, "..") != 0) {
				count++;
				if (fn != NULL)
					fn(arg, name);
			}
			off += reclen;
		}
	}
	return (count);
}

int
dn_procfs_count_fds(int dirfd)
{
	struct stat	st;

	/* one fstat: 5x cheaper than the walk at 35 files (docs/
	 * benchmarks.md, the node's agent) */
	if (dirfd >= 0 && fstat(dirfd, &st) == 0 && st.st_size > 0)
		return ((int)st.st_size);
	return (dn_procfs_dirents(dirfd, NULL, NULL));
}
