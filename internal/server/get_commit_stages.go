package server

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/repo"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

// get_commit before its patch: the parts that go on with a commit's
// parents and message when the first part cannot hold them, and how a
// message is shown.

// commitStage makes the parts of get_commit that come before its patch
// when the first part cannot hold all of a commit's parents or its
// message: parts that go on with the parents, then with the message. A
// cursor says which part is next: Parent, the index of the next parent to
// list; Message, the byte offset where the message goes on (0 for each
// when none); Files, the files the patch holds, counted for the first part.
type commitStage struct {
	s      *Server
	b      paging.Budget // the call's
	in     getCommitIn
	digest string
	r      *repo.Repository
	c      git.Commit
	out    getCommitOut // what every part says of the commit
	cur    paging.Cursor
	place  partPlace // the part's
}

// noPatchLine ends the text of get_commit's last part with patch=false.
const noPatchLine = "The patch is left out (patch=false).\n"

// next is the call of the part after one that ends with parent parent
// and message offset message still to show (0 for none): nil when that is
// the patch and patch=false leaves it out.
func (st commitStage) next(parent, message, files int) *paging.Call {
	const tool = "get_commit"
	if parent == 0 && message == 0 && !st.in.withPatch() {
		return nil
	}
	cur := paging.Cursor{Tool: tool, Args: st.digest, Commits: []string{st.c.SHA}, Parent: parent, Message: message, Files: files}
	st.place.carry(&cur)
	return paging.Continue(tool, getCommitWithCursor(st.in, st.s.cursors.Encode(cur, st.r.FullName())))
}

// firstBeforePatch is the first part of a commit whose parents or message
// go on in the next parts: its patch starts after them.
func (st commitStage) firstBeforePatch(preamble, against string, out getCommitOut, total int) reply[getCommitOut] {
	out.TotalFiles, out.Truncated = total, true
	var parent, message int
	var rest []string
	if len(out.Parents) < len(st.c.Parents) {
		parent = len(out.Parents)
		rest = append(rest, "parents")
	}
	if out.MessageBytesLeftOut > 0 {
		message = len(*out.Message)
		rest = append(rest, "message")
	}
	text := preamble + fmt.Sprintf("Patch against %s: %s; it starts in a later part, after the rest of the %s (this is %s).\n", against, text.Count(total, "file"), strings.Join(rest, " and of the "), st.place)
	if !st.in.withPatch() {
		text = preamble + fmt.Sprintf("The rest of the %s goes on in the next part (this is %s); the patch is left out (patch=false).\n", strings.Join(rest, " and of the "), st.place)
	}
	return reply[getCommitOut]{Text: text, Out: out, Next: st.next(parent, message, total)}
}

// parentsPart goes on with the parents from the cursor's Parent: as many
// as fit, one a line.
func (st commitStage) parentsPart() (reply[getCommitOut], error) {
	from, all := st.cur.Parent, st.c.Parents
	if from >= len(all) {
		return reply[getCommitOut]{}, paging.ErrCursor("is damaged or was edited")
	}
	out := st.out
	out.Truncated, out.TotalFiles, out.ParentOffset = true, st.cur.Files, from
	render := func(n int) reply[getCommitOut] {
		out.Parents = all[from : from+n]
		var b strings.Builder
		fmt.Fprintf(&b, "%s: commit %s, parents %d–%d of %d (in git's order; the patch is against the first); %s:\n", st.r.FullName(), git.Short(st.c.SHA), from+1, from+n, len(all), st.place)
		for _, p := range out.Parents {
			b.WriteString(p + "\n")
		}
		next := st.next(0, st.cur.Message, st.cur.Files)
		if from+n < len(all) {
			next = st.next(from+n, st.cur.Message, st.cur.Files)
		}
		if out.Truncated = next != nil; next == nil {
			b.WriteString(noPatchLine)
		}
		return reply[getCommitOut]{Text: b.String(), Out: out, Next: next}
	}
	res := paging.FitList(st.b, len(all)-from, render)
	if len(res.Out.Parents) == 0 {
		return reply[getCommitOut]{}, errcode.New(errcode.TooLarge, "commit %s's parent %d does not fit in one reply of %d bytes; %s", git.Short(st.c.SHA), from+1, st.b.MaxBytes, paging.NoNarrowing)
	}
	return res, nil
}

// messagePart goes on with the message from the cursor's Message: as much
// of it as fits.
func (st commitStage) messagePart() (reply[getCommitOut], error) {
	msg, from := histMessage(st.c), st.cur.Message
	if from >= len(msg) || !utf8.RuneStart(msg[from]) {
		return reply[getCommitOut]{}, paging.ErrCursor("is damaged or was edited")
	}
	out := st.out
	out.Truncated, out.TotalFiles, out.MessageOffset = true, st.cur.Files, from
	render := func(piece string, left int) reply[getCommitOut] {
		out.Message, out.MessageBytesLeftOut = &piece, left
		line := strings.Count(msg[:from], "\n") + 1
		out.MessageHidden = histHidden(piece, line)
		header := fmt.Sprintf("%s: commit %s, message bytes %d–%d of %d; %s:\n", st.r.FullName(), git.Short(st.c.SHA), from+1, from+len(piece), len(msg), st.place)
		next := st.next(0, 0, st.cur.Files)
		if left > 0 {
			next = st.next(0, from+len(piece), st.cur.Files)
		}
		end := ""
		if out.Truncated = next != nil; next == nil {
			end = noPatchLine
		}
		return reply[getCommitOut]{Text: header + histMessageText(piece, left) + histHiddenNote(piece, line) + end, Out: out, Next: next}
	}
	probe := render("", 0)
	probe.Text += strings.Repeat("x", 300+len(st.r.FullName()))
	room := st.b.PayloadRoom(probe)
	for attempt := 0; ; attempt++ {
		res := render(paging.CutText(msg[from:], room, indentedCost(st.b)))
		if over := st.b.ReplySize(res) - st.b.MaxBytes; over > 0 && attempt < 3 {
			room -= over
			continue
		}
		return res, nil
	}
}

