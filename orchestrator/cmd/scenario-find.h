/*
 * scenario-find.h: the scenario file a command line names (run, ab,
 * validate): the path as given, or a shipped scenario found by name from
 * any directory.
 */
#ifndef DN_SCENARIO_FIND_H
#define DN_SCENARIO_FIND_H

/*
 * The file ARG names: ARG itself when it exists.  Else, for a bare name
 * (no '/'), ARG or ARG.yaml in the shipped scenarios: beside an installed
 * devnet (BIN/../share/devnet/scenarios), then in the source tree devnet
 * was built from.  A new string the caller frees, and *SHIPPED set when
 * it is a shipped one; NULL with *CAUSE (the caller frees) naming every
 * place looked in and the shipped names.
 */
char	*scenario_find(const char *arg, int *shipped, char **cause);

#endif
