package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/clients"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// What each client does with a tool result before its model reads it,
// written here from the clients' own source (docs/clients.md) and not from
// internal/clients, so that a wrong budget there fails here. Each rule
// says what the client would do to res ("" when it passes it whole);
// declared is the size the tool declares in tools/list.
type clientRule struct {
	name string
	cuts func(res *mcp.CallToolResult, declared int) string
}

var clientRules = []clientRule{
	// Claude Code: the structured content when there is one (as
	// JSON.stringify writes it), else the text; over the declared size
	// (50,000 UTF-16 units when none is declared), a file and a preview.
	{"claude-code", func(res *mcp.CallToolResult, declared int) string {
		if declared == 0 {
			declared = 50_000
		}
		if n := utf16Len(claudeKept(res)); n > declared {
			return fmt.Sprintf("%d UTF-16 units, over the declared %d: filed, 2,000 shown", n, declared)
		}
		return ""
	}},
	// Codex: "Wall time…\nOutput:\n" and the JSON of the structured
	// content, else of the content array; over 12,000 bytes the middle is
	// cut.
	{"codex-mcp-client", func(res *mcp.CallToolResult, _ int) string {
		if n := codexBytes(res); n > 12_000 {
			return fmt.Sprintf("%d bytes as Codex counts: the middle cut", n)
		}
		return ""
	}},
	// VS Code: each text part over 8,192 UTF-16 units to a file; the
	// structured content, when there is one, in place of the text.
	{"Visual Studio Code", func(res *mcp.CallToolResult, _ int) string {
		for _, part := range vscodeParts(res) {
			if n := utf16Len(part); n > 8_192 {
				return fmt.Sprintf("a text part of %d UTF-16 units: filed, no preview", n)
			}
		}
		return ""
	}},
	// Gemini CLI: one text part, with its 41-unit wrapper, over 40,000
	// UTF-16 units: a file, 20% head and 80% tail shown.
	{"gemini-cli-mcp-client", func(res *mcp.CallToolResult, _ int) string {
		if texts := textParts(res); len(texts) == 1 {
			if n := utf16Len(texts[0]) + 41; n > 40_000 {
				return fmt.Sprintf("%d UTF-16 units with the wrapper: filed, head and tail shown", n)
			}
		}
		return ""
	}},
	// Copilot CLI: text and structured content both counted, over about
	// 30 KB: a file and a 500-character preview.
	{"copilot-cli", func(res *mcp.CallToolResult, _ int) string {
		n := len(strings.Join(textParts(res), ""))
		if res.StructuredContent != nil {
			n += len(wireJSON(res.StructuredContent, false))
		}
		if n > 30_000 {
			return fmt.Sprintf("%d bytes: filed, 500 characters shown", n)
		}
		return ""
	}},
	// opencode: the text parts joined by a blank line, over 51,200 bytes
	// or 2,000 lines: the head, the rest to a file.
	{"opencode", func(res *mcp.CallToolResult, _ int) string {
		joined := strings.Join(textParts(res), "\n\n")
		if joined == "" && res.StructuredContent != nil {
			joined = string(wireJSON(res.StructuredContent, false))
		}
		if n, lines := len(joined), strings.Count(joined, "\n")+1; n > 51_200 || lines > 2_000 {
			return fmt.Sprintf("%d bytes in %d lines: the head kept", n, lines)
		}
		return ""
	}},
	// Goose: a text part over 200,000 characters: a file, no preview.
	{"goose-cli", func(res *mcp.CallToolResult, _ int) string {
		for _, part := range textParts(res) {
			if n := utf8.RuneCountInString(part); n > 200_000 {
				return fmt.Sprintf("a text part of %d characters: filed", n)
			}
		}
		return ""
	}},
}

// allRules: what a client the server does not know must pass, every known
// client's rule.
func allRules(res *mcp.CallToolResult, declared int) string {
	for _, r := range clientRules {
		if cut := r.cuts(res, declared); cut != "" {
			return r.name + ": " + cut
		}
	}
	return ""
}

func utf16Len(s string) int { return len(utf16.Encode([]rune(s))) }

func textParts(res *mcp.CallToolResult) []string {
	var out []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			out = append(out, t.Text)
		}
	}
	return out
}

func claudeKept(res *mcp.CallToolResult) string {
	if res.StructuredContent != nil {
		return string(wireJSON(res.StructuredContent, false))
	}
	return strings.Join(textParts(res), "")
}

func vscodeParts(res *mcp.CallToolResult) []string {
	if res.StructuredContent != nil {
		return []string{string(wireJSON(res.StructuredContent, false))}
	}
	return textParts(res)
}

