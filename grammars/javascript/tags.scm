; inherits: ecma
; JavaScript definitions and references (tree-sitter tags convention).

[
  (class_declaration name: (identifier) @name)
  (class name: (identifier) @name)
] @definition.class

(class_heritage
  [
    (identifier) @name
    (member_expression property: (property_identifier) @name)
    (call_expression function: (identifier) @name)
  ]) @reference.implementation

(method_definition
  name: [(property_identifier) (private_property_identifier)] @name) @definition.method

[
  (function_declaration name: (identifier) @name)
  (generator_function_declaration name: (identifier) @name)
] @definition.function

; class fields holding functions: f = () => ...
(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.method
; JSX: <Component ...> uses a component (capitalised tags only).
((jsx_opening_element
   name: [(identifier) (member_expression)] @name) @reference.class
 (#match? @name "^[A-Z]"))

((jsx_self_closing_element
   name: [(identifier) (member_expression)] @name) @reference.class
 (#match? @name "^[A-Z]"))
