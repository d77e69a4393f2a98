/* escape.c: control bytes of outside text shown escaped (see escape.h). */
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "xalloc.h"

/* S escaped; LINE: newline and tab are control bytes too. */
static char *
escape(const char *s, int line)
{
	const unsigned char	*p;
	char			*out, *o;

	if (s == NULL)
		return (NULL);
	/* at most 4 bytes out per byte in, plus the NUL */
	o = out = dn_xmalloc(strlen(s) * 4 + 1);
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		int	c1 = p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f;

		if ((*p < 0x20 && (line || (*p != '\n' && *p != '\t'))) ||
		    *p == 0x7f || c1) {
			snprintf(o, 5, "\\x%02x", *p);
			o += 4;
			if (c1) {
				p++;
				snprintf(o, 5, "\\x%02x", *p);
				o += 4;
			}
		} else
			*o++ = (char)*p;
	}
	*o = '\0';
	return (out);
}

char *
dn_escape_ctl(const char *s)
{
	return (escape(s, 0));
}

char *
dn_escape_line(const char *s)
{
	return (escape(s, 1));
}
