package server

import (
	"bytes"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/testrepo"
)

// A commit with thousands of parents, or a message larger than a reply, is
// shown in parts like everything else; no reply of them is one the
// wrapper's backstop has to refuse (docs/security.md, finding 14).

// manyParentsRepo is a repository whose main is a commit with n parents:
// its first parent is main's old tip, which it changes f.txt against, and
// the others are n-1 commits of a side chain in no sorted order. The chain
// is made by one git fast-import, the merge written as a commit object by
// hand: a process per commit would take minutes.
func manyParentsRepo(t *testing.T, n int) (r *testrepo.Repo, sha string) {
	return manyParentsRepoWith(t, n, "an octopus of many parents\n")
}

// manyParentsRepoWith is manyParentsRepo with the merge's message msg.
func manyParentsRepoWith(t *testing.T, n int, msg string) (r *testrepo.Repo, sha string) {
	r = testrepo.New(t)
	r.Write("f.txt", "one\n")
	base := r.Commit("base")
	var chain strings.Builder
	for i := 1; i < n; i++ {
		side := fmt.Sprintf("side %d", i)
		fmt.Fprintf(&chain, "commit refs/heads/side\ncommitter A <a@x> 1700000000 +0000\ndata %d\n%s\n", len(side), side)
	}
	r.GitInput(chain.String(), "fast-import", "--quiet")
	side := strings.Fields(r.Git("rev-list", "--reverse", "refs/heads/side"))
	if len(side) != n-1 {
		t.Fatalf("the side chain has %d commits, want %d", len(side), n-1)
	}
	r.Write("f.txt", "two\n")
	r.Git("add", "f.txt")
	tree := strings.TrimSpace(r.Git("write-tree"))
	var obj strings.Builder
	fmt.Fprintf(&obj, "tree %s\nparent %s\n", tree, base)
	for i := range side {
		// 7919 is prime to any n here: every side commit once, shuffled.
		fmt.Fprintf(&obj, "parent %s\n", side[(i*7919)%len(side)])
	}
	obj.WriteString("author A <a@x> 1700000000 +0000\ncommitter A <a@x> 1700000000 +0000\n\n" + msg)
	sha = strings.TrimSpace(r.GitInput(obj.String(), "hash-object", "-t", "commit", "-w", "--stdin"))
	r.Git("update-ref", "refs/heads/main", sha)
	return r, sha
}

// gitParents is the commit's parents as git lists them, in order.
func gitParents(r *testrepo.Repo, sha string) []string {
	return strings.Fields(r.Git("rev-list", "--parents", "-n", "1", sha))[1:]
}

// withLog sends the server's log to buf.
func withLog(buf *bytes.Buffer) option {
	return func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
}

// noErrorLogged: nothing was logged at ERROR (the wrapper logs a reply it
// had to refuse as over the limit).
func noErrorLogged(t *testing.T, log *bytes.Buffer) {
	t.Helper()
	if strings.Contains(log.String(), "level=ERROR") {
		t.Fatalf("the server logged an error:\n%s", log.String())
	}
}

// commitParts is what get_commit's parts of one commit held, drained.
type commitParts struct {
	first          getCommitOut
	firstText      string
	parents        []string // listed, in the order the parts list them
	message        string   // the message's pieces, joined
	patches        []string // each patch part's patch
	parentTexts    []string // the text of the parts that list parents
	messageTexts   []string // the text of the parts that go on with the message
	messagePieces  []string
	structuredSeen bool
}

// drainCommit follows get_commit's next calls to the end.
func drainCommit(t *testing.T, h *harness, a map[string]any) commitParts {
	t.Helper()
	var cp commitParts
	for call := 0; ; call++ {
		if call > 2000 {
			t.Fatal("more than 2,000 parts")
		}
		res := h.call("get_commit", a)
		text := textOf(res)
		if res.IsError {
			t.Fatalf("get_commit(%v), part %d: %s", a, call, text)
		}
		var out getCommitOut
		if res.StructuredContent != nil {
			histDecode(t, res, &out)
			cp.structuredSeen = true
		}
		switch {
		case call == 0:
			cp.first, cp.firstText = out, text
			cp.parents = append(cp.parents, out.Parents...)
			if out.Message != nil {
				cp.message += *out.Message
				cp.messagePieces = append(cp.messagePieces, *out.Message)
			}
			if i := strings.Index(text, "\nPatch against "); i >= 0 && !strings.Contains(text[i:], "it starts in a later part") {
				if p := patchOf(text[i+1:]); p != "" {
					cp.patches = append(cp.patches, p)
				}
			}
		case strings.Contains(strings.SplitN(text, "\n", 2)[0], ", parents "):
			cp.parents = append(cp.parents, out.Parents...)
			cp.parentTexts = append(cp.parentTexts, text)
		case strings.Contains(strings.SplitN(text, "\n", 2)[0], ", message bytes "):
			if out.Message != nil {
				cp.message += *out.Message
				cp.messagePieces = append(cp.messagePieces, *out.Message)
			}
			cp.messageTexts = append(cp.messageTexts, text)
		default:
			if out.Message != nil || len(out.ChangedFiles) > 0 {
				t.Fatalf("patch part %d repeats the message or the files", call)
			}
			if p := patchOf(text); p != "" {
				cp.patches = append(cp.patches, p)
			}
		}
		next := nextOf(t, res)
		if next == nil {
			return cp
		}
		histCheckNextLine(t, "get_commit", text, next)
		a = next.Arguments
	}
}

