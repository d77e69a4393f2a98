/*
 * rocks.c: RocksDB adapter (see rocks.h).  The only file of the project
 * that calls rocksdb_*.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <rocksdb/c.h>

#include "rocks.h"
#include "xalloc.h"

#define DEFAULT_BLOCK_CACHE	(8u << 20)

struct store {
	rocksdb_t			*db;
	rocksdb_options_t		*opts;
	rocksdb_block_based_table_options_t *topts;
	rocksdb_cache_t			*cache;
	enum store_mode			 read_mode;
	enum store_mode			 write_mode;
	rocksdb_readoptions_t		*ro;	/* cached mode */
	rocksdb_writeoptions_t		*wo;	/* cached mode */
	rocksdb_writebatch_t		*batch;	/* pending (both modes) */
	uint64_t			 batch_puts;
	atomic_uint_fast64_t		 reads;
	atomic_uint_fast64_t		 writes;
};

struct store_cf {
	rocksdb_column_family_handle_t	*h;
};

struct store_cf_options {
	rocksdb_options_t		*opts;
};

/* Take RocksDB's error string: a cause the caller frees. */
static char *
take_err(char *err, const char *what)
{
	char	*cause;

	cause = dn_xasprintf("%s: %s", what, err != NULL ? err : "?");
	rocksdb_free(err);
	return (cause);
}

/* Open with every column family present, dropping all but "default"
 * (leftovers of an interrupted cf-churn workload). */
static int
open_dropping_families(struct store *s, const char *path, char **names,
    size_t n, char **cause)
{
	const rocksdb_options_t	**cfopts;
	rocksdb_column_family_handle_t **h;
	char			*err = NULL;
	size_t			 i;
	int			 rv = -1;

	cfopts = dn_xcalloc(n, sizeof(*cfopts));
	h = dn_xcalloc(n, sizeof(*h));
	for (i = 0; i < n; i++)
		cfopts[i] = s->opts;
	s->db = rocksdb_open_column_families(s->opts, path, (int)n,
	    (const char *const *)names, cfopts, h, &err);
	if (err != NULL) {
		*cause = take_err(err, "cannot open RocksDB");
		s->db = NULL;
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (strcmp(names[i], "default") != 0) {
			rocksdb_drop_column_family(s->db, h[i], &err);
			if (err != NULL) {
				*cause = take_err(err, "cannot drop a left-"
				    "over column family");
				goto out;
			}
		}
	}
	rv = 0;
out:
	for (i = 0; i < n; i++) {
		if (h[i] != NULL)
			rocksdb_column_family_handle_destroy(h[i]);
	}
	free(h);
	free(cfopts);
	return (rv);
}

int
store_open(struct store **sp, const struct store_config *c, char **cause)
{
	struct store		*s;
	rocksdb_options_t	*base;
	char			*err = NULL, **names = NULL;
	size_t			 n = 0, i;

	s = dn_xcalloc(1, sizeof(*s));
	atomic_init(&s->reads, 0);
	atomic_init(&s->writes, 0);
	s->read_mode = c->read_mode;
	s->write_mode = c->write_mode;

	/* The block cache goes into the base options first, so that an
	 * options string that configures block_based_table_factory keeps
	 * it (RocksDB configures the existing factory in place). */
	base = rocksdb_options_create();
	s->cache = rocksdb_cache_create_lru(c->block_cache != 0 ?
	    (size_t)c->block_cache : DEFAULT_BLOCK_CACHE);
	s->topts = rocksdb_block_based_options_create();
	rocksdb_block_based_options_set_block_cache(s->topts, s->cache);
	rocksdb_options_set_block_based_table_factory(base, s->topts);
	if (c->options != NULL && *c->options != '\0') {
		s->opts = rocksdb_options_create();
		rocksdb_get_options_from_string(base, c->options, s->opts,
		    &err);
		rocksdb_options_destroy(base);
		if (err != NULL) {
			char	*why = take_err(err, "");

			*cause = dn_xasprintf("bad RocksDB options string "
			    "'%s'%s; see RocksDB's GetOptionsFromString for "
			    "the syntax (name=value;...)", c->options, why);
			free(why);
			goto fail;
		}
	} else
		s->opts = base;
	rocksdb_options_set_create_if_missing(s->opts, 1);

	names = rocksdb_list_column_families(s->opts, c->path, &n, &err);
	if (err != NULL) {
		/* A new DB has no column family list yet (the C API still
		 * hands back an empty malloc'd array). */
		rocksdb_free(err);
		err = NULL;
		if (names != NULL)
			rocksdb_free(names);
		names = NULL;
		n = 0;
	}
	if (n > 1) {
		if (open_dropping_families(s, c->path, names, n, cause) != 0)
			goto fail;
	} else {
		s->db = rocksdb_open(s->opts, c->path, &err);
		if (err != NULL) {
			char	*why = take_err(err, "");

			*cause = dn_xasprintf("cannot open RocksDB at "
			    "'%s'%s", c->path, why);
			free(why);
			s->db = NULL;
			goto fail;
		}
	}
	if (names != NULL)
		rocksdb_list_column_families_destroy(names, n);
	names = NULL;

	if (s->read_mode == STORE_CACHED)
		s->ro = rocksdb_readoptions_create();
	if (s->write_mode == STORE_CACHED) {
		s->wo = rocksdb_writeoptions_create();
		s->batch = rocksdb_writebatch_create();
	}
	*sp = s;
	return (0);
fail:
	if (names != NULL) {
		for (i = 0; i < n; i++)
			rocksdb_free(names[i]);
		rocksdb_free(names);
	}
	store_close(s);
	return (-1);
}

