; Ours, beside the grammar's tags.scm: what it does not tag. A union with a
; body (the grammar's pattern tags the declaration around it, and only at
; top level), macros, and the calls (the grammar tags no reference).

(union_specifier
  name: (type_identifier) @name
  body: (_)) @definition.class

(preproc_def
  name: (identifier) @name) @definition.macro

(preproc_function_def
  name: (identifier) @name) @definition.macro

(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: (field_expression
    field: (field_identifier) @name)) @reference.call

(call_expression
  function: (parenthesized_expression
    (identifier) @name)) @reference.call
