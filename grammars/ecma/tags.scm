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

; Import bindings (@import.source with @import.name/@import.alias, @import.default,
; @import.namespace; @import.reexport marks `export … from`). See grammars/README.md.
(import_statement
  (import_clause (named_imports (import_specifier name: (_) @import.name alias: (_)? @import.alias)))
  source: (string (string_fragment) @import.source))
(import_statement
  (import_clause (identifier) @import.default)
  source: (string (string_fragment) @import.source))
(import_statement
  (import_clause (namespace_import (identifier) @import.namespace))
  source: (string (string_fragment) @import.source))
(export_statement
  (export_clause (export_specifier name: (_) @import.name alias: (_)? @import.alias))
  source: (string (string_fragment) @import.source)) @import.reexport
(export_statement
  "*"
  !declaration
  source: (string (string_fragment) @import.source)) @import.reexport
; const x = require('m'); const { a, b: c } = require('m')
((variable_declarator
   name: (identifier) @import.namespace
   value: (call_expression
     function: (identifier) @_require
     arguments: (arguments . (string (string_fragment) @import.source))))
 (#eq? @_require "require"))
((variable_declarator
   name: (object_pattern (shorthand_property_identifier_pattern) @import.name)
   value: (call_expression
     function: (identifier) @_require
     arguments: (arguments . (string (string_fragment) @import.source))))
 (#eq? @_require "require"))
((variable_declarator
   name: (object_pattern (pair_pattern key: (property_identifier) @import.name value: (identifier) @import.alias))
   value: (call_expression
     function: (identifier) @_require
     arguments: (arguments . (string (string_fragment) @import.source))))
 (#eq? @_require "require"))
