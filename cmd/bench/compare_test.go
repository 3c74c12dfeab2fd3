package main

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// recorder makes timed funcs that log their name and return d.
type recorder struct{ calls []string }

func (rc *recorder) fn(name string, d time.Duration) timed {
	return func() (time.Duration, error) {
		rc.calls = append(rc.calls, name)
		return d, nil
	}
}

func TestInterleavedOrder(t *testing.T) {
	rc := &recorder{}
	bv, sv, gt, err := interleaved(3, rc.fn("base", 1), rc.fn("cur", 2), rc.fn("git", 3))
	if err != nil {
		t.Fatal(err)
	}
	// The servers go baseline, current, baseline, current …; git is last
	// in one round and first in the next.
	want := "base cur git git base cur base cur git"
	if got := strings.Join(rc.calls, " "); got != want {
		t.Errorf("order %q, want %q", got, want)
	}
	for name, ds := range map[string][]time.Duration{"baseline": bv, "current": sv, "git": gt} {
		if len(ds) != 3 {
			t.Errorf("%s: %d samples, want 3", name, len(ds))
		}
	}
	if bv[0] != 1 || sv[0] != 2 || gt[0] != 3 || bv[1] != 1 || gt[1] != 3 {
		t.Errorf("samples not where they belong: %v %v %v", bv, sv, gt)
	}
}

func TestInterleavedWithoutBaselineIsPaired(t *testing.T) {
	rc := &recorder{}
	bv, sv, gt, err := interleaved(2, nil, rc.fn("cur", 2), rc.fn("git", 3))
	if err != nil || bv != nil || len(sv) != 2 || len(gt) != 2 {
		t.Fatalf("bv %v sv %v gt %v err %v", bv, sv, gt, err)
	}
	if got := strings.Join(rc.calls, " "); got != "cur git git cur" {
		t.Errorf("order %q", got)
	}
}

func TestInterleavedNamesTheBaselinesError(t *testing.T) {
	fail := func() (time.Duration, error) { return 0, errors.New("boom") }
	rc := &recorder{}
	_, _, _, err := interleaved(1, fail, rc.fn("cur", 1), rc.fn("git", 1))
	if err == nil || !strings.Contains(err.Error(), "the baseline: boom") {
		t.Errorf("err = %v", err)
	}
}

func TestSetCounts(t *testing.T) {
	b := &baselineResult{}
	b.setCounts(12, 12, 700_000, 700_000)
	if b.Differs != "" || *b.CallsRatio != 1 || *b.BytesRatio != 1 {
		t.Errorf("same counts: %+v", b)
	}
	b = &baselineResult{}
	b.setCounts(13, 12, 720_000, 700_000)
	if !strings.Contains(b.Differs, "behaviour changed: 13 calls, the baseline 12, 720000 bytes, the baseline 700000") {
		t.Errorf("differs = %q", b.Differs)
	}
	b = &baselineResult{}
	b.setCounts(0, 0, 100, 100) // a single call: no calls ratio
	if b.CallsRatio != nil || b.Differs != "" {
		t.Errorf("single call: %+v", b)
	}
}

func rowWith(cur, base float64) *row {
	r := &row{Tool: "t", Case: "c", ServerMs: fptr(cur), Baseline: &baselineResult{}}
	r.setBaselineTimes([]time.Duration{time.Duration(base * 1e6)})
	return r
}

func TestVerdict(t *testing.T) {
	info := &baselineInfo{Rev: "HEAD~1", Commit: "0123456789abcdef"}
	within := []*row{rowWith(10.4, 10), rowWith(9, 10), {Tool: "x", Case: "skipped", Skipped: "no tool"}}
	var out bytes.Buffer
	writeBaseline(&out, info, within)
	if len(slowerThanBaseline(within)) != 0 || !strings.Contains(out.String(), "1 of the cases not compared (see their notes)\nno case slower than the baseline by more than 5%") {
		t.Errorf("within 5%%:\n%s", out.String())
	}
	slow := append(within, rowWith(10.6, 10))
	if got := slowerThanBaseline(slow); len(got) != 1 || *got[0].ServerMs != 10.6 {
		t.Errorf("slower: %v", got)
	}
	out.Reset()
	writeBaseline(&out, info, slow)
	if !strings.Contains(out.String(), "slower than the baseline by more than 5% (1 of the cases):\n  t c: 1.06×") {
		t.Errorf("verdict:\n%s", out.String())
	}
}

func TestBaselineFlag(t *testing.T) {
	o, err := parseFlags([]string{"--baseline", "main~3", "--only", "x"}, io.Discard)
	if err != nil || o.baseline != "main~3" {
		t.Fatalf("o %+v err %v", o, err)
	}
	if o, _ := parseFlags(nil, io.Discard); o.baseline != "" {
		t.Errorf("no --baseline: %q", o.baseline)
	}
}

// TestSearchText reads each form of search_code's first line.
func TestSearchText(t *testing.T) {
	for _, c := range []struct {
		header string
		n      int
		more   bool
	}{
		{`search_code "x" (literal, case-insensitive) in the work tree: 3 matches`, 3, false},
		{`search_code "x" (literal, case-insensitive) at abc: matches 1–50 shown; more follow`, 50, true},
		{`search_code "x" (regex, case-sensitive) at abc: matches 51–60 of 60`, 10, false},
	} {
		n, more, err := searchText(c.header + "\nfile:1: x\n")
		if err != nil || n != c.n || more != c.more {
			t.Errorf("%q: %d, %v, %v; want %d, %v", c.header, n, more, err, c.n, c.more)
		}
	}
}
