/* sitepack CLI: the store's commands (check, bench read). Not a public header. */
#ifndef SITEPACK_CMD_STORE_H
#define SITEPACK_CMD_STORE_H

/* `sitepack check FILE [--spot N] [--seed S] [--quiet]` (argv[0] = "check"): validate a merged file
 * with sp_check() and print a summary. Returns 0 valid, 1 invalid or unreadable (the message says
 * why), 2 bad command line or no such file. */
int sp_cmd_check(int argc, char **argv);

/* `sitepack bench read [options]` (argv[0] = "bench"): the read/write benchmark of docs/reading.md
 * (options: `sitepack bench read --help`). Returns 0, 1 a step failed, 2 bad command line. */
int sp_cmd_bench(int argc, char **argv);

/* `sitepack export FILE.h5 (--site I[,J..] | --all | --class C | --comp COMP) [--format sdf,pdb,cif]
 * --out DIR|- [--force] [--quiet]` (argv[0] = "export"): ligand SDF and pocket files (export.h,
 * docs/usage.md "Export"). Returns 0; 1 a file could not be written or read; 2 bad command line,
 * no such file, or a site that does not exist. */
int sp_cmd_export(int argc, char **argv);

#endif
