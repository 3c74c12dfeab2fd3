package main

import (
	"slices"
	"testing"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/clients"
)

// TestJudgeClientFill: the fill is of the parts but the last, by bytes or
// by lines when those are fuller; a part over either measure is out of
// budget.
func TestJudgeClientFill(t *testing.T) {
	b := clients.Budget{Bytes: 10_000, Lines: 100}
	dr := &drained{calls: 3, bytes: 19_600, maxBytes: 9_200, sizes: []int64{9_200, 5_200, 1_200}, seen: []int64{9_000, 5_000, 1_000}, lines: []int{10, 95, 1}}
	cd := judgeClient(dr, 18_000, b, 65_536)
	if cd.MinFill == nil || *cd.MinFill != 0.9 {
		t.Errorf("smallest fill %v, want 0.9 (the first part by bytes; the second is 95%% by lines; the last not counted)", cd.MinFill)
	}
	if !cd.WithinBudget || !cd.Met || cd.CallsTarget != 0 {
		t.Errorf("within %v, met %v, calls target %d: want within, met, no calls target away from 8,000 bytes", cd.WithinBudget, cd.Met, cd.CallsTarget)
	}
	if cd := judgeClient(dr, 18_000, b, 9_000); cd.WithinBudget {
		t.Errorf("a result of 9,200 bytes on the wire passes a server limit of 9,000")
	}
	dr.lines[2] = 101
	if cd := judgeClient(dr, 18_000, b, 65_536); cd.WithinBudget || cd.Met {
		t.Errorf("a last part of 101 lines passes a 100-line budget")
	}
}

// TestJudgeClientIssueTargets: at 8,000 bytes, issue 32's calls and bytes
// targets apply.
func TestJudgeClientIssueTargets(t *testing.T) {
	b := clients.Budget{Bytes: clientsTargetBudget, Lines: 2_000}
	sizes := []int64{7_900, 7_900, 7_900, 7_900, 100}
	dr := &drained{calls: len(sizes), sizes: sizes, seen: sizes, lines: make([]int, len(sizes)), maxBytes: 7_900}
	for _, n := range sizes {
		dr.bytes += n
	}
	// 31,700 bytes of replies for 28,000 escaped: 1.13×, 5 calls against
	// ⌈28,000 ÷ 7,000⌉ + 3 = 7.
	cd := judgeClient(dr, 28_000, b, 65_536)
	if cd.CallsTarget != 7 || !cd.Met {
		t.Errorf("calls target %d, met %v: want 7 and met (ratio %.3f)", cd.CallsTarget, cd.Met, cd.ReplyRatio)
	}
	// The same replies for 25,000 escaped bytes: 1.27×, over 1.15.
	if cd := judgeClient(dr, 25_000, b, 65_536); cd.Met {
		t.Errorf("a ratio of %.3f meets the %.2f target", cd.ReplyRatio, clientsRatioTarget)
	}
}

// TestClientNames: one name of every known client, then one the server
// does not know.
func TestClientNames(t *testing.T) {
	names := clientNames()
	if len(names) != len(clients.Known)+1 || names[len(names)-1] != unknownClient {
		t.Fatalf("names %q", names)
	}
	if _, known := clients.Lookup(unknownClient); known {
		t.Errorf("%s is a known client", unknownClient)
	}
	if !slices.Contains(names, benchClient) {
		t.Errorf("the bench's own client %s is not among %q", benchClient, names)
	}
	if r, _ := clients.Lookup(benchClient); !r.Declared {
		t.Errorf("%s's budget is not the server's limit: the cases would not measure replyLimit", benchClient)
	}
}