void
store_close(struct store *s)
{
	if (s == NULL)
		return;
	if (s->db != NULL)
		rocksdb_close(s->db);
	if (s->batch != NULL)
		rocksdb_writebatch_destroy(s->batch);
	if (s->wo != NULL)
		rocksdb_writeoptions_destroy(s->wo);
	if (s->ro != NULL)
		rocksdb_readoptions_destroy(s->ro);
	if (s->opts != NULL)
		rocksdb_options_destroy(s->opts);
	if (s->topts != NULL)
		rocksdb_block_based_options_destroy(s->topts);
	if (s->cache != NULL)
		rocksdb_cache_destroy(s->cache);
	free(s);
}

int
store_get(struct store *s, const void *key, size_t klen, void *val,
    size_t cap, size_t *vlen, char **cause)
{
	rocksdb_readoptions_t	*ro = s->ro;
	rocksdb_pinnableslice_t	*ps;
	const char		*v;
	char			*err = NULL;
	size_t			 len;
	int			 rv = 0;

	if (s->read_mode == STORE_PER_CALL)
		ro = rocksdb_readoptions_create();
	ps = rocksdb_get_pinned(s->db, ro, key, klen, &err);
	atomic_fetch_add_explicit(&s->reads, 1, memory_order_relaxed);
	if (err != NULL) {
		*cause = take_err(err, "RocksDB read failed");
		rv = -1;
	} else if (ps != NULL) {
		v = rocksdb_pinnableslice_value(ps, &len);
		memcpy(val, v, len < cap ? len : cap);
		if (vlen != NULL)
			*vlen = len;
		rocksdb_pinnableslice_destroy(ps);
		rv = 1;
	}
	if (s->read_mode == STORE_PER_CALL)
		rocksdb_readoptions_destroy(ro);
	return (rv);
}

void
store_batch_put(struct store *s, const void *key, size_t klen,
    const void *val, size_t vlen)
{
	if (s->batch == NULL)
		s->batch = rocksdb_writebatch_create();
	rocksdb_writebatch_put(s->batch, key, klen, val, vlen);
	s->batch_puts++;
}

void
store_batch_abort(struct store *s)
{
	if (s->batch == NULL)
		return;
	if (s->write_mode == STORE_CACHED)
		rocksdb_writebatch_clear(s->batch);
	else {
		rocksdb_writebatch_destroy(s->batch);
		s->batch = NULL;
	}
	s->batch_puts = 0;
}

int
store_batch_commit(struct store *s, char **cause)
{
	rocksdb_writeoptions_t	*wo = s->wo;
	char			*err = NULL;
	int			 rv = 0;

	if (s->batch == NULL || s->batch_puts == 0)
		return (0);
	if (s->write_mode == STORE_PER_CALL)
		wo = rocksdb_writeoptions_create();
	rocksdb_write(s->db, wo, s->batch, &err);
	if (err != NULL) {
		*cause = take_err(err, "RocksDB write failed");
		rv = -1;
	} else
		atomic_fetch_add_explicit(&s->writes, s->batch_puts,
		    memory_order_relaxed);
	if (s->write_mode == STORE_PER_CALL)
		rocksdb_writeoptions_destroy(wo);
	store_batch_abort(s);
	return (rv);
}

