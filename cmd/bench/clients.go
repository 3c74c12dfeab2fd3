package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-repo-tools/mcp-repo-tools/internal/clients"
)

// Replies sized to each client (issue 32): the paging pull request drained
// through its next calls once under the name of each known client and of
// an unknown one, on a server of its own, every reply held to that
// client's budget and the parts joined to git's patch. It counts calls and
// bytes; nothing is timed (--only clients).

// unknownClient is the name the case gives a client the server does not
// know: the bench's own former name, which no client sends.
const unknownClient = "mcp-repo-tools-bench"

// Issue 32's targets: at an 8,000-byte budget (an unknown client's), the
// replies of a drain at most 1.15× the JSON-escaped diff and at most
// ⌈E ÷ 7,000⌉ + 3 calls; at every budget, each part but the last at least
// 85% full.
const (
	clientsTargetBudget = 8_000
	clientsRatioTarget  = 1.15
	clientsCallsPer     = 7_000
	clientsCallsSlack   = 3
	clientsFillTarget   = 0.85
)

// clientDrain is one client's drain of the diff.
type clientDrain struct {
	Client      string `json:"client"`
	Known       bool   `json:"known"`
	BudgetBytes int    `json:"budgetBytes"`           // the result's JSON on the wire
	BudgetLines int    `json:"budgetLines,omitempty"` // 0: no count of lines
	// Measured, as the server measures a client's budget: the whole
	// result when the budget is the server's limit, else what a client
	// gives its model (seenBytes), the whole result within the limit.
	Measured string `json:"measured"`
	Calls    int    `json:"calls"`
	// SaidParts is the count of parts list_pull_request_files gives
	// beforehand ("about N parts"; 1 when it says the diff fits one).
	SaidParts int `json:"saidParts"`
	// CallsTarget and RatioTarget are 0 but at the 8,000-byte budget.
	CallsTarget int     `json:"callsTarget,omitempty"`
	ReplyBytes  int64   `json:"replyBytes"`
	ReplyRatio  float64 `json:"replyRatio"` // ReplyBytes / the escaped diff
	// WireBytes and WireRatio: the results as sent, _meta included.
	WireBytes   int64   `json:"wireBytes"`
	WireRatio   float64 `json:"wireRatio"`
	RatioTarget float64 `json:"replyRatioTarget,omitempty"`
	// MinFill is the least full part but the last: its measured bytes over
	// the budget's, or its lines over the budget's when that is more (a
	// part may be full by lines). nil with a single part.
	MinFill *float64 `json:"minFill"`
	// UnderFilled is how many parts but the last are under the fill
	// target; Framing is what a call costs over its share of the escaped
	// diff, (ReplyBytes − E) ÷ Calls: header, next call, and _meta when
	// measured whole.
	UnderFilled   int     `json:"partsUnderFillTarget"`
	Framing       float64 `json:"framingBytesPerCall"`
	ResultBytes   []int64 `json:"resultBytes"` // each call's result as sent
	MaxReplyBytes int64   `json:"maxReplyBytes"`
	MaxReplyLines int     `json:"maxReplyLines"`
	WithinBudget  bool    `json:"withinBudget"` // every result within bytes and lines
	Joined        bool    `json:"joinedIsGitsPatch"`
	Met           bool    `json:"met"`
}

// clientNames is one name of each known client, and unknownClient.
func clientNames() []string {
	var names []string
	for _, r := range clients.Known {
		names = append(names, r.Names[0])
	}
	return append(names, unknownClient)
}

// clientsTarget: every client's drain meets its targets.
func clientsTarget() *target {
	return &target{text: fmt.Sprintf("each client: replies within its budget, parts but the last ≥ %.0f%% full; at %s bytes: ≤ %.2f×E, calls ≤ ⌈E/%s⌉+%d",
		clientsFillTarget*100, thousands(clientsTargetBudget), clientsRatioTarget, thousands(clientsCallsPer), clientsCallsSlack),
		met: func(r *row) bool {
			if len(r.Clients) == 0 {
				return false
			}
			for _, cd := range r.Clients {
				if !cd.Met {
					return false
				}
			}
			return true
		}}
}

