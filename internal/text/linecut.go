package text

import "bufio"

// A line shown from a file (a search's match and its context, a blamed
// line) is cut at MaxShownLine bytes, on a UTF-8 boundary, with a marker.

// MaxShownLine is the longest line shown whole.
const MaxShownLine = 500

// ReadLineHead reads one line, keeping at most MaxShownLine+4 bytes of it
// (enough to cut it on a UTF-8 boundary) in buf[:0].
func ReadLineHead(br *bufio.Reader, buf []byte) (head []byte, cut bool, err error) {
	buf = buf[:0]
	for {
		frag, err := br.ReadSlice('\n')
		if err == nil {
			frag = frag[:len(frag)-1]
		}
		if room := MaxShownLine + 4 - len(buf); len(frag) > room {
			frag, cut = frag[:max(room, 0)], true
		}
		buf = append(buf, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		return buf, cut, err
	}
}

// CutLine cuts a line at MaxShownLine bytes on a UTF-8 boundary, with a marker;
// longer tells that the line went on past b.
func CutLine(b []byte, longer bool) string {
	s := string(b)
	if cut, did := CutUTF8(s, MaxShownLine); did || longer {
		return cut + " …[line cut]"
	}
	return s
}
