package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/clients"
	"github.com/mcp-repo-tools/mcp-repo-tools/internal/diff"
)

// Real pull requests through a real Gitea (issue 38, "Done when": the
// forge half). Pushing a whole real repository is too heavy, so for a few
// of realPRs the case makes a small repository of its own: a commit
// whose tree is the pull request's merge base's, on branch base, and one
// on top whose tree is its head's, on branch head (objects packed from
// the mirror). It pushes both to a new Gitea repository
// realprs/<mirror>-<index>, opens a pull request head → base, and serves
// the same repository locally (HEAD base, refs/pull/<n>/head). Then, as
// each client of clients.Known and an unknown one, each on servers of
// its own: get_pull_request_diff drained through the forge (serve
// --forge) and locally, each held as the realprs case holds a drain (no
// error, every reply within the client's rule, "part k of n", the counts
// of list_pull_request_files and get_pull_request equal to the drain, the
// parts joined the diff byte for byte), and the two compared: as many
// parts, the same texts, the same patch joined. The forge's drain is held
// to the forge's own diff (pulls/<n>.diff, the server's contract); that
// diff is compared with `git diff -M` of the same two commits, and a
// difference is said, not hidden.
//
//	source /tmp/gitea-env.sh    # GITEA_TEST_URL, GITEA_TEST_TOKEN (scripts/gitea-test-server)
//	XDG_CACHE_HOME=/tmp/benchxdg go run ./cmd/bench --only realprs-forge \
//	    --mirror git=/work/.mirror/git+git/repo --mirror prometheus=/work/.mirror/prometheus+prometheus/repo
//	go run ./cmd/bench --only "realprs-forge prometheus#4679" ...   # one of them
//
// Without GITEA_TEST_URL and GITEA_TEST_TOKEN, or a pull request's
// mirror, it skips (says so).

// forgePRs are the pull requests of realPRs read through Gitea.
var forgePRs = []realPR{
	{"prometheus", 4679, "35 KB minified lines: pieces"},
	{"prometheus", 1054, "159 files, vendored"},
	{"git", 1778, "128 files, most of them renamed"},
	{"git", 2203, "a translation (po/es.po) and a binary .mo"},
}

// forgeOrg is the Gitea organization the case's repositories are made in.
const forgeOrg = "realprs"

// forgePRResult is one pull request drained through Gitea and locally.
type forgePRResult struct {
	realPR
	Gitea      string `json:"gitea"` // owner/name of the repository made for it
	GiteaIndex int    `json:"giteaIndex"`
	MergeBase  string `json:"mergeBase"` // in the mirror
	Head       string `json:"head"`
	PatchBytes int64  `json:"patchBytes"` // git diff -M of the two commits
	// ForgeDiffIsGits: Gitea's pulls/<n>.diff is `git diff -M` of the
	// repository's base and head byte for byte; else ForgeDiffDiffers
	// says where.
	ForgeDiffIsGits  bool   `json:"forgeDiffIsGits"`
	ForgeDiffBytes   int64  `json:"forgeDiffBytes"`
	ForgeDiffDiffers string `json:"forgeDiffDiffers,omitempty"`
	// ForgeDiffIsHistogram: else, it is `git diff -M
	// --diff-algorithm=histogram` (Gitea's own git config sets
	// diff.algorithm=histogram).
	ForgeDiffIsHistogram bool          `json:"forgeDiffIsHistogram,omitempty"`
	Drains               []*forgeDrain `json:"drains"`
	Setup                time.Duration `json:"setupNs"`
	Skipped              string        `json:"skipped,omitempty"`
}

// forgeDrain is one client's drains of the pull request, through the
// forge and locally.
type forgeDrain struct {
	Client string     `json:"client"`
	Forge  *realDrain `json:"forge"`
	Local  *realDrain `json:"local"`
	// SamePatch: the two drains joined are the same bytes; SameTexts:
	// every part's text is the same, part for part.
	SamePatch bool   `json:"samePatch"`
	SameTexts bool   `json:"sameTexts"`
	Differs   string `json:"differs,omitempty"` // the first part whose texts differ, and how
}

