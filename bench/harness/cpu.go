package harness

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"
)

// clockTick is Linux's USER_HZ, the unit of /proc/<pid>/stat's CPU times
// (100 on every architecture Go supports).
const clockTick = 10 * time.Millisecond

// ProcessCPU returns the user and system CPU time of pid and of its
// children now running (nginx's workers are its master's children), or 0
// without /proc. A server's CPU per answered request is steadier than its
// rate when the load generator shares the cores with it.
func ProcessCPU(pid int) time.Duration {
	if pid <= 0 {
		return 0
	}
	total, _, ok := readStat(pid)
	if !ok {
		return 0
	}
	for _, child := range children(pid) {
		if cpu, _, ok := readStat(child); ok {
			total += cpu
		}
	}
	return total
}

// children lists the processes whose parent is pid now.
func children(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil || child == pid {
			continue
		}
		if _, parent, ok := readStat(child); ok && parent == pid {
			out = append(out, child)
		}
	}
	return out
}

// readStat reads utime + stime and the parent of pid from /proc/pid/stat.
func readStat(pid int) (cpu time.Duration, parent int, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, false
	}
	// The command name is in parentheses and may hold spaces: fields are
	// counted after its closing one (state is field 3, ppid 4, utime 14,
	// stime 15).
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 13 {
		return 0, 0, false
	}
	parent, err1 := strconv.Atoi(string(f[1]))
	utime, err2 := strconv.ParseInt(string(f[11]), 10, 64)
	stime, err3 := strconv.ParseInt(string(f[12]), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return 0, 0, false
	}
	return time.Duration(utime+stime) * clockTick, parent, true
}
