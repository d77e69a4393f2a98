#!/usr/bin/env python3
"""hostile-import.py CASE SRC DST: a hostile copy of the devnet database
SRC at DST, for the import tests (tests/store/import-hostile.sh;
docs/security.md, "Files to import").  SRC is read through sqlite's backup
API and never changed; each CASE changes the copy the way a hand-made
file would, with plain SQL (writable_schema where a constraint is in the
way)."""
import sqlite3
import sys


def used_metric(con):
    """A metric id with samples in a finished run."""
    return con.execute(
        "SELECT s.metric_id FROM samples s JOIN runs r ON r.id = s.run_id "
        "WHERE r.status <> 'running' ORDER BY s.metric_id LIMIT 1"
    ).fetchone()[0]


def renumber(con, new):
    """The metric id of a used metric becomes NEW, in every table."""
    old = used_metric(con)
    con.execute("UPDATE metrics SET id = ? WHERE id = ?", (new, old))
    for t in ("samples", "series"):
        con.execute("UPDATE %s SET metric_id = ? WHERE metric_id = ?" % t,
                    (new, old))


def drop_constraint(con, table, old, new):
    con.execute("PRAGMA writable_schema = ON")
    con.execute("UPDATE sqlite_master SET sql = replace(sql, ?, ?) "
                "WHERE name = ?", (old, new, table))
    con.commit()


def null_name(con):
    drop_constraint(con, "metrics", "name TEXT NOT NULL UNIQUE",
                    "name TEXT UNIQUE")
    return [("UPDATE metrics SET name = NULL WHERE id = ?",
             (used_metric(con),))]


def view_events(con):
    # a view that never finishes, in the place of a table
    con.execute("DROP TABLE events")
    con.execute("CREATE VIEW events AS WITH RECURSIVE c(x) AS (SELECT 1 "
                "UNION ALL SELECT x + 1 FROM c) SELECT x AS id, 1 AS run_id, "
                "0 AS t_ms, 0 AS node, 'k' AS kind, NULL AS detail FROM c "
                "WHERE x < 0")


def slow(con):
    # samples without their primary key, of 3,000 named metrics: every
    # read of one metric's samples scans them all (minutes)
    for (v,) in con.execute("SELECT name FROM sqlite_master WHERE type = "
                            "'view'").fetchall():
        con.execute('DROP VIEW "%s"' % v)
    con.execute("CREATE TABLE s2 AS SELECT * FROM samples")
    con.execute("DROP TABLE samples")
    con.execute("ALTER TABLE s2 RENAME TO samples")
    con.executemany("INSERT INTO metrics (id, name, unit, kind, better, "
                    "source) VALUES (?, ?, '', 'gauge', 'neutral', 'node')",
                    [(5000 + m, "slow_%d" % m) for m in range(3000)])
    con.executemany("INSERT INTO samples VALUES (1, 0, ?, ?, 1.0)",
                    [(5000 + m, t * 1000) for m in range(3000)
                     for t in range(100)])
    con.execute("UPDATE runs SET samples_digest = NULL WHERE id = 1")


CASES = {
    "null-name": null_name,
    "id-250m": lambda con: renumber(con, 250000000),
    "id-max": lambda con: renumber(con, 2 ** 31 - 1),
    "view-events": view_events,
    "end-inf": lambda con: con.execute(
        "UPDATE runs SET end_ms = 1e999 WHERE id = 1"),
    "fake-digest": lambda con: con.execute(
        "UPDATE samples SET value = value + 1 WHERE run_id = 1"),
    "text-value": lambda con: con.execute(
        "UPDATE samples SET value = 'abc' WHERE run_id = 1 AND t_ms = "
        "(SELECT max(t_ms) FROM samples WHERE run_id = 1)"),
    "dup-uuid": lambda con: (con.execute("DROP INDEX runs_uuid"),
                             con.execute("UPDATE runs SET uuid = (SELECT uuid "
                                         "FROM runs WHERE id = 1) WHERE id = 2")),
    "slow": slow,
}


def main():
    case, src, dst = sys.argv[1:4]
    a = sqlite3.connect(src)
    b = sqlite3.connect(dst)
    a.backup(b)
    a.close()
    b.execute("PRAGMA journal_mode = DELETE")
    after = CASES[case](b)
    b.commit()
    b.close()
    if isinstance(after, list):  # statements that need the new schema
        b = sqlite3.connect(dst)
        for sql, args in after:
            b.execute(sql, args)
        b.commit()
        b.close()


main()