// withPatch: the call asks for the patch (patch left out or true).
func (in getCommitIn) withPatch() bool { return in.Patch == nil || *in.Patch }

func getCommitWithCursor(in getCommitIn, c string) getCommitIn {
	in.Cursor = c
	return in
}

// histMessage is the message as git log gives it: the subject (the first
// paragraph on one line), a blank line and the body.
func histMessage(c git.Commit) string {
	body := strings.TrimRight(c.Body, "\n")
	if body == "" {
		return c.Subject
	}
	return c.Subject + "\n\n" + body
}

// histIndent indents a message's lines as git show does; the subject, its
// first line, is written as every one-line field is (text.Line), the body
// as it is but for a line that reads as one of ours, headers included: the
// replies it is in write headers (text.WithHeaders).
func histIndent(m string) string {
	var b strings.Builder
	for i, line := range strings.Split(m, "\n") {
		if i == 0 {
			line = text.LineFramed(line)
		} else {
			line = text.WithHeaders.Frame(line)
		}
		if line != "" {
			b.WriteString("    " + line)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// histHidden is the hidden characters of a piece of a message whose first
// line is the message's line first; nil when there are none.
func histHidden(piece string, first int) *text.HiddenChars {
	return text.NewHiddenChars(text.ScanText([]byte(piece), first), text.Hidden{})
}

// histHiddenNote is the note that names them, and the note of its framed
// lines, or "".
func histHiddenNote(piece string, first int) string {
	framed := framedNote("the message", histIndent(piece), first)
	h := text.ScanText([]byte(piece), first)
	if !h.Found() {
		return framed
	}
	return "[" + text.HiddenNote("the message", h, text.Hidden{}, false) + "]\n" + framed
}

// indentedCost is what a piece of a message takes in a reply of budget b:
// indented (histIndent), by b's Cost.
func indentedCost(b paging.Budget) func(string) int {
	return func(piece string) int { return b.Len(histIndent(piece)) }
}

// histMessageText is a piece of a message as the text shows it: indented,
// and when the message goes on in the next part, said so, and whether it
// goes on from the start of a line or inside one.
func histMessageText(piece string, left int) string {
	switch {
	case left == 0:
		return histIndent(piece)
	case strings.HasSuffix(piece, "\n"):
		return histIndent(strings.TrimSuffix(piece, "\n")) + fmt.Sprintf("[message goes on in the next part, from its next line: %d bytes more]\n", left)
	default:
		return histIndent(piece) + fmt.Sprintf("[message goes on in the next part, from the middle of this line: %d bytes more]\n", left)
	}
}

// histPreamble is the start of get_commit's first part: the commit, its
// parents, author, committer, message and files.
func histPreamble(name string, c git.Commit, out getCommitOut, against string, total int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: commit %s\n", name, c.SHA)
	switch {
	case out.ParentCount == 0:
		b.WriteString("Parents:   none (a root commit: its files and patch are against the empty tree)\n")
	case out.ParentCount == 1:
		fmt.Fprintf(&b, "Parent:    %s\n", c.Parents[0])
	case len(out.Parents) < out.ParentCount:
		fmt.Fprintf(&b, "Parents:   %s (a merge of %d parents: its files and patch are against its first parent; the first %d are here, the next parts list the others)\n",
			strings.Join(out.Parents, " "), out.ParentCount, len(out.Parents))
	default:
		fmt.Fprintf(&b, "Parents:   %s (a merge: its files and patch are against its first parent)\n", strings.Join(out.Parents, " "))
	}
	person := func(p histPerson) string {
		return strings.TrimSpace(fmt.Sprintf("%s <%s> %s", text.Line(p.Name), text.Line(p.Email), p.Date))
	}
	fmt.Fprintf(&b, "Author:    %s\nCommitter: %s\n\n", person(out.Author), person(out.Committer))
	b.WriteString(histMessageText(*out.Message, out.MessageBytesLeftOut))
	b.WriteString(histHiddenNote(*out.Message, 1))
	if c.Truncated {
		b.WriteString("[a field of this commit (its message, a name) is longer than the server reads and was cut]\n")
	}
	b.WriteString("\n")
	if total == 0 {
		fmt.Fprintf(&b, "No file changed against %s.\n\n", against)
		return b.String()
	}
	fmt.Fprintf(&b, "%s changed against %s:\n", text.Count(total, "file"), against)
	for _, f := range out.ChangedFiles {
		b.WriteString(f.line())
	}
	if more := total - len(out.ChangedFiles); more > 0 {
		what := fmt.Sprintf("and %d more", more)
		if len(out.ChangedFiles) == 0 {
			what = "none listed here, for want of room"
		}
		if len(c.Parents) == 0 {
			fmt.Fprintf(&b, "%s: all are added, and the patch shows them all\n", what)
		} else {
			fmt.Fprintf(&b, "%s: list_changed_files base=%s head=%s mode=direct lists them all\n", what, c.Parents[0], c.SHA)
		}
	}
	b.WriteString("\n")
	return b.String()
}
