package harness

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// waitLogCaughtUp waits until the registry's transparency log holds at
// least n records, so the integrator's backlog after a bulk import is not
// measured as part of the first scenarios. It returns how long that took.
// A registry without a log (a commit from before it, measured for
// comparison) answers 404 and is not waited for.
func waitLogCaughtUp(base string, n int, limit time.Duration) (time.Duration, error) {
	start := time.Now()
	for {
		size, err := logSize(base)
		if errors.Is(err, errNoLog) || err == nil && size >= int64(n) {
			return time.Since(start), nil
		}
		if time.Since(start) > limit {
			return time.Since(start), fmt.Errorf("log at %d of %d records after %v (last error: %v)", size, n, limit, err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

var errNoLog = errors.New("the registry has no transparency log")

// logSize reads the tree size, the second line of the signed checkpoint.
func logSize(base string) (int64, error) {
	resp, err := http.Get(base + "/log/checkpoint")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return 0, err
	}
	if resp.StatusCode == http.StatusNotFound {
		return 0, errNoLog
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("/log/checkpoint: %s", resp.Status)
	}
	lines := bufio.NewScanner(bytes.NewReader(body))
	for i := 0; lines.Scan(); i++ {
		if i == 1 {
			return strconv.ParseInt(lines.Text(), 10, 64)
		}
	}
	return 0, fmt.Errorf("/log/checkpoint: no tree size")
}
