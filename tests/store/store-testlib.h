/*
 * store-testlib.h: what the store's cmocka tests share (store-testlib.c):
 * a temporary directory per test, reading a query back as text, copying
 * and comparing files, the shape of a database, and the simulations'
 * repetition count.
 */
#ifndef DN_STORE_TESTLIB_H
#define DN_STORE_TESTLIB_H

#include "store.h"

struct tmp {
	char	dir[64];
	char	db[96];
};
/* Collect the first column of every row as text, joined by ','. */
struct collect {
	char	buf[1024];
	int	rows;
};
struct shape {
	char	buf[8192];
};

/* cmocka setup and teardown: a fresh directory T->dir, T->db in it. */
int	 setup(void **state);
int	 teardown(void **state);
/* A dn_store_row_fn appending every row to a struct collect: columns
 * joined by ',', rows by ';'. */
int	 collect_row(void *arg, int ncols, const char *const *names,
	    const char *const *values, const int *types);
/* Fail unless SQL on S reads back as WANT (collect_row's format). */
void	 expect(struct dn_store *s, const char *sql, const char *want);
/* Copy file FROM to TO; 0 or -1. */
int	 copy_file(const char *from, const char *to);
/* Whether files A and B have the same bytes. */
int	 same_bytes(const char *a, const char *b);
/* Every table, index and view of DB with its columns, into SH. */
void	 shape_of(const char *db, struct shape *sh);
/* How many repetitions a seeded simulation runs: environment variable
 * ENV (DN_VERDICT_SIM_REPS, DN_SEQ_REPS) when a positive number, else
 * DFLT. */
int	 sim_reps(const char *env, int dflt);

#endif
