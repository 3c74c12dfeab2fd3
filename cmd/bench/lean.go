package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// leanClient is a minimal MCP client of the server's stdio: a request a
// line, each reply parsed once into what the bench reads. The go-sdk
// client decodes a result several times over (about 2 ms of a 64 KB
// reply's round trip on this machine); a client whose JSON parser is fast
// (Claude Code's, on Node's JSON.parse) spends about what this one does.
// The paging cases time their drains through both.
type leanClient struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	id   int
	last int64 // the last result's bytes as sent
}

// leanProtocolVersion is the go-sdk client's: the same replies, byte for
// byte (a newer version's results carry a resultType).
const leanProtocolVersion = "2026-07-28"

// startLean starts the server with leanClient as its client, named
// benchClient as the go-sdk client's sessions are: its drains are held to
// theirs, call for call.
func startLean(ctx context.Context, bin, repoDir, logPath string, extra ...string) (*leanClient, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child has its own descriptor
	cmd := exec.CommandContext(ctx, bin, append([]string{"serve", "--repo", repoDir, "--name", benchOwner + "/" + benchRepo, "--log-level", "warn"}, extra...)...)
	cmd.Stderr = logFile
	c := &leanClient{cmd: cmd}
	if c.in, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c.out = bufio.NewReaderSize(stdout, 1<<20)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	init := map[string]any{"protocolVersion": leanProtocolVersion, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": benchClient, "version": "1"}}
	if _, err := c.request("initialize", init); err != nil {
		c.close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if _, err := io.WriteString(c.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// request sends one request and returns its result as sent.
func (c *leanClient) request(method string, params any) (json.RawMessage, error) {
	c.id++
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	if _, err := c.in.Write(append(msg, '\n')); err != nil {
		return nil, err
	}
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			return nil, err
		}
		var resp struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(line, &resp); err != nil {
			return nil, err
		}
		switch {
		case resp.ID == nil: // a notification: not this request's reply
			continue
		case *resp.ID != c.id:
			return nil, fmt.Errorf("reply to request %d, want %d", *resp.ID, c.id)
		case resp.Error != nil:
			return nil, errors.New(resp.Error.Message)
		}
		c.last = int64(len(resp.Result))
		return resp.Result, nil
	}
}

// call runs one tool call; a tool error is an error here, as for session.
func (c *leanClient) call(_ context.Context, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	raw, err := c.request("tools/call", map[string]any{"name": tool, "arguments": args})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tool, err)
	}
	var r struct {
		Content []struct {
			Type, Text string
		} `json:"content"`
		Meta    mcp.Meta `json:"_meta"`
		IsError bool     `json:"isError"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", tool, err)
	}
	res := &mcp.CallToolResult{IsError: r.IsError}
	res.SetMeta(r.Meta)
	for _, ct := range r.Content {
		if ct.Type == "text" {
			res.Content = append(res.Content, &mcp.TextContent{Text: ct.Text})
		}
	}
	if res.IsError {
		return nil, fmt.Errorf("%s returned a tool error: %.500s", tool, resultText(res))
	}
	return res, nil
}

func (c *leanClient) resultBytes() int64 { return c.last }

func (c *leanClient) cpuTime() (time.Duration, error) { return processCPU(c.cmd.Process.Pid) }

func (c *leanClient) close() error {
	c.in.Close()
	return c.cmd.Wait()
}
