// Package handlerbench holds in-process benchmarks of the registry's handler
// chain (raw fetch, revalidation, search, resolve, publish) for CPU and
// allocation profiles without sockets; see docs/BENCHMARKS.md.
package handlerbench
