; Ours, beside the grammar's tags.scm: what it does not tag. C's (unions,
; macros, calls), then A::B::f, destructors and operators, namespaces.
; A qualified @name is resolved to its last part in Go (rules.go).

(union_specifier
  name: (type_identifier) @name
  body: (_)) @definition.class

(preproc_def
  name: (identifier) @name) @definition.macro

(preproc_function_def
  name: (identifier) @name) @definition.macro

(function_declarator
  declarator: (qualified_identifier) @name) @definition.method

(function_declarator
  declarator: [(destructor_name) (operator_name)] @name) @definition.function

(namespace_definition
  name: (_) @name) @definition.module

(call_expression
  function: [
    (identifier)
    (qualified_identifier)
    (template_function)
  ] @name) @reference.call

(call_expression
  function: (field_expression
    field: [
      (field_identifier)
      (template_method)
    ] @name)) @reference.call
