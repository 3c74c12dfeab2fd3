package argcheck

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// SetInt gives an integer property its default and range.
func SetInt(s *jsonschema.Schema, name string, def, lo, hi int) {
	p := Prop(s, name)
	if def != 0 {
		p.Default = json.RawMessage(fmt.Sprint(def))
	}
	l, h := float64(lo), float64(hi)
	p.Minimum, p.Maximum = &l, &h
}

// SetDefault gives a property its default value.
func SetDefault(s *jsonschema.Schema, name string, def any) {
	data, err := json.Marshal(def)
	if err != nil {
		panic(err)
	}
	Prop(s, name).Default = data
}

func Prop(s *jsonschema.Schema, name string) *jsonschema.Schema {
	p, ok := s.Properties[name]
	if !ok {
		panic("schema has no property " + name)
	}
	return p
}
