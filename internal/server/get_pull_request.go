package server

import (
	"context"
	"fmt"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/argcheck"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/git"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/paging"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/text"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/errcode"
)

type getPullRequestIn struct {
	Owner  string `json:"owner,omitempty"`
	Repo   string `json:"repo,omitempty"`
	Index  int    `json:"index"`
	Cursor string `json:"cursor,omitempty" jsonschema:"from a reply's next call"`
	paging.ReplyLimit
}

// getPullRequestOut is what a reviewer reads first. In forge mode the
// forge's fields; locally what git knows (no title, description, state or
// labels: a local pull request is only its refs), with its commits.
type getPullRequestOut struct {
	Index        int        `json:"index"`
	Title        *string    `json:"title" jsonschema:"the forge's title; null for a local pull request"`
	State        *string    `json:"state" jsonschema:"open, closed or merged; null for a local pull request"`
	Draft        *bool      `json:"draft" jsonschema:"null for a local pull request"`
	Mergeable    *bool      `json:"mergeable" jsonschema:"the forge's verdict (false while it has not checked, and once closed or merged); null for a local pull request"`
	Author       *string    `json:"author" jsonschema:"login of the user who opened it; null for a local pull request"`
	Labels       []string   `json:"labels" jsonschema:"label names; empty for a local pull request"`
	CreatedAt    *string    `json:"createdAt" jsonschema:"as the forge writes it (RFC 3339); null for a local pull request"`
	UpdatedAt    *string    `json:"updatedAt" jsonschema:"as createdAt"`
	URL          *string    `json:"url" jsonschema:"the pull request's web page; null for a local pull request"`
	BaseRef      string     `json:"baseRef" jsonschema:"the base branch; locally the default branch, or refs/pull/N/merge^1 where that merge ref exists"`
	HeadRef      string     `json:"headRef" jsonschema:"the head branch; locally refs/pull/N/head"`
	Base         string     `json:"base" jsonschema:"the base commit"`
	Head         string     `json:"head" jsonschema:"the head commit"`
	MergeBase    string     `json:"mergeBase" jsonschema:"where the pull request's diff starts"`
	ChangedFiles *int       `json:"changedFiles" jsonschema:"files the diff changes; null when the forge does not say"`
	CommitCount  *int       `json:"commitCount" jsonschema:"commits from the merge base to the head; null in forge mode"`
	Body         *string    `json:"body" jsonschema:"this part's share of the forge's description, exactly; null for a local pull request"`
	BodyOffset   int        `json:"bodyOffset" jsonschema:"where body starts in the whole description, in bytes"`
	BodyBytes    int        `json:"bodyBytes" jsonschema:"size of the whole description in bytes"`
	Commits      []prCommit `json:"commits" jsonschema:"locally, the first commits, oldest first; empty in forge mode"`
	Truncated    bool       `json:"truncated" jsonschema:"true when the description goes on in a next part (forge), or commits are left out (locally: list_commits with index lists them all)"`
	// TitleHidden and BodyHidden: the bidi controls and invisible
	// characters of title and body.
	TitleHidden []string          `json:"titleHiddenCharacters,omitempty" jsonschema:"the bidi controls and invisible characters title holds, by code point and name, shown as they are; absent when none"`
	BodyHidden  *text.HiddenChars `json:"bodyHiddenCharacters,omitempty" jsonschema:"the bidi controls and invisible characters body holds (lines of the whole description), shown as they are; absent when none"`
	// Reviews and Checks are where the forge's review stands, in the first
	// part (forge mode).
	Reviews *reviewSummary `json:"reviews,omitempty" jsonschema:"forge mode, first part: the reviewers' verdicts and the review threads (list_pull_request_reviews shows them); absent locally"`
	Checks  *checksSummary `json:"checks,omitempty" jsonschema:"forge mode, first part: the head's checks (get_commit_status shows them); absent locally"`
	paging.Paged
}

