# Tests of src/sched: the plan (no MPI) and the RMA work-stealing run (mpirun).
sp_add_unit_test(test_sched_plan SOURCES ${SP_TEST_DIR}/unit/test_sched_plan.c LABELS "sched;unit")
set_tests_properties(test_sched_plan PROPERTIES TIMEOUT 30)

# The MPI tests run under mpirun with Open MPI 4.1's working one-sided component:
# the default osc rdma crashes on 64-bit atomics, osc ucx / pt2pt make no passive-target
# progress while the target computes (docs/scheduling.md). --oversubscribe: more ranks than cores.
add_executable(test_sched_mpi ${SP_TEST_DIR}/unit/test_sched_mpi.c)
target_link_libraries(test_sched_mpi PRIVATE sitepack)

set(SP_SCHED_MPI_FLAGS --allow-run-as-root --oversubscribe --mca osc sm)

# sp_sched_mpi_test(NAME NP MODE [ARGS...])
function(sp_sched_mpi_test name np mode)
  add_test(NAME ${name}
    COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${MPIEXEC_PREFLAGS} ${SP_SCHED_MPI_FLAGS}
            $<TARGET_FILE:test_sched_mpi> ${MPIEXEC_POSTFLAGS} ${mode} ${ARGN})
  set_tests_properties(${name} PROPERTIES TIMEOUT 60 LABELS "sched;mpi")
endfunction()

# exactly once, random per-task delays, at several rank counts
foreach(np 1 2 3 4 6)
  sp_sched_mpi_test(sched_mpi_random_np${np} ${np} random 200 ${np})
endforeach()
# termination with no tasks at all
sp_sched_mpi_test(sched_mpi_empty_np1 1 empty)
sp_sched_mpi_test(sched_mpi_empty_np3 3 empty)
# every task on rank 0: the others must steal (asserted), rank 0 counts what it lost
sp_sched_mpi_test(sched_mpi_allon0_np2 2 allon0 60)
sp_sched_mpi_test(sched_mpi_allon0_np4 4 allon0 60)
# one task far larger than the others, LPT plan and all on rank 0
sp_sched_mpi_test(sched_mpi_onebig_np3 3 onebig 60)
sp_sched_mpi_test(sched_mpi_allon0big_np4 4 allon0big 60)
# contention: every claim raced by the owner and up to 5 thieves, no delays
sp_sched_mpi_test(sched_mpi_race_np6 6 race 3000 7)
# 300 short runs where the owner's front claims and the thieves' back claims meet
sp_sched_mpi_test(sched_mpi_crossing_np4 4 crossing 300)
# the owner/thief collision made certain: a thief sleeps 3 ms between choosing its victim and its back
# claim (test-only hook SITEPACK_TEST_STEAL_DELAY_US in src/sched/run.c), so the owner's front claims take
# the task the back claim lands on in many runs; exactly once must hold, and some thief claims must have been lost (asserted)
sp_sched_mpi_test(sched_mpi_crossing_delay_np3 3 crossing 120)
set_tests_properties(sched_mpi_crossing_delay_np3 PROPERTIES ENVIRONMENT SITEPACK_TEST_STEAL_DELAY_US=3000)
# a failing task stops the run on every rank with its error class; a bad plan is refused
sp_sched_mpi_test(sched_mpi_abort_np3 3 abort 60)
sp_sched_mpi_test(sched_mpi_badplan_np2 2 badplan 10)

# Through the real CLI on tests/data: exactly once at -np 1..6 with random per-task delays
# (SITEPACK_TEST_TASK_DELAY_MS), --no-steal, and split-vs-unsplit equality.
add_test(NAME sched_cli_exactly_once_split
  COMMAND bash ${CMAKE_SOURCE_DIR}/tests/integration/sched_cli.sh $<TARGET_FILE:sitepack_cli> ${MPIEXEC_EXECUTABLE}
          ${CMAKE_BINARY_DIR}/it_sched ${CMAKE_SOURCE_DIR})
set_tests_properties(sched_cli_exactly_once_split PROPERTIES TIMEOUT 300 LABELS "sched;integration")

# Cost model (NNLS fit), split rules and ranges, and parts of a real file equal to the whole.
sp_add_unit_test(test_sched_cost SOURCES ${SP_TEST_DIR}/unit/test_sched_cost.c
  ARGS ${CMAKE_SOURCE_DIR}/tests/data LABELS "sched;unit")
set_tests_properties(test_sched_cost PROPERTIES TIMEOUT 30)

# The scheduling benchmark's simulator (bench/sched.sh, docs/scaling.md): same planning,
# splitting and stealing functions as the run. Smoke test: a small synthetic replay.
add_executable(sitepack_bench_sched ${CMAKE_SOURCE_DIR}/bench/sched_sim.c)
target_link_libraries(sitepack_bench_sched PRIVATE sitepack m)
set_target_properties(sitepack_bench_sched PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
# (tests/integration/sched_bench_smoke.py: exit status and the figures' guarantees, not only the output's shape)
add_test(NAME sched_bench_smoke COMMAND ${SP_DEBIAN_PYTHON} ${CMAKE_SOURCE_DIR}/tests/integration/sched_bench_smoke.py
  $<TARGET_FILE:sitepack_bench_sched> 3000 1)
set_tests_properties(sched_bench_smoke PROPERTIES TIMEOUT 60 LABELS "sched")
