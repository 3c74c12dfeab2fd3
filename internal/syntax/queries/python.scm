; github.com/tree-sitter/tree-sitter-python v0.23.6 queries/tags.scm, MIT licence; copied byte for byte below this line.
(module (expression_statement (assignment left: (identifier) @name) @definition.constant))

(class_definition
  name: (identifier) @name) @definition.class

(function_definition
  name: (identifier) @name) @definition.function

(call
  function: [
      (identifier) @name
      (attribute
        attribute: (identifier) @name)
  ]) @reference.call
