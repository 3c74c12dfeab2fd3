package server

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/argcheck"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/forge"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"
)

type readJobLogIn struct {
	Owner     string `json:"owner,omitempty"`
	Repo      string `json:"repo,omitempty"`
	JobID     int64  `json:"jobId" jsonschema:"job id from list_action_runs"`
	StartLine int    `json:"startLine,omitempty"`
	EndLine   int    `json:"endLine,omitempty" jsonschema:"last line; omit for as far as fits"`
	StartByte int64  `json:"startByte,omitempty" jsonschema:"bytes of startLine already read (a line in pieces)"`
	paging.ReplyLimit
}

type readJobLogOut struct {
	JobID      int64  `json:"jobId"`
	Name       string `json:"name" jsonschema:"the job's name"`
	Status     string `json:"status" jsonschema:"queued, waiting, in_progress or completed"`
	Conclusion string `json:"conclusion,omitempty" jsonschema:"when completed: success, failure, cancelled or skipped"`
	StartLine  int    `json:"startLine"`
	EndLine    int    `json:"endLine" jsonschema:"last line returned (startLine-1 when none)"`
	TotalLines int    `json:"totalLines" jsonschema:"the log's lines when it was read (a job still running adds more)"`
	Bytes      int64  `json:"bytes" jsonschema:"the log's size, as the forge gives it (-1 when it does not)"`
	Content    string `json:"content" jsonschema:"lines startLine..endLine joined with \\n, as the forge has them (each starts with its time; of a line in pieces, the piece's bytes)"`
	Truncated  bool   `json:"truncated" jsonschema:"true when lines were asked for that did not fit: next reads on"`
	// Pieces: the lines content holds in part.
	Pieces []linePiece `json:"pieces,omitempty" jsonschema:"the lines content holds in part, longer than a reply: the first and the last; absent when every line is whole"`
	// Hidden: the bidi controls and invisible characters content holds.
	Hidden *text.HiddenChars `json:"hiddenCharacters,omitempty" jsonschema:"the bidi controls and invisible characters content holds, shown as they are; absent when none"`
	paging.Paged
}

// readJobLogTool is read_job_log's definition (registry.go).
var readJobLogTool = defineTool(toolSpec{
	Name:  "read_job_log",
	Title: "Read job log",
	Description: "Read lines of a forge Actions job's log (1-based, inclusive), as many as fit, with its line count: read_file for CI output. " +
		"list_action_runs gives job ids. Failures are usually near the end. " +
		inPieces +
		partialNext,
	ForgeOnly: true,
	Tune: func(in *jsonschema.Schema) {
		argcheck.SetInt(in, "jobId", 0, 1, 1<<53)
		argcheck.SetInt(in, "startLine", 1, 1, 1<<31-1)
		argcheck.SetInt(in, "endLine", 0, 1, 1<<31-1)
		argcheck.SetInt(in, "startByte", 0, 0, 1<<53)
		// jobId is required already (its json tag has no omitempty):
		// naming it again made "required" hold a duplicate, which JSON
		// Schema forbids.
	},
}, (*Server).readJobLog)

// maxJobLogBytes is how much of a log is read: the line count and every
// line past it are out of reach beyond, and the reply says so.
const maxJobLogBytes = 256 << 20

func (s *Server) readJobLog(ctx context.Context, in readJobLogIn) (reply[readJobLogOut], error) {
	if err := s.servedNames(ctx, &in.Owner, &in.Repo); err != nil {
		return reply[readJobLogOut]{}, err
	}
	if err := forgeRepo(in.Owner, in.Repo); err != nil {
		return reply[readJobLogOut]{}, err
	}
	if in.EndLine != 0 && in.EndLine < in.StartLine {
		return reply[readJobLogOut]{}, errcode.New(errcode.InvalidArgument, "endLine %d is before startLine %d: endLine must be at least startLine, or left out to read as far as fits", in.EndLine, in.StartLine)
	}
	f := s.cfg.Forge
	// The job (for its name and state) and its log are asked for at once:
	// one round trip to the forge, not two.
	type jobAnswer struct {
		job *forge.Job
		err error
	}
	answer := make(chan jobAnswer, 1)
	go func() {
		job, err := f.Job(ctx, in.Owner, in.Repo, in.JobID)
		answer <- jobAnswer{job, err}
	}()
	log, logErr := openJobLog(ctx, f, in)
	a := <-answer
	if a.err != nil {
		if logErr == nil {
			log.body.Close()
		}
		if errcode.Of(a.err) == errcode.NotFound {
			return reply[readJobLogOut]{}, errcode.New(errcode.NotFound, "%s/%s has no Actions job %d (list_action_runs lists a commit's jobs)", in.Owner, in.Repo, in.JobID)
		}
		return reply[readJobLogOut]{}, a.err
	}
	// A part whose hidden characters' note leaves it over the limit is
	// read again, in the room the note leaves.
	room := -1
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			log, logErr = openJobLog(ctx, f, in)
		}
		if logErr != nil {
			if errcode.Of(logErr) == errcode.NotFound {
				return reply[readJobLogOut]{}, errcode.New(errcode.NotFound, "job %d (%s) has no log: it has not started (status %s), or the forge has cleaned its log up", in.JobID, text.Name(a.job.Name), actionsWord(a.job.Status))
			}
			return reply[readJobLogOut]{}, logErr
		}
		r, err := s.jobLogPart(ctx, in, a.job, log, room)
		if err != nil {
			return reply[readJobLogOut]{}, err
		}
		if over := s.budget(ctx).ReplySize(r.reply) - s.budget(ctx).MaxBytes; over > 0 && attempt < 3 {
			room = r.room - over
			continue
		}
		return r.reply, nil
	}
}

