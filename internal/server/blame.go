package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/argcheck"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// maxBlameLines is the most lines one blame call blames: a longer range
// comes in pages, each a git blame of its own lines only.
const maxBlameLines = 500

type blameIn struct {
	Owner     string `json:"owner,omitempty"`
	Repo      string `json:"repo,omitempty"`
	Path      string `json:"path"`
	Ref       string `json:"ref,omitempty" jsonschema:"commit, branch, tag or refs/pull/N/head; omit for HEAD"`
	StartLine int    `json:"start_line,omitempty"`
	EndLine   int    `json:"end_line,omitempty" jsonschema:"last line (inclusive)"`
	paging.ReplyLimit
}

type blameLineOut struct {
	Line      int    `json:"line" jsonschema:"its number in the file at ref"`
	Commit    string `json:"commit" jsonschema:"the commit that last changed it, a full SHA"`
	OrigLine  int    `json:"origLine" jsonschema:"its number in the file as that commit left it"`
	OrigPath  string `json:"origPath,omitempty" jsonschema:"the file's path in that commit, when it differs from path (a rename)"`
	Text      string `json:"text" jsonschema:"the line (over 500 bytes cut, with a marker)"`
	Truncated bool   `json:"truncated,omitempty" jsonschema:"true when text was cut"`
}

type blameCommitOut struct {
	SHA     string      `json:"sha"`
	Author  blamePerson `json:"author"`
	Summary string      `json:"summary" jsonschema:"the first line of its message"`
}

type blamePerson struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Date  string `json:"date" jsonschema:"RFC 3339, in the commit's own time zone"`
}

type blameOut struct {
	Path       string           `json:"path"`
	Ref        string           `json:"ref" jsonschema:"the commit blamed, a full SHA"`
	StartLine  int              `json:"startLine"`
	EndLine    int              `json:"endLine" jsonschema:"the last line of this reply"`
	TotalLines int              `json:"totalLines" jsonschema:"lines in the file at ref"`
	Lines      []blameLineOut   `json:"lines"`
	Commits    []blameCommitOut `json:"commits" jsonschema:"each commit of lines once, in the order of its first line"`
	paging.Paged
}

// blameTool is blame's definition (registry.go).
var blameTool = defineTool(toolSpec{
	Name:  "blame",
	Title: "Blame lines",
	Description: "Blame lines start_line..end_line of a file at ref: each line's last commit, line there, author, date, summary; 500 lines a call. " +
		"list_commits: a file's history; get_commit: a commit's patch." + partialNext,
	Tune: func(in *jsonschema.Schema) {
		argcheck.SetInt(in, "start_line", 1, 1, 1<<31-1)
		argcheck.SetInt(in, "end_line", 0, 1, 1<<31-1)
	},
}, (*Server).blame)

// blame reads in.Path as given or, when no file has that name, as a
// rename line of a file list (orRenameLine).
func (s *Server) blame(ctx context.Context, in blameIn) (reply[blameOut], error) {
	return orRenameLine(ctx, "path", in.Path, func(path string) (reply[blameOut], error) {
		in.Path = path
		return s.blamePath(ctx, in)
	})
}

