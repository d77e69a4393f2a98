/*
 * disk.c: a node's own data disk for the disk events (issue 39): a
 * sparse ext4 image, unlinked once a loop device holds it (autoclear:
 * the device and the image go with the last unmount), mounted on the
 * node's data directory; full by a ballast file, slow by the root blkio
 * group's throttle rules on that one device.  Not here: the events and
 * their proof (run/faults.c).  docs/architecture.md says why this way.
 */
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>

#include <linux/loop.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/capture.h"
#include "sys/disk.h"
#include "clock.h"
#include "xalloc.h"

#define IMG_PREFIX	"devnet-disk-"
#define BALLAST		"devnet-disk-full"
#define PROBE_FILE	".devnet-disk-probe"
#define BLKIO		"/sys/fs/cgroup/blkio/blkio.throttle."
#define BLOCK		4096
#define PROBE_SIZE	(4u << 20)

struct dn_disk {
	char		*dir;		/* the mount point */
	int		 loop;		/* N of /dev/loopN */
	unsigned	 maj, min;
	uint64_t	 size;
	int		 mounted;
	int		 throttled;
	char		 desc[PATH_MAX + 64];
};

static const char *const blkio_files[] = { "read_bps_device",
	"write_bps_device", "read_iops_device", "write_iops_device" };

static const char *
mkfs_path(void)
{
	static const char *const cand[] = { "/usr/sbin/mkfs.ext4",
		"/sbin/mkfs.ext4", "/usr/bin/mkfs.ext4" };
	size_t	i;

	for (i = 0; i < sizeof(cand) / sizeof(cand[0]); i++)
		if (access(cand[i], X_OK) == 0)
			return (cand[i]);
	return (NULL);
}

static int
has_ext4(void)
{
	char	line[128];
	FILE	*f = fopen("/proc/filesystems", "re");
	int	found = 0;

	if (f == NULL)
		return (0);
	while (!found && fgets(line, sizeof(line), f) != NULL)
		found = strstr(line, "\text4\n") != NULL;
	fclose(f);
	return (found);
}

const char *
dn_disk_missing(int throttle)
{
	if (geteuid() != 0)
		return ("disk events need root (a loop device and a mount "
		    "on the node's data directory); run devnet as root");
	if (access("/dev/loop-control", R_OK | W_OK) != 0)
		return ("disk events need loop devices and there is no "
		    "/dev/loop-control; load the loop module (modprobe loop)");
	if (!has_ext4())
		return ("disk events need ext4 in the kernel "
		    "(/proc/filesystems names none); load it (modprobe ext4)");
	if (mkfs_path() == NULL)
		return ("disk events need mkfs.ext4; install e2fsprogs");
	if (throttle && access(BLKIO "write_bps_device", W_OK) != 0)
		return ("a slow disk (rate, iops) needs the cgroup v1 blkio "
		    "throttle (" BLKIO "*), which this machine does not "
		    "have; drop rate and iops, or run where blkio is mounted");
	return (NULL);
}

/* A free loop device holding IMG (autoclear): its number, or -1. */
static int
loop_attach(int img, const char *name, char **cause)
{
	struct loop_config	 cfg;
	char			 dev[32];
	int			 ctl, n = -1, fd, tries;

	if ((ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC)) == -1) {
		*cause = dn_xasprintf("/dev/loop-control: %s",
		    strerror(errno));
		return (-1);
	}
	for (tries = 0; tries < 8; tries++) {
		if ((n = ioctl(ctl, LOOP_CTL_GET_FREE)) < 0)
			break;
		snprintf(dev, sizeof(dev), "/dev/loop%d", n);
		if ((fd = open(dev, O_RDWR | O_CLOEXEC)) == -1)
			break;
		memset(&cfg, 0, sizeof(cfg));
		cfg.fd = (uint32_t)img;
		/* no autoclear yet: the close below, the last, would free
		 * the device before the mount (EIO); set once mounted */
		snprintf((char *)cfg.info.lo_file_name,
		    sizeof(cfg.info.lo_file_name), "%s", name);
		if (ioctl(fd, LOOP_CONFIGURE, &cfg) == 0) {
			close(fd);
			close(ctl);
			return (n);
		}
		close(fd);
		if (errno != EBUSY)	/* another taker won the race */
			break;
	}
	*cause = dn_xasprintf("no loop device for the node's disk: %s",
	    strerror(errno));
	close(ctl);
	return (-1);
}

