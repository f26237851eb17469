/* sitepack CLI: one option convention and one error format for every subcommand (issue 16 item 13).
 *
 * Options are parsed with glibc's getopt_long: `--opt=value` and `--opt value`, a unique prefix of
 * a long option, `--` ends the options, operands may come anywhere. Every error is one line on
 * stderr, "sitepack CMD: ...", and the caller exits SP_EXIT_USAGE (2). Not a public header. */
#ifndef SITEPACK_CLI_OPTS_H
#define SITEPACK_CLI_OPTS_H

#include <getopt.h>
#include <stdint.h>

/* Start a new parse of an argv (getopt's optind = 0: full re-initialisation, glibc). */
void sp_opt_reset(void);

/* The next option of argv (argv[0] = the command name): getopt_long with @p shortopts (without the
 * leading ':') and @p longopts. Returns the option's val; -1 at the end (then argv[optind ..
 * argc-1] are the operands); '?' after printing, for @p cmd, "unknown option: X", "ambiguous option
 * 'X' (could be --a, --b)" (a prefix of several long options), "missing value for X" or "option X
 * takes no value". The value of an option is in `optarg`. */
int sp_opt_next(const char *cmd, int argc, char **argv, const char *shortopts, const struct option *longopts);

/* A whole number in [lo, hi] from @p text (decimal; no sign for lo >= 0, no fraction, no
 * exponent, no trailing bytes). Returns 0; -1 after printing "sitepack CMD: OPT must be an
 * integer in [lo, hi], got 'text'". */
int sp_opt_int(const char *cmd, const char *opt, const char *text, int64_t lo, int64_t hi, int64_t *out);

/* A finite decimal number from @p text in [lo, hi] (strtod of digits, sign, '.', exponent only: no
 * hexadecimal, inf or nan; lo_open: lo excluded). Returns 0; -1 after
 * printing "sitepack CMD: OPT must be a number in [lo, hi], got 'text'" (with '(' when lo_open). */
int sp_opt_double(const char *cmd, const char *opt, const char *text, double lo, int lo_open, double hi, double *out);

/* The one format of an error about an input file: "sitepack CMD: WHAT PATH: MSG[ TAIL]" on stderr. A
 * library message that names the file already ("PATH: cannot open: ...") loses that prefix, so that the
 * path is printed once. @p tail may be NULL. */
void sp_opt_file_error(const char *cmd, const char *what, const char *path, const char *msg, const char *tail);

/* The one format of an error of a command that reads a merged file @p path: "sitepack CMD: CLASS: MSG" (the
 * error class name of @p cls), with "PATH: " before MSG when MSG does not name the file already (HDF5's
 * messages name the dataset only). */
void sp_opt_input_error(const char *cmd, const char *path, int cls, const char *msg);

#endif
