; Java entities for the chunker (see grammars/README.md).
; Annotations and modifiers are part of the declaration node, so an entity
; starts at its first annotation.

(class_declaration
  name: (identifier) @name
  body: (class_body) @body) @entity.class

(record_declaration
  name: (identifier) @name
  body: (class_body) @body) @entity.class

(interface_declaration
  name: (identifier) @name
  body: (interface_body) @body) @entity.interface

(annotation_type_declaration
  name: (identifier) @name
  body: (annotation_type_body) @body) @entity.interface

(enum_declaration
  name: (identifier) @name
  body: (enum_body) @body) @entity.enum

(method_declaration
  name: (identifier) @name
  body: (block) @body) @entity.method

; Abstract and interface methods have no body.
(method_declaration
  name: (identifier) @name
  !body) @entity.method

(constructor_declaration
  name: (identifier) @name
  body: (constructor_body) @body) @entity.method

(compact_constructor_declaration
  name: (identifier) @name
  body: (block) @body) @entity.method

; Constants: static final fields, and interface fields (implicitly static final).
(field_declaration
  (modifiers "static" "final")
  declarator: (variable_declarator name: (identifier) @name)) @entity.constant

(field_declaration
  (modifiers "final" "static")
  declarator: (variable_declarator name: (identifier) @name)) @entity.constant

(constant_declaration
  declarator: (variable_declarator name: (identifier) @name)) @entity.constant

(module_declaration
  name: (_) @name
  body: (module_body) @body) @entity.module

(import_declaration) @import

(annotation_type_element_declaration
  name: (identifier) @name) @entity.method
