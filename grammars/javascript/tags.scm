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

; const f = () => ..., let f = function () {...}
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)

(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)

; obj.f = function () {...}, f = () => ...
(assignment_expression
  left: [
    (identifier) @name
    (member_expression property: (property_identifier) @name)
  ]
  right: [(arrow_function) (function_expression) (generator_function)]) @definition.function

; { f: () => ... }
(pair
  key: (property_identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function

; Top-level UPPER_CASE constants.
(program
  (lexical_declaration
    (variable_declarator
      name: (identifier) @name) @definition.constant)
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

(program
  (export_statement
    declaration: (lexical_declaration
      (variable_declarator
        name: (identifier) @name) @definition.constant))
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

; Calls (require() is an import, below)
((call_expression
   function: (identifier) @name) @reference.call
 (#not-match? @name "^require$"))

(call_expression
  function: (member_expression
    property: [(property_identifier) (private_property_identifier)] @name)) @reference.call

; Instantiation
(new_expression
  constructor: [
    (identifier) @name
    (member_expression property: (property_identifier) @name)
  ]) @reference.class

; Imports
(import_statement
  source: (string (string_fragment) @name)) @reference.module

((call_expression
   function: (identifier)
   arguments: (arguments . (string (string_fragment) @name))) @reference.module
 (#match? @reference.module "^require\\s*\\("))

; JSX: <Component ...> uses a component (capitalised tags only).
((jsx_opening_element
   name: [(identifier) (member_expression)] @name) @reference.class
 (#match? @name "^[A-Z]"))

((jsx_self_closing_element
   name: [(identifier) (member_expression)] @name) @reference.class
 (#match? @name "^[A-Z]"))
