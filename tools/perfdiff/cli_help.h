/*
 * The help of each command.  Its text is the command's manual page,
 * docs/man/perfdiff*.1.scd, turned into plain text at build time
 * (cmake/scd2help.awk): one source, so that `perfdiff CMD --help` and
 * `man perfdiff-CMD` cannot drift apart.  `perfdiff help CMD` shows the
 * page through man(1) where man finds it (cli_help.c), else the same text.
 */
#ifndef PERFDIFF_CLI_HELP_H
#define PERFDIFF_CLI_HELP_H

/* generated: help_text.c in the build directory */
extern const char cli_help_perfdiff[];
extern const char cli_help_dump[];
extern const char cli_help_script[];
extern const char cli_help_report[];
extern const char cli_help_diff[];
extern const char cli_help_explain[];
extern const char cli_help_record[];
extern const char cli_help_tui[];

/*
 * Show manual page `page` ("perfdiff-diff") with man(1): the page
 * installed beside this program (PREFIX/share/man for PREFIX/bin), else
 * one man finds on its own path.  0 when man showed it, -1 when there is
 * no man or no page (nothing printed).
 */
int cli_show_man(const char *page);

#endif
