; Swift entities for the chunker (see grammars/README.md).
; tree-sitter-swift 0.4 (tree-sitter-wasms): class, struct, enum, actor and extension
; are all class_declaration, told apart by declaration_kind; several children share
; the `name:` field (a function's return type too), so names are matched by node type.

(class_declaration
  declaration_kind: ["class" "actor"]
  name: (type_identifier) @name
  body: (class_body) @body) @entity.class

(class_declaration
  declaration_kind: "struct"
  name: (type_identifier) @name
  body: (class_body) @body) @entity.struct

(class_declaration
  declaration_kind: "enum"
  name: (type_identifier) @name
  body: (enum_class_body) @body) @entity.enum

; extension Foo { ... } is named by the extended type.
(class_declaration
  declaration_kind: "extension"
  name: [
    (user_type (type_identifier) @name)
    (type_identifier) @name
  ]
  body: (class_body) @body) @entity.impl

(protocol_declaration
  name: (type_identifier) @name
  body: (protocol_body) @body) @entity.interface

(source_file
  (function_declaration
    name: (simple_identifier) @name
    body: (function_body) @body) @entity.function)

(statements
  (function_declaration
    name: (simple_identifier) @name
    body: (function_body) @body) @entity.function)

(class_body
  (function_declaration
    name: (simple_identifier) @name
    body: (function_body) @body) @entity.method)

(enum_class_body
  (function_declaration
    name: (simple_identifier) @name
    body: (function_body) @body) @entity.method)

(protocol_function_declaration
  name: (simple_identifier) @name) @entity.method

(init_declaration
  "init" @name
  body: (function_body) @body) @entity.method

(deinit_declaration
  "deinit" @name
  body: (function_body) @body) @entity.method

(typealias_declaration
  name: (type_identifier) @name) @entity.type

; Top-level `let` constants.
(source_file
  (property_declaration
    (value_binding_pattern mutability: "let")
    name: (pattern bound_identifier: (simple_identifier) @name)) @entity.constant)

(import_declaration) @import
