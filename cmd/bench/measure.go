package main

import (
	"context"
	"errors"
	"os/exec"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// timeServer times one tool call at the client: request out, reply parsed.
// The check runs after the clock stops, so it costs the server nothing, but
// every timed call is checked: a benchmark of an error measures nothing.
func timeServer(ctx context.Context, s caller, tool string, args map[string]any, check func(*mcp.CallToolResult) error) (time.Duration, error) {
	start := time.Now()
	res, err := s.call(ctx, tool, args)
	d := time.Since(start)
	if err != nil {
		return d, err
	}
	if check != nil {
		err = check(res)
	}
	return d, err
}

// gitRun is one timed plain git run.
type gitRun struct {
	d       time.Duration
	printed int64 // bytes of output
	maxRSS  int64 // git's peak resident set, bytes
}

// timeGit times one plain git run, its output read and discarded. For git
// grep, exit status 1 means "no match", not failure.
func timeGit(g gitRunner, dir string, args []string, noMatchOK bool) (gitRun, error) {
	start := time.Now()
	n, rss, err := g.discard(dir, args...)
	d := time.Since(start)
	var exit *exec.ExitError
	if noMatchOK && errors.As(err, &exit) && exit.ExitCode() == 1 {
		err = nil
	}
	return gitRun{d: d, printed: n, maxRSS: rss}, err
}

// paired runs the server call and git alternately, rounds times, switching
// which goes first every round so neither always gets the warmer cache.
// Warm-up is the caller's job.
func paired(rounds int, server, git func() (time.Duration, error)) (sv, gt []time.Duration, err error) {
	for i := 0; i < rounds; i++ {
		first, second := server, git
		if i%2 == 1 {
			first, second = git, server
		}
		a, err := first()
		if err != nil {
			return nil, nil, err
		}
		b, err := second()
		if err != nil {
			return nil, nil, err
		}
		if i%2 == 1 {
			a, b = b, a
		}
		sv, gt = append(sv, a), append(gt, b)
	}
	return sv, gt, nil
}

// quantile returns the q-quantile (nearest rank) of ds.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(q*float64(len(s)) + 0.5)
	return s[min(max(i-1, 0), len(s)-1)]
}

// median is the middle value (the mean of the two middle ones for an even
// count).
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

func msList(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = ms(d)
	}
	return out
}