// codexBytes is the output Codex gives its model, before its cut: its
// header at the longest wall time a call may take, then the JSON (serde
// escapes no HTML) of the structured content or of the content array.
func codexBytes(res *mcp.CallToolResult) int {
	header := "Wall time: 3600.0000 seconds\nOutput:\n"
	if res.StructuredContent != nil {
		return len(header) + len(wireJSON(res.StructuredContent, false))
	}
	return len(header) + len(wireJSON(res.Content, false))
}

func wireJSON(v any, html bool) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// clientsRepo is a pull request, a long file, a long listing and a
// common search: a rewrite of a large file with quotes, tabs, markup and
// non-ASCII text, a file of short lines (more lines than bytes allow
// elsewhere), 300 small files, a rename and a binary.
func clientsRepo(t *testing.T) *testrepo.Repo {
	r := testrepo.New(t)
	var big, short strings.Builder
	for i := range 6000 {
		fmt.Fprintf(&big, "line %d \"quoted\" <tag> naïve 日本語\ttab\n", i)
		short.WriteString("x\n")
	}
	r.Write("big.txt", big.String())
	r.Write("short.txt", short.String())
	for i := range 300 {
		r.Write(fmt.Sprintf("src/pkg%02d/file%03d.go", i%12, i), fmt.Sprintf("package pkg\n\n// file %d\nvar v%d = %d\n", i, i, i))
	}
	r.Write("old/name.txt", strings.Repeat("kept across the rename\n", 40))
	r.Commit("base")
	r.Git("checkout", "-q", "-b", "pr")
	r.Write("big.txt", strings.ReplaceAll(big.String(), "tab", "TAB"))
	r.Write("short.txt", strings.ReplaceAll(short.String(), "x", "y"))
	for i := range 300 {
		r.Write(fmt.Sprintf("src/pkg%02d/file%03d.go", i%12, i), fmt.Sprintf("package pkg\n\n// file %d, changed\nvar v%d = %d\n", i, i, i+1))
	}
	r.Write("new/name.txt", strings.Repeat("kept across the rename\n", 40))
	r.Git("rm", "-q", "old/name.txt")
	r.Write("img.bin", "\x00\x01\x02\xff\x00")
	r.Commit("the pull request")
	r.Git("update-ref", "refs/pull/5/head", "HEAD")
	r.Git("checkout", "-q", "main")
	return r
}

// serveAs is serve with a client that calls itself name and a server that
// gives each client its budget (clients.NewTable), as the command does.
func serveAs(t *testing.T, r *testrepo.Repo, name string, limits map[string]int, opts ...option) *harness {
	t.Helper()
	served, err := repo.ServeOne(context.Background(), testEnv(t), r.Dir, "acme/widgets")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(served.Close)
	cfg := Config{MaxBytes: DefaultMaxBytes, Timeout: 30 * time.Second, Policy: mustPolicy(nil), Version: "test"}
	for _, o := range opts {
		o(&cfg)
	}
	cfg.Clients = clients.NewTable(cfg.MaxBytes, limits)
	return connectAs(t, New(served, cfg), r, cfg.MaxBytes, name)
}

// clientDrains are the calls every client's test drains: the pull
// request's diff, the long file, the long listing, the common search.
var clientDrains = []struct {
	tool string
	args map[string]any
}{
	{"get_pull_request_diff", prArgs(5)},
	{"read_file", args("path", "big.txt", "ref", "main")},
	{"read_file", args("path", "short.txt", "ref", "main")},
	{"list_files", args("recursive", true, "ref", "main")},
	{"search_code", args("query", "9 \"quoted\"", "ref", "main", "maxResults", 500)},
	{"list_pull_request_files", prArgs(5)},
}

// drainAsClient drains every call of clientDrains as a client called name
// and fails on any reply rule would not pass whole. It checks the drains
// are complete: the diff is git's byte for byte, the file's lines are the
// file's, the listing and the search hold what git lists and finds.
func drainAsClient(t *testing.T, h *harness, rule func(*mcp.CallToolResult, int) string) map[string]int {
	t.Helper()
	declared := declaredSizes(t, h)
	parts := map[string]int{}
	for _, c := range clientDrains {
		results := drainResults(t, h, c.tool, c.args)
		parts[fmt.Sprint(c.tool, c.args)] = len(results)
		var texts []string
		for i, res := range results {
			if cut := rule(res, declared[c.tool]); cut != "" {
				t.Errorf("%s %v, part %d of %d: %s", c.tool, c.args, i+1, len(results), cut)
			}
			texts = append(texts, textOf(res))
		}
		checkDrained(t, h, c.tool, c.args, texts)
	}
	return parts
}

