/* sitepack CLI: `sitepack survey` (issue 4). Not a public header. */
#ifndef SITEPACK_CMD_SURVEY_H
#define SITEPACK_CMD_SURVEY_H

/* `sitepack survey FILE.h5 [--ccd FILE] [--per-comp] [--quiet]` (argv[0] = "survey"): the
 * ligand survey summary of a merged file: structures (ok / failed), ligand instances by class,
 * distinct molecules (distinct molecule keys), comp ids and those not in the CCD; per comp id
 * (with --per-comp, or always when the file has at most 50 comp ids) its instances and distinct
 * molecules; and the comp ids that share a molecule key, each group confirmed by exact graph
 * isomorphism of the CCD definitions (sp_molkey_component_isomorphic) when the CCD is readable
 * (--ccd, else the run's /run@ccd_path): "confirmed", "collision" (same key, different graphs),
 * "undecided" (step bound hit) or "unconfirmed" (a member has no CCD definition, or no CCD).
 * Returns 0; 1 the file cannot be read; 2 bad command line. */
int sp_cmd_survey(int argc, char **argv);
/* survey_quality.c (issue 36): the lines "ligand descriptors (RDKit): ..." (instances with descriptors, Ro5, Ro3,
 * drug-like) and "site quality ...: P of N sites pass every criterion; meeting each: ..." of the merged file
 * @p path; nothing for a file without those columns. */
void sp_survey_print_quality(const char *path);

#endif
