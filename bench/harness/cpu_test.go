package harness

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// A busy child's CPU is counted as its parent's: nginx's master does no
// work, its workers do.
func TestProcessCPUCountsChildren(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	cmd := exec.Command("sh", "-c", "(while :; do :; done) & wait")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The busy subshell is the parent's child: kill it first.
		for _, e := range children(cmd.Process.Pid) {
			p, _ := os.FindProcess(e)
			p.Kill()
		}
		cmd.Process.Kill()
		cmd.Wait()
	})
	deadline := time.Now().Add(10 * time.Second)
	for ProcessCPU(cmd.Process.Pid) < 50*time.Millisecond {
		if time.Now().After(deadline) {
			own, _, _ := readStat(cmd.Process.Pid)
			t.Fatalf("after 10 s the tree has %v of CPU (the parent alone %v): the busy child is not counted", ProcessCPU(cmd.Process.Pid), own)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if own, _, _ := readStat(cmd.Process.Pid); own >= 50*time.Millisecond {
		t.Fatalf("the waiting parent itself used %v: the test does not show children are counted", own)
	}
}