/* From now on device N goes with its last user (the mount). */
static void
loop_autoclear(int n)
{
	struct loop_info64	 li;
	char			 dev[32];
	int			 fd;

	snprintf(dev, sizeof(dev), "/dev/loop%d", n);
	if ((fd = open(dev, O_RDWR | O_CLOEXEC)) == -1)
		return;
	if (ioctl(fd, LOOP_GET_STATUS64, &li) == 0) {
		li.lo_flags |= LO_FLAGS_AUTOCLEAR;
		(void)ioctl(fd, LOOP_SET_STATUS64, &li);
	}
	close(fd);
}

static int
loop_devnum(struct dn_disk *d)
{
	char	p[64];
	FILE	*f;
	int	ok;

	snprintf(p, sizeof(p), "/sys/block/loop%d/dev", d->loop);
	if ((f = fopen(p, "re")) == NULL)
		return (-1);
	ok = fscanf(f, "%u:%u", &d->maj, &d->min) == 2;
	fclose(f);
	return (ok ? 0 : -1);
}

/* The file dn_disk_measure overwrites: written whole once, so that its
 * writes later are the data's alone (no allocation, no journal). */
static int
probe_file(struct dn_disk *d, char **cause)
{
	char	*p = dn_xasprintf("%s/" PROBE_FILE, d->dir);
	char	 buf[BLOCK];
	size_t	 i;
	int	 fd, rv = -1;

	memset(buf, 0, sizeof(buf));
	if ((fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600)) != -1) {
		for (i = 0; i < PROBE_SIZE / BLOCK; i++)
			if (write(fd, buf, sizeof(buf)) != (ssize_t)BLOCK)
				break;
		if (i == PROBE_SIZE / BLOCK && fsync(fd) == 0)
			rv = 0;
	}
	if (rv != 0)
		*cause = dn_xasprintf("%s: %s", p, strerror(errno));
	if (fd != -1)
		close(fd);
	free(p);
	return (rv);
}

