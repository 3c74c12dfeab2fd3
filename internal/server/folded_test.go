package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/fold"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// joinFolded puts a folded diff's parts back together by the joining rule
// (docs/contracts.md): after each part's first line, the folded text's own
// lines (a marker line dropped, the piece after it joined to the next
// without its line feed when the marker says it goes on, notes dropped);
// between fold.Separator and fold.SitesSeparator, the rest's parts joined
// as any diff's (diff.Join).
func joinFolded(t *testing.T, parts []string) []byte {
	t.Helper()
	var own strings.Builder // the patterns, then the sites
	var rest [][]byte
	zone := zoneHead
	piece, goesOn := false, false
	for _, part := range parts {
		_, body, _ := strings.Cut(part, "\n")
		var restText strings.Builder
		for _, l := range strings.SplitAfter(body, "\n") {
			switch {
			case zone == zoneRest && l == fold.SitesSeparator:
				own.WriteString(l)
				zone = zoneTail
			case zone == zoneRest:
				restText.WriteString(l)
			case piece:
				if goesOn {
					l = strings.TrimSuffix(l, "\n")
				}
				own.WriteString(l)
				piece = false
			case strings.HasPrefix(l, text.PieceOpener):
				piece, goesOn = true, strings.HasSuffix(l, text.PieceMore)
			case strings.HasPrefix(l, "["), l == "":
			default:
				own.WriteString(l)
				if l == fold.Separator {
					zone = zoneRest
				}
			}
		}
		if p := patchOf("x\n" + restText.String()); p != "" {
			rest = append(rest, []byte(p))
		}
	}
	if zone != zoneTail {
		t.Fatalf("the parts end before the sites")
	}
	joined, err := diff.Join(rest...)
	if err != nil {
		t.Fatal(err)
	}
	patterns, sites, _ := strings.Cut(own.String(), fold.Separator)
	return []byte(patterns + fold.Separator + string(joined) + sites)
}

// checkRebuilds: the folded text the parts join into rebuilds git's patch
// (fold.Normalize of it).
func checkRebuilds(t *testing.T, parts []string, patch string) []byte {
	t.Helper()
	folded := joinFolded(t, parts)
	got, err := fold.Rebuild(folded)
	if err != nil {
		t.Fatalf("rebuilding the joined parts: %v\n%.2000s", err, folded)
	}
	want, err := fold.Normalize([]byte(patch))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the %d parts rebuild %d bytes, not git's %d", len(parts), len(got), len(want))
	}
	return folded
}

// renameIn300 is a substitution in 300 files, one of which also changes
// another line: the change a review must not miss.
func renameIn300(t *testing.T) (r *testrepo.Repo, base, head string) {
	r = testrepo.New(t)
	body := func(name string) string {
		var b strings.Builder
		for i := range 12 {
			fmt.Fprintf(&b, "int %s_%d(int argc, const char **argv)\n{\n\treturn run(argc, argv + 1);\n}\n", name, i)
		}
		return b.String()
	}
	for i := range 300 {
		r.Write(fmt.Sprintf("src/f%03d.c", i), body(fmt.Sprintf("f%d", i)))
	}
	base = r.Commit("base")
	for i := range 300 {
		s := strings.ReplaceAll(body(fmt.Sprintf("f%d", i)), "const char **argv)", "const char **argv, struct repository *repo)")
		if i == 217 {
			s = strings.Replace(s, "return run(argc, argv + 1);", "return run(argc, argv);", 1)
		}
		r.Write(fmt.Sprintf("src/f%03d.c", i), s)
	}
	return r, base, r.Commit("head")
}

// A substitution in 300 files folds to its pattern, and the one line that
// breaks it is in the first part, in full, at every budget; the parts
// rebuild git's patch.
func TestFoldedDiffShowsTheOddLineFirst(t *testing.T) {
	r, base, head := renameIn300(t)
	patch := r.Git("diff", "-M", base, head)
	for _, max := range []int{8000, 12000, 65536} {
		h := serve(t, r, withMaxBytes(max), withTextOnly())
		res := drainResults(t, h, "get_diff", args("base", base, "head", head, "collapseRepeated", true))
		parts := make([]string, len(res))
		for i, p := range res {
			parts[i] = textOf(p)
		}
		if !strings.Contains(parts[0], "-\treturn run(argc, argv + 1);\n+\treturn run(argc, argv);\n") {
			t.Fatalf("max %d: the odd line is not in the first part in full:\n%s", max, parts[0])
		}
		if !strings.Contains(parts[0], "7200 of 7202 changed lines follow 1 pattern") {
			t.Fatalf("max %d: the first part does not count the pattern's lines:\n%.600s", max, parts[0])
		}
		folded := checkRebuilds(t, parts, patch)
		if len(folded)*2 > len(patch) {
			t.Errorf("max %d: folded %d bytes of a %d-byte patch", max, len(folded), len(patch))
		}
		plain := drainResults(t, h, "get_diff", args("base", base, "head", head))
		if len(res)*2 > len(plain) {
			t.Errorf("max %d: %d folded parts against %d plain", max, len(res), len(plain))
		}
	}
}