// checkDrained: the parts of a drain hold all of it, as git has it.
func checkDrained(t *testing.T, h *harness, tool string, a map[string]any, texts []string) {
	t.Helper()
	r := h.repo
	switch tool {
	case "get_pull_request_diff":
		var patches []string
		for _, tx := range texts {
			patches = append(patches, patchOf(tx))
		}
		mb := strings.TrimSpace(r.Git("merge-base", "main", "refs/pull/5/head"))
		checkJoined(t, patches, asShown(r.Git("diff", "-M", mb, "refs/pull/5/head")))
	case "read_file":
		var got strings.Builder
		for _, tx := range texts {
			lines := strings.SplitAfter(tx, "\n")[1:] // the header
			for _, l := range lines {
				if strings.HasPrefix(l, "[") || l == "" {
					break
				}
				got.WriteString(l)
			}
		}
		if want := r.Git("show", "main:"+a["path"].(string)); got.String() != want {
			t.Errorf("read_file %s drained: %d bytes, want the file's %d", a["path"], got.Len(), len(want))
		}
	case "list_files":
		want := strings.Count(r.Git("ls-tree", "-r", "main"), "\n")
		if got := countLines(texts, func(l string) bool { return strings.HasPrefix(l, "file ") || strings.HasPrefix(l, "dir ") }); got != want {
			t.Errorf("list_files drained %d entries, git lists %d", got, want)
		}
	case "search_code":
		want := strings.Count(r.Git("grep", "-n", "-i", "-F", "-e", a["query"].(string), "main"), "\n")
		if got := countLines(texts, func(l string) bool { return strings.HasPrefix(l, "big.txt:") }); got != want {
			t.Errorf("search_code drained %d matches, git grep finds %d", got, want)
		}
	case "list_pull_request_files":
		want := strings.Count(r.Git("diff", "--name-only", "-M", "main...refs/pull/5/head"), "\n")
		seen := map[string]bool{}
		for _, tx := range texts {
			for _, l := range strings.Split(tx, "\n") {
				if f := strings.Fields(l); len(f) > 1 && (f[0] == "modified" || f[0] == "added" || f[0] == "renamed" || f[0] == "deleted") {
					seen[l] = true
				}
			}
		}
		if len(seen) != want {
			t.Errorf("list_pull_request_files drained %d files, git lists %d", len(seen), want)
		}
	}
}

func countLines(texts []string, match func(string) bool) int {
	n := 0
	for _, tx := range texts {
		for _, l := range strings.Split(tx, "\n") {
			if match(l) {
				n++
			}
		}
	}
	return n
}

// Every known client, connected under its own name, drains a large pull
// request, a long file, a long listing and a common search, and its own
// rule passes every reply whole; so does every known client's rule for a
// client the server does not know. Text (the default) and structured.
func TestEveryReplyWholeInEveryClient(t *testing.T) {
	r := clientsRepo(t)
	for _, structured := range []bool{false, true} {
		for _, c := range append(clientRules, clientRule{"an-unknown-client", allRules}) {
			t.Run(fmt.Sprintf("%s/structured=%v", c.name, structured), func(t *testing.T) {
				var opts []option
				if structured {
					opts = append(opts, withStructured())
				}
				h := serveAs(t, r, c.name, nil, opts...)
				parts := drainAsClient(t, h, c.cuts)
				t.Logf("parts: %v", parts)
			})
		}
	}
}

// --max-bytes is the ceiling of every client's budget, and what Claude
// Code is told; --client-limit replaces one client's rule, within it.
func TestMaxBytesAndClientLimit(t *testing.T) {
	r := clientsRepo(t)
	t.Run("max-bytes", func(t *testing.T) {
		h := serveAs(t, r, "claude-code", nil, withMaxBytes(20_000))
		drainAsClient(t, h, func(res *mcp.CallToolResult, declared int) string {
			if declared != 20_000 {
				return fmt.Sprintf("declared %d, not --max-bytes", declared)
			}
			if n := resultWireBytes(res); n > 20_000 {
				return fmt.Sprintf("%d bytes as sent, over --max-bytes", n)
			}
			return ""
		})
	})
	for _, c := range []struct {
		what, client string
		limit, over  int                           // the --client-limit; what the largest reply must pass
		measure      func(*mcp.CallToolResult) int // as the client counts
	}{
		// A Codex user on a token-mode model: 48,000 bytes as Codex
		// counts; the operator gives it 44,000.
		{"a known client", "codex-mcp-client", 44_000, 12_000, codexBytes},
		{"a client the table does not know", "cursor-vscode", 30_000, clients.Unknown.Bytes, seenBytes},
	} {
		t.Run("client-limit for "+c.what, func(t *testing.T) {
			h := serveAs(t, r, c.client, map[string]int{c.client: c.limit})
			most := 0
			drainAsClient(t, h, func(res *mcp.CallToolResult, _ int) string {
				n := c.measure(res)
				most = max(most, n)
				if n > c.limit+c.limit/10 {
					return fmt.Sprintf("%d bytes as %s counts, over its --client-limit %d", n, c.client, c.limit)
				}
				return ""
			})
			if most <= c.over {
				t.Errorf("the largest reply is %d bytes: --client-limit did not take", most)
			}
		})
	}
}

