/*
 * machine.c: what this machine is (see machine.h): CPU model, cores and
 * threads from /proc/cpuinfo, memory from /proc/meminfo, kernel and arch
 * from uname, load from /proc/loadavg, the governor from cpufreq.  A part
 * that cannot be read is left unknown, never guessed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "sys/machine.h"
#include "sha256.h"
#include "xalloc.h"

/* The value after "KEY<spaces>: " in LINE, or NULL. */
static const char *
cpuinfo_value(const char *line, const char *key)
{
	size_t	n = strlen(key);

	if (strncmp(line, key, n) != 0)
		return (NULL);
	line += n;
	while (*line == ' ' || *line == '\t')
		line++;
	if (*line != ':')
		return (NULL);
	line++;
	while (*line == ' ')
		line++;
	return (line);
}

static void
chomp_copy(char *dst, size_t cap, const char *src)
{
	size_t	n = strcspn(src, "\n");

	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Model, logical CPUs, and physical cores (distinct physical id, core
 * id pairs; without them, one core per logical CPU). */
static void
read_cpuinfo(struct machine *m)
{
	FILE		*f = fopen("/proc/cpuinfo", "r");
	char		 line[512];
	long		 phys = 0, *pairs = NULL;
	size_t		 npairs = 0, i;
	int		 nproc = 0;
	const char	*v;

	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (cpuinfo_value(line, "processor") != NULL)
			nproc++;
		else if (m->cpu_model[0] == '\0' &&
		    ((v = cpuinfo_value(line, "model name")) != NULL ||
		    (v = cpuinfo_value(line, "Hardware")) != NULL ||
		    (v = cpuinfo_value(line, "cpu model")) != NULL))
			chomp_copy(m->cpu_model, sizeof(m->cpu_model), v);
		else if ((v = cpuinfo_value(line, "physical id")) != NULL)
			phys = strtol(v, NULL, 10);
		else if ((v = cpuinfo_value(line, "core id")) != NULL) {
			long	key = phys * 65536 + strtol(v, NULL, 10);

			for (i = 0; i < npairs; i++)
				if (pairs[i] == key)
					break;
			if (i == npairs) {
				pairs = dn_xreallocarray(pairs, npairs + 1,
				    sizeof(*pairs));
				pairs[npairs++] = key;
			}
		}
	}
	fclose(f);
	if (nproc > 0)
		m->cores = npairs > 0 ? (int)npairs : nproc;
	free(pairs);
}

static void
read_first_line(const char *path, char *buf, size_t cap)
{
	FILE	*f = fopen(path, "r");

	buf[0] = '\0';
	if (f == NULL)
		return;
	if (fgets(buf, (int)cap, f) == NULL)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static int64_t
read_memtotal(void)
{
	FILE		*f = fopen("/proc/meminfo", "r");
	char		 line[256];
	long long	 kb = -1;

	if (f == NULL)
		return (-1);
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "MemTotal: %lld kB", &kb) == 1)
			break;
	fclose(f);
	return (kb < 0 ? -1 : (int64_t)kb * 1024);
}

static void
machine_fingerprint(struct machine *m)
{
	struct dn_sha256	c;
	uint8_t			h[32];
	char			hex[65], *canon;
	long long		gib = m->mem_bytes < 0 ? -1 :
				    (m->mem_bytes + (512ll << 20)) >> 30;

	canon = dn_xasprintf("cpu=%s\ncores=%d\nthreads=%d\nmem_gib=%lld\n"
	    "kernel=%s\narch=%s\nprovider=%s\nlimits=%s\ndevnet=%s\n",
	    m->cpu_model, m->cores, m->threads, gib, m->kernel, m->arch,
	    m->provider, m->limits, m->version);
	dn_sha256_init(&c);
	dn_sha256_update(&c, canon, strlen(canon));
	dn_sha256_final(&c, h);
	dn_hex(h, sizeof(h), hex);
	memcpy(m->fingerprint, hex, MACHINE_FP_LEN);
	m->fingerprint[MACHINE_FP_LEN] = '\0';
	free(canon);
}

void
machine_probe(struct machine *m, const char *provider, const char *limits,
    const char *version)
{
	struct utsname	u;
	char		buf[128];
	long		n;

	memset(m, 0, sizeof(*m));
	m->cores = m->threads = -1;
	m->load1 = NAN;
	read_cpuinfo(m);
	if ((n = sysconf(_SC_NPROCESSORS_ONLN)) > 0)
		m->threads = (int)n;
	m->mem_bytes = read_memtotal();
	if (uname(&u) == 0) {
		snprintf(m->kernel, sizeof(m->kernel), "%.120s", u.release);
		snprintf(m->arch, sizeof(m->arch), "%.64s", u.machine);
	}
	snprintf(m->provider, sizeof(m->provider), "%s", provider);
	snprintf(m->limits, sizeof(m->limits), "%s", limits != NULL ?
	    limits : "none");
	snprintf(m->version, sizeof(m->version), "%s", version);
	if (gethostname(m->hostname, sizeof(m->hostname)) != 0)
		m->hostname[0] = '\0';
	m->hostname[sizeof(m->hostname) - 1] = '\0';
	read_first_line("/proc/loadavg", buf, sizeof(buf));
	if (buf[0] != '\0')
		m->load1 = strtod(buf, NULL);
	read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/"
	    "scaling_governor", m->governor, sizeof(m->governor));
	machine_fingerprint(m);
}
