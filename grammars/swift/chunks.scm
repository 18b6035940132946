; Swift entities for the chunker (see grammars/README.md).
; tree-sitter-swift 0.4 (tree-sitter-wasms): class, struct, enum, actor and extension
; are all class_declaration, told apart by declaration_kind; several children share
; the `name:` field (a function's return type too), so names are matched by node type
; (a function's only direct simple_identifier child is its name; matching the field instead
; makes the query take 2.6 s to compile).

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

; One unanchored pattern for functions and methods (anchoring to a parent costs ~0.6 s of
; query compilation per parent here); the scope chain tells a method by its class.
(function_declaration
  (simple_identifier) @name
  body: (function_body) @body) @entity.function

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
