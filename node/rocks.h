/*
 * rocks.h: the node's storage adapter, the only module that calls
 * rocksdb_*.  One RocksDB directory, point reads, one write batch per
 * block, full ordered iteration (state hash), integer properties, and
 * column-family create/drop for the cf-churn workload.
 *
 * Modes (the A/B subject of the reference case):
 *   reads   STORE_CACHED    one rocksdb_readoptions_t per store, reused
 *           STORE_PER_CALL  created and destroyed around every read
 *   writes  STORE_CACHED    one rocksdb_writeoptions_t and one
 *                           rocksdb_writebatch_t per store, the batch
 *                           cleared after every commit
 *           STORE_PER_CALL  batch created at the first put of a commit,
 *                           write options created at the commit, both
 *                           destroyed after it
 * Point reads always go through rocksdb_get_pinned.
 *
 * Thread safety: store_get, store_iterate, store_property, the counters
 * and the column-family functions may be called from any thread at once;
 * the batch functions belong to one thread at a time.
 *
 * Errors: functions that can fail return -1 and set *CAUSE (a string the
 * caller frees) naming what failed and RocksDB's reason.
 */
#ifndef DN_NODE_ROCKS_H
#define DN_NODE_ROCKS_H

#include <stddef.h>
#include <stdint.h>

struct store;
struct store_cf;
struct store_cf_options;

enum store_mode { STORE_CACHED = 0, STORE_PER_CALL = 1 };

struct store_config {
	const char	*path;		/* RocksDB directory */
	const char	*options;	/* rocksdb_get_options_from_string
					 * text; NULL or "" for none */
	uint64_t	 block_cache;	/* LRU block cache bytes (0 = 8 MiB) */
	enum store_mode	 read_mode;
	enum store_mode	 write_mode;
};

/*
 * Open (create if missing) the DB at C->path.  Column families left over
 * by an interrupted cf-churn run are opened and dropped.  A bad options
 * string fails here with a cause quoting it.  *SP is the caller's:
 * store_close.
 */
int	 store_open(struct store **sp, const struct store_config *c,
	    char **cause);
/* Close the DB (flushing nothing extra: the WAL has every commit) and
 * free S.  Accepts NULL. */
void	 store_close(struct store *s);

/*
 * Point read of KEY.  Returns 1 if found (the first min(value length,
 * CAP) bytes copied to VAL, the full length in *VLEN if VLEN is not
 * NULL), 0 if absent, -1 on error.  Counts one read.
 */
int	 store_get(struct store *s, const void *key, size_t klen, void *val,
	    size_t cap, size_t *vlen, char **cause);

/* Add a put to the pending batch (counted as one write at commit). */
void	 store_batch_put(struct store *s, const void *key, size_t klen,
	    const void *val, size_t vlen);
/* Write the pending batch atomically (WAL on, no fsync) and start a new
 * one.  An empty batch is a no-op.  Returns 0 or -1. */
int	 store_batch_commit(struct store *s, char **cause);
/* Throw the pending batch away. */
void	 store_batch_abort(struct store *s);

/*
 * Call CB for every key in key order, from one implicit snapshot; stops
 * early when CB returns non-zero.  Returns 0 or -1.
 */
typedef int (*store_iter_fn)(void *arg, const void *key, size_t klen,
    const void *val, size_t vlen);
int	 store_iterate(struct store *s, store_iter_fn cb, void *arg,
	    char **cause);

/* Counters since open: point reads and keys written. */
uint64_t store_reads(struct store *s);
uint64_t store_writes(struct store *s);

/* Integer properties, read without allocating (rocksdb_property_int);
 * 0 when unavailable. */
enum store_prop {
	STORE_PROP_BLOCK_CACHE,		/* rocksdb.block-cache-usage */
	STORE_PROP_BLOCK_CACHE_CAP,	/* rocksdb.block-cache-capacity */
	STORE_PROP_MEMTABLES,		/* rocksdb.cur-size-all-mem-tables */
	/* rocksdb.estimate-table-readers-mem */
	STORE_PROP_TABLE_READERS
};
uint64_t store_property(struct store *s, enum store_prop p);

/* Compact the whole key range and wait for it (benchmarks: settle the
 * DB so that no background work runs while measuring). */
void	 store_compact(struct store *s);

/* Parse a column-family options string on top of the store's options
 * (checked once at start-up).  *OP is the caller's: store_cf_options_free. */
int	 store_cf_options_parse(struct store *s, const char *str,
	    struct store_cf_options **op, char **cause);
void	 store_cf_options_free(struct store_cf_options *o);
/* Create column family NAME.  On failure no handle is left behind. */
int	 store_cf_create(struct store *s, struct store_cf_options *o,
	    const char *name, struct store_cf **cfp, char **cause);
/* Drop CF and free its handle (also when the drop fails). */
int	 store_cf_drop(struct store *s, struct store_cf *cf, char **cause);
/* Free CF's handle without dropping the family (a fast stop: store_open
 * drops left-over families at the next start). */
void	 store_cf_release(struct store_cf *cf);

#endif
