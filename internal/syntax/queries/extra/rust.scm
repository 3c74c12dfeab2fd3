; Ours, beside the grammar's tags.scm: what it does not tag. Consts and
; statics are constants, a trait's signatures its methods (rules.go drops
; them elsewhere), and a call through a path (Foo::new()) is a call.

(const_item
  name: (identifier) @name) @definition.constant

(static_item
  name: (identifier) @name) @definition.constant

(function_signature_item
  name: (identifier) @name) @definition.method

(call_expression
  function: (scoped_identifier
    name: (identifier) @name)) @reference.call

(call_expression
  function: (generic_function
    function: [
      (identifier) @name
      (scoped_identifier name: (identifier) @name)
      (field_expression field: (field_identifier) @name)
    ])) @reference.call
