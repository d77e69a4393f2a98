/*
 * escape.h: text from outside (a node's output) made safe to print on a
 * terminal or store as a reason.  Not a general quoting function: only
 * control bytes change.
 */
#ifndef DN_ESCAPE_H
#define DN_ESCAPE_H

/*
 * S with every control byte shown as \xHH: C0 controls but newline and
 * tab, DEL, and the UTF-8 encodings of the C1 controls (U+0080-U+009F,
 * e.g. \xc2\x9b, CSI on some terminals).  So a node's ESC sequences
 * (window title, clear screen, colours) show, never act.  A new string
 * the caller frees; NULL for NULL.
 */
char	*dn_escape_ctl(const char *s);

#endif