// perClient drains the diff once as each client, each on a new server.
func (ru *runner) perClient(ctx context.Context, c benchCase, sp *spec, r *row) error {
	ds := sp.clients
	r.ServerArgs = sp.args
	r.GitCommand = "git " + strings.Join(sp.git, " ")
	if _, known := clients.Lookup(unknownClient); known {
		return fmt.Errorf("%s is a known client now: the case needs a name the server does not know", unknownClient)
	}
	table := clients.NewTable(replyLimit, nil)
	for _, name := range clientNames() {
		s, err := ru.freshAs(name)
		if err != nil {
			return fmt.Errorf("as %s: %w", name, err)
		}
		said, err := saidParts(ctx, s, sp.args)
		if err != nil {
			s.close()
			return fmt.Errorf("as %s: %w", name, err)
		}
		dr, err := drain(ctx, s, c.tool, sp.args)
		s.close()
		if err != nil {
			return fmt.Errorf("as %s: %w", name, err)
		}
		if _, err := checkDrained(dr, ds); err != nil {
			return fmt.Errorf("as %s: answer differs from git's: %w", name, err)
		}
		_, known := clients.Lookup(name)
		cd := judgeClient(dr, ds.escaped, table.For(name), replyLimit)
		cd.Client, cd.Known, cd.Joined, cd.SaidParts = name, known, true, said
		cd.Met = cd.Met && cd.Joined
		r.Clients = append(r.Clients, cd)
		ru.logf("%s: as %s, %d calls, %.3f× E", c.label(), name, cd.Calls, cd.ReplyRatio)
	}
	r.Notes = fmt.Sprintf("%s (E = %d bytes); %d clients, each on a server of its own; the joined parts are git's patch for each", sp.note, ds.escaped, len(r.Clients))
	return nil
}

// saidParts is how many parts list_pull_request_files says the whole diff
// takes at this client's budget.
func saidParts(ctx context.Context, s caller, args map[string]any) (int, error) {
	res, err := s.call(ctx, "list_pull_request_files", map[string]any{"owner": args["owner"], "repo": args["repo"], "index": args["index"]})
	if err != nil {
		return 0, err
	}
	first, _, _ := strings.Cut(resultText(res), "\n")
	if strings.HasSuffix(first, "the whole diff fits one reply") {
		return 1, nil
	}
	m := saidPartsRe.FindStringSubmatch(first)
	if m == nil {
		return 0, fmt.Errorf("list_pull_request_files does not say how many parts the diff takes: %q", first)
	}
	return strconv.Atoi(m[1])
}

var saidPartsRe = regexp.MustCompile(`the whole diff: (?:about )?(\d+) parts`)

// judgeClient holds a drain to the budget b it was sized to, within the
// server's limit, escaped being the diff's bytes inside a JSON string.
func judgeClient(dr *drained, escaped int64, b clients.Budget, limit int) *clientDrain {
	sizes, measured := dr.seen, "as clients give it to the model: the content array's JSON and 40 bytes"
	if b.Bytes >= limit {
		sizes, measured = dr.sizes, "the whole result on the wire"
	}
	var total int64
	for _, n := range sizes {
		total += n
	}
	cd := &clientDrain{BudgetBytes: b.Bytes, BudgetLines: b.Lines, Measured: measured, Calls: dr.calls, ReplyBytes: total,
		ReplyRatio: float64(total) / float64(escaped), WireBytes: dr.bytes, WireRatio: float64(dr.bytes) / float64(escaped),
		MaxReplyBytes: dr.maxBytes, WithinBudget: true, Framing: float64(total-escaped) / float64(dr.calls), ResultBytes: dr.sizes}
	for i, n := range sizes {
		lines := dr.lines[i]
		cd.MaxReplyLines = max(cd.MaxReplyLines, lines)
		if n > int64(b.Bytes) || dr.sizes[i] > int64(limit) || (b.Lines > 0 && lines > b.Lines) {
			cd.WithinBudget = false
		}
		if i == len(sizes)-1 {
			break
		}
		fill := float64(n) / float64(b.Bytes)
		if b.Lines > 0 {
			fill = max(fill, float64(lines)/float64(b.Lines))
		}
		if fill < clientsFillTarget {
			cd.UnderFilled++
		}
		if cd.MinFill == nil || fill < *cd.MinFill {
			cd.MinFill = fptr(fill)
		}
	}
	cd.Met = cd.WithinBudget && (cd.MinFill == nil || *cd.MinFill >= clientsFillTarget)
	if b.Bytes == clientsTargetBudget {
		cd.CallsTarget = int(math.Ceil(float64(escaped)/clientsCallsPer)) + clientsCallsSlack
		cd.RatioTarget = clientsRatioTarget
		cd.Met = cd.Met && cd.Calls <= cd.CallsTarget && cd.ReplyRatio <= cd.RatioTarget
	}
	return cd
}

