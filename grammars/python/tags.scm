; Python definitions and references (tree-sitter tags convention).

(class_definition
  name: (identifier) @name) @definition.class

; Methods: functions directly in a class body (possibly decorated).
(class_definition
  body: (block
    [
      (function_definition name: (identifier) @name) @definition.method
      (decorated_definition
        definition: (function_definition name: (identifier) @name) @definition.method)
    ]))

; Functions: at module level, nested in functions, or in if/try blocks at module level.
(module
  [
    (function_definition name: (identifier) @name) @definition.function
    (decorated_definition
      definition: (function_definition name: (identifier) @name) @definition.function)
  ])

(function_definition
  body: (block
    [
      (function_definition name: (identifier) @name) @definition.function
      (decorated_definition
        definition: (function_definition name: (identifier) @name) @definition.function)
    ]))

([(if_statement) (try_statement) (else_clause) (except_clause) (finally_clause)]
  (block
    (function_definition name: (identifier) @name) @definition.function))

; Module-level UPPER_CASE constants.
(module
  (expression_statement
    (assignment
      left: (identifier) @name) @definition.constant)
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

; Calls
(call
  function: [
    (identifier) @name
    (attribute attribute: (identifier) @name)
  ]) @reference.call

; Superclasses
(class_definition
  superclasses: (argument_list
    [
      (identifier) @name
      (attribute attribute: (identifier) @name)
    ] @reference.implementation))

; Type hints
(type (identifier) @name) @reference.type
(type (attribute attribute: (identifier) @name)) @reference.type
(type (subscript value: (identifier) @name)) @reference.type
(type (generic_type (identifier) @name)) @reference.type

; Decorators
(decorator (identifier) @name) @reference.call
(decorator (attribute attribute: (identifier) @name)) @reference.call

; Imports
(import_statement
  name: [
    (dotted_name) @name
    (aliased_import name: (dotted_name) @name)
  ]) @reference.module

(import_from_statement
  module_name: [(dotted_name) (relative_import)] @name) @reference.module

; Import bindings (see grammars/README.md).
(import_from_statement
  module_name: (_) @import.source
  name: (dotted_name) @import.name)
(import_from_statement
  module_name: (_) @import.source
  name: (aliased_import name: (dotted_name) @import.name alias: (identifier) @import.alias))
(import_from_statement
  module_name: (_) @import.source
  (wildcard_import))
(import_statement
  name: (dotted_name) @import.source @import.namespace)
(import_statement
  name: (aliased_import name: (dotted_name) @import.source alias: (identifier) @import.namespace))
