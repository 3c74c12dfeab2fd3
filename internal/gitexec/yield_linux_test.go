package gitexec

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/callctx"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// niceOf is the nice value of process pid (/proc/PID/stat, field 19).
func niceOf(t *testing.T, pid int) int {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	n, err := strconv.Atoi(fields[16]) // field 19 of the line, counted after the name
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestLongCommandYieldsTheCPU: review 4, finding 18. A named client's git
// command that runs past yieldAfter while another client holds a slot
// goes to the lowest CPU priority: whatever the tool, an expensive
// command yields the CPU to the others' short ones.
func TestLongCommandYieldsTheCPU(t *testing.T) {
	env := newEnv(t)
	env.LimitProcesses(4)
	r := openIn(t, env, testrepo.New(t))
	release, err := env.HoldSlot(callctx.WithClient(t.Context(), "192.0.2.9"))
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ctx := callctx.WithClient(t.Context(), "192.0.2.1")
	p, err := r.Start(ctx, ctx, rawCommand("hash-object", "--stdin"), true) // runs until its stdin closes
	if err != nil {
		t.Fatal(err)
	}
	if n := niceOf(t, p.Pid()); n != 0 {
		t.Errorf("a command just started has nice %d; want 0", n)
	}
	until(t, "the long command yields the CPU", func() bool { return niceOf(t, p.Pid()) == lowPriority })
	p.Stdin.Close()
	if err := p.Wait(); err != nil {
		t.Fatal(err)
	}
}
