; Scala entities for the chunker (see grammars/README.md).
; tree-sitter-scala 0.19 (tree-sitter-wasms): Scala 2 syntax only (no enum, given,
; extension, indentation syntax); `sealed trait` and brace-block arguments
; (`xs.map { x => ... }`) do not parse.

(class_definition
  name: (identifier) @name
  body: (template_body)? @body) @entity.class

(trait_definition
  name: (identifier) @name
  body: (template_body)? @body) @entity.trait

(object_definition
  name: (identifier) @name
  body: (template_body)? @body) @entity.module

(package_object
  name: (identifier) @name
  body: (template_body)? @body) @entity.module

; package a.b { ... }
(package_clause
  name: (package_identifier) @name
  body: (template_body) @body) @entity.namespace

(template_body
  (function_definition
    name: (identifier) @name
    body: (_) @body) @entity.method)

(template_body
  (function_declaration
    name: (identifier) @name) @entity.method)

(compilation_unit
  (function_definition
    name: (identifier) @name
    body: (_) @body) @entity.function)

(block
  (function_definition
    name: (identifier) @name
    body: (_) @body) @entity.function)

(type_definition
  name: (type_identifier) @name) @entity.type

; Constants: capitalised vals of objects (and top-level vals).
(object_definition
  body: (template_body
    ((val_definition
       pattern: (identifier) @name) @entity.constant
     (#match? @name "^[A-Z]"))))

(package_object
  body: (template_body
    ((val_definition
       pattern: (identifier) @name) @entity.constant
     (#match? @name "^[A-Z]"))))

(compilation_unit
  ((val_definition
     pattern: (identifier) @name) @entity.constant
   (#match? @name "^[A-Z]")))

(import_declaration) @import
