package main

import (
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Which repository a case runs against.
const (
	repoTree   = "tree"
	repoHuge   = "huge"
	repoPaging = "paging"
	repoGiven  = "repo" // --repo mode
)

// benchCase is one line of the table: a tool call and its plain-git
// equivalent, built from the repository's fixture once it is known.
type benchCase struct {
	tool, name string
	repo       string
	target     *target
	build      func(fx *fixture) (*spec, error)
	// sandboxOff compares the server with itself instead of with git: the
	// same call on a second server started with --sandbox off.
	sandboxOff bool
}

// spec is what a case runs.
type spec struct {
	args      map[string]any
	git       []string // the plain-git equivalent; nil for throughput cases
	noMatchOK bool     // git grep: exit 1 is "no match"
	// check runs on every timed call; it must be cheap.
	check func(*mcp.CallToolResult) error
	// oracle runs once, before timing, and compares the answer with git's.
	oracle func(*mcp.CallToolResult) error
	// calls > 0 makes a throughput case: that many sequential calls, with
	// arguments from argsFor, and no git side.
	calls   int
	argsFor func(i int) map[string]any
	// versus, with calls: the tool the throughput is measured against, in
	// alternating blocks on the same session (called without arguments).
	versus string
	// drain makes a paging case: the diff followed from its first part to
	// its last through the next calls.
	drain *drainSpec
	// list makes a listing case: a listing followed to its end.
	list *listDrainSpec
	// clients makes the clients case: the diff drained once as each
	// client (clients.go).
	clients *drainSpec
	note    string
}

func (c benchCase) label() string { return c.tool + " " + c.name }

// generatedCases are the cases on the generated repositories; the fixtures
// are those of repoTree (main...change), repoPaging (main...feature) and
// repoHuge (base..main).
func generatedCases(calls int) []benchCase {
	return []benchCase{
		{tool: "get_diff", name: "tree main...change, merge-base, default budget", repo: repoTree, target: ratioAtMost(1.2), build: func(fx *fixture) (*spec, error) {
			return diffSpec(fx, map[string]any{"base": fx.base, "head": fx.head}, []string{"diff", fx.mergeBase, fx.head}), nil
		}},
		{tool: "get_diff", name: "huge base..main: adds a 216 MB file", repo: repoHuge, target: ratioAtMost(0.3), build: hugeDiffSpec},
		{tool: "list_changed_files", name: "tree main...change: first page (500 files)", repo: repoTree, target: ratioAtMost(0.35), build: changedFilesSpec},
		{tool: "get_pull_request_diff", name: "PR #1, file_path = a modified file", repo: repoTree, target: ratioAtMost(1.2), build: func(fx *fixture) (*spec, error) {
			c, err := fx.find('M')
			if err != nil {
				return nil, err
			}
			return prFileSpec(fx, c, []string{"diff", fx.mergeBase, prRef, "--", c.path})
		}},
		{tool: "get_pull_request_diff", name: "PR #1, file_path = a renamed file's new path", repo: repoTree, build: func(fx *fixture) (*spec, error) {
			c, err := fx.find('R')
			if err != nil {
				return nil, err
			}
			return prFileSpec(fx, c, []string{"diff", "-M", fx.mergeBase, prRef, "--", c.oldPath, c.path})
		}},
		{tool: "get_diff", name: "tree main...change, default budget: sandbox on vs off", repo: repoTree, target: ratioAtMost(1.1), sandboxOff: true,
			build: func(fx *fixture) (*spec, error) {
				return diffSpec(fx, map[string]any{"base": fx.base, "head": fx.head}, []string{"diff", fx.mergeBase, fx.head}), nil
			}},
		{tool: "get_pull_request_diff", name: "PR #1, file_path = a modified file: sandbox on vs off", repo: repoTree, target: ratioAtMost(1.1), sandboxOff: true,
			build: func(fx *fixture) (*spec, error) {
				c, err := fx.find('M')
				if err != nil {
					return nil, err
				}
				return prFileSpec(fx, c, []string{"diff", fx.mergeBase, prRef, "--", c.path})
			}},
		{tool: "read_file", name: "100 lines of a 20 KB file at a ref", repo: repoTree, build: readSliceSpec},
		{tool: "get_file_content", name: "100 lines of a 20 KB file at a ref", repo: repoTree, build: contentSliceSpec},
		{tool: "list_repositories", name: fmt.Sprintf("protocol floor: %d sequential calls", calls), repo: repoTree, build: func(*fixture) (*spec, error) {
			return floorSpec(calls), nil
		}},
		{tool: "read_file", name: fmt.Sprintf("throughput: %d sequential 100-line reads vs as many list_repositories", calls), repo: repoTree,
			target: throughputVersusAtLeast(1000, 0.65, "list_repositories"),
			build:  func(fx *fixture) (*spec, error) { return versusSpec(throughputSpec(fx, calls, readArgs)) }},
		{tool: "read_file", name: fmt.Sprintf("throughput at the commit: %d sequential 100-line reads at main's SHA vs as many list_repositories", calls), repo: repoTree,
			target: throughputVersusAtLeast(1000, 0.65, "list_repositories"),
			build: func(fx *fixture) (*spec, error) {
				// Where an agent reads: at a pull request's head SHA, and
				// every next call pins the SHA read. A branch name costs one
				// more cat-file round trip (it may move); a SHA does not.
				sha, err := fx.g.output(fx.dir, "rev-parse", "--verify", fx.slice.rev+"^{commit}")
				if err != nil {
					return nil, err
				}
				atSHA := func(t textFile, start, end int) map[string]any {
					a := readArgs(t, start, end)
					a["ref"] = strings.TrimSpace(string(sha))
					return a
				}
				return versusSpec(throughputSpec(fx, calls, atSHA))
			}},
		{tool: "get_file_content", name: fmt.Sprintf("throughput: %d sequential 100-line reads", calls), repo: repoTree, target: throughputAtLeast(2000, 0.5),
			build: func(fx *fixture) (*spec, error) { return throughputSpec(fx, calls, contentArgs) }},
		{tool: "get_pull_request_diff", name: "paging PR #1 (> 2 MB of patch): every part, through next calls", repo: repoPaging, target: pagingTarget(),
			build: func(fx *fixture) (*spec, error) {
				return drainDiffSpec(fx, map[string]any{"owner": benchOwner, "repo": benchRepo, "index": 1}, fx.scratch)
			}},
		{tool: "get_diff", name: "paging main...feature (> 2 MB of patch): every part, through next calls", repo: repoPaging, target: pagingTarget(),
			build: func(fx *fixture) (*spec, error) {
				return drainDiffSpec(fx, map[string]any{"base": fx.base, "head": fx.head}, fx.scratch)
			}},
		// Replies sized to each client (issue 32): --only clients.
		{tool: "get_pull_request_diff", name: "clients: PR #1 (> 2 MB of patch) drained as each known client and an unknown one", repo: repoPaging,
			target: clientsTarget(), build: func(fx *fixture) (*spec, error) {
				sp, err := drainDiffSpec(fx, map[string]any{"owner": benchOwner, "repo": benchRepo, "index": 1}, fx.scratch)
				if err != nil {
					return nil, err
				}
				sp.clients, sp.drain = sp.drain, nil
				return sp, nil
			}},
		{tool: "get_pull_request", name: "paging PR #2 (700 commits): every part, through next calls", repo: repoPaging, target: listingTarget(2, 100_000), build: prCommitsSpec},
		{tool: "list_pull_request_files", name: "PR #1 (3,550 files), limit=5000: every page, through next calls", repo: repoTree, target: listingTarget(5, 5*replyLimit), build: prFilesSpec},
		{tool: "read_file", name: "100 lines at line 1,000,000 of the 216 MB file", repo: repoHuge, target: rssGrowthAtMost(32), build: hugeReadSpec},
		{tool: "search_code", name: "rare match (3 files)", repo: repoTree, target: ratioAtMost(1.2), build: func(fx *fixture) (*spec, error) {
			return searchSpec(fx, rareToken, 0)
		}},
		{tool: "search_code", name: "very common match, maxResults=10", repo: repoTree, target: ratioAtMost(0.2), build: func(fx *fixture) (*spec, error) {
			return searchSpec(fx, "return", 10)
		}},
		// The reviewer's workflow (issue 14): --only reviewer.
		{tool: "list_files", name: "reviewer: main, recursive, the first page (200 entries)", repo: repoTree, target: ratioAtMost(1.2), build: listFilesSpec},
		{tool: "list_commits", name: "reviewer: 100 commits of the history branch", repo: repoTree, target: ratioAtMost(1.2), build: listCommitsSpec},
		{tool: "blame", name: "reviewer: 100 lines of the history's most changed file", repo: repoTree, target: ratioAtMost(1.2), build: blameSpec},
	}
}

// givenCases adapt the generated shapes to any repository and base...head
// (--repo mode): the diff of the range, and reads of the largest changed
// text file at head.
func givenCases(calls int) []benchCase {
	return []benchCase{
		{tool: "get_diff", name: "base...head, merge-base, default budget", repo: repoGiven, build: func(fx *fixture) (*spec, error) {
			return diffSpec(fx, map[string]any{"base": fx.base, "head": fx.head}, []string{"diff", fx.mergeBase, fx.head}), nil
		}},
		{tool: "list_changed_files", name: "base...head", repo: repoGiven, build: changedFilesSpec},
		{tool: "read_file", name: "100 lines of the largest changed text file at head", repo: repoGiven, build: readSliceSpec},
		{tool: "get_file_content", name: "100 lines of the largest changed text file at head", repo: repoGiven, build: contentSliceSpec},
		{tool: "list_repositories", name: fmt.Sprintf("protocol floor: %d sequential calls", calls), repo: repoGiven, build: func(*fixture) (*spec, error) {
			return floorSpec(calls), nil
		}},
		{tool: "read_file", name: fmt.Sprintf("throughput: %d sequential 100-line reads vs as many list_repositories", calls), repo: repoGiven,
			target: throughputVersusAtLeast(1000, 0.65, "list_repositories"),
			build:  func(fx *fixture) (*spec, error) { return versusSpec(throughputSpec(fx, calls, readArgs)) }},
		{tool: "get_file_content", name: fmt.Sprintf("throughput: %d sequential 100-line reads", calls), repo: repoGiven, target: throughputAtLeast(2000, 0.5),
			build: func(fx *fixture) (*spec, error) { return throughputSpec(fx, calls, contentArgs) }},
		{tool: "search_code", name: "rare match (the read file's name)", repo: repoGiven, target: ratioAtMost(1.2), build: func(fx *fixture) (*spec, error) {
			name := fx.slice.path[strings.LastIndexByte(fx.slice.path, '/')+1:]
			if i := strings.IndexByte(name, '.'); i > 0 {
				name = name[:i]
			}
			return searchSpec(fx, name, 0)
		}},
		{tool: "search_code", name: "very common match, maxResults=10", repo: repoGiven, target: ratioAtMost(0.2), build: func(fx *fixture) (*spec, error) {
			return searchSpec(fx, "the", 10)
		}},
	}
}

// versusSpec measures a throughput spec against list_repositories (the
// protocol floor) in the same run.
func versusSpec(sp *spec, err error) (*spec, error) {
	if err != nil {
		return nil, err
	}
	sp.versus = "list_repositories"
	return sp, nil
}

// prRef is pull request #1's head, as forges keep it.
const prRef = "refs/pull/1/head"

func readArgs(t textFile, start, end int) map[string]any {
	return map[string]any{"path": t.path, "ref": t.rev, "startLine": start, "endLine": end}
}

func contentArgs(t textFile, start, end int) map[string]any {
	return map[string]any{"owner": benchOwner, "repo": benchRepo, "filePath": t.path, "ref": t.rev, "start_line": start, "end_line": end}
}
