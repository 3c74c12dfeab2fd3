package argcheck

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/google/jsonschema-go/jsonschema"
)

// SetInt gives an integer property its default and range; a hi of
// math.MaxInt32 or more is no maximum worth stating in every tools/list.
func SetInt(s *jsonschema.Schema, name string, def, lo, hi int) {
	p := Prop(s, name)
	if def != 0 {
		p.Default = json.RawMessage(fmt.Sprint(def))
	}
	l := float64(lo)
	p.Minimum = &l
	if hi < math.MaxInt32 {
		h := float64(hi)
		p.Maximum = &h
	}
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