// seenBytes is a result as a client gives it to its model, as the server
// measures a client's budget (docs/bounds.md): the JSON of its content
// array (HTML not escaped, as Codex writes it) and 40 bytes for what a
// client puts around it. Written here again, not called: the bench checks
// the server's measure.
func seenBytes(res *mcp.CallToolResult) int64 {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res.Content); err != nil {
		return math.MaxInt64
	}
	n := int64(len(strings.TrimSuffix(b.String(), "\n"))) + 40
	if res.StructuredContent != nil {
		data, _ := json.Marshal(res.StructuredContent)
		n += int64(len(data))
	}
	return n
}

// textLines is the lines of a result's text parts, as the server counts
// them against a client's lines (toolcall's resultLines). Counted here
// again, not called: the bench checks the server's count, so it must not
// share it.
func textLines(res *mcp.CallToolResult) int {
	n := 0
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			n += strings.Count(t.Text, "\n") + 1
		}
	}
	return n
}

// writeClients prints each client's drain beside issue 32's targets.
func writeClients(w io.Writer, rows []*row) {
	for _, r := range rows {
		if r == nil || len(r.Clients) == 0 || r.Error != "" {
			continue
		}
		fmt.Fprintf(w, "\nReplies sized to each client (issue 32): %s, drained as each client; E = git's patch JSON-escaped; the server's limit %d bytes\n\n", r.Case, replyLimit)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "client\tbudget\tcalls\tsaid\ttarget\treplies ÷ E\ttarget\ton the wire ÷ E\tframing/call\tsmallest fill\tparts < %.0f%%\tlargest result\twithin budget, joined = git\tmet?\n", clientsFillTarget*100)
		for _, cd := range r.Clients {
			name := cd.Client
			if !cd.Known {
				name += " (unknown)"
			}
			budget := thousands(float64(cd.BudgetBytes)) + " bytes"
			if cd.BudgetLines > 0 {
				budget += ", " + thousands(float64(cd.BudgetLines)) + " lines"
			}
			callsTarget, ratioTarget := "-", "-"
			if cd.CallsTarget > 0 {
				callsTarget, ratioTarget = fmt.Sprintf("≤ %d", cd.CallsTarget), fmt.Sprintf("≤ %.2f×", cd.RatioTarget)
			}
			fill := "-"
			if cd.MinFill != nil {
				fill = fmt.Sprintf("%.1f%%", *cd.MinFill*100)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%.3f×\t%s\t%.3f×\t%s\t%s\t%d\t%s bytes, %s lines\t%s\t%s\n", name, budget, cd.Calls, cd.SaidParts, callsTarget, cd.ReplyRatio, ratioTarget, cd.WireRatio,
				thousands(cd.Framing), fill, cd.UnderFilled, thousands(float64(cd.MaxReplyBytes)), thousands(float64(cd.MaxReplyLines)), yesNo(cd.WithinBudget && cd.Joined), yesNo(cd.Met))
		}
		fmt.Fprintf(tw, "\t(budget: what the server sends the client, measured as the client gives it to its model (the content array's JSON and 40 bytes), or, at the server's limit, the whole result on the wire; largest result: on the wire; fill: a part's measure over its budget, by bytes or lines, the last part not counted; said: the parts list_pull_request_files says the whole diff takes; framing: (replies − E) ÷ calls; fill target ≥ %.0f%%)\n", clientsFillTarget*100)
		tw.Flush()
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "NO"
}
