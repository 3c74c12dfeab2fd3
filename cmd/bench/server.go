package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// buildServer builds the server binary once into binDir, from the module
// that holds the working directory; keep reuses an existing binary.
func buildServer(binDir string, keep bool, logf logFunc) (string, error) {
	bin := filepath.Join(binDir, "mcp-repo-tools")
	if keep {
		if _, err := os.Stat(bin); err == nil {
			logf("reusing server binary %s (--keep)", bin)
			return bin, nil
		}
	}
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return "", err
	}
	logf("building the server: go build -o %s ./cmd/mcp-repo-tools", bin)
	return bin, goBuild(root, bin)
}

// moduleRoot is the directory of the module that holds the working
// directory: the server is built from there.
func moduleRoot() (string, error) {
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || strings.TrimSpace(string(gomod)) == "" || strings.TrimSpace(string(gomod)) == os.DevNull {
		return "", fmt.Errorf("run the benchmark from inside the mcp-repo-tools module (go env GOMOD: %v)", err)
	}
	return filepath.Dir(strings.TrimSpace(string(gomod))), nil
}

// goBuild builds ./cmd/mcp-repo-tools of the module in dir into bin.
func goBuild(dir, bin string) error {
	c := exec.Command("go", "build", "-o", bin, "./cmd/mcp-repo-tools")
	c.Dir = dir
	var stderr bytes.Buffer
	c.Stdout, c.Stderr = &stderr, &stderr
	if err := c.Run(); err != nil {
		return fmt.Errorf("go build: %w\n%s", err, stderr.String())
	}
	return nil
}

// session is one server process serving one repository over stdio, with an
// MCP client connected to it. cmd is kept to read the process's memory.
type session struct {
	cs      *mcp.ClientSession
	cmd     *exec.Cmd
	logPath string // the server's stderr
	tools   map[string]bool
	// declared is each tool's _meta["anthropic/maxResultSizeChars"] in
	// tools/list (0: not declared).
	declared map[string]int
	wire     *wireCounter
}

// wireCounter wraps the client's transport and records the size of the
// last JSON-RPC result read: the result's bytes exactly as the server sent
// them (jsonrpc.Response.Result is the raw JSON of the frame).
type wireCounter struct {
	mcp.Transport
	last atomic.Int64
}

func (w *wireCounter) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := w.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &countedConn{Connection: c, w: w}, nil
}

type countedConn struct {
	mcp.Connection
	w *wireCounter
}

func (c *countedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if r, ok := msg.(*jsonrpc.Response); ok && err == nil {
		c.w.last.Store(int64(len(r.Result)))
	}
	return msg, err
}

// resultBytes is the size of the last result the server sent, as sent: the
// calls of the bench are sequential, so it is the last call's.
func (s *session) resultBytes() int64 { return s.wire.last.Load() }

// benchOwner and benchRepo name the served repository (--name bench/repo).
const (
	benchOwner = "bench"
	benchRepo  = "repo"
)

// benchClient is the client name the bench's sessions give the server.
// The server sizes each reply to the client that reads it (issue 32);
// Claude Code is the client whose budget is the server's own limit
// (--max-bytes, which it is told through anthropic/maxResultSizeChars), so
// under this name the cases measure the server at replyLimit, as they did
// before the server knew clients, and as a baseline build that knows none
// sends. The clients case (clients.go) names each client in turn.
const benchClient = "claude-code"

// startServer starts `mcp-repo-tools serve` on repoDir (with extra flags),
// its stderr going to logPath, connected as benchClient, and lists its
// tools.
func startServer(ctx context.Context, bin, repoDir, logPath string, extra ...string) (*session, error) {
	return startServerAs(ctx, bin, repoDir, logPath, benchClient, extra...)
}

// startServerAs is startServer with name as the client's name
// (clientInfo.name of initialize).
func startServerAs(ctx context.Context, bin, repoDir, logPath, name string, extra ...string) (*session, error) {
	return startServing(ctx, bin, logPath, name, append([]string{"--repo", repoDir, "--name", benchOwner + "/" + benchRepo}, extra...)...)
}

// startServing starts `mcp-repo-tools serve --log-level warn` with flags
// (what it serves: --repo or --forge), as the client name, its stderr
// going to logPath, and lists its tools.
func startServing(ctx context.Context, bin, logPath, name string, flags ...string) (*session, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child has its own descriptor
	cmd := exec.Command(bin, append([]string{"serve", "--log-level", "warn"}, flags...)...)
	cmd.Stderr = logFile
	client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil)
	wire := &wireCounter{Transport: &mcp.CommandTransport{Command: cmd}}
	cs, err := client.Connect(ctx, wire, nil)
	if err != nil {
		log, _ := os.ReadFile(logPath)
		return nil, fmt.Errorf("starting the server: %w\n%s", err, log)
	}
	s := &session{cs: cs, cmd: cmd, logPath: logPath, tools: map[string]bool{}, declared: map[string]int{}, wire: wire}
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		cs.Close()
		return nil, fmt.Errorf("tools/list: %w", err)
	}
	for _, t := range list.Tools {
		s.tools[t.Name] = true
		if n, ok := t.Meta[metaKeyMaxChars].(float64); ok {
			s.declared[t.Name] = int(n)
		}
	}
	return s, nil
}

func (s *session) close() error { return s.cs.Close() }

// call runs one tool call; a tool error is an error here, because a
// benchmark of an error measures nothing.
func (s *session) call(ctx context.Context, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tool, err)
	}
	if res.IsError {
		return nil, fmt.Errorf("%s returned a tool error: %.500s", tool, resultText(res))
	}
	return res, nil
}

// resultText is the text of a result: its text items joined, as VS Code
// joins the items of its replies.
func resultText(res *mcp.CallToolResult) string { return strings.Join(textsOf(res), "") }

// resetPeakRSS resets the kernel's high-water mark of the server's resident
// set (writing 5 to clear_refs), so the next peak belongs to the next case.
func (s *session) resetPeakRSS() error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", s.cmd.Process.Pid), []byte("5"), 0)
}

// rss returns the server process's current and peak resident set (VmRSS,
// VmHWM) in bytes. git children are not included: they are what plain git
// costs too.
func (s *session) rss() (cur, peak int64, err error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %w", k, err)
		}
		if k == "VmRSS" {
			cur = kb << 10
		} else {
			peak = kb << 10
		}
	}
	return cur, peak, nil
}

// cpuTime is the CPU time the server process has used so far (user +
// system, from /proc/<pid>/stat; its git children are not included).
func (s *session) cpuTime() (time.Duration, error) { return processCPU(s.cmd.Process.Pid) }

// processCPU is the CPU time, user and system, process pid has used
// (its children's not included).
func processCPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name, which is in parentheses and may hold
	// spaces: state is field 3, utime and stime are fields 14 and 15.
	_, rest, ok := strings.Cut(string(data), ") ")
	f := strings.Fields(rest)
	if !ok || len(f) < 13 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	const ticks = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / ticks, nil
}
