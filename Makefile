# sitepack: thin wrapper around CMake/ctest. `make demo` and `make test` are the quick start.
#
#   make deps    install the Debian packages (as root), or print the apt-get line
#   make build   configure + build into build/
#   make demo    deps + build + run jobs/demo.json under mpirun -np 2 on the bundled sample
#   make test    deps + build + ctest of the default set (no label slow; < 2 min on 2 cores)
#   make test-full  deps + build + every test (CI): the slow ones and, with the corpus, every corpus test
#   make sanitize  ASan+UBSan build (build-asan/, clang, warnings as errors) and the parser/reader tests under it
#   make fuzz      libFuzzer build (build-fuzz/, clang) and a short run of each harness (FUZZ_SECONDS each)
#   make bench-parse  reader speed and memory vs gemmi -> results/parse-<date>.json + .md (not a test)
#   make bench-desc  the ligand descriptors' share of `sitepack run` -np 1 and -np 2 and RDKit's Python on the same
#                   molecules, same run (bench/desc_bench.py; results/desc-DATE.json + .md)
#   make bench-job  the whole job per core: sitepack run -np 1 on the corpus vs a minimal gemmi pipeline, same run,
#                   alternating, with the run report's phases (bench/job_bench.py; results/job-DATE.json + .md)
#   make bench-read  read benchmark of the merged layout (results/read-DATE.json)
#   make format-check  the C lines changed against a base formatted as .clang-format says (FORMAT_BASE; docs/testing.md)
#   make bench-read-py  the Python package's read benchmark (results/read-py-DATE.json + .md, read-py-graph-DATE.*)
#   make mutate    mutation run of the test suite (tests/mutation/) -> results/mutation-DATE.json + .md (not a test)
#   make bench-export  SDF export rate of the corpus and RDKit's read rate (results/export-DATE.json + .md)
#   make bench-perceive  Open Babel's bond-order perception vs the CCD (results/perception-openbabel-DATE.json + .md)
#   make bench-perceive-sitepack  sitepack's sp_perceive vs the CCD, same protocol (results/perception-sitepack-DATE.*)
#   make bench-merge-io  the parallel merge's write paths: pwrite, MPI-IO, parallel HDF5 (results/merge-io-DATE.json + .md)

BUILD     ?= build
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
NP        ?= 2
CMAKE_ARGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo

DEB_PKGS := build-essential cmake pkg-config openmpi-bin libopenmpi-dev libhdf5-openmpi-dev hdf5-tools \
            libcjson-dev zlib1g-dev libssl-dev python3 python3-dev python3-gemmi python3-rdkit python3-h5py python3-numpy python3-torch python3-matplotlib \
            python3-pip python3-venv python3-setuptools python3-wheel \
            plip python3-openbabel \
            libdeflate-dev clang clang-format libclang-rt-dev libccp4-dev libccp4-data librdkit-dev \
            slurm-wlm munge mmseqs2 python3-biopython \
            chromium python3-pil

# mpirun flags: root needs --allow-run-as-root; --oversubscribe lets tests use more ranks than cores;
# osc sm: the work-stealing window on shared memory, so a thief never waits for its victim's task to end
# (docs/scheduling.md "Why fetch-and-op only"; the protocol also runs on osc rdma, ucx and pt2pt).
MPIRUN_FLAGS := --oversubscribe --mca osc sm $(if $(filter 0,$(shell id -u)),--allow-run-as-root,)
export OMPI_MCA_rmaps_base_oversubscribe := 1
# pml ob1 (shared memory and TCP): Open MPI 4.1 otherwise probes its cm/ofi (libfabric) and ucx layers at every
# start, 0.37 s of each MPI_Init + Finalize here against 0.15 s (a 1-rank hello, 3 runs each; docs/usage.md).
# Every mpirun and sitepack make starts (demo, tests, benches) is on one node; set OMPI_MCA_pml to change it.
export OMPI_MCA_pml ?= ob1

.PHONY: all deps build demo test test-full sanitize fuzz bench-parse clean bench-read bench-sched bench-read-py mutate mutate-check format-check bench-archive

all: build