// checksSummary is how a pull request's head's checks stand.
type checksSummary struct {
	State   string `json:"state" jsonschema:"failure, success or pending, as the forge sums the checks up"`
	Failing int    `json:"failing"`
	Total   int    `json:"total"`
}

// prCommit is one commit of a local pull request: the first ones with
// their whole messages, the others as one line (subject and files).
type prCommit struct {
	SHA          string  `json:"sha"`
	Author       string  `json:"author" jsonschema:"the author's name"`
	Date         string  `json:"date" jsonschema:"the author date, RFC 3339"`
	FilesChanged int     `json:"filesChanged" jsonschema:"files it changes against its first parent (all its files for a root commit), renames found as in the diff"`
	Message      *string `json:"message,omitempty" jsonschema:"the whole message: the subject, then the body after a blank line; given for the first commits only (at most 16, as many as fill a quarter of a reply, an eighth with structured output), absent for the others, which have subject (get_commit shows any message)"`
	Subject      *string `json:"subject,omitempty" jsonschema:"the message's first paragraph on one line (past 500 bytes cut, marked), for a commit shown on one line; absent when message is given"`
	// MessageHidden and SubjectHidden: the bidi controls and invisible
	// characters of message or subject.
	MessageHidden *text.HiddenChars `json:"messageHiddenCharacters,omitempty" jsonschema:"the bidi controls and invisible characters message holds (lines of the message, the subject line 1), shown as they are; absent when none"`
	SubjectHidden []string          `json:"subjectHiddenCharacters,omitempty" jsonschema:"the bidi controls and invisible characters subject holds, by code point and name, shown as they are; absent when none"`
}

// getPullRequestTool is get_pull_request's definition (registry.go).
var getPullRequestTool = defineTool(toolSpec{
	Name:  "get_pull_request",
	Title: "Get pull request",
	Description: "Get a pull request's overview by number (index): base, head, merge base, files; from a forge also title, description, author, state, labels, reviews, checks; " +
		"locally its first commits (list_commits: all), and as base refs/pull/<index>/merge^1 if fetched, else the checked-out branch. " +
		"Call it first: its first line sizes get_pull_request_diff.",
	Tune: func(in *jsonschema.Schema) {
		argcheck.SetInt(in, "index", 0, 1, 1<<31-1)
	},
}, (*Server).getPullRequest)

const getPullRequestName = "get_pull_request"

func (s *Server) getPullRequest(ctx context.Context, in getPullRequestIn) (reply[getPullRequestOut], error) {
	if err := s.servedNames(ctx, &in.Owner, &in.Repo); err != nil {
		return reply[getPullRequestOut]{}, err
	}
	var cur *paging.Cursor
	if in.Cursor != "" {
		c, err := s.cursors.Decode(getPullRequestName, in.Cursor, paging.ArgsDigest(in, "cursor"))
		if err != nil {
			return reply[getPullRequestOut]{}, err
		}
		if len(c.Commits) != 3 {
			return reply[getPullRequestOut]{}, errPullPosition()
		}
		cur = &c
	}
	return s.backend.pullRequestDetails(ctx, in, cur)
}

// pullHeader is the first line of list_pull_request_files' and
// get_pull_request's replies: "owner/repo#N: K files changed (base X, merge
// base Y → head Z)"; files < 0 when the count is not known.
func pullHeader(owner, name string, index, files int, base, mergeBase, head string) string {
	n := text.Count(files, "file")
	if files < 0 {
		n = "an unknown number of files"
	}
	short := func(id string) string {
		if id == "" { // a forge that gave none (forge.PullDetails)
			return "not known"
		}
		return git.Short(id)
	}
	return fmt.Sprintf("%s/%s#%d: %s changed (base %s, merge base %s → head %s)", owner, name, index, n, short(base), short(mergeBase), short(head))
}

func errPullPosition() error {
	return errcode.New(errcode.InvalidArgument, "cursor points past the end of the pull request's description or commits: it was damaged or made for other arguments; leave it out to start from the first part")
}
