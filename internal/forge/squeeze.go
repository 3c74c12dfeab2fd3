package forge

import "io"

// squeezer passes JSON through with every run of whitespace outside a
// string cut to one space, which JSON does not tell from the run
// (docs/security.md, review 4, finding 15). encoding/json's Decoder looks
// past whitespace before each token without consuming it, and scans its
// whole buffer again each time it reads more: a run of N spaces between
// two tokens cost it N² (32 MiB of spaces, ten seconds of CPU). Squeezed,
// no run is longer than a byte and the decoder's cost is linear. Strings
// are passed through untouched: the state kept is only whether the bytes
// are inside one and whether the last was a backslash there.
type squeezer struct {
	r        io.Reader
	inString bool
	escaped  bool // the byte before was a backslash, in a string
	space    bool // the byte before was whitespace, outside a string
}

func (s *squeezer) Read(p []byte) (int, error) {
	for {
		n, err := s.r.Read(p)
		w := 0
		for _, c := range p[:n] {
			switch {
			case s.inString:
				switch {
				case s.escaped:
					s.escaped = false
				case c == '\\':
					s.escaped = true
				case c == '"':
					s.inString = false
				}
			case c == ' ' || c == '\t' || c == '\n' || c == '\r':
				if s.space {
					continue
				}
				s.space, c = true, ' '
			default:
				s.space = false
				s.inString = c == '"'
			}
			p[w] = c
			w++
		}
		// A read of nothing but a run's rest gives nothing: read on
		// rather than answer 0 bytes and no error.
		if w > 0 || err != nil || n == 0 {
			return w, err
		}
	}
}
