/*
 * fuzz-json.c: the JSON path reader (metrics/http/json-path.c) on hostile
 * input.  The input's first line is a path, the rest the document: a
 * node's JSON page is whatever the node serves, and a path whatever a
 * scenario says.  Must not crash, read out of bounds or loop.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json-path.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t	*nl = memchr(data, '\n', size < 300 ? size : 300);
	char		 path[301], err[256];
	const char	*why;
	double		 v;
	size_t		 n;

	if (nl == NULL)
		return (0);
	n = (size_t)(nl - data);
	memcpy(path, data, n);
	path[n] = '\0';
	(void)dn_json_path_check(path, &why);
	/* the document without a terminating NUL: a page is a byte span */
	n++;
	(void)dn_json_path_get((const char *)data + n, size - n, path, &v, err,
	    sizeof(err));
	return (0);
}
