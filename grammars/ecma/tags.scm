; Definitions and references shared by JavaScript, TypeScript and TSX (inherited by their
; tags.scm; not a language of its own).
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
