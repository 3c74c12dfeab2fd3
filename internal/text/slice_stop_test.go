package text

import (
	"io"
	"strings"
	"testing"
)

// countingReader counts what was read from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func TestStopEarlyReadsOnlyWhatIsKept(t *testing.T) {
	input := strings.Repeat("a line of forty bytes, more or less...\n", 100_000) // ~4 MB
	full, err := Slicer{From: 10, To: 20}.Read(strings.NewReader(input))
	if err != nil {
		t.Fatal(err)
	}
	cr := &countingReader{r: strings.NewReader(input)}
	early, err := Slicer{From: 10, To: 20, StopEarly: true}.Read(cr)
	if err != nil {
		t.Fatal(err)
	}
	if string(early.Content) != string(full.Content) || early.First != full.First || early.Last != full.Last || early.Stopped {
		t.Fatalf("early %+v, full %+v", early, full)
	}
	if cr.n > 200<<10 {
		t.Fatalf("read %d bytes of %d for lines 10-20", cr.n, len(input))
	}
	// Stopped by Accept: also stops reading.
	kept := 0
	cr = &countingReader{r: strings.NewReader(input)}
	stopped, _ := Slicer{From: 1, StopEarly: true, Accept: func([]byte) bool { kept++; return kept <= 5 }}.Read(cr)
	if !stopped.Stopped || stopped.Last != 5 || cr.n > 200<<10 {
		t.Fatalf("stopped %+v after reading %d bytes", stopped, cr.n)
	}
}
