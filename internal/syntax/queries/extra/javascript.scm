; Ours, beside the grammar's tags.scm: what it does not tag. A class's
; constructor and private methods are methods (a hunk in one is in a
; function), and so is a field holding a function.

(method_definition
  name: (property_identifier) @name
  (#eq? @name "constructor")) @definition.method

(method_definition
  name: (private_property_identifier) @name) @definition.method

(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.method