deps:
	@missing=$$(for p in $(DEB_PKGS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian packages:" $$missing; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null || exit 1; \
	  else \
	    echo "missing Debian packages; run:"; echo "  sudo apt-get install -y" $$missing; exit 1; \
	  fi; \
	fi

# Configured once (a failed configure leaves no Makefile, so the next make configures again); SITEPACK_CORPUS given
# to make (environment or command line) reconfigures with it, and the build keeps it (tests/CMakeLists.txt).
$(BUILD)/Makefile:
	cmake -S . -B $(BUILD) $(CMAKE_ARGS)

build: deps $(BUILD)/Makefile
	$(if $(SITEPACK_CORPUS),cmake -S . -B $(BUILD) -DSITEPACK_CORPUS=$(SITEPACK_CORPUS) >/dev/null,)
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	mpirun $(MPIRUN_FLAGS) -np $(NP) $(BUILD)/bin/sitepack run jobs/demo.json --force
	@echo
	@echo "ligands:"; $(BUILD)/bin/sitepack dump out/demo.h5 ligands | head -n 12 | cut -f1-12
	@echo "(more: $(BUILD)/bin/sitepack dump out/demo.h5 TABLE, TABLE one of structures ligands components sites residues interactions bonds chains segments)"

# tests/run_ctest.sh: ctest, and a skipped or not-run test is a failure (no skip path).
# make test: the default set, every test without the label `slow` (under 2 minutes on 2 cores): run it after
# every change. make test-full: every test, the slow ones too (scaling, SLURM, long peers, the fresh clone):
# run it before a submission; CI runs it. Tests that read the corpus are registered only when it is found
# (SITEPACK_CORPUS, or ../shared/data beside the clone; tests/CMakeLists.txt); the summary says how many are not.
test: build
	tests/run_ctest.sh --test-dir $(BUILD) --output-on-failure -j $(JOBS) -LE slow

test-full: build
	tests/run_ctest.sh --test-dir $(BUILD) --output-on-failure -j $(JOBS)

sanitize: deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSP_SANITIZE=ON -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DSP_WERROR=ON
	cmake --build build-asan -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=0 tests/run_ctest.sh --test-dir build-asan --output-on-failure -j $(JOBS) -L 'parser|fuzz|sanitize'


SHARED ?= ../shared
BENCH_DIR ?= /tmp/sitepack-bench

# atompack's method on our layout vs a chunked SoA baseline (docs/reading.md, issue 7)
# real -np 1/2 speed-up with and without stealing, and the simulated P = 1..1024 replay (issue 6)
bench-sched: build
	bench/sched.sh $(BUILD)

bench-read: build
	mkdir -p $(BENCH_DIR)
	mpirun $(MPIRUN_FLAGS) -np $(NP) $(BUILD)/bin/sitepack run --input $(SHARED)/data/structures \
	  --ccd $(SHARED)/data/ccd/components_excerpt.cif.gz --out $(BENCH_DIR)/real.h5 --force --quiet
	$(BUILD)/bin/sitepack bench read --dir $(BENCH_DIR) --real $(BENCH_DIR)/real.h5 --cold \
	  --out results/read-$$(date -u +%F).json
	/usr/bin/python3 bench/read_md.py results/read-$$(date -u +%F).json

# The Python package's read speed, atompack's method (bench/read_py.py; docs/python.md): a 1M x 64-atom synthetic
# file in the full layout (written once under BENCH_DIR, about 1.6 GB of data) and the real merged output;
# writes results/read-py-DATE.json + .md; then graph batches (bench/graph_py.py, issue 34) of the real file vs a
# plain h5py reader of the same fields: results/read-py-graph-DATE.json + .md
.PHONY: bench-read-py
bench-read-py: build
	mkdir -p $(BENCH_DIR)
	mpirun $(MPIRUN_FLAGS) -np $(NP) $(BUILD)/bin/sitepack run --input $(SHARED)/data/structures \
	  --ccd $(SHARED)/data/ccd/components_excerpt.cif.gz --out $(BENCH_DIR)/real.h5 --force --quiet
	/usr/bin/python3 bench/read_py.py --build $(BUILD) --dir $(BENCH_DIR) --real $(BENCH_DIR)/real.h5 \
	  --out results/read-py-$$(date -u +%F).json
	/usr/bin/python3 bench/graph_py.py --build $(BUILD) --real $(BENCH_DIR)/real.h5 \
	  --out results/read-py-graph-$$(date -u +%F).json

FUZZ_SECONDS ?= 60
fuzz: deps
	cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSP_FUZZ=ON -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DSP_FUZZ_SECONDS=$(FUZZ_SECONDS)
	cmake --build build-fuzz -j $(JOBS) --target fuzz_cif fuzz_pdb fuzz_gzip fuzz_perceive fuzz_replay_cif fuzz_replay_pdb fuzz_replay_gzip fuzz_replay_perceive
	tests/run_ctest.sh --test-dir build-fuzz --output-on-failure -j $(JOBS) -L fuzz

# PARSE_BEFORE=DIR: an earlier source tree with its build in DIR/build, timed in the same run (before/after)
PARSE_BEFORE ?=
bench-parse: build
	/usr/bin/python3 bench/parse_bench.py --build $(BUILD) --out results $(if $(PARSE_BEFORE),--before $(PARSE_BEFORE))

# make bench-job: `sitepack run -np JOB_NP` on shared/data/structures against bench/job_gemmi.py (gemmi: read, ligands,
# 6 A sites; one process), JOB_REPS alternated reps, medians (bench/job_bench.py; results/job-<date>.json and .md)
# JOB_BEFORE=BUILD2: an earlier build's sitepack as a third side of the same run (before/after)
JOB_REPS ?= 5
JOB_NP ?= 1
JOB_BEFORE ?=
.PHONY: bench-job
bench-job: build
	/usr/bin/python3 bench/job_bench.py --build $(BUILD) --shared $(SHARED) --out results --reps $(JOB_REPS) \
	  --np $(JOB_NP) --scratch $(BENCH_DIR) $(if $(JOB_BEFORE),--before $(JOB_BEFORE))

# make bench-desc: the descriptors' seconds (the run report's work_seconds) in `sitepack run` -np 1 and -np 2 on
# shared/data/structures against RDKit's Python (bench/desc_rdkit.py) on the run's exported ligands, DESC_REPS
# alternated reps, medians (bench/desc_bench.py; results/desc-<date>.json and .md). DESC_BEFORE=BUILD2: an earlier
# build's sitepack as more sides of the same run (before/after)
DESC_REPS ?= 5
DESC_BEFORE ?=
.PHONY: bench-desc
bench-desc: build
	/usr/bin/python3 bench/desc_bench.py --build $(BUILD) --shared $(SHARED) --out results --reps $(DESC_REPS) \
	  --scratch $(BENCH_DIR) $(if $(DESC_BEFORE),--before $(DESC_BEFORE))

clean:
	rm -rf $(BUILD) build-asan build-fuzz out

# make bench-ccd: CCD index / lookup / node-shared memory benchmark on a generated >= 300 MB CCD
# (bench/ccd_bench.py; writes results/ccd-<date>.json and .md)
.PHONY: bench-ccd
bench-ccd: build
	/usr/bin/python3 bench/ccd_bench.py --build $(BUILD)

# make bench-site: site search + chemistry speed on shared/data/structures and the segment-scaling run
# (bench/site_bench.sh; writes results/site-<date>.json)
.PHONY: bench-site
bench-site: build
	sh bench/site_bench.sh $(BUILD)

# make bench-scaling: strong scaling of `sitepack run` (bench/scaling.sh; writes results/scaling-<date>-<host>.json
# and .md). On a bigger machine: make bench-scaling SCALING_NP="1 2 4 8 16" SCALING_REPLICAS=8
SCALING_NP ?= 1 2
SCALING_REPLICAS ?= 1
# make bench-export: ligands/s exported to SDF for the whole corpus and RDKit's read rate on the same file
# (bench/export_bench.py; writes results/export-<date>.json and .md)
.PHONY: bench-export
bench-export: build
	/usr/bin/python3 bench/export_bench.py --build $(BUILD) --shared $(SHARED) --out results

# make bench-perceive: Open Babel's bond-order perception against the CCD excerpt's blocks and the corpus ligands
# (issue 37 item 2; bench/perceive_openbabel.py, docs/decisions.md "Libraries"; writes
# results/perception-openbabel-<date>.json and .md). Needs python3-openbabel, which `make deps` does not install
# (Open Babel is not linked: the measurement is why).
.PHONY: bench-perceive
bench-perceive:
	@dpkg-query -W -f='$${Status}\n' python3-openbabel 2>/dev/null | grep -q 'install ok installed' || \
	  { echo "bench-perceive needs python3-openbabel: apt-get install -y python3-openbabel"; exit 1; }
	/usr/bin/python3 bench/perceive_openbabel.py --ccd $(SHARED)/data/ccd/components_excerpt.cif \
	  --structures $(SHARED)/data/structures

# make bench-perceive-sitepack: sitepack's own perception (sp_perceive, orders and charges) by the same protocol
# (tests/peer/perceive_ccd.py through build/tests/sp_perceive_tool; the ctest peer_perceive_ccd runs it too,
# asserting; writes results/perception-sitepack-<date>.json and .md)
.PHONY: bench-perceive-sitepack
bench-perceive-sitepack: deps $(BUILD)/Makefile
	cmake --build $(BUILD) -j $(JOBS) --target sp_perceive_tool
	/usr/bin/python3 tests/peer/perceive_ccd.py --tool $(BUILD)/tests/sp_perceive_tool \
	  --ccd $(SHARED)/data/ccd/components_excerpt.cif --structures $(SHARED)/data/structures --results results

# sitepack cluster / split on the corpus and 4 replicas (900 files), MMseqs2 scaling, PDB projection (issue 27)
.PHONY: bench-cluster
bench-cluster: build
	/usr/bin/python3 bench/cluster_bench.py --build $(BUILD) --shared $(SHARED) --out results --threads $(JOBS)

.PHONY: bench-scaling
bench-scaling: build
	NP_LIST="$(SCALING_NP)" REPLICAS=$(SCALING_REPLICAS) PY=/usr/bin/python3 bench/scaling.sh $(BUILD)

# make bench-archive: one run over ARCHIVE_FILES distinct files (about 0.67 MB each, made in a scratch
# directory under /tmp and removed after: check df -h /tmp) at -np ARCHIVE_NP, with the projection to the
# whole PDB (bench/archive.sh; writes results/archive-<date>-<host>.json and .md)
ARCHIVE_FILES ?= 20000
ARCHIVE_NP ?= 2
.PHONY: bench-archive
bench-archive: build
	FILES=$(ARCHIVE_FILES) NP=$(ARCHIVE_NP) PY=/usr/bin/python3 bench/archive.sh $(BUILD)

# make bench-merge-io: the parallel merge's own extents (SITEPACK_MERGE_TRACE) of MERGE_IO_REPLICAS replicas of
# the corpus written by pwrite (today's path), MPI-IO (independent, collective) and parallel HDF5 (independent,
# collective) at -np MERGE_IO_NP, MERGE_IO_REPS alternated reps (bench/merge_io.py; writes
# results/merge-io-<date>.json and .md; about 2 min on 2 cores, scratch under /tmp removed after)
MERGE_IO_REPLICAS ?= 4
MERGE_IO_REPS ?= 5
MERGE_IO_NP ?= 1 2
.PHONY: bench-merge-io
bench-merge-io: build
	/usr/bin/python3 bench/merge_io.py --build $(BUILD) --shared $(SHARED) --out results \
	  --replicas $(MERGE_IO_REPLICAS) --reps $(MERGE_IO_REPS) --np "$(MERGE_IO_NP)"

# make mutate: each plausible bug of tests/mutation/mutations.tsv put into a scratch copy of the tree
# (MUTATE_SCRATCH, incremental builds), the suite run against it; killed / survived per mutation and the
# score -> results/mutation-DATE.json + .md (tests/mutation/mutate.py). About 40 min on 2 busy cores.
# MUTATE_ARGS="--only ID,ID" for a few rows; make mutate-check: every row's old text found once (seconds).
MUTATE_SCRATCH ?= /tmp/sitepack-mutate
MUTATE_ARGS ?=
mutate: deps
	/usr/bin/python3 tests/mutation/mutate.py --repo . --shared $(abspath $(SHARED)) --scratch $(MUTATE_SCRATCH) \
	  --jobs $(JOBS) --out results $(MUTATE_ARGS)

mutate-check:
	/usr/bin/python3 tests/mutation/mutate.py --repo . --check

# make format-check: git clang-format --diff of the C lines changed since FORMAT_BASE (default: the merge-base with
# main, or HEAD~1 on main), failing on any diff; the whole tree is never reformatted (docs/testing.md "Formatting").
FORMAT_BASE ?=
format-check:
	tests/structure/format_check.sh $(FORMAT_BASE)