func (s *Server) blamePath(ctx context.Context, in blameIn) (reply[blameOut], error) {
	path, err := s.cfg.Policy.Check(in.Path)
	if err != nil {
		return reply[blameOut]{}, err
	}
	if path == "" {
		return reply[blameOut]{}, errcode.New(errcode.InvalidArgument, "path is empty: give the path of a file")
	}
	r, err := s.served.Get(ctx, in.Owner, in.Repo, false)
	if err != nil {
		return reply[blameOut]{}, err
	}
	commit, err := r.ResolveCommit(ctx, in.Ref)
	if err != nil {
		return reply[blameOut]{}, err
	}
	// The file's line count, for the range's checks and the header: a
	// count kept by blob id, or one reading of the blob (which also tells a
	// directory, a submodule or a missing path from a file).
	total, binary := 0, false
	err = r.ReadAt(ctx, commit, in.Ref, path, func(blob git.Object, body io.Reader) error {
		var err error
		total, binary, err = s.lines.Count(blob, body)
		return err
	})
	if err != nil {
		return reply[blameOut]{}, err
	}
	if binary {
		return reply[blameOut]{}, errcode.New(errcode.InvalidArgument, "%q is a binary file at %s: it has no lines to blame", path, repo.DescribeRef(in.Ref, commit))
	}
	if total == 0 {
		return reply[blameOut]{}, errcode.New(errcode.InvalidArgument, "%q is empty at %s: it has no lines to blame", path, repo.DescribeRef(in.Ref, commit))
	}
	start, end := in.StartLine, in.EndLine
	if end != 0 && end < start {
		return reply[blameOut]{}, errcode.New(errcode.InvalidArgument, "end_line %d is before start_line %d (%q has %s): end_line must be at least start_line, or left out to blame to the end", end, start, path, lineCount(total))
	}
	if start > total {
		return reply[blameOut]{}, pastTheEnd(path, "start_line", start, total)
	}
	if end == 0 || end > total {
		end = total
	}
	last := min(end, start+maxBlameLines-1)
	lines, commits, err := r.Git.Blame(ctx, commit, path, start, last)
	var rangeErr *git.BlameRangeError
	switch {
	case errors.As(err, &rangeErr):
		// The blob was counted above; git disagreeing means the count is
		// stale or the file odd: say what git says.
		return reply[blameOut]{}, pastTheEnd(path, "start_line", start, rangeErr.Lines)
	case errors.Is(err, git.ErrMissing):
		return reply[blameOut]{}, r.ExplainMissing(ctx, commit, in.Ref, path)
	case err != nil:
		return reply[blameOut]{}, err
	}
	if len(lines) == 0 {
		return reply[blameOut]{}, pastTheEnd(path, "start_line", start, total)
	}

	byID := make(map[string]git.BlameCommit, len(commits))
	for _, c := range commits {
		byID[c.SHA] = c
	}
	outLines := make([]blameLineOut, len(lines))
	badUTF8 := make([]bool, len(lines))
	for i, l := range lines {
		o := blameLineOut{Line: l.Line, Commit: l.SHA, OrigLine: l.OrigLine, Text: l.Text}
		if l.Path != "" && l.Path != path {
			o.OrigPath = l.Path
		}
		if !utf8.ValidString(o.Text) {
			badUTF8[i] = true
			o.Text = strings.ToValidUTF8(o.Text, "\uFFFD")
		}
		if cut := text.CutLine([]byte(o.Text), l.Truncated); cut != o.Text {
			o.Text, o.Truncated = cut, true
		}
		outLines[i] = o
	}
	render := func(n int) reply[blameOut] {
		shown := outLines[:n]
		out := blameOut{Path: path, Ref: commit, StartLine: start, EndLine: start + n - 1, TotalLines: total, Lines: shown, Commits: []blameCommitOut{}}
		seen := map[string]bool{}
		renamed := map[string][]string{}
		for _, l := range shown {
			if l.OrigPath != "" && !slices.Contains(renamed[l.Commit], l.OrigPath) {
				renamed[l.Commit] = append(renamed[l.Commit], l.OrigPath)
			}
			if seen[l.Commit] {
				continue
			}
			seen[l.Commit] = true
			c := byID[l.Commit]
			// Capped as list_commits caps them, so that a line with its
			// commit always fits a reply.
			out.Commits = append(out.Commits, blameCommitOut{SHA: c.SHA, Summary: histCap(c.Summary, histMaxSubject),
				Author: blamePerson{Name: histCap(c.Author.Name, histMaxPerson), Email: histCap(c.Author.Email, histMaxPerson), Date: rfc3339(c.Author.Date)}})
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s at %s: blame of %s, ", r.FullName(), atCommit(commit, in.Ref, ""), text.Name(path))
		if n == 0 {
			fmt.Fprintf(&b, "no line of %d–%d fits in one reply", start, end)
		} else {
			fmt.Fprintf(&b, "lines %d–%d of %d", start, out.EndLine, total)
		}
		fmt.Fprintf(&b, ", %s; each line: its number, the commit that last changed it, its number there, its text\n", text.Count(len(out.Commits), "commit"))
		lw, ow := len(strconv.Itoa(out.EndLine)), 1
		for _, l := range shown {
			ow = max(ow, len(strconv.Itoa(l.OrigLine)))
		}
		bad := 0
		var framed text.Framed
		for i, l := range shown {
			// The line's text after a CR or a line separator could start
			// a line for a reader: framed (text.Frame).
			line := fmt.Sprintf("%*d %s %*d  %s", lw, l.Line, git.Short(l.Commit), ow, l.OrigLine, l.Text)
			if f := text.Frame(line); f != line {
				framed.Add(l.Line)
				line = f
			}
			b.WriteString(line + "\n")
			if badUTF8[i] {
				bad++
			}
		}
		if len(out.Commits) > 0 {
			b.WriteString("commits:\n")
		}
		for _, c := range out.Commits {
			date := "no date"
			if !byID[c.SHA].Author.Date.IsZero() {
				date = byID[c.SHA].Author.Date.Format(time.DateOnly)
			}
			fmt.Fprintf(&b, "%s %s %s: %s", git.Short(c.SHA), date, text.Line(c.Author.Name), text.Line(c.Summary))
			if p := renamed[c.SHA]; len(p) > 0 {
				fmt.Fprintf(&b, " (file then at %s)", strings.Join(text.NoteNames(p), ", "))
			}
			b.WriteString("\n")
		}
		if bad > 0 {
			fmt.Fprintf(&b, "[not UTF-8: bytes shown as U+FFFD in %s]\n", text.Count(bad, "line"))
		}
		if hidden := blameHidden(shown); hidden.Found() {
			b.WriteString("[" + text.HiddenNote(text.Name(path), hidden, text.Hidden{}, false) + "]\n")
		}
		b.WriteString(text.FramedNoteLine(text.Name(path), "", framed))
		rep := reply[blameOut]{Text: b.String(), Out: out}
		if next := start + n; next <= end {
			nextIn := in
			nextIn.StartLine, nextIn.Ref = next, commit
			rep.Next = paging.Continue("blame", nextIn)
		}
		return rep
	}
	rep := paging.FitList(s.budget(ctx), len(outLines), render)
	if len(rep.Out.Lines) == 0 {
		return reply[blameOut]{}, errcode.New(errcode.TooLarge, "line %d of %q with its commit does not fit in one reply (%d bytes)", start, path, s.budget(ctx).MaxBytes)
	}
	return rep, nil
}

// rfc3339 is a date as RFC 3339, "" when git could not read it.
func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339)
}

// atCommit says which commit a reply is at: its short SHA, and the ref
// it was asked by (HEAD when none, with what that leaves out), unless that
// was the SHA itself.
func atCommit(commit, ref, headNote string) string {
	switch {
	case ref == "" && headNote != "":
		return git.Short(commit) + " (HEAD, " + headNote + ")"
	case ref == "":
		return git.Short(commit) + " (HEAD)"
	case ref == commit:
		return git.Short(commit)
	}
	return git.Short(commit) + " (" + text.Name(ref) + ")"
}

// blameHidden finds the hidden characters of the lines shown.
func blameHidden(lines []blameLineOut) text.Hidden {
	var h text.Hidden
	for _, l := range lines {
		h.Add(l.Line, []byte(l.Text), l.Line == 1)
	}
	return h
}
