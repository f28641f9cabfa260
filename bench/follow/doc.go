// Package followbench measures a follower's catch-up (`registry serve
// --follow`) from a real upstream over loopback; see docs/BENCHMARKS.md.
package followbench
