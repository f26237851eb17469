# Issue 8 (owner: slurm): shards (`sitepack run --shard I/N`), `sitepack merge`, and the SLURM
# array + dependent merge on a real single-node SLURM (docs/slurm.md).
set(SP_CLI_SLURM $<TARGET_FILE:sitepack_cli>)
# shards + merge without SLURM: equality with a single run, refusals
add_test(NAME slurm_shards_merge
  COMMAND bash ${CMAKE_SOURCE_DIR}/tests/integration/slurm_shards.sh ${SP_CLI_SLURM} ${CMAKE_SOURCE_DIR})
# a private SLURM (munged, slurmctld, slurmd started and stopped by the test; as root). Exit 77
# (skipped) only when slurm-wlm/munge cannot be installed. Each test has its own munged socket and
# ports (independent of other build trees); the lock only keeps the 2-core CI box from running both.
add_test(NAME slurm_array_merge
  COMMAND bash ${CMAKE_SOURCE_DIR}/tests/integration/slurm_array.sh ${SP_CLI_SLURM} ${CMAKE_SOURCE_DIR})
add_test(NAME slurm_shard_fail_rerun
  COMMAND bash ${CMAKE_SOURCE_DIR}/tests/integration/slurm_shard_fail.sh ${SP_CLI_SLURM} ${CMAKE_SOURCE_DIR})
set_tests_properties(slurm_shards_merge slurm_array_merge slurm_shard_fail_rerun PROPERTIES
  TIMEOUT 300 LABELS "integration;slurm")
sp_allow_skip(slurm_shards_merge slurm_array_merge slurm_shard_fail_rerun)
set_tests_properties(slurm_array_merge slurm_shard_fail_rerun PROPERTIES RESOURCE_LOCK slurm_daemons)
