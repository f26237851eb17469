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

/* `sitepack cluster FILE.h5 [--identity LO,HI] [--coverage C] [--tanimoto T] [--threads N] [--mmseqs PATH]
 * [--force] [--quiet]` (argv[0] = "cluster"): /clusters of split.h sp_cluster (docs/usage.md "Splits").
 * Returns 0; 1 MMseqs2 failed or the file could not be written; 2 bad command line, no such file, no
 * /sequences, mmseqs2 not found, /clusters exists without --force. */
int sp_cmd_cluster(int argc, char **argv);

/* `sitepack split FILE.h5 [--test F] [--val F] [--seed S] [--by protein|ligand|both] [--name N] [--no-listing]
 * [--force] [--quiet]` (argv[0] = "split"): /splits/NAME of split.h sp_split. Returns 0; 1 the file could not
 * be written; 2 bad command line, no such file, no /clusters, an empty side, the split exists without --force. */
int sp_cmd_split(int argc, char **argv);

#endif
