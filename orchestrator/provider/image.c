/*
 * image.c: build devnet's own node image from local files (see image.h).
 * A context dir in /tmp gets root/ (the files at their paths in the
 * image) and a Dockerfile, `docker build --network=none` makes the image
 * and the dir is removed.  Not here: the docker CLI (docker.c).
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/capture.h"
#include "sys/docker.h"
#include "provider/image.h"
#include "mkdirs.h"
#include "sha256.h"
#include "xalloc.h"

#define IMAGE_MAX_FILES	64

struct file {
	char	*src;		/* on this machine */
	char	*dst;		/* in the image */
};

struct pack {
	struct file	 f[IMAGE_MAX_FILES];
	size_t		 n;
};

static void
pack_add(struct pack *p, const char *src, const char *dst)
{
	size_t	i;

	for (i = 0; i < p->n; i++) {
		if (strcmp(p->f[i].dst, dst) == 0)
			return;
	}
	if (p->n == IMAGE_MAX_FILES)
		return;
	p->f[p->n].src = dn_xstrdup(src);
	p->f[p->n].dst = dn_xstrdup(dst);
	p->n++;
}

static void
pack_free(struct pack *p)
{
	size_t	i;

	for (i = 0; i < p->n; i++) {
		free(p->f[i].src);
		free(p->f[i].dst);
	}
	p->n = 0;
}

static int
is_file(const char *path)
{
	struct stat	st;

	return (stat(path, &st) == 0 && S_ISREG(st.st_mode));
}

/* The binaries: the node, and the probe and the shim when built. */
static void
pack_binaries(struct pack *p, const char *binary)
{
	char	*copy = dn_xstrdup(binary), *dir, *path, *dst;

	dst = dn_xasprintf("/usr/local/bin/%s", strrchr(binary, '/') != NULL ?
	    strrchr(binary, '/') + 1 : binary);
	pack_add(p, binary, dst);
	free(dst);
	dir = dirname(copy);
	path = dn_xasprintf("%s/devnet-probe", dir);
	if (is_file(path))
		pack_add(p, path, "/usr/local/bin/devnet-probe");
	free(path);
	path = dn_xasprintf("%s/../lib/libdevnet-alloc.so", dir);
	if (!is_file(path)) {
		free(path);
		path = dn_xasprintf("%s/libdevnet-alloc.so", dir);
	}
	if (is_file(path))
		pack_add(p, path, "/usr/local/lib/libdevnet-alloc.so");
	free(path);
	free(copy);
}

/* Add every library ldd lists for FILE.  -1 with *CAUSE on "not found". */
static int
pack_libs(struct pack *p, const char *file, char **cause)
{
	const char	*argv[] = { "ldd", file, NULL };
	char		*out = NULL, *line, *next, *path, *end;

	if (capture_run(argv, NULL, &out, cause) != 0)
		return (-1);
	for (line = out; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (strstr(line, "not found") != NULL) {
			*cause = dn_xasprintf("%s needs a library this "
			    "machine lacks: %s", file, line + strspn(line,
			    " \t"));
			free(out);
			return (-1);
		}
		/* "\tlibx.so => /path (0x..)" or "\t/lib64/ld.so (0x..)" */
		if ((path = strstr(line, "=> ")) != NULL)
			path += 3;
		else
			path = line + strspn(line, " \t");
		if (path[0] != '/')
			continue;	/* linux-vdso.so.1 */
		end = path + strcspn(path, " \t");
		*end = '\0';
		pack_add(p, path, path);
	}
	free(out);
	return (0);
}

/*
 * The last tag made, by binary: a scenario asks once per node and
 * variant (400 times for 200 nodes), and each answer runs ldd and hashes
 * the binary and its libraries (`devnet validate` of devnet-200.yaml
 * under swarm took 1.7 s, 17 s in the sanitizer build).  Kept while the
 * binary's path, inode, size and modification time stay the same.
 */
static pthread_mutex_t	 tag_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
	char		*binary;
	struct stat	 sb;
	char		*tag;
} tag_last;

static int
same_file(const struct stat *a, const struct stat *b)
{
	return (a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	    a->st_size == b->st_size &&
	    a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	    a->st_mtim.tv_nsec == b->st_mtim.tv_nsec);
}

static char *make_default_tag(const char *, char **);

char *
image_default_tag(const char *binary, char **cause)
{
	struct stat	 sb;
	char		*tag;

	if (stat(binary, &sb) != 0)
		return (make_default_tag(binary, cause));
	pthread_mutex_lock(&tag_mu);
	if (tag_last.binary != NULL && strcmp(tag_last.binary, binary) == 0 &&
	    same_file(&tag_last.sb, &sb)) {
		tag = dn_xstrdup(tag_last.tag);
		pthread_mutex_unlock(&tag_mu);
		return (tag);
	}
	pthread_mutex_unlock(&tag_mu);
	if ((tag = make_default_tag(binary, cause)) == NULL)
		return (NULL);
	pthread_mutex_lock(&tag_mu);
	free(tag_last.binary);
	free(tag_last.tag);
	tag_last.binary = dn_xstrdup(binary);
	tag_last.sb = sb;
	tag_last.tag = dn_xstrdup(tag);
	pthread_mutex_unlock(&tag_mu);
	return (tag);
}