// get_commit of a commit with 3,000 parents lists every parent once, in
// git's order, over its parts, and then its patch against the first
// parent; the text lists the same parents as the structured content.
func TestGetCommitListsThousandsOfParentsInParts(t *testing.T) {
	r, sha := manyParentsRepo(t, 3000)
	want := gitParents(r, sha)
	if len(want) != 3000 {
		t.Fatalf("git lists %d parents", len(want))
	}
	for _, c := range []struct {
		name string
		opts []option
	}{
		{"structured", nil},
		{"text only", []option{withTextOnly()}},
		{"small replies", []option{withMaxBytes(16 << 10)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var log bytes.Buffer
			h := serve(t, r, append(c.opts, withLog(&log))...)
			cp := drainCommit(t, h, args("ref", "main"))
			noErrorLogged(t, &log)
			checkJoined(t, cp.patches, r.Git("diff", "-M", want[0], sha))
			var listed []string
			firstLine := strings.SplitN(strings.SplitN(cp.firstText, "\nParents:   ", 2)[1], "\n", 2)[0]
			listed = append(listed, strings.Fields(strings.SplitN(firstLine, " (", 2)[0])...)
			for _, text := range cp.parentTexts {
				for _, line := range strings.Split(text, "\n")[1:] {
					if git40(line) {
						listed = append(listed, line)
					}
				}
			}
			if !slices.Equal(listed, want) {
				t.Fatalf("the texts list %d parents, not git's %d in git's order", len(listed), len(want))
			}
			if !strings.Contains(firstLine, "3000 parents") || len(cp.parentTexts) == 0 {
				t.Fatalf("the first part does not say how many parents there are, or no part goes on with them: %.300s", firstLine)
			}
			if cp.structuredSeen {
				if !slices.Equal(cp.parents, want) || cp.first.ParentCount != 3000 || !cp.first.IsMerge || cp.first.DiffBase != want[0] {
					t.Fatalf("structured: %d parents (count %d), merge %v, diffBase %s", len(cp.parents), cp.first.ParentCount, cp.first.IsMerge, cp.first.DiffBase)
				}
			}
		})
	}
}

// A commit with both, many parents and a large message: the parents go
// on first, then the message, then the patch.
func TestGetCommitParentsThenMessageThenPatch(t *testing.T) {
	msg := "both\n\n" + strings.Repeat("a line of a large message\n", 4000)
	r, sha := manyParentsRepoWith(t, 1000, msg)
	want := gitParents(r, sha)
	var log bytes.Buffer
	h := serve(t, r, withMaxBytes(16<<10), withLog(&log))
	cp := drainCommit(t, h, args("ref", sha))
	noErrorLogged(t, &log)
	if !slices.Equal(cp.parents, want) || cp.message != strings.TrimRight(msg, "\n") || len(cp.parentTexts) == 0 || len(cp.messageTexts) == 0 {
		t.Fatalf("%d parents of %d, message %d bytes of %d, %d parent parts, %d message parts", len(cp.parents), len(want), len(cp.message), len(msg)-1, len(cp.parentTexts), len(cp.messageTexts))
	}
	checkJoined(t, cp.patches, r.Git("diff", "-M", want[0], sha))
}

// At the smallest reply limit, the parts that list parents and go on with
// a message fit too (the harness checks each reply's size); the drains
// above use larger replies, for want of time.
func TestGetCommitStagesFitTheSmallestReplies(t *testing.T) {
	r, sha := manyParentsRepo(t, 300)
	r.Write("g.txt", "g\n")
	r.Git("add", "g.txt")
	r.GitInput("big\n\n"+strings.Repeat("a line of a message that is large\n", 400), "commit", "-q", "-F", "-")
	var log bytes.Buffer
	h := serve(t, r, withMaxBytes(MinMaxBytes), withLog(&log))
	for _, ref := range []string{sha, "HEAD"} {
		a := args("ref", ref)
		for part := 0; part < 4; part++ {
			res := h.call("get_commit", a)
			if res.IsError {
				t.Fatalf("%s, part %d: %s", ref, part, textOf(res))
			}
			next := nextOf(t, res)
			if next == nil {
				t.Fatalf("%s: only %d parts", ref, part+1)
			}
			a = next.Arguments
		}
	}
	noErrorLogged(t, &log)
}

