# ghostcheck — docs/running.md#make-targets says what each target is for.

GO        ?= go
FUZZTIME  ?= 30s
SMOKETIME ?= 2s
SMOKETARGETS ?= all
FUZZMINIMIZE ?= 100x
# Packages that start goroutines; they also run under the race detector.
RACE_PKGS ?= $(shell $(GO) list ./impl/... ./driver/... ./check/... ./tcptarget/... ./proxy/... ./wire/... ./internal/... ./explore/... 2>/dev/null)
# The packages whose tests take longest, listed first so that go test starts them first (it starts packages in the
# order given, two at a time on 2 cores): impl's planted bugs compute for minutes, and the network tests of
# cmd/ghostcheck and internal/conformance mostly wait beside them, instead of after the short packages.
UNIT_FIRST ?= ./impl ./cmd/ghostcheck ./internal/conformance

.PHONY: run test vet fmt-check unit race fuzz fuzz-smoke bench build corpus-add replay peers mutate coverage pgo release-matrix explore-scaling

## run: the main job: a property run of the embedded coordinator, KIP-1082 clients vs v0 (see docs/running.md).
run:
	$(GO) run ./cmd/ghostcheck run $(RUNFLAGS)

## mutate: every planted bug of impl (impl/mutants.go) against the property run alone, on the path
## `ghostcheck run --mutant NAME` takes, with run's default budget: prints the kill table (mutant, rule it
## breaks, the rule that caught it, the history of the first catch, the time to catch); fails on a survivor.
mutate:
	@out=$$(GHOSTCHECK_MUTATE=1 $(GO) test -count=1 -run '^TestKillTable$$' -v ./internal/targets 2>&1); status=$$?; \
	echo "$$out" | grep -v -e '^=== RUN' -e '^--- PASS' -e '^PASS' -e '^ok '; exit $$status

## release-matrix: for every Kafka release 2.3-4.2.1 (internal/releases), `check` (the release inferred, and
## --kafka-version X) against `serve --kafka-version X`, every case: writes the table (release x pass, skip,
## n/a, fail, error, exit) to out/release-matrix.md and prints it; fails on any FAIL, ERROR or non-zero exit.
## `go test` runs its fast subset (a few cases per release).
release-matrix:
	@mkdir -p out && GHOSTCHECK_RELEASE_MATRIX=$(CURDIR)/out/release-matrix.md $(GO) test -count=1 -timeout 30m -run '^TestReleaseMatrix$$' ./cmd/ghostcheck && cat out/release-matrix.md

## explore-scaling: how `ghostcheck explore` scales from one core to two beside this machine's own floor (two
## one-worker searches at once, one per core), two workers and two worker processes (--processes): ROUNDS rounds
## (default 2), each about 3 minutes of the default bound on 2 cores; EXPLOREFLAGS for another bound
## (scripts/explore-scaling).
explore-scaling:
	@GO=$(GO) ROUNDS=$(ROUNDS) EXPLOREFLAGS="$(EXPLOREFLAGS)" ./scripts/explore-scaling

## coverage: `make run` with `run --coverage`: the statement coverage of model/ (with model/client and
## model/rules) and impl/ the run reaches, the model statements it did not, and how often the model applied
## each clause of docs/PROTOCOL.md.
coverage:
	$(GO) run ./cmd/ghostcheck run --coverage $(RUNFLAGS)

## pgo: write cmd/ghostcheck/default.pgo again, the CPU profile `go build` and `go run` use to optimize
## the command (profile-guided optimization, about 5 % less CPU per operation): BenchmarkRun's default plan,
## one worker (about 30 s). Run it after a change that moves where a run spends its time.
PGOBIN ?= $(or $(TMPDIR),/tmp)/ghostcheck-pgo.test
pgo:
	$(GO) test -c -o $(PGOBIN) ./cmd/ghostcheck
	$(PGOBIN) -test.run '^$$' -test.bench 'Run/workers=1$$' -test.cpu 1 -test.benchtime 60x -test.cpuprofile cmd/ghostcheck/default.pgo
	rm -f $(PGOBIN)

## test: everything CI runs: vet, gofmt, unit/property/corpus tests, race, fuzz smoke. Its unit and race
## runs skip go test's own vet pass (TESTFLAGS=-vet=off): make vet ran every analyzer on the same packages.
## -timeout 25m: impl's package (planted bugs, equivalence properties) took 525 s of the unit run on a busy
## 2-core machine, near go test's default limit of 10 minutes per package.
test: TESTFLAGS = -vet=off -timeout 25m
test: vet fmt-check unit race fuzz-smoke

build:
	$(GO) build ./...

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

unit:
	$(GO) test $(TESTFLAGS) $(UNIT_FIRST) ./...

race:
	@if [ -n "$(RACE_PKGS)" ]; then $(GO) test -race $(TESTFLAGS) $(RACE_PKGS); else echo "race: no concurrent packages yet"; fi

## peers: the modules of peers/ (software we did not write, run as peers; cgo, needs gcc): vet and test
## librdkafka's mock cluster against the suite and its recorded findings (about 3 min on 2 cores, 155 s with a warm build cache: most
## of it the consumer's tests (152 s) and the mock's (105 s: its conformance with one broker and three, on 16 mocks side by side,
## each crash case restarting one); PEERSTIMEOUT bounds it).
PEERSTIMEOUT ?= 25m
peers:
	cd peers/librdkafka && $(GO) vet ./... && $(GO) test -timeout $(PEERSTIMEOUT) ./...

## fuzz-smoke: every fuzz target for SMOKETIME each (default 2s), from one instrumented test binary per package;
## part of make test. SMOKETARGETS=N fuzzes only the N targets HEAD's commit count picks, so consecutive commits
## fuzz every target in turn (FUZZSLICE=K picks slice K; scripts/fuzz-all says how). Every target's seed corpus
## runs in `make unit` either way.
fuzz-smoke:
	@FUZZTIME=$(SMOKETIME) FUZZTARGETS=$(SMOKETARGETS) FUZZMINIMIZE=$(FUZZMINIMIZE) GO=$(GO) ./scripts/fuzz-all

## fuzz: each fuzz target for FUZZTIME (default 30s), minimizing new inputs for at most FUZZMINIMIZE (default 100x); Go fuzzes one target per run.
fuzz:
	@FUZZTIME=$(FUZZTIME) FUZZTARGETS=all FUZZMINIMIZE=$(FUZZMINIMIZE) GO=$(GO) ./scripts/fuzz-all

## bench: all benchmarks, 6 runs each, into bench.txt for benchstat.
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 6 ./... | tee bench.txt

## replay: replay the whole corpus.
replay:
	$(GO) run ./cmd/ghostcheck replay corpus/histories

## corpus-add: FILE=out/x.jsonl NAME=short-name: check that a history replays, then add it to the corpus.
corpus-add:
	@test -n "$(FILE)" -a -n "$(NAME)" || { echo "usage: make corpus-add FILE=out/x.jsonl NAME=short-name"; exit 2; }
	$(GO) run ./cmd/ghostcheck replay $(FILE)
	cp $(FILE) corpus/histories/$(NAME).jsonl
	@echo "added corpus/histories/$(NAME).jsonl; add a row to the track record in docs/findings.md"