// jobLog is a job's log, open, and its size (-1: not known).
type jobLog struct {
	body io.ReadCloser
	size int64
}

func openJobLog(ctx context.Context, f *forge.Client, in readJobLogIn) (jobLog, error) {
	body, size, err := f.JobLog(ctx, in.Owner, in.Repo, in.JobID)
	return jobLog{body, size}, err
}

// jobLogPart is a part of a job's log and the room its content had.
type jobLogPart struct {
	reply[readJobLogOut]
	room int
}

// jobLogPart is a part of job's log, read from log (which it closes), that
// fits room bytes of content (-1: all the reply leaves for it), with the
// room it had.
func (s *Server) jobLogPart(ctx context.Context, in readJobLogIn, job *forge.Job, log jobLog, room int) (part jobLogPart, _ error) {
	const tool = "read_job_log"
	body, size := log.body, log.size
	defer body.Close()

	out := readJobLogOut{JobID: job.ID, Name: job.Name, Status: job.Status, Conclusion: job.Conclusion, StartLine: in.StartLine, Bytes: size}
	state := actionsWord(job.Status)
	if job.Conclusion != "" {
		state = actionsWord(job.Conclusion)
	}
	tooLong := size > maxJobLogBytes
	header := func(o readJobLogOut) string {
		var b strings.Builder
		fmt.Fprintf(&b, "%s/%s, job %d %s (%s): ", in.Owner, in.Repo, o.JobID, text.Name(o.Name), state)
		if o.TotalLines == 0 {
			b.WriteString("the log is empty: 0 lines")
		} else {
			fmt.Fprintf(&b, "lines %d–%d of %d", o.StartLine, o.EndLine, o.TotalLines)
		}
		if tooLong {
			fmt.Fprintf(&b, " (the log is %d bytes: only its first %d MiB can be read here)", size, maxJobLogBytes>>20)
		} else if job.Status != "completed" {
			b.WriteString(" so far: the job is still running")
		}
		b.WriteString("\n")
		return b.String()
	}
	next := func(from int, at int64) *paging.Call {
		n := in
		n.StartLine, n.StartByte = from, at
		return paging.Continue(tool, n)
	}
	if room < 0 {
		probe := out
		probe.EndLine, probe.TotalLines, probe.Truncated = 1<<31-1, 1<<31-1, true
		room = s.budget(ctx).PayloadRoom(reply[readJobLogOut]{Text: header(probe) + "\n", Out: probe, Next: next(1<<31-1, in.StartByte)}) - 2
	}
	part.room = room
	// A completed job's log no longer changes: its line count is kept,
	// so that a later part stops reading at its last line.
	var blob git.Object
	if job.Status == "completed" && size >= 0 {
		blob.OID = "job-log " + in.Owner + "/" + in.Repo + " " + strconv.FormatInt(job.ID, 10) + " " + strconv.FormatInt(size, 10)
	}
	what := "job " + strconv.FormatInt(job.ID, 10) + "'s log"
	res, err := s.lines.Slice(blob, ctxReader{ctx, io.LimitReader(body, maxJobLogBytes)}, paging.LineRange{From: in.StartLine, To: in.EndLine, FromByte: in.StartByte,
		Room: room, Lines: s.budget(ctx).LineRoom(linesHead), Cost: s.budget(ctx).Cost(), What: "the log", PieceCost: pieceCost})
	if err != nil {
		if cause := context.Cause(ctx); cause != nil && ctx.Err() != nil {
			return part, cause
		}
		return part, errcode.New(errcode.Unavailable, "reading %s from the forge failed: %v", what, err)
	}
	if res.Binary {
		return part, errcode.New(errcode.Unavailable, "%s is not text (the forge sent binary data)", what)
	}
	if in.StartLine > max(res.Total, 1) {
		if res.Total == 0 {
			return part, errcode.New(errcode.InvalidArgument, "%s is empty (0 lines): there is no line %d", what, in.StartLine)
		}
		return part, errcode.New(errcode.InvalidArgument, "startLine %d is past the end of %s, which has %s: startLine must be at most %d", in.StartLine, what, lineCount(res.Total), res.Total)
	}
	if res.BadFromByte != "" {
		return part, errcode.New(errcode.InvalidArgument, "startByte %d is %s of line %d of %s (%d bytes): startByte must be under the line's length and at a character's start, as a piece's marker gives it (bytes a–b: startByte b)",
			in.StartByte, res.BadFromByte, in.StartLine, what, res.FromLineBytes)
	}
	if res.Oversized != 0 && res.Last < res.First {
		return part, errcode.New(errcode.TooLarge, "line %d of %s alone is larger than one reply holds (%d bytes)", res.Oversized, what, s.budget(ctx).MaxBytes)
	}
	out.EndLine, out.TotalLines, out.Truncated = res.Last, res.Total, res.Stopped
	out.Pieces = linePieces(res.Pieces)
	var t string
	t, out.Content, out.Hidden = linesText(header(out), res, out.StartLine, "the log")
	part.reply = reply[readJobLogOut]{Text: t, Out: out}
	if out.Truncated {
		part.Next = next(nextLine(res))
	}
	return part, nil
}
