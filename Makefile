# Benchmarks: see docs/BENCHMARKS.md. The harness is its own module
# (bench/go.mod); it is built there and run from here, so its default paths
# (-repo ., -results docs/benchmarks, -report docs/BENCHMARKS.md) are this
# checkout's.
#   make bench                          # N=10000, both engines
#   make bench N=100000 ENGINES=postgres
#   make bench SCENARIOS=hot,search D=5s
N ?= 10000
ENGINES ?= sqlite,postgres
SCENARIOS ?= all
D ?= 6s
C ?= 32
BENCH_FLAGS ?=

.PHONY: test bench bench-smoke bench-report bin/benchrun

# Every module's tests: the registry, the public agora module and the bench
# module (each has its own go.mod, so ./... at the root reaches only the
# first).
test:
	go test ./...
	cd agora && go test ./...
	cd bench && go test ./...

bin/benchrun:
	cd bench && go build -o ../bin/benchrun ./cmd/benchrun

bench: bin/benchrun
	./bin/benchrun -n $(N) -engines $(ENGINES) -scenarios $(SCENARIOS) -d $(D) -c $(C) $(BENCH_FLAGS)

# The harness's own end-to-end test (N=200, 1 s per measurement).
bench-smoke:
	cd bench && REGISTRY_BENCH_SMOKE=1 go test -count=1 -run TestSmoke -v ./harness

# Rebuild docs/BENCHMARKS.md from the stored runs in docs/benchmarks/.
bench-report: bin/benchrun
	./bin/benchrun -report-only
