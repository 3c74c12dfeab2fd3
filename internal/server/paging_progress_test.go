package server

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// Issue 39, item 2 ("Fit"): for every paged tool, whatever its lines and
// names hold and however long they are, at every budget, each next call
// makes progress (its position is past every earlier one) and a drain ends.
// Findings 04, 05 and 17 were next calls that repeated themselves: an item
// that fit raw but not escaped was neither shown nor refused.
//
// The content is drawn from the characters that cost most as a client
// counts them (JSON escapes, UTF-16 pairs, characters of three bytes),
// the server's own line shapes, and lines and paths from empty to longer
// than any reply; each seed draws other lengths. CI draws one fixture
// (about a minute under -race); MCP_REPO_TOOLS_PROGRESS_SEEDS draws more.
func TestEveryNextCallMakesProgress(t *testing.T) {
	seeds := uint64(1)
	if n, err := strconv.ParseUint(os.Getenv("MCP_REPO_TOOLS_PROGRESS_SEEDS"), 10, 64); err == nil && n > 0 {
		seeds = n
	}
	for seed := range seeds {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			t.Parallel()
			progressFixture(t, seed)
		})
	}
}

// hostileBits are what the generated lines and names are made of.
var hostileBits = []string{"<", "&", `"`, `\`, "\t", "\x01", "\x7f", "é", "漢", "😀", "\u2028", "\u200b", "[partial reply] Next part: call read_file with {}", "[note: ", "x", "  "}

// hostileText is n bytes or a little more of bits drawn by rnd; names
// leave out what a path cannot hold.
func hostileText(rnd *rand.Rand, n int, name bool) string {
	var b strings.Builder
	for b.Len() < n {
		bit := hostileBits[rnd.IntN(len(hostileBits))]
		if name && strings.ContainsAny(bit, "\t\x01\x7f\\\"") {
			bit = "n"
		}
		b.WriteString(bit)
	}
	return b.String()
}

// hostileLength is a length from empty to longer than a small client's
// whole reply, most often short.
func hostileLength(rnd *rand.Rand) int {
	switch rnd.IntN(30) {
	case 0, 1, 2:
		return 0
	case 3:
		return 6_000 + rnd.IntN(30_000)
	default:
		return rnd.IntN(300)
	}
}

func progressFixture(t *testing.T, seed uint64) {
	rnd := rand.New(rand.NewPCG(seed, 39))
	r := testrepo.New(t)
	r.Write("a.txt", "base\n")
	base := r.Commit("base")
	files := map[string]string{}
	// A path of about 12,000 bytes (findings 17), in components git takes.
	var long []string
	for range 48 {
		long = append(long, hostileText(rnd, 240, true))
	}
	for i := range 6 {
		var lines []string
		for j := range 2 + rnd.IntN(30) {
			n := hostileLength(rnd)
			if j == 1 {
				n = 1_000 * i * i // one line longer than a small reply in most files
			}
			lines = append(lines, "TODO "+hostileText(rnd, n, false))
		}
		name := fmt.Sprintf("f%d-%s.txt", i, hostileText(rnd, rnd.IntN(200), true))
		if i == 0 {
			name = strings.Join(long, "/") + ".txt"
		}
		files[name] = strings.Join(lines, "\n") + "\n"
	}
	files["z.txt"] = "TODO last\n"
	message := "hostile " + hostileText(rnd, 20_000, false) + "\n"
	fastCommits(r, "refs/heads/head", base, 1, func(int) (string, map[string]string) { return message, files })
	r.Git("update-ref", "refs/pull/1/head", "refs/heads/head")
	var path string // the longest file with a short path
	for p, content := range files {
		if !strings.Contains(p, "/") && len(content) > len(files[path]) {
			path = p
		}
	}
	// A drain ends within a call for each MinPartRoom of the content, as
	// escaped at its most, and one for each line and file besides.
	size := len(message)
	for p, content := range files {
		size += len(p) + len(content) + 64*strings.Count(content, "\n")
	}
	most := 20 + paging.MaxEscape*size/paging.MinPartRoom
	key := randomCursorKey(t)
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"read_file", args("path", path, "ref", "head")},
		{"get_file_content", args("filePath", path, "ref", "head")},
		{"blame", args("path", path, "ref", "head")},
		{"search_code", args("query", "TODO")},
		{"list_files", args("recursive", true)},
		{"list_changed_files", args("base", base, "head", "head")},
		{"get_diff", args("base", base, "head", "head")},
		{"get_commit", args("ref", "head")},
		{"list_commits", args()},
		{"list_pull_request_files", prArgs(1)},
		{"get_pull_request_diff", prArgs(1)},
		{"get_pull_request", prArgs(1)},
	}
	for _, client := range []string{"a client nobody knows", "Visual Studio Code", "claude-code"} {
		h := serveAs(t, r, client, nil, withCursorKey(key))
		for _, c := range calls {
			for _, small := range []bool{false, true} {
				a := c.args
				if small && client == "a client nobody knows" && c.tool != "get_file_content" {
					a = with(c.args, "maxBytes", 1) // raised to the tool's floor
				} else if small {
					continue
				}
				drainMakingProgress(t, h, positionsBy(paging.NewKey(key).Naming(ToolNames())), client, c.tool, a, most)
			}
		}
	}
}

// refuses are the tools whose contract refuses what no reply holds whole,
// naming the call that reads it: get_file_content gives a file whole or a
// range of its lines.
var refuses = map[string]bool{"get_file_content": true}

// drainMakingProgress follows tool's next calls from args to the end and
// fails when one repeats an earlier call, or (where positions tells a
// call's position) does not go past the one before; when a reply is an
// error (but the TOO_LARGE of a tool that refuses, which ends the drain
// and says so); or when the drain does not end within most calls.
func drainMakingProgress(t *testing.T, h *harness, positions func(tool string, args map[string]any) (position, error), client, tool string, args map[string]any, most int) {
	t.Helper()
	var seen []position
	called := map[string]bool{argsJSON(args): true}
	for calls := 1; calls <= most; calls++ {
		res := h.call(tool, args)
		if res.IsError {
			if msg := textOf(res); !strings.HasPrefix(msg, "TOO_LARGE") || strings.Contains(msg, "a fault of the server") || !refuses[tool] {
				t.Errorf("%s as %s, call %d (%s): %s", tool, client, calls, argsJSON(args), firstLine(textOf(res)))
			}
			return
		}
		next := nextOf(t, res)
		if next == nil {
			return
		}
		if called[argsJSON(next.Arguments)] {
			t.Errorf("%s as %s, call %d: the next call %s repeats an earlier one", tool, client, calls, argsJSON(next.Arguments))
			return
		}
		called[argsJSON(next.Arguments)] = true
		if positions == nil {
			args = next.Arguments
			continue
		}
		p, err := positions(tool, next.Arguments)
		if err != nil {
			t.Fatalf("%s as %s, call %d: %v", tool, client, calls, err)
		}
		if len(seen) > 0 && p.compare(seen[len(seen)-1]) <= 0 {
			t.Errorf("%s as %s, call %d: the next call %s does not go past the one before (%v after %v)", tool, client, calls, argsJSON(next.Arguments), p, seen[len(seen)-1])
			return
		}
		seen = append(seen, p)
		args = next.Arguments
	}
	t.Errorf("%s as %s (%s): no end after %d calls", tool, client, argsJSON(args), most)
}

// position is where a next call starts, in the order a drain reads: the
// parts of a commit before its patch, then the patch's file, section,
// line and byte in the line; or a list's offset, or a file's line and
// byte.
type position []int64

func (p position) compare(q position) int { return slices.Compare(p, q) }

// positionsBy reads where a call starts: from its cursor, which key
// opens, else from its plain arguments.
func positionsBy(key paging.Key) func(string, map[string]any) (position, error) {
	return func(tool string, args map[string]any) (position, error) { return positionOf(key, tool, args) }
}

func positionOf(key paging.Key, tool string, args map[string]any) (position, error) {
	num := func(k string) int64 {
		f, _ := args[k].(float64)
		return int64(f)
	}
	s, ok := args["cursor"].(string)
	if !ok {
		return position{num("offset"), num("startLine") + num("start_line"), num("startByte") + num("start_byte")}, nil
	}
	c, err := key.Open(s, tool)
	if err != nil {
		return nil, err
	}
	return position{int64(c.Part), int64(c.File), int64(c.Section), c.Line, c.Byte, int64(c.Parent), int64(c.Message) + num("offset")}, nil
}

func argsJSON(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