// A site's new line longer than a part comes in pieces, and a hidden file
// that repeats the edit is neither a site nor in the rest: the reply names
// it as the plain diff does.
func TestFoldedDiffPiecesAndHiddenFiles(t *testing.T) {
	r := testrepo.New(t)
	long := strings.Repeat("é€😀x[", 20_000/11)
	for i := range 4 {
		r.Write(fmt.Sprintf("f%d.txt", i), "a "+long+" old\nkeep\n")
	}
	r.Write(".env", "a "+long+" old\nSECRET=1\n")
	base := r.Commit("base")
	for i := range 4 {
		r.Write(fmt.Sprintf("f%d.txt", i), "a "+long+" new\nkeep\n")
	}
	r.Write(".env", "a "+long+" new\nSECRET=2\n")
	head := r.Commit("head")
	h := serve(t, r, withMaxBytes(8000), withTextOnly())
	res := drainResults(t, h, "get_diff", args("base", base, "head", head, "collapseRepeated", true))
	parts := make([]string, len(res))
	all := ""
	for i, p := range res {
		parts[i] = textOf(p)
		all += parts[i]
	}
	if strings.Contains(all, "SECRET") {
		t.Fatal("a hidden file's lines are in the reply")
	}
	if !strings.Contains(all, ".env") {
		t.Fatal("the hidden file is not named")
	}
	if !strings.Contains(all, text.PieceOpener) {
		t.Fatal("no line came in pieces")
	}
	visible := r.Git("diff", "-M", base, head, "--", ".", ":!.env")
	folded := joinFolded(t, parts)
	got, err := fold.Rebuild(folded)
	if err != nil {
		t.Fatal(err)
	}
	// The hidden file's section is its header lines only.
	want, _ := fold.Normalize([]byte(visible))
	if !bytes.Contains(got, want[:100]) || !bytes.Contains(folded, []byte("#1 4 lines edited: `old` → `new`")) {
		t.Fatalf("the folded text does not show the four visible sites:\n%.1000s", folded)
	}
}

// Each diff tool folds: get_commit after its commit, get_pull_request_diff
// as get_diff; a cursor is bound to collapseRepeated.
func TestEveryDiffToolFolds(t *testing.T) {
	r, base, head := renameIn300(t)
	r.Git("update-ref", "refs/pull/7/head", head)
	r.Git("update-ref", "refs/heads/main", base)
	patch := r.Git("diff", "-M", base, head)
	h := serve(t, r, withMaxBytes(12000), withTextOnly())
	for _, c := range []struct {
		tool string
		a    map[string]any
	}{
		{"get_commit", args("ref", head, "collapseRepeated", true)},
		{"get_pull_request_diff", args("index", 7, "collapseRepeated", true)},
	} {
		res := drainResults(t, h, c.tool, c.a)
		parts := make([]string, len(res))
		for i, p := range res {
			parts[i] = textOf(p)
		}
		if c.tool == "get_commit" {
			_, parts[0], _ = strings.Cut(parts[0], "\nPatch against ")
		}
		checkRebuilds(t, parts, patch)
	}
	first := h.call("get_diff", args("base", base, "head", head, "collapseRepeated", true))
	next := nextOf(t, first)
	h.fails("get_diff", args("base", base, "head", head, "cursor", next.Arguments["cursor"]), "INVALID_ARGUMENT")
}

// A pull request whose changed lines mostly follow patterns says so in
// get_pull_request's first line and in its whole diff's first part, with
// both counts, each the parts a drain takes; one that does not, says
// nothing of it.
func TestFoldOfferSaysBothCounts(t *testing.T) {
	r, base, head := renameIn300(t)
	r.Git("update-ref", "refs/pull/7/head", head)
	r.Git("reset", "-q", "--hard", base)
	for i := range 40 {
		r.Write(fmt.Sprintf("p/%d.txt", i), strings.Repeat(fmt.Sprintf("unique line %d %d\n", i, i*7), 30))
	}
	r.Git("update-ref", "refs/pull/8/head", r.Commit("no pattern"))
	r.Git("reset", "-q", "--hard", base)
	h := serve(t, r, withMaxBytes(8000), withTextOnly())
	plain := len(drainResults(t, h, "get_pull_request_diff", args("index", 7)))
	folded := len(drainResults(t, h, "get_pull_request_diff", args("index", 7, "collapseRepeated", true)))
	if folded >= plain {
		t.Fatalf("folded %d parts, plain %d", folded, plain)
	}
	want := fmt.Sprintf("7200 of its 7202 changed lines follow 1 pattern: collapseRepeated reads it in %d parts", folded)
	if got := h.ok("get_pull_request", args("index", 7)); !strings.Contains(strings.SplitN(got, "\n", 2)[0], want) {
		t.Fatalf("get_pull_request's first line does not say %q:\n%.600s", want, got)
	}
	note := fmt.Sprintf("[note: 7200 of 7202 changed lines follow 1 pattern: collapseRepeated reads this diff in %d parts instead of %d]", folded, plain)
	if got := h.ok("get_pull_request_diff", args("index", 7)); !strings.Contains(got, note) {
		t.Fatalf("the first part does not say %q", note)
	}
	for _, tool := range []string{"get_pull_request", "get_pull_request_diff"} {
		if got := h.ok(tool, args("index", 8)); strings.Contains(got, "collapseRepeated") {
			t.Fatalf("%s offers collapseRepeated for a diff without patterns:\n%.600s", tool, got)
		}
	}
}