// giteaEnv is the Gitea of scripts/gitea-test-server.
type giteaEnv struct{ url, token string }

func giteaFromEnv() *giteaEnv {
	url, token := os.Getenv("GITEA_TEST_URL"), os.Getenv("GITEA_TEST_TOKEN")
	if url == "" || token == "" {
		return nil
	}
	return &giteaEnv{url: strings.TrimRight(url, "/"), token: token}
}

// do sends an API request (path under /api/v1) with the token as a
// header, and returns its status and body.
func (g *giteaEnv) do(ctx context.Context, method, path, body string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, g.url+"/api/v1"+path, strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "token "+g.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, data, err
}

// runForgePRs drains forgePRs through Gitea and locally as every client.
func runForgePRs(ctx context.Context, o *options, g gitRunner, bin, home string, logf logFunc) ([]*forgePRResult, error) {
	gt := giteaFromEnv()
	names := clientNames()
	cacheDir := filepath.Join(home, "forge-mirrors")
	if err := os.MkdirAll(cacheDir, 0o700); err != nil {
		return nil, err
	}
	var out []*forgePRResult
	for _, pr := range forgePRs {
		res := &forgePRResult{realPR: pr}
		out = append(out, res)
		label := fmt.Sprintf("%s#%d", pr.Repo, pr.Index)
		only := strings.ToLower(o.only)
		if only != "realprs-forge" && !strings.Contains("realprs-forge "+label, only) {
			res.Skipped = "not --only " + o.only
			continue
		}
		mirror := o.mirrors[pr.Repo]
		switch {
		case gt == nil:
			res.Skipped = "no Gitea: GITEA_TEST_URL and GITEA_TEST_TOKEN (scripts/gitea-test-server)"
			continue
		case mirror == "":
			res.Skipped = "no --mirror " + pr.Repo
			continue
		}
		began := time.Now()
		repoDir, want, forgeDiff, err := res.setUp(ctx, g, gt, mirror, home)
		if err != nil {
			return nil, fmt.Errorf("realprs-forge %s: %w", label, err)
		}
		res.Setup = time.Since(began)
		owner, name, _ := strings.Cut(res.Gitea, "/")
		logf("realprs-forge %s: %s of patch; Gitea %s#%d; its .diff is git's: %v (set up in %.1f s)", label, humanBytes(res.PatchBytes), res.Gitea, res.GiteaIndex, res.ForgeDiffIsGits, res.Setup.Seconds())
		for _, client := range names {
			fd := &forgeDrain{Client: client}
			res.Drains = append(res.Drains, fd)
			var drs [2]*drained
			for i, mode := range []string{"local", "forge"} {
				flags := []string{"--repo", repoDir, "--name", res.Gitea}
				wantHere := want
				if mode == "forge" {
					flags = []string{"--forge", gt.url, "--token", gt.token, "--cache-dir", cacheDir}
					wantHere = forgeDiff
				}
				s, err := startServing(ctx, bin, filepath.Join(home, fmt.Sprintf("realprs-forge-%s-%s.log", mode, fileWord(client))), client, flags...)
				if err != nil {
					return nil, fmt.Errorf("realprs-forge %s, %s as %s: %w", label, mode, client, err)
				}
				d, dr, err := realDrainOf(ctx, s, client, owner, name, res.GiteaIndex, wantHere, true)
				s.close()
				if err != nil {
					return nil, fmt.Errorf("realprs-forge %s, %s as %s: %w", label, mode, client, err)
				}
				drs[i] = dr
				if mode == "forge" {
					fd.Forge = d
				} else {
					fd.Local = d
				}
			}
			fd.compare(drs[0], drs[1], pr.Index)
			logf("realprs-forge %s as %s: forge %d parts, local %d; same patch %v, same texts %v; errors %d/%d",
				label, client, fd.Forge.Calls, fd.Local.Calls, fd.SamePatch, fd.SameTexts, len(fd.Forge.Errors), len(fd.Local.Errors))
		}
	}
	return out, nil
}

