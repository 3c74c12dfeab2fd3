package main

import (
	"bufio"
	"io"
)

const (
	hugeSeed  = 0x6875676566696c65
	hugeLines = 3_600_000 // × ~60 bytes ≈ 216 MB
	hugePath  = "m-huge.txt"
)

// writeHuge writes the huge file's lines to w (nil: only counts) and
// returns its size. The same seed gives the same bytes, so one counting pass
// tells fast-import the size before the streaming pass.
func writeHuge(w io.Writer) (int64, error) {
	r := newRNG(hugeSeed)
	var n int64
	buf := make([]byte, 0, 64<<10)
	for i := 1; i <= hugeLines; i++ {
		buf = hugeLine(buf, r, i)
		if len(buf) > 60<<10 || i == hugeLines {
			if w != nil {
				if _, err := w.Write(buf); err != nil {
					return n, err
				}
			}
			n += int64(len(buf))
			buf = buf[:0]
		}
	}
	return n, nil
}

// genHuge writes a base commit with a README, then a commit that adds
// a.txt, m-huge.txt (≈216 MB, streamed) and z.txt, on either side of the
// huge file in path order, and edits the README.
func genHuge(g gitRunner, gitDir string, logf logFunc) error {
	size, _ := writeHuge(nil)
	return fastImport(g, gitDir, func(im *importer) {
		im.commit("refs/heads/main", 1, 0, 0, "base")
		im.file("README.md", []byte("# huge\n\nA repository with one very large text file.\n"))
		im.endCommit()

		im.commit("refs/heads/main", 2, 1, 3600, "add a huge file between two small ones")
		im.file("README.md", []byte("# huge\n\nA repository with one very large text file: m-huge.txt.\n"))
		im.file("a.txt", source(hugeSeed+1, 2000, "a"))
		logf("  huge: streaming %s (%s) into fast-import", hugePath, humanBytes(size))
		im.stream(hugePath, size, func(w io.Writer) (int64, error) {
			bw := bufio.NewWriterSize(w, 1<<20)
			n, err := writeHuge(bw)
			if err == nil {
				err = bw.Flush()
			}
			return n, err
		})
		im.file("z.txt", source(hugeSeed+2, 2000, "z"))
		im.endCommit()
		im.reset("refs/tags/base", 1)
	})
}