// resultWireBytes is the result as JSON, as the server sends it.
func resultWireBytes(res *mcp.CallToolResult) int { return len(wireJSON(res, true)) }

// seenBytes is the result as a client gives it to its model, as the server
// measures a client's budget (docs/bounds.md): the content array's JSON
// and structured content's, and 40 bytes for what the client puts around
// them (Codex's header); never the _meta.
func seenBytes(res *mcp.CallToolResult) int {
	n := len(wireJSON(res.Content, false)) + 40
	if res.StructuredContent != nil {
		n += len(wireJSON(res.StructuredContent, false))
	}
	return n
}

// Parts are full and their framing light: at the budget of a client the
// server does not know (8,000 bytes, measured as clients give a result to
// their model), every part of a pull request's drain but the last holds at
// least 85% of the budget, the drain costs at most 1.15× the JSON-escaped
// diff in bytes and at most ⌈escaped ÷ 7,000⌉ + 3 calls; on the wire, with
// the _meta no client shows its model, each result stays within
// --max-bytes.
func TestPartsAreFullAndLight(t *testing.T) {
	r := clientsRepo(t)
	h := serveAs(t, r, "an-unknown-client", nil)
	budget := clients.Unknown.Bytes
	mb := strings.TrimSpace(r.Git("merge-base", "main", "refs/pull/5/head"))
	escaped := len(wireJSON(asShown(r.Git("diff", "-M", mb, "refs/pull/5/head")), true)) - 2
	results := drainResults(t, h, "get_pull_request_diff", prArgs(5))
	total, wire := 0, 0
	for i, res := range results {
		n := seenBytes(res)
		total += n
		wire += resultWireBytes(res)
		if i < len(results)-1 && n < budget*85/100 {
			t.Errorf("part %d of %d is %d bytes, %.0f%% of the %d-byte budget", i+1, len(results), n, 100*float64(n)/float64(budget), budget)
		}
		if n > budget || resultWireBytes(res) > 65_536 {
			t.Errorf("part %d is %d bytes as seen, %d on the wire", i+1, n, resultWireBytes(res))
		}
	}
	ratio := float64(total) / float64(escaped)
	t.Logf("%d parts, %d bytes (%d on the wire) for a %d-byte escaped diff: %.3f×", len(results), total, wire, escaped, ratio)
	if ratio > 1.15 {
		t.Errorf("the drain is %.3f× the escaped diff, over 1.15×", ratio)
	}
	if most := (escaped+6999)/7000 + 3; len(results) > most {
		t.Errorf("the drain takes %d calls, over %d", len(results), most)
	}
}

// get_diff with maxBytes 1 shows every changed line of a one-file diff: the
// least a part is given is raised to, and said; a line longer than that (a
// 79-byte one, a 600-byte one) comes whole all the same.
func TestMaxBytesOneShowsEveryLine(t *testing.T) {
	r := testrepo.New(t)
	var base strings.Builder
	for i := range 40 {
		fmt.Fprintf(&base, "line %d\n", i)
	}
	r.Write("a.txt", base.String())
	r.Commit("base")
	head := strings.Replace(base.String(), "line 3\n", "line 3 changed\n", 1)
	head = strings.Replace(head, "line 10\n", strings.Repeat("long ", 15)+"line of 79 bytes.....\n", 1)
	head = strings.Replace(head, "line 20\n", strings.Repeat("x", 600)+"\n", 1)
	head = strings.Replace(head, "line 30\n", "line 30 changed\n", 1)
	r.Git("checkout", "-q", "-b", "feature")
	r.Write("a.txt", head)
	r.Commit("seven changed lines")
	want := r.Git("diff", "-M", "main", "feature")
	if n := strings.Count(want, "\n+") + strings.Count(want, "\n-") - 2; n != 8 {
		t.Fatalf("fixture: %d changed lines", n)
	}
	h := serveAs(t, r, "an-unknown-client", nil)
	results := drainResults(t, h, "get_diff", args("base", "main", "head", "feature", "maxBytes", 1))
	var parts []string
	for _, res := range results {
		tx := textOf(res)
		if !strings.Contains(tx, "maxBytes 1 is less than a part needs: raised to") {
			t.Errorf("a part does not say maxBytes was raised:\n%s", tx)
		}
		if strings.Contains(tx, "left out") {
			t.Errorf("a part leaves a line out:\n%s", tx)
		}
		parts = append(parts, patchOf(tx))
	}
	checkJoined(t, parts, want)
}