// compare holds the forge's drain to the local one: the same patch
// joined, the same number of parts, the same text in each.
func (fd *forgeDrain) compare(local, forge *drained, index int) {
	defer func() {
		if !fd.SameTexts && local != nil && forge != nil {
			fd.Differs += "; the forge's parts are in " + strings.TrimPrefix(keepParts(forge, "forge-"+fd.Client, index), "; the parts are in ") +
				", the local ones in " + strings.TrimPrefix(keepParts(local, "local-"+fd.Client, index), "; the parts are in ")
		}
	}()
	if local == nil || forge == nil {
		fd.Differs = "a drain failed"
		return
	}
	lj, err1 := diff.Join(local.parts...)
	fj, err2 := diff.Join(forge.parts...)
	fd.SamePatch = err1 == nil && err2 == nil && bytes.Equal(lj, fj)
	fd.SameTexts = local.calls == forge.calls
	if !fd.SameTexts {
		fd.Differs = fmt.Sprintf("forge %d parts, local %d", forge.calls, local.calls)
	}
	for k := 0; k < min(local.calls, forge.calls); k++ {
		lt, ft := resultText(local.results[k]), resultText(forge.results[k])
		if lt == ft {
			continue
		}
		at := 0
		for at < min(len(lt), len(ft)) && lt[at] == ft[at] {
			at++
		}
		if fd.Differs != "" {
			fd.Differs += "; "
		}
		fd.SameTexts = false
		fd.Differs += fmt.Sprintf("part %d's texts differ at byte %d (forge %d bytes, local %d): forge %.120q, local %.120q",
			k+1, at, len(ft), len(lt), ft[at:min(len(ft), at+120)], lt[at:min(len(lt), at+120)])
		break
	}
}

