/*
 * image.h: the container image devnet builds from local binaries, with
 * no registry and no network (`devnet image build`, and the docker and
 * swarm providers when a variant names no `image:`).
 *
 * The image is FROM scratch and holds only: the node binary at
 * /usr/local/bin/<its name>; devnet-probe beside it and
 * libdevnet-alloc.so (bin/ or ../lib/ of the node binary) when they
 * exist; and every shared library `ldd` lists for them, at the same
 * paths as on this machine (the dynamic loader included).  Its tag is
 * devnet-node:<12 hex digits of the sha256 over those binaries>, so a
 * rebuilt node gets a new image and an unchanged one reuses it.
 *
 * Not here: running containers (docker.h), which image a node runs
 * (provider.h).
 */
#ifndef DN_IMAGE_H
#define DN_IMAGE_H

#include <stdio.h>

/* The default tag for an image of BINARY; NULL with *CAUSE when BINARY
 * cannot be read.  Caller frees. */
char	*image_default_tag(const char *binary, char **cause);

/* Build TAG from BINARY (see above).  Prints what it packs to LOG (may be
 * NULL).  Returns 0, or -1 with *CAUSE. */
int	 image_build(const char *binary, const char *tag, FILE *log,
	    char **cause);

#endif