// list_pull_request_files and get_pull_request say how many parts the
// whole diff takes at the client's budget, the same count, and it is the
// drain's exactly: counted by the pager's own cut (partcount.go), as every
// client, VS Code's UTF-16 units included.
func TestPullRequestFilesSayHowManyParts(t *testing.T) {
	r := clientsRepo(t)
	re := regexp.MustCompile(`the whole diff: (\d+) parts at this client's budget`)
	for _, name := range []string{"claude-code", "codex-mcp-client", "Visual Studio Code", "an-unknown-client"} {
		h := serveAs(t, r, name, nil, withMaxBytes(48_000))
		m := re.FindStringSubmatch(h.ok("list_pull_request_files", prArgs(5)))
		if m == nil {
			t.Fatalf("%s: list_pull_request_files does not say how many parts the whole diff takes", name)
		}
		// get_pull_request's first line ends with the count, or with it and
		// the offer of collapseRepeated (fold_offer.go).
		if first, _, _ := strings.Cut(h.ok("get_pull_request", prArgs(5)), "\n"); !strings.HasSuffix(first, m[0]) && !strings.Contains(first, m[0]+"; ") {
			t.Errorf("%s: get_pull_request's first line %q does not end with %q", name, first, m[0])
		}
		said, _ := strconv.Atoi(m[1])
		if got := len(drainResults(t, h, "get_pull_request_diff", prArgs(5))); said != got {
			t.Errorf("%s: said %d parts, the drain took %d", name, said, got)
		}
	}
}

// VS Code counts each text item of a result by itself, in UTF-16 units,
// where a newline, tab or quote is one unit (two bytes of JSON) and a CJK
// character one (three): a drain of a pull request full of them sends
// replies of up to --max-bytes in items of at most 8,192 units, each but a
// reply's last at least 90% full, joined git's diff; so it takes as many
// calls as a client with no limit of its own, not one per 8,192 units.
func TestVSCodeRepliesComeInFullItems(t *testing.T) {
	r := testrepo.New(t)
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "\t\"%d\"\t「日本語の行」\t\"引用\"\n", i)
	}
	r.Write("cjk.txt", b.String())
	r.Commit("base")
	r.Git("checkout", "-q", "-b", "pr")
	r.Write("cjk.txt", strings.ReplaceAll(b.String(), "引用", "変更"))
	r.Commit("the pull request")
	r.Git("update-ref", "refs/pull/5/head", "HEAD")
	r.Git("checkout", "-q", "main")
	want := asShown(r.Git("diff", "-M", "main", "refs/pull/5/head"))

	h := serveAs(t, r, "Visual Studio Code", nil)
	results := drainResults(t, h, "get_pull_request_diff", prArgs(5))
	var patches []string
	least, items := 8_192, 0
	for i, res := range results {
		texts := textParts(res)
		items += len(texts)
		for j, item := range texts {
			n := utf16Len(item)
			if n > 8_192 {
				t.Errorf("part %d, item %d: %d UTF-16 units, over VS Code's 8,192", i+1, j+1, n)
			}
			if j < len(texts)-1 {
				least = min(least, n)
				if n < 8_192*90/100 {
					t.Errorf("part %d, item %d: %d UTF-16 units, %.0f%% of VS Code's 8,192", i+1, j+1, n, 100*float64(n)/8_192)
				}
			}
		}
		if n := len(wireJSON(res, false)); n > 65_536 {
			t.Errorf("part %d: %d bytes on the wire, over --max-bytes", i+1, n)
		}
		patches = append(patches, patchOf(textOf(res)))
	}
	checkJoined(t, patches, want)
	claude := len(drainResults(t, serveAs(t, r, "claude-code", nil), "get_pull_request_diff", prArgs(5)))
	t.Logf("%d parts in %d items, the least full %d units (%.1f%%); claude-code takes %d parts", len(results), items, least, 100*float64(least)/8_192, claude)
	if len(results) > claude+1 {
		t.Errorf("%d parts, where a client with no limit of its own takes %d", len(results), claude)
	}
}