// setUp makes the pull request's repository (base: the merge base's tree,
// head: the head's tree on top) under home, pushes it to a new Gitea
// repository and opens the pull request, and gives the local repository,
// git's patch and the forge's .diff, each as a reply shows it.
func (res *forgePRResult) setUp(ctx context.Context, g gitRunner, gt *giteaEnv, mirror, home string) (dir string, want, forgeDiff []byte, err error) {
	probe := &realPRResult{realPR: res.realPR}
	if _, err := probe.prepare(g, mirror); err != nil {
		return "", nil, nil, err
	}
	res.MergeBase = probe.MergeBase
	if res.Head, err = g.line(mirror, "rev-parse", fmt.Sprintf("refs/pull/%d/head", res.Index)); err != nil {
		return "", nil, nil, err
	}
	name := fmt.Sprintf("%s-%d", res.Repo, res.Index)
	res.Gitea = forgeOrg + "/" + name
	dir = filepath.Join(home, "realprs-forge-"+name+".git")
	env := append(g.env, "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com", "GIT_COMMITTER_NAME=bench",
		"GIT_COMMITTER_EMAIL=bench@example.com", "GIT_AUTHOR_DATE=1700000000 +0000", "GIT_COMMITTER_DATE=1700000000 +0000")
	run := func(stdin []byte, args ...string) (string, error) {
		c := exec.CommandContext(ctx, "git", append([]string{"--git-dir", dir}, args...)...)
		c.Env = env
		c.Stdin = bytes.NewReader(stdin)
		var stdout, stderr bytes.Buffer
		c.Stdout, c.Stderr = &stdout, &stderr
		if err := c.Run(); err != nil {
			return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
		}
		return strings.TrimSpace(stdout.String()), nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", nil, nil, err
	}
	if _, err := run(nil, "init", "-q", "--bare", dir); err != nil {
		return "", nil, nil, err
	}
	alternates := filepath.Join(dir, "objects", "info", "alternates")
	objects, err := filepath.Abs(filepath.Join(mirror, "objects"))
	if err != nil {
		return "", nil, nil, err
	}
	if err := os.WriteFile(alternates, []byte(objects+"\n"), 0o644); err != nil {
		return "", nil, nil, err
	}
	base, err := run(nil, "commit-tree", "-m", "base: the merge base's tree", res.MergeBase+"^{tree}")
	if err != nil {
		return "", nil, nil, err
	}
	head, err := run(nil, "commit-tree", "-p", base, "-m", fmt.Sprintf("head: %s#%d's tree", res.Repo, res.Index), res.Head+"^{tree}")
	if err != nil {
		return "", nil, nil, err
	}
	for _, a := range [][]string{{"update-ref", "refs/heads/base", base}, {"update-ref", "refs/heads/head", head}, {"symbolic-ref", "HEAD", "refs/heads/base"}} {
		if _, err := run(nil, a...); err != nil {
			return "", nil, nil, err
		}
	}
	// Only the two commits' objects, packed from the mirror; then the
	// repository stands alone.
	objs, err := run(nil, "rev-list", "--objects", "base", "head")
	if err != nil {
		return "", nil, nil, err
	}
	if _, err := run([]byte(objs+"\n"), "pack-objects", "-q", filepath.Join(dir, "objects", "pack", "pack")); err != nil {
		return "", nil, nil, err
	}
	if err := os.Remove(alternates); err != nil {
		return "", nil, nil, err
	}
	raw, err := g.output(dir, "diff", "-M", "-l1000", "base", "head")
	if err != nil {
		return "", nil, nil, err
	}
	res.PatchBytes = int64(len(raw))

	// The Gitea repository and pull request, made anew.
	_, _, _ = gt.do(ctx, "POST", "/orgs", `{"username":"`+forgeOrg+`"}`) // made once; after, 422: either way the repository's call below says what went wrong
	if _, _, err := gt.do(ctx, "DELETE", "/repos/"+res.Gitea, ""); err != nil {
		return "", nil, nil, err
	}
	if status, body, err := gt.do(ctx, "POST", "/orgs/"+forgeOrg+"/repos", `{"name":"`+name+`","default_branch":"base"}`); err != nil || status != 201 {
		return "", nil, nil, fmt.Errorf("making %s on Gitea: %d %s %v", res.Gitea, status, body, err)
	}
	push := exec.CommandContext(ctx, "git", "--git-dir", dir, "push", "-q", "--force", gt.url+"/"+res.Gitea+".git", "refs/heads/base:refs/heads/base", "refs/heads/head:refs/heads/head")
	// The token goes as a header, by the environment: not in the URL, not
	// on the command line.
	push.Env = append(g.env, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http.extraHeader", "GIT_CONFIG_VALUE_0=Authorization: token "+gt.token)
	if msg, err := push.CombinedOutput(); err != nil {
		return "", nil, nil, fmt.Errorf("pushing to %s: %w: %s", res.Gitea, err, msg)
	}
	status, body, err := gt.do(ctx, "POST", "/repos/"+res.Gitea+"/pulls", fmt.Sprintf(`{"head":"head","base":"base","title":"%s#%d"}`, res.Repo, res.Index))
	if err != nil || status != 201 {
		return "", nil, nil, fmt.Errorf("opening the pull request on %s: %d %s %v", res.Gitea, status, body, err)
	}
	var opened struct {
		Number int `json:"number"`
	}
	if err := json.Unmarshal(body, &opened); err != nil || opened.Number == 0 {
		return "", nil, nil, fmt.Errorf("the pull request Gitea opened: %s", body)
	}
	res.GiteaIndex = opened.Number
	if _, err := run(nil, "update-ref", fmt.Sprintf("refs/pull/%d/head", res.GiteaIndex), head); err != nil {
		return "", nil, nil, err
	}
	status, fd, err := gt.do(ctx, "GET", fmt.Sprintf("/repos/%s/pulls/%d.diff", res.Gitea, res.GiteaIndex), "")
	if err != nil || status != 200 {
		return "", nil, nil, fmt.Errorf("the forge's diff: %d %v", status, err)
	}
	res.ForgeDiffBytes = int64(len(fd))
	res.ForgeDiffIsGits = bytes.Equal(fd, raw)
	if !res.ForgeDiffIsGits {
		_, bad, _ := framedOnly(fd, raw)
		res.ForgeDiffDiffers = bad
		hist, err := g.output(dir, "diff", "-M", "-l1000", "--diff-algorithm=histogram", "base", "head")
		if err != nil {
			return "", nil, nil, err
		}
		res.ForgeDiffIsHistogram = bytes.Equal(fd, hist)
	}
	return dir, []byte(asShown(string(raw))), []byte(asShown(string(fd))), nil
}

// writeForgePRs prints each pull request × client: parts through the
// forge and locally, and whether they are the same.
func writeForgePRs(w io.Writer, prs []*forgePRResult) {
	if len(prs) == 0 {
		return
	}
	fmt.Fprintf(w, "\nReal pull requests through Gitea and locally (issue 38): a repository of the merge base's and the head's trees per pull request; parts forge/local, results' bytes on the wire forge/local\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "pull request\tclient\tparts forge/local\tsaid forge/local\tbytes forge/local\tsame patch\tsame texts\terrors forge/local")
	for _, pr := range prs {
		label := fmt.Sprintf("%s#%d", pr.Repo, pr.Index)
		if pr.Skipped != "" {
			fmt.Fprintf(tw, "%s\tskipped: %s\n", label, pr.Skipped)
			continue
		}
		for _, fd := range pr.Drains {
			name := fd.Client
			if _, known := clients.Lookup(name); !known {
				name += " (unknown)"
			}
			fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%s/%s\t%s/%s\t%s\t%s\t%d/%d\n", label, name, fd.Forge.Calls, fd.Local.Calls, fd.Forge.Said, fd.Local.Said,
				thousands(float64(fd.Forge.WireBytes)), thousands(float64(fd.Local.WireBytes)), yesNo(fd.SamePatch), yesNo(fd.SameTexts), len(fd.Forge.Errors), len(fd.Local.Errors))
		}
	}
	tw.Flush()
	for _, pr := range prs {
		if pr.Skipped != "" {
			continue
		}
		label := fmt.Sprintf("%s#%d", pr.Repo, pr.Index)
		if pr.ForgeDiffIsGits {
			fmt.Fprintf(w, "%s: Gitea's %s#%d.diff is git diff -M of base and head byte for byte (%s)\n", label, pr.Gitea, pr.GiteaIndex, humanBytes(pr.ForgeDiffBytes))
		} else {
			hist := "nor with --diff-algorithm=histogram"
			if pr.ForgeDiffIsHistogram {
				hist = "it is git diff -M --diff-algorithm=histogram byte for byte"
			}
			fmt.Fprintf(w, "%s: Gitea's %s#%d.diff (%s) is NOT git diff -M of base and head (%s): %s; %s\n", label, pr.Gitea, pr.GiteaIndex, humanBytes(pr.ForgeDiffBytes), humanBytes(pr.PatchBytes), pr.ForgeDiffDiffers, hist)
		}
		for _, fd := range pr.Drains {
			for mode, d := range map[string]*realDrain{"forge": fd.Forge, "local": fd.Local} {
				for _, e := range d.Errors {
					fmt.Fprintf(w, "FAILED %s as %s (%s): %s\n", label, fd.Client, mode, e)
				}
			}
			if !fd.SamePatch || !fd.SameTexts {
				fmt.Fprintf(w, "DIFFERS %s as %s, forge against local: same patch %s; %s\n", label, fd.Client, yesNo(fd.SamePatch), fd.Differs)
			}
		}
	}
}

// forgeFailed says whether a forge drain failed or differs from the
// local one.
func forgeFailed(prs []*forgePRResult) bool {
	for _, pr := range prs {
		for _, fd := range pr.Drains {
			if len(fd.Forge.Errors)+len(fd.Local.Errors) > 0 || !fd.SamePatch || !fd.SameTexts {
				return true
			}
		}
	}
	return false
}
