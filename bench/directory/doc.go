// Package directorybench measures the agent directory's crawler and the
// task match:
//
//	go test -run '^$' -bench . -benchtime 3x ./directory (from bench/)
//	BENCH_MATCH_DOCS=100000 go test -run '^$' -bench Match -benchtime 20x ./directory
package directorybench
