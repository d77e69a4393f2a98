/*
 * mkdirs.h: create a directory and its missing parents (mkdir -p).  Not
 * a path normaliser: PATH is used as given ("a//b" and ".." included).
 */
#ifndef DN_MKDIRS_H
#define DN_MKDIRS_H

#include <sys/types.h>

/* Create PATH's missing parents (0755) and PATH itself (MODE); an
 * existing directory is fine.  0, or -1 with errno set. */
int	 dn_mkdir_p(const char *path, mode_t mode);

/* Create the missing parents of PATH (0755), not PATH itself: for a file
 * about to be written.  0, or -1 with errno set. */
int	 dn_mkdir_parents(const char *path);

#endif
