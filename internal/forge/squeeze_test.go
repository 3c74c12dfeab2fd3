package forge

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"math/rand"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// TestIssueCommentsWhitespaceIsLinear: a conversation answer of 32 MiB of
// JSON whitespace (a 32 KB gzip answer, which the transport inflates) is
// read in linear time, and the comments around it come through. Review 4,
// finding 15 (docs/security.md): about ten seconds of CPU for one call.
func TestIssueCommentsWhitespaceIsLinear(t *testing.T) {
	var plain bytes.Buffer
	plain.WriteString(`[`)
	ws := strings.Repeat(" \n\t\r", 2<<20) // 8 MiB
	for range 4 {
		plain.WriteString(ws)
	}
	plain.WriteString(`{"id":1,"body":"a  \"  b\\"}` + ws + `,` + ws + `{"id" :` + ws + `2, "body": "c"}`)
	plain.WriteString(ws + `]`)
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	_, _ = zw.Write(plain.Bytes())
	_ = zw.Close()
	srv := fakeForge(t, "1.26.0", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(zipped.Bytes())
	})
	c, err := New(context.Background(), srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var got []IssueComment
	complete, err := c.IssueComments(context.Background(), "acme", "widgets", 1, "", func(ic IssueComment) { got = append(got, ic) })
	took := time.Since(start)
	if err != nil || !complete || len(got) != 2 || got[0].Body != `a  "  b\` || got[1].ID != 2 {
		t.Fatalf("complete %v, %v: %+v", complete, err, got)
	}
	// Linear, this is well under a second (a few with -race on a loaded
	// machine); before, 48 MiB took about 30 s.
	if took > 10*time.Second {
		t.Errorf("%d MiB of whitespace (%d bytes gzipped) took %v to read", plain.Len()>>20, zipped.Len(), took)
	}
}

// TestSqueezerKeepsJSON: squeezed, any JSON decodes to the same values,
// strings with whitespace, quotes and backslashes in them kept exactly,
// however the reads are cut.
func TestSqueezerKeepsJSON(t *testing.T) {
	rng := rand.New(rand.NewSource(15))
	pieces := []string{" ", "\n", "\t", "\r", "  ", `\"`, `\\`, `"`, "a", "é", `\n`, "\u2028"}
	for i := range 300 {
		var items []any
		for range rng.Intn(5) {
			var b strings.Builder
			for range rng.Intn(20) {
				b.WriteString(pieces[rng.Intn(len(pieces))])
			}
			items = append(items, map[string]any{"id": float64(i), "body": b.String(), "list": []any{b.String(), 1.5, nil}})
		}
		data, _ := json.MarshalIndent(items, strings.Repeat(" ", rng.Intn(3)), strings.Repeat("\t ", rng.Intn(3)))
		var want, got any
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		var r io.Reader = &squeezer{r: bytes.NewReader(data)}
		if i%2 == 1 {
			r = &squeezer{r: iotest.OneByteReader(bytes.NewReader(data))}
		}
		squeezed, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(squeezed, &got); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s\nsqueezed to\n%s\n%v", data, squeezed, err)
		}
		if bytes.Contains(squeezed, []byte("\n")) { // a raw newline is never inside a string
			t.Fatalf("a newline outside a string was kept: %q", squeezed)
		}
	}
}
