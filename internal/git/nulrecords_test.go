package git

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestNulRecords(t *testing.T) {
	type rec struct {
		text string
		cut  bool
		err  error
	}
	read := func(ctx context.Context, input string, limit, every int) []rec {
		z := newNulRecords(ctx, bufio.NewReaderSize(strings.NewReader(input), 16), limit, every)
		var out []rec
		for {
			r, cut, err := z.next()
			out = append(out, rec{string(r), cut, err})
			if err != nil {
				return out
			}
		}
	}
	ctx := context.Background()
	for _, tc := range []struct {
		input string
		want  []rec
	}{
		{"", []rec{{"", false, io.EOF}}},
		{"a\x00", []rec{{"a", false, nil}, {"", false, io.EOF}}},
		{"a\x00\x00b\x00", []rec{{"a", false, nil}, {"", false, nil}, {"b", false, nil}, {"", false, io.EOF}}},
		// Longer than the limit (and than br's buffer): cut, the rest skipped.
		{"0123456789" + strings.Repeat("x", 40) + "\x00c\x00", []rec{{"0123456789", true, nil}, {"c", false, nil}, {"", false, io.EOF}}},
		// The output ends before the record's NUL.
		{"a\x00bc", []rec{{"a", false, nil}, {"bc", false, io.ErrUnexpectedEOF}}},
		{"a\x00" + strings.Repeat("y", 30), []rec{{"a", false, nil}, {strings.Repeat("y", 10), true, io.ErrUnexpectedEOF}}},
	} {
		got := read(ctx, tc.input, 10, 4)
		if len(got) != len(tc.want) {
			t.Errorf("%q: got %+v, want %+v", tc.input, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%q: record %d = %+v, want %+v", tc.input, i, got[i], tc.want[i])
			}
		}
	}

	// A call's end is seen every `every` records, before reading the next.
	cause := errors.New("gone")
	done, cancel := context.WithCancelCause(ctx)
	cancel(cause)
	got := read(done, strings.Repeat("r\x00", 10), 10, 4)
	if len(got) != 4 || got[2].err != nil || got[3].err != cause {
		t.Errorf("with the context done: %+v, want three records then %v", got, cause)
	}
}

// parseLsTree, reading through nulRecords, refuses what git never prints:
// a record the output ends in before its NUL, a path over maxTreePath.
func TestParseLsTreeRefusesBrokenOutput(t *testing.T) {
	oid := strings.Repeat("ab", 20)
	parse := func(out string) ([]TreeEntry, error) {
		var got []TreeEntry
		err := parseLsTree(context.Background(), bufio.NewReader(strings.NewReader(out)), "d/", func(e TreeEntry) error {
			got = append(got, e)
			return nil
		})
		return got, err
	}
	good := "100644 blob " + oid + "       3\ta.txt\x00"
	if got, err := parse(good); err != nil || len(got) != 1 || got[0].Path != "d/a.txt" || got[0].Size != 3 {
		t.Errorf("parseLsTree(%q) = %+v, %v", good, got, err)
	}
	if got, err := parse(good + good[:len(good)-1]); !errors.Is(err, io.ErrUnexpectedEOF) || err.Error() != "git ls-tree: unexpected EOF" || len(got) != 1 {
		t.Errorf("without the last NUL: %+v, %v", got, err)
	}
	long := "100644 blob " + oid + "       3\t" + strings.Repeat("n", maxTreePath+300) + "\x00"
	if _, err := parse(long); err == nil || !strings.Contains(err.Error(), "a path over") {
		t.Errorf("a path over maxTreePath: %v", err)
	}
}
