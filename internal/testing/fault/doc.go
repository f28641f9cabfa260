// Package fault holds the reliability tests of the registry: real
// processes on this machine under real faults (PostgreSQL restarted under
// load, the registry killed with SIGKILL mid-write on SQLite) and a sustained
// mixed load with a memory-leak check; slow clients attacking the
// heavy-request gate (heavy_test.go) and one hostile client against the
// agent's memory (agent_rss_test.go), both leaving PostgreSQL alone. The
// bounds they check are stated in docs/RELIABILITY.md and docs/SECURITY.md.
//
// The tests run only with REGISTRY_TEST_FAULTS=1. The PostgreSQL restart
// affects the whole local cluster, so run this package on its own, after
// the main test run:
//
//	REGISTRY_TEST_FAULTS=1 go test -count=1 -p 1 -timeout 8m ./internal/testing/fault/
package fault
