/*
 * capture.h: run a short command and capture its output.
 *
 * The program is fork/exec'd with an argv array (PATH lookup, never a
 * shell), its stdin from a file or /dev/null, its stdout and stderr read
 * through pipes (at most 16 MiB each is kept).  Not for long-lived
 * children: nodes are started by spawn.h.
 */
#ifndef DN_CAPTURE_H
#define DN_CAPTURE_H

/*
 * Run ARGV (NULL-terminated, ARGV[0] looked up in PATH), stdin from
 * IN_PATH when not NULL.  Returns 0 when it exits 0, with its stdout in
 * *OUT (caller frees; OUT may be NULL); else -1 with *CAUSE: "ARGV[0]
 * ARGV[1]: " and the last line of its stderr (or stdout).
 */
int	 capture_run(const char *const *argv, const char *in_path,
	    char **out, char **cause);

#endif
