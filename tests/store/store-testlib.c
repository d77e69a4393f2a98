/* store-testlib.c: what the store's cmocka tests share (store-testlib.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "store.h"
#include "xalloc.h"

#include "store-testlib.h"


int
setup(void **state)
{
	struct tmp	*t = dn_xcalloc(1, sizeof(*t));

	snprintf(t->dir, sizeof(t->dir), "/tmp/dn-store-XXXXXX");
	if (mkdtemp(t->dir) == NULL)
		return (-1);
	snprintf(t->db, sizeof(t->db), "%s/t.db", t->dir);
	*state = t;
	return (0);
}

int
teardown(void **state)
{
	struct tmp	*t = *state;
	char		*cmd = dn_xasprintf("rm -rf '%s'", t->dir);

	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", t->dir);
	free(cmd);
	free(t);
	return (0);
}


int
collect_row(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types)
{
	struct collect	*c = arg;
	size_t		 len = strlen(c->buf);
	int		 i;

	(void)names;
	(void)types;
	for (i = 0; i < ncols; i++)
		snprintf(c->buf + strlen(c->buf), sizeof(c->buf) -
		    strlen(c->buf), "%s%s", i == 0 && len == 0 ? "" :
		    (i == 0 ? ";" : ","), values[i] ? values[i] : "NULL");
	c->rows++;
	return (0);
}

void
expect(struct dn_store *s, const char *sql, const char *want)
{
	struct collect	 c = { .buf = "" };
	char		*cause = NULL;

	if (dn_store_query(s, sql, NULL, 0, collect_row, &c, &cause) != 0)
		fail_msg("%s: %s", sql, cause);
	if (strcmp(c.buf, want) != 0)
		fail_msg("%s: got '%s', want '%s'", sql, c.buf, want);
}

/* Copy file FROM to TO; 0 or -1. */
int
copy_file(const char *from, const char *to)
{
	char	 buf[65536];
	FILE	*in, *out;
	size_t	 n;
	int	 rc = 0;

	if ((in = fopen(from, "rb")) == NULL)
		return (-1);
	if ((out = fopen(to, "wb")) == NULL) {
		fclose(in);
		return (-1);
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			rc = -1;
	if (ferror(in) || fclose(out) != 0)
		rc = -1;
	fclose(in);
	return (rc);
}

/* Whether files A and B have the same bytes. */
int
same_bytes(const char *a, const char *b)
{
	FILE	*fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	int	 ca, cb, same = fa != NULL && fb != NULL;

	while (same) {
		ca = getc(fa);
		cb = getc(fb);
		same = ca == cb;
		if (ca == EOF || cb == EOF)
			break;
	}
	if (fa != NULL)
		fclose(fa);
	if (fb != NULL)
		fclose(fb);
	return (same);
}

/* One line per table, index and view, with every table's columns (name,
 * type, not null, default, key): the shape of a database. */
static const char shape_sql[] =
    "SELECT m.type, m.name, (SELECT group_concat(c.name || ' ' || c.type "
    "|| ' ' || c.\"notnull\" || ' ' || ifnull(c.dflt_value, '-') || ' ' || "
    "c.pk, '|') FROM pragma_table_info(m.name) c) FROM sqlite_master m "
    "WHERE m.name NOT LIKE 'sqlite_%' ORDER BY m.type, m.name";


static int
shape_row(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types)
{
	struct shape	*sh = arg;
	size_t		 len = strlen(sh->buf);
	int		 i;

	(void)names;
	(void)types;
	for (i = 0; i < ncols; i++)
		snprintf(sh->buf + strlen(sh->buf), sizeof(sh->buf) -
		    strlen(sh->buf), "%s%s", i ? "," : (len ? "\n" : ""),
		    values[i] ? values[i] : "NULL");
	assert_true(strlen(sh->buf) < sizeof(sh->buf) - 1);
	return (0);
}

void
shape_of(const char *db, struct shape *sh)
{
	struct dn_store	*s;
	char		*cause = NULL;

	sh->buf[0] = '\0';
	assert_int_equal(dn_store_open(&s, db, 0, &cause), 0);
	assert_int_equal(dn_store_query(s, shape_sql, NULL, 0, shape_row, sh,
	    &cause), 0);
	dn_store_close(s);
}


int
sim_reps(const char *env, int dflt)
{
	const char	*e = getenv(env);

	return (e != NULL && atoi(e) > 0 ? atoi(e) : dflt);
}
