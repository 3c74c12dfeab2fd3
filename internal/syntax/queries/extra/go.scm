; Ours, beside the grammar's tags.scm: what it does not tag. A type alias
; (type A = B) is a type; the package's own consts and vars (not a
; function's) are constants, as Python's tags call a module's assignments.

(type_alias
  name: (type_identifier) @name) @definition.type

(source_file
  (const_declaration
    (const_spec
      name: (identifier) @name) @definition.constant))

(source_file
  (var_declaration
    (var_spec
      name: (identifier) @name) @definition.constant))

(source_file
  (var_declaration
    (var_spec_list
      (var_spec
        name: (identifier) @name) @definition.constant)))

; A generic function called with a type argument is called, however the
; grammar reads it: as an index (f[T](x)) or as a conversion to a generic
; type (f[pkg.T](x)). go/ast's CallExpr says so, for conversions too.
(call_expression
  function: (index_expression
    operand: [
      (identifier) @name
      (selector_expression
        field: (field_identifier) @name)
    ])) @reference.call

(type_conversion_expression
  type: (generic_type
    type: [
      (type_identifier) @name
      (qualified_type
        name: (type_identifier) @name)
    ])) @reference.call
