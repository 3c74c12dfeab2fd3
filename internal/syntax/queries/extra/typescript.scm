; Ours, beside the grammars' tags.scm (JavaScript's, then TypeScript's):
; what they do not tag. As for JavaScript: constructors, private methods,
; fields holding a function; then type aliases and enums (types, as C's
; enums are) and namespaces (modules).

(method_definition
  name: (property_identifier) @name
  (#eq? @name "constructor")) @definition.method

(method_definition
  name: (private_property_identifier) @name) @definition.method

(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.method

(type_alias_declaration
  name: (type_identifier) @name) @definition.type

(enum_declaration
  name: (identifier) @name) @definition.type

(internal_module
  name: (_) @name) @definition.module
