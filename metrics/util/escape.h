/*
 * escape.h: text from outside (a node's output, a stored label, a
 * scenario's name) made safe to print on a terminal, store as a reason
 * or write into a generated file's comment.  Not a general quoting
 * function: only control bytes change.
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
/*
 * As dn_escape_ctl, and newline and tab as \x0a and \x09 too: text that
 * must stay on its one line (a "key value" line on a terminal, a comment
 * of a generated YAML file).  A new string the caller frees.
 */
char	*dn_escape_line(const char *s);

#endif