int
dn_disk_create(const char *dir, int k, uint64_t size, struct dn_disk **dp,
    char **cause)
{
	struct dn_disk	*d = dn_xcalloc(1, sizeof(*d));
	char		*img = NULL, *lf, *slash, dev[32];
	const char	*argv[] = { mkfs_path(), "-q", "-F", "-m", "0", "-E",
		"lazy_itable_init=1,lazy_journal_init=1,nodiscard", NULL,
		NULL };
	int		 fd = -1, rv = -1;

	*dp = NULL;
	d->dir = dn_xstrdup(dir);
	d->loop = -1;
	d->size = size;
	slash = strrchr(d->dir, '/');
	img = dn_xasprintf("%.*s/" IMG_PREFIX "%d-%d.img", slash != NULL ?
	    (int)(slash - d->dir) : 1, slash != NULL ? d->dir : ".",
	    (int)getpid(), k);
	if (mkdir(dir, 0700) == -1 && errno != EEXIST) {
		*cause = dn_xasprintf("%s: %s", dir, strerror(errno));
		goto out;
	}
	if ((fd = open(img, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) == -1 || ftruncate(fd, (off_t)size) == -1) {
		*cause = dn_xasprintf("%s: %s", img, strerror(errno));
		goto out;
	}
	argv[7] = img;
	if (argv[0] == NULL) {
		*cause = dn_xstrdup("no mkfs.ext4; install e2fsprogs");
		goto out;
	}
	if (capture_run(argv, NULL, NULL, cause) != 0)
		goto out;
	if ((d->loop = loop_attach(fd, img, cause)) < 0)
		goto out;
	(void)loop_devnum(d);
	snprintf(dev, sizeof(dev), "/dev/loop%d", d->loop);
	if (mount(dev, dir, "ext4", MS_NOSUID | MS_NODEV, NULL) == -1) {
		*cause = dn_xasprintf("mount %s on %s: %s", dev, dir,
		    strerror(errno));
		goto out;
	}
	d->mounted = 1;
	loop_autoclear(d->loop);
	lf = dn_xasprintf("%s/lost+found", dir);
	(void)rmdir(lf);	/* the node finds no lost+found */
	free(lf);
	if (probe_file(d, cause) != 0)
		goto out;
	snprintf(d->desc, sizeof(d->desc), "loop%d (%u:%u), %" PRIu64
	    " MiB ext4 on %s", d->loop, d->maj, d->min, size >> 20, dir);
	*dp = d;
	d = NULL;
	rv = 0;
out:
	if (fd != -1)
		close(fd);	/* the loop device holds its own reference */
	if (img != NULL)
		(void)unlink(img);	/* freed with the device */
	free(img);
	dn_disk_destroy(d);
	return (rv);
}

int
dn_disk_full(struct dn_disk *d, int full, char **cause)
{
	struct statvfs	 sv;
	struct stat	 st;
	char		*p = dn_xasprintf("%s/" BALLAST, d->dir);
	uint64_t	 len;
	int		 fd, rv = -1;

	if (!full) {
		if (unlink(p) == -1 && errno != ENOENT)
			*cause = dn_xasprintf("%s: %s", p, strerror(errno));
		else
			rv = 0;
		free(p);
		return (rv);
	}
	if ((fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) == -1) {
		*cause = dn_xasprintf("%s: %s", p, strerror(errno));
		free(p);
		return (-1);
	}
	/* every free block, in halves once a whole request no longer fits
	 * (the extents' own blocks, a node writing beside) */
	for (len = UINT64_MAX; len >= BLOCK; ) {
		if (fstatvfs(fd, &sv) == -1 || fstat(fd, &st) == -1)
			break;
		if (len > (uint64_t)sv.f_bavail * sv.f_frsize)
			len = (uint64_t)sv.f_bavail * sv.f_frsize;
		if (len < BLOCK)
			break;
		if (fallocate(fd, 0, st.st_size, (off_t)len) == -1) {
			if (errno != ENOSPC) {
				*cause = dn_xasprintf("%s: %s", p,
				    strerror(errno));
				goto out;
			}
			len /= 2;
		}
	}
	rv = 0;
out:
	close(fd);
	free(p);
	return (rv);
}

static int
blkio_write(const char *file, unsigned maj, unsigned min, uint64_t v,
    char **cause)
{
	char	p[128], line[64];
	int	fd, n;

	snprintf(p, sizeof(p), BLKIO "%s", file);
	n = snprintf(line, sizeof(line), "%u:%u %" PRIu64 "\n", maj, min, v);
	if ((fd = open(p, O_WRONLY | O_CLOEXEC)) == -1 ||
	    write(fd, line, (size_t)n) != n) {
		if (cause != NULL)
			*cause = dn_xasprintf("%s: %s", p, strerror(errno));
		if (fd != -1)
			close(fd);
		return (-1);
	}
	close(fd);
	return (0);
}

int
dn_disk_throttle(struct dn_disk *d, uint64_t bps, uint32_t iops,
    char **cause)
{
	size_t	i;

	for (i = 0; i < 4; i++)
		if (blkio_write(blkio_files[i], d->maj, d->min, i < 2 ? bps :
		    iops, cause) != 0)
			return (-1);
	d->throttled = bps != 0 || iops != 0;
	return (0);
}

int
dn_disk_measure(struct dn_disk *d, uint64_t bytes, int count,
    uint64_t *ns, char **cause)
{
	char		*p = dn_xasprintf("%s/" PROBE_FILE, d->dir);
	void		*buf = NULL;
	uint64_t	 t0;
	int		 fd, i, rv = -1;

	*ns = 0;
	if (bytes * (uint64_t)count > PROBE_SIZE)
		count = (int)(PROBE_SIZE / bytes);
	if ((fd = open(p, O_WRONLY | O_DIRECT | O_CLOEXEC)) == -1) {
		*cause = dn_xasprintf("%s: %s", p, strerror(errno));
		free(p);
		return (-1);
	}
	if (posix_memalign(&buf, BLOCK, (size_t)bytes) != 0)
		abort();
	memset(buf, 0xd5, (size_t)bytes);
	t0 = dn_now_ns();
	for (i = 0; i < count; i++)
		if (pwrite(fd, buf, (size_t)bytes, (off_t)((uint64_t)i *
		    bytes)) != (ssize_t)bytes) {
			*cause = dn_xasprintf("a write of %s: %s", p,
			    strerror(errno));
			goto out;
		}
	*ns = dn_now_ns() - t0;
	rv = 0;
out:
	close(fd);
	free(buf);
	free(p);
	return (rv);
}

int
dn_disk_write_new(struct dn_disk *d, int *err)
{
	char	*p = dn_xasprintf("%s/" PROBE_FILE ".new", d->dir);
	char	 buf[BLOCK];
	int	 fd;

	*err = 0;
	memset(buf, 0xd5, sizeof(buf));
	if ((fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600)) == -1)
		*err = errno;
	else if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
		*err = errno != 0 ? errno : ENOSPC;
	else if (fsync(fd) == -1)
		*err = errno;
	if (fd != -1)
		close(fd);
	(void)unlink(p);
	free(p);
	return (*err == 0 ? 0 : -1);
}

