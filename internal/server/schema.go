package server

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// setInt gives an integer property its default and range.
func setInt(s *jsonschema.Schema, name string, def, lo, hi int) {
	p := prop(s, name)
	if def != 0 {
		p.Default = json.RawMessage(fmt.Sprint(def))
	}
	l, h := float64(lo), float64(hi)
	p.Minimum, p.Maximum = &l, &h
}

// setDefault gives a property its default value.
func setDefault(s *jsonschema.Schema, name string, def any) {
	data, err := json.Marshal(def)
	if err != nil {
		panic(err)
	}
	prop(s, name).Default = data
}

func prop(s *jsonschema.Schema, name string) *jsonschema.Schema {
	p, ok := s.Properties[name]
	if !ok {
		panic("schema has no property " + name)
	}
	return p
}
