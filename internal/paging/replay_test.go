package paging

import (
	"io"
	"strings"
	"testing"
)

// Every reader of a Replay reads the whole stream from its start; a reader
// within the kept bytes opens nothing, one past them opens the stream
// again, and a stream that starts differently the second time is an error.
func TestReplay(t *testing.T) {
	stream := strings.Repeat("0123456789", 100)
	version := stream
	r := NewReplay(func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(version)), nil }, 64)
	defer r.Close()
	read := func(n int64) (string, error) {
		data, err := io.ReadAll(io.LimitReader(r.Reader(), n))
		return string(data), err
	}
	for i, c := range []struct {
		n     int64
		opens int
	}{
		{1000, 1}, // the first reader takes the stream past the kept bytes
		{10, 1},   // from memory
		{64, 1},
		{65, 2}, // past them: the stream again
		{1000, 3},
	} {
		got, err := read(c.n)
		if err != nil || got != stream[:c.n] {
			t.Fatalf("read %d: %d bytes (%v), want the stream's first %d", i, len(got), err, c.n)
		}
		if r.Opens != c.opens {
			t.Errorf("read %d: %d streams opened, want %d", i, r.Opens, c.opens)
		}
	}
	version = "x" + stream[1:]
	if _, err := read(100); err == nil || !strings.Contains(err.Error(), "changed") {
		t.Errorf("a stream that changed was read again without an error: %v", err)
	}
	version = stream[:32]
	if _, err := read(100); err == nil {
		t.Errorf("a stream that ended sooner was read again without an error")
	}
}

// A stream shorter than what is kept is opened once, however often read.
func TestReplayShortStream(t *testing.T) {
	r := NewReplay(func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("short")), nil }, 64)
	defer r.Close()
	for range 3 {
		if data, err := io.ReadAll(r.Reader()); err != nil || string(data) != "short" {
			t.Fatalf("got %q, %v", data, err)
		}
	}
	if r.Opens != 1 {
		t.Errorf("%d opens, want 1", r.Opens)
	}
}