const char *
dn_disk_describe(const struct dn_disk *d)
{
	return (d->desc);
}

void
dn_disk_destroy(struct dn_disk *d)
{
	if (d == NULL)
		return;
	if (d->throttled)
		(void)dn_disk_throttle(d, 0, 0, NULL);
	if (d->mounted && umount2(d->dir, 0) == -1)
		(void)umount2(d->dir, MNT_DETACH);
	if (!d->mounted && d->loop >= 0) {
		char	dev[32];
		int	fd;

		snprintf(dev, sizeof(dev), "/dev/loop%d", d->loop);
		if ((fd = open(dev, O_RDWR | O_CLOEXEC)) != -1) {
			(void)ioctl(fd, LOOP_CLR_FD, 0);
			close(fd);
		}
	}
	free(d->dir);
	free(d);
}

/* Unmount every mount of device MAJ:MIN (lazily). */
static void
umount_dev(unsigned maj, unsigned min)
{
	char		 line[4096], mp[PATH_MAX];
	unsigned	 a, b;
	FILE		*f = fopen("/proc/self/mountinfo", "re");

	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT ... (octal escapes in
		 * the path: devnet's trial dirs have none to decode) */
		if (sscanf(line, "%*d %*d %u:%u %*s %4095s", &a, &b, mp) == 3 &&
		    a == maj && b == min)
			(void)umount2(mp, MNT_DETACH);
	}
	fclose(f);
}

int
dn_disk_sweep(void)
{
	DIR		*dir = opendir("/sys/block");
	struct dirent	*de;
	struct dn_disk	 d;
	char		 p[PATH_MAX], bf[PATH_MAX], *base;
	int		 pid, n = 0;
	FILE		*f;

	if (dir == NULL)
		return (0);
	while ((de = readdir(dir)) != NULL) {
		if (strncmp(de->d_name, "loop", 4) != 0)
			continue;
		snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file",
		    de->d_name);
		if ((f = fopen(p, "re")) == NULL)
			continue;
		bf[0] = '\0';
		if (fgets(bf, sizeof(bf), f) == NULL)
			bf[0] = '\0';
		fclose(f);
		base = strrchr(bf, '/');
		if (base == NULL || sscanf(base + 1, IMG_PREFIX "%d-", &pid) !=
		    1 || pid <= 0 || pid == (int)getpid() ||
		    kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		memset(&d, 0, sizeof(d));
		d.loop = atoi(de->d_name + 4);
		if (loop_devnum(&d) != 0)
			continue;
		(void)dn_disk_throttle(&d, 0, 0, NULL);
		umount_dev(d.maj, d.min);
		/* autoclear frees a device once unmounted; one never
		 * mounted is freed here */
		snprintf(p, sizeof(p), "/dev/%s", de->d_name);
		{
			int fd = open(p, O_RDWR | O_CLOEXEC);

			if (fd != -1) {
				(void)ioctl(fd, LOOP_CLR_FD, 0);
				close(fd);
			}
		}
		n++;
	}
	closedir(dir);
	return (n);
}
