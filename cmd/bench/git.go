package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// gitRunner runs plain git the way a person would on the command line, with
// an environment like the server's (no system or user config, C locale), so
// the two sides read the same repository under the same settings.
type gitRunner struct{ env []string }

func newGitRunner(home string) gitRunner {
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	return gitRunner{env: []string{
		"PATH=" + path,
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + home,
		"LC_ALL=C",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
	}}
}

// cmd is `git -C repo -c core.quotePath=true args...`.
func (g gitRunner) cmd(repo string, args ...string) *exec.Cmd {
	c := exec.Command("git", append([]string{"-C", repo, "-c", "core.quotePath=true"}, args...)...)
	c.Env = g.env
	return c
}

// output runs git and returns its stdout.
func (g gitRunner) output(repo string, args ...string) ([]byte, error) {
	c := g.cmd(repo, args...)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// line runs git and returns its output's first line.
func (g gitRunner) line(repo string, args ...string) (string, error) {
	out, err := g.output(repo, args...)
	s, _, _ := strings.Cut(string(out), "\n")
	return s, err
}

// discard runs git with its output read and thrown away, as a consumer of
// the output would (through a pipe, like the server reads git), and returns
// how many bytes it printed and its peak resident set in bytes.
func (g gitRunner) discard(repo string, args ...string) (printed, maxRSS int64, err error) {
	c := g.cmd(repo, args...)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	cw := &countWriter{w: io.Discard}
	c.Stdout = cw
	err = c.Run()
	if c.ProcessState != nil {
		maxRSS = peakRSS(c.ProcessState)
	}
	if err != nil {
		return cw.n, maxRSS, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return cw.n, maxRSS, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return c.w.Write(p)
}

// samePrefix checks that part, the share of a diff section that a part
// boundary cut, is git's output as far as it goes, "@@" lines aside (a cut
// hunk gets headers of its own). git is stopped once part is used up, so a
// 216 MB section costs no more than the part.
func (g gitRunner) samePrefix(repo, part string, args ...string) error {
	c := g.cmd(repo, args...)
	stdout, err := c.StdoutPipe()
	if err != nil {
		return err
	}
	if err := c.Start(); err != nil {
		return err
	}
	defer func() {
		_ = c.Process.Kill() // only a prefix was wanted
		_ = c.Wait()
	}()
	r := bufio.NewReaderSize(stdout, 1<<16)
	n := 0
	for _, want := range strings.SplitAfter(part, "\n") {
		if want == "" || strings.HasPrefix(want, "@@") {
			continue
		}
		for {
			got, err := r.ReadString('\n')
			if err != nil && got == "" {
				return fmt.Errorf("git %s ends after %d lines, the part goes on: %.80q", strings.Join(args, " "), n, want)
			}
			if strings.HasPrefix(got, "@@") {
				continue
			}
			n++
			if got != want {
				return fmt.Errorf("line %d (\"@@\" lines aside) is %.80q, git has %.80q", n, want, got)
			}
			break
		}
	}
	return nil
}
