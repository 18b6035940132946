; Ruby entities for the chunker (see grammars/README.md).

(program
  (method
    name: (_) @name
    body: (_)? @body) @entity.function)

(body_statement
  (method
    name: (_) @name
    body: (_)? @body) @entity.method)

(singleton_method
  name: (_) @name
  body: (_)? @body) @entity.method

(class
  name: [(constant) (scope_resolution)] @name
  body: (_)? @body) @entity.class

(module
  name: [(constant) (scope_resolution)] @name
  body: (_)? @body) @entity.module

; CONSTANT = value (at any level: Ruby forbids constant assignment in methods).
(assignment
  left: [(constant) (scope_resolution)] @name) @entity.constant

; require "x", require_relative "x", load "x"
((call
   !receiver
   method: (identifier)) @import
 (#match? @import "^(require|require_relative|load|autoload)[\\s(]"))