static char *
make_default_tag(const char *binary, char **cause)
{
	struct pack	 p = { .n = 0 };
	struct dn_sha256 h;
	uint8_t		 d[32];
	char		 hex[65], *tag = NULL;
	size_t		 i;

	pack_binaries(&p, binary);
	dn_sha256_init(&h);
	for (i = 0; i < p.n; i++) {
		if (dn_sha256_file(p.f[i].src, hex) != 0) {
			*cause = dn_xasprintf("cannot read '%s': %s",
			    p.f[i].src, strerror(errno));
			goto out;
		}
		dn_sha256_update(&h, p.f[i].dst, strlen(p.f[i].dst) + 1);
		dn_sha256_update(&h, hex, 64);
	}
	dn_sha256_final(&h, d);
	dn_hex(d, 6, hex);
	tag = dn_xasprintf("devnet-node:%s", hex);
out:
	pack_free(&p);
	return (tag);
}

/* Copy SRC's content (symlinks followed) to DST, executable. */
static int
copy_file(const char *src, char *dst, char **cause)
{
	char	 buf[65536];
	ssize_t	 n;
	int	 in, out, rc = -1;

	if (dn_mkdir_parents(dst) != 0) {
		*cause = dn_xasprintf("cannot create dirs for '%s': %s", dst,
		    strerror(errno));
		return (-1);
	}
	if ((in = open(src, O_RDONLY | O_CLOEXEC)) == -1) {
		*cause = dn_xasprintf("cannot read '%s': %s", src,
		    strerror(errno));
		return (-1);
	}
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (out == -1) {
		*cause = dn_xasprintf("cannot write '%s': %s", dst,
		    strerror(errno));
		close(in);
		return (-1);
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (write(out, buf, (size_t)n) != n)
			break;
	}
	if (n == 0)
		rc = 0;
	else
		*cause = dn_xasprintf("cannot copy '%s': %s", src,
		    strerror(errno));
	close(in);
	if (close(out) != 0 && rc == 0) {
		*cause = dn_xasprintf("cannot write '%s': %s", dst,
		    strerror(errno));
		rc = -1;
	}
	return (rc);
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	remove(path);
	return (0);
}

int
image_build(const char *binary, const char *tag, FILE *log, char **cause)
{
	static const char dockerfile[] =
	    "# devnet image build: local binaries on an empty base\n"
	    "FROM scratch\n"
	    "COPY root/ /\n"
	    "ENV PATH=/usr/local/bin:/usr/bin:/bin\n"
	    "LABEL devnet.image=1\n";
	struct pack	 p = { .n = 0 };
	char		 ctx[] = "/tmp/dn-image-XXXXXX", *path = NULL;
	const char	*args[] = { "build", "--network=none", "-q", "-t", tag,
			    ctx, NULL };
	size_t		 i, nbin;
	FILE		*f;
	int		 rc = -1, made = 0;

	if (!is_file(binary)) {
		*cause = dn_xasprintf("node binary '%s' not found", binary);
		return (-1);
	}
	pack_binaries(&p, binary);
	nbin = p.n;
	for (i = 0; i < nbin; i++) {
		if (pack_libs(&p, p.f[i].src, cause) != 0)
			goto out;
	}
	if (mkdtemp(ctx) == NULL) {
		*cause = dn_xasprintf("cannot create a dir in /tmp: %s",
		    strerror(errno));
		goto out;
	}
	made = 1;
	for (i = 0; i < p.n; i++) {
		free(path);
		path = dn_xasprintf("%s/root%s", ctx, p.f[i].dst);
		if (copy_file(p.f[i].src, path, cause) != 0)
			goto out;
		if (log != NULL)
			fprintf(log, "  %s <- %s\n", p.f[i].dst, p.f[i].src);
	}
	free(path);
	path = dn_xasprintf("%s/Dockerfile", ctx);
	if ((f = fopen(path, "w")) == NULL ||
	    fputs(dockerfile, f) == EOF || fclose(f) != 0) {
		*cause = dn_xasprintf("cannot write '%s': %s", path,
		    strerror(errno));
		goto out;
	}
	if (dk_cmd(args, NULL, NULL, cause) != 0)
		goto out;
	rc = 0;
out:
	if (made)
		nftw(ctx, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(path);
	pack_free(&p);
	return (rc);
}