// With --structured, each part's folded holds its share of the folded
// diff, which join as the texts do.
func TestFoldedStructured(t *testing.T) {
	r, base, head := renameIn300(t)
	h := serve(t, r, withMaxBytes(12000), withStructured())
	var parts []string
	for _, res := range drainResults(t, h, "get_diff", args("base", base, "head", head, "collapseRepeated", true)) {
		var out getDiffOut
		data, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(data, &out); err != nil || out.Folded == nil || len(out.Files) != 0 {
			t.Fatalf("a part's structured content: %s (%v)", data, err)
		}
		parts = append(parts, "header\n"+*out.Folded)
	}
	checkRebuilds(t, parts, r.Git("diff", "-M", base, head))
}

// A patch longer than a fold holds is TOO_LARGE with what to do instead,
// and is not offered folded.
func TestFoldTooLarge(t *testing.T) {
	r := testrepo.New(t)
	var a, b strings.Builder
	for i := range maxFoldedPatch / 30 {
		fmt.Fprintf(&a, "line %d of a large file\n", i)
		fmt.Fprintf(&b, "LINE %d of a large file\n", i)
	}
	r.Write("big.txt", a.String())
	base := r.Commit("base")
	r.Write("big.txt", b.String())
	head := r.Commit("head")
	r.Git("update-ref", "refs/pull/3/head", head)
	r.Git("reset", "-q", "--hard", base)
	h := serve(t, r, withMaxBytes(65536), withTextOnly())
	msg := h.fails("get_diff", args("base", base, "head", head, "collapseRepeated", true), "TOO_LARGE")
	if !strings.Contains(msg, "leave collapseRepeated out") || !strings.Contains(msg, "paths") {
		t.Fatalf("the error does not say what to do: %s", msg)
	}
	if got := h.ok("get_pull_request", args("index", 3)); strings.Contains(got, "collapseRepeated") {
		t.Fatalf("a patch too large to fold is offered folded:\n%.500s", got)
	}
}

// The framing rule holds in a folded diff: a site's new line and a
// pattern's text hold copies of our lines after every character a reader
// may not see or may take for a line break, and none reaches the start of
// a line; the parts still rebuild git's patch once the marks are taken
// off by the framed notes' rule.
func TestFramingRuleFolded(t *testing.T) {
	copies, lines := ourCopies(), hostileLines()
	r := testrepo.New(t)
	var before, after strings.Builder
	for _, l := range lines {
		before.WriteString("v = old; " + l + "\n")
		after.WriteString("v = new; " + l + "\n")
	}
	r.Write("hostile.c", before.String())
	for i := range 3 {
		r.Write(fmt.Sprintf("f%d.c", i), "keep\n")
	}
	base := r.Commit("base")
	r.Write("hostile.c", after.String())
	for i := range 3 { // the hostile lines added whole, three times: patterns of their own
		r.Write(fmt.Sprintf("f%d.c", i), "keep\n"+strings.Join(lines[:40], "\n")+"\n")
	}
	head := r.Commit("head")
	for _, max := range []int{8000, 4 << 20} {
		h := serve(t, r, withMaxBytes(max), withTextOnly())
		a := args("base", base, "head", head, "collapseRepeated", true)
		if first := h.ok("get_diff", a); !strings.Contains(first, fmt.Sprintf("#1 %d lines edited: `old` → `new`", len(lines))) || !strings.Contains(first, "[framed: ") {
			t.Fatalf("max %d: the edit is not one pattern, or no line is framed:\n%.3000s", max, first)
		}
		framedCall(t, h, "get_diff", a, copiesFor("get_diff", copies))
	}
}

// Every client's rule holds for a folded diff's parts, and each client's
// drain rebuilds git's patch: VS Code's items, Codex's 12,000 bytes,
// Claude Code's declared size.
func TestFoldedDiffFitsEveryClient(t *testing.T) {
	r, base, head := renameIn300(t)
	patch := r.Git("diff", "-M", base, head)
	for _, rule := range clientRules {
		h := serveAs(t, r, rule.name, nil, withTextOnly())
		declared := declaredSizes(t, h)["get_diff"]
		res := drainResults(t, h, "get_diff", args("base", base, "head", head, "collapseRepeated", true))
		parts := make([]string, len(res))
		for i, p := range res {
			if cut := rule.cuts(p, declared); cut != "" {
				t.Errorf("%s, part %d of %d: %s", rule.name, i+1, len(res), cut)
			}
			parts[i] = textOf(p)
		}
		checkRebuilds(t, parts, patch)
	}
}