int
store_iterate(struct store *s, store_iter_fn cb, void *arg, char **cause)
{
	rocksdb_readoptions_t	*ro;
	rocksdb_iterator_t	*it;
	const char		*k, *v;
	char			*err = NULL;
	size_t			 kl, vl;
	int			 rv = 0;

	ro = rocksdb_readoptions_create();
	/* A full scan must not evict the working set. */
	rocksdb_readoptions_set_fill_cache(ro, 0);
	it = rocksdb_create_iterator(s->db, ro);
	for (rocksdb_iter_seek_to_first(it); rocksdb_iter_valid(it);
	    rocksdb_iter_next(it)) {
		k = rocksdb_iter_key(it, &kl);
		v = rocksdb_iter_value(it, &vl);
		if (cb(arg, k, kl, v, vl) != 0)
			break;
	}
	rocksdb_iter_get_error(it, &err);
	if (err != NULL) {
		*cause = take_err(err, "RocksDB iteration failed");
		rv = -1;
	}
	rocksdb_iter_destroy(it);
	rocksdb_readoptions_destroy(ro);
	return (rv);
}

uint64_t
store_reads(struct store *s)
{
	return (atomic_load_explicit(&s->reads, memory_order_relaxed));
}

uint64_t
store_writes(struct store *s)
{
	return (atomic_load_explicit(&s->writes, memory_order_relaxed));
}

uint64_t
store_property(struct store *s, enum store_prop p)
{
	static const char *names[] = {
		[STORE_PROP_BLOCK_CACHE] = "rocksdb.block-cache-usage",
		[STORE_PROP_BLOCK_CACHE_CAP] = "rocksdb.block-cache-capacity",
		[STORE_PROP_MEMTABLES] = "rocksdb.cur-size-all-mem-tables",
		[STORE_PROP_TABLE_READERS] =
		    "rocksdb.estimate-table-readers-mem",
	};
	uint64_t	v = 0;

	if ((size_t)p >= sizeof(names) / sizeof(names[0]))
		return (0);
	if (rocksdb_property_int(s->db, names[p], &v) != 0)
		return (0);
	return (v);
}

void
store_compact(struct store *s)
{
	rocksdb_compact_range(s->db, NULL, 0, NULL, 0);
}

int
store_cf_options_parse(struct store *s, const char *str,
    struct store_cf_options **op, char **cause)
{
	struct store_cf_options	*o;
	char			*err = NULL;

	o = dn_xcalloc(1, sizeof(*o));
	o->opts = rocksdb_options_create();
	if (str != NULL && *str != '\0') {
		rocksdb_get_options_from_string(s->opts, str, o->opts, &err);
		if (err != NULL) {
			char	*why = take_err(err, "");

			*cause = dn_xasprintf("bad column family options "
			    "string '%s'%s", str, why);
			free(why);
			store_cf_options_free(o);
			return (-1);
		}
	}
	*op = o;
	return (0);
}

void
store_cf_options_free(struct store_cf_options *o)
{
	if (o == NULL)
		return;
	rocksdb_options_destroy(o->opts);
	free(o);
}

int
store_cf_create(struct store *s, struct store_cf_options *o,
    const char *name, struct store_cf **cfp, char **cause)
{
	rocksdb_column_family_handle_t	*h;
	char				*err = NULL;

	h = rocksdb_create_column_family(s->db, o->opts, name, &err);
	if (err != NULL) {
		/* The C API hands back a handle even on failure. */
		if (h != NULL)
			rocksdb_column_family_handle_destroy(h);
		*cause = take_err(err, "cannot create column family");
		return (-1);
	}
	*cfp = dn_xcalloc(1, sizeof(**cfp));
	(*cfp)->h = h;
	return (0);
}

void
store_cf_release(struct store_cf *cf)
{
	rocksdb_column_family_handle_destroy(cf->h);
	free(cf);
}

int
store_cf_drop(struct store *s, struct store_cf *cf, char **cause)
{
	char	*err = NULL;
	int	 rv = 0;

	rocksdb_drop_column_family(s->db, cf->h, &err);
	if (err != NULL) {
		*cause = take_err(err, "cannot drop column family");
		rv = -1;
	}
	rocksdb_column_family_handle_destroy(cf->h);
	free(cf);
	return (rv);
}
