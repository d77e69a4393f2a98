/*
 * disk.h: a node's own data disk, for the disk events (issue 39): a
 * sparse ext4 image on a loop device mounted on the node's data
 * directory, made full by a ballast file and slow by the kernel's block
 * throttle (cgroup v1 blkio, the root group's rules on that one device).
 * The only caller of the loop ioctls, mount(2), mkfs.ext4 and the blkio
 * files.  Not here: when to fault it or what the proof says
 * (run/faults.c).
 */
#ifndef DN_DISK_H
#define DN_DISK_H

#include <stdint.h>

struct dn_disk;

/* What this machine lacks for a disk of its own (not root, no loop
 * device, no ext4, no mkfs.ext4, no blkio throttle): NULL, or a static
 * sentence saying what to do. */
const char *dn_disk_missing(int throttle);

/*
 * Make a SIZE-byte ext4 disk (sparse: only what is written costs) and
 * mount it on DIR (made if missing, and it must be empty; it then holds
 * .devnet-disk-probe, 4 MiB, devnet's, and when full devnet-disk-full,
 * the ballast), named for
 * this devnet (pid) and node K so that dn_disk_sweep finds it after a
 * SIGKILL.  0 with *DP, or -1 with *CAUSE.
 */
int	 dn_disk_create(const char *dir, int k, uint64_t size,
	    struct dn_disk **dp, char **cause);

/* Full (a ballast file takes every free block) or not (it is removed). */
int	 dn_disk_full(struct dn_disk *, int full, char **cause);

/* The device's reads and writes limited to BPS bytes/s and IOPS (0: no
 * limit; both 0: no rule). */
int	 dn_disk_throttle(struct dn_disk *, uint64_t bps, uint32_t iops,
	    char **cause);

/* The proof of a slow disk: COUNT direct writes of BYTES (a multiple
 * of 4096; at most 4 MiB in all) over a file of the disk's own, written
 * once when it was made (no allocation, no journal: the device's time
 * alone).  0 with *NS, or -1 with *CAUSE. */
int	 dn_disk_measure(struct dn_disk *, uint64_t bytes, int count,
	    uint64_t *ns, char **cause);

/* The proof of a full disk: a new 4 KiB file written and synced, and
 * removed.  0, or -1 with the errno in *ERR (ENOSPC when full). */
int	 dn_disk_write_new(struct dn_disk *, int *err);

/* "loop3 (7:3), 512 MiB ext4 on DIR" (static buffer of the disk). */
const char *dn_disk_describe(const struct dn_disk *);

/* Unmount (lazily when busy), lift the throttle, free the loop device;
 * the image goes with it.  Accepts NULL. */
void	 dn_disk_destroy(struct dn_disk *);

/* Remove what a devnet that is gone (killed) left: mounts of its loop
 * disks, their throttle rules, the devices.  The count removed. */
int	 dn_disk_sweep(void);

#endif