// git40 tells a line that is a whole commit id.
func git40(s string) bool {
	return len(s) == 40 && strings.Trim(s, "0123456789abcdef") == ""
}

// A message larger than a reply goes on in parts: the pieces, joined,
// are git's message byte for byte, and each part's text shows its piece.
func TestGetCommitMessageGoesOnInParts(t *testing.T) {
	r := testrepo.New(t)
	r.Write("a.txt", "a\n")
	r.Commit("one")
	r.Write("a.txt", "b\n")
	r.Git("add", "a.txt")
	var body strings.Builder
	for i := 0; body.Len() < 300<<10; i++ {
		if i%500 == 499 {
			// a line longer than any part: cut inside it
			body.WriteString(strings.Repeat("é long line without end ", 4000) + "\n")
			continue
		}
		fmt.Fprintf(&body, "Body line %05d of a message far larger than a reply.\n", i)
	}
	r.GitInput("a huge message\n\n"+body.String(), "commit", "-q", "-F", "-")
	want := strings.TrimRight(r.Git("log", "-1", "--format=%B", "HEAD"), "\n")
	for _, c := range []struct {
		name string
		opts []option
	}{
		{"structured", nil},
		{"small replies", []option{withMaxBytes(16 << 10)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var log bytes.Buffer
			h := serve(t, r, append(c.opts, withLog(&log))...)
			cp := drainCommit(t, h, args("ref", "HEAD"))
			noErrorLogged(t, &log)
			if cp.message != want {
				t.Fatalf("the message's %d pieces join to %d bytes, not git's %d (equal prefix: %v)", len(cp.messagePieces), len(cp.message), len(want), strings.HasPrefix(want, cp.message))
			}
			if len(cp.messageTexts) == 0 || cp.first.MessageBytesLeftOut == 0 {
				t.Fatal("the message did not go on in a later part")
			}
			for i, text := range cp.messageTexts {
				piece := cp.messagePieces[i+1]
				for _, line := range strings.Split(strings.TrimSuffix(piece, "\n"), "\n") {
					if line != "" && !strings.Contains(text, "\n    "+line+"\n") {
						t.Fatalf("message part %d's text does not show its line %.80q", i+1, line)
					}
				}
			}
			checkJoined(t, cp.patches, r.Git("diff", "-M", "HEAD~1", "HEAD"))
		})
	}
}

// list_commits lists a commit of 3,000 parents, text and structured, with
// its parent count and the first of its parents, beside its neighbours.
func TestListCommitsShowsParentCount(t *testing.T) {
	r, sha := manyParentsRepo(t, 3000)
	want := gitParents(r, sha)
	for _, c := range []struct {
		name string
		opts []option
	}{
		{"structured", nil},
		{"text only", []option{withTextOnly()}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var log bytes.Buffer
			h := serve(t, r, append(c.opts, withLog(&log))...)
			res := h.call("list_commits", args("limit", 3))
			text := textOf(res)
			noErrorLogged(t, &log)
			if res.IsError || !strings.Contains(text, "\n"+sha[:12]+" ") || !strings.Contains(text, "(merge of 3000 parents, 1 file against its first parent)") {
				t.Fatalf("list_commits:\n%.2000s", text)
			}
			if h.server.cfg.Structured {
				var out listCommitsOut
				histDecode(t, res, &out)
				if len(out.Commits) != 3 {
					t.Fatalf("%d commits listed, want 3", len(out.Commits))
				}
				e := out.Commits[0]
				if e.SHA != sha || e.ParentCount != 3000 || !e.IsMerge || len(e.Parents) == 0 || !slices.Equal(e.Parents, want[:len(e.Parents)]) || len(e.Parents) == 3000 {
					t.Fatalf("entry: sha %s, %d parents listed of %d", e.SHA, len(e.Parents), e.ParentCount)
				}
				for _, p := range out.Commits[1:] {
					if p.ParentCount != len(p.Parents) || p.ParentCount > 1 {
						t.Fatalf("a plain commit: %d parents listed, count %d", len(p.Parents), p.ParentCount)
					}
				}
			}
		})
	}
}
