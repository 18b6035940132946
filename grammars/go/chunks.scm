; Go entities for the chunker (see grammars/README.md).

(function_declaration
  name: (identifier) @name
  body: (block) @body) @entity.function

(method_declaration
  name: (field_identifier) @name
  body: (block) @body) @entity.method

; Interface methods nest inside their interface.
(method_spec
  name: (field_identifier) @name) @entity.method

; `type X struct {...}`: the whole declaration is the entity, so that the doc
; comment above `type` belongs to it (the #match? tells it from a grouped
; declaration; trailing `.` anchors are unreliable in this tree-sitter).
; Grouped `type ( ... )` declarations make each spec an entity instead.
(
  (type_declaration
    (type_spec
      name: (type_identifier) @name
      type: (struct_type (field_declaration_list) @body))) @entity.struct
  (#match? @entity.struct "^type\\s+[^(\\s]"))

(type_declaration
  "("
  (type_spec
    name: (type_identifier) @name
    type: (struct_type (field_declaration_list) @body)) @entity.struct)

(
  (type_declaration
    (type_spec
      name: (type_identifier) @name
      type: (interface_type) @body)) @entity.interface
  (#match? @entity.interface "^type\\s+[^(\\s]"))

(type_declaration
  "("
  (type_spec
    name: (type_identifier) @name
    type: (interface_type) @body) @entity.interface)

; Named types and aliases (`type Cents int64`, `type ID = string`).
(
  (type_declaration
    [
      (type_spec
        name: (type_identifier) @name
        type: [(type_identifier) (qualified_type) (generic_type) (pointer_type)
               (array_type) (implicit_length_array_type) (slice_type) (map_type)
               (channel_type) (function_type) (parenthesized_type)])
      (type_alias name: (type_identifier) @name)
    ]) @entity.type
  (#match? @entity.type "^type\\s+[^(\\s]"))

(type_declaration
  "("
  [
    (type_spec
      name: (type_identifier) @name
      type: [(type_identifier) (qualified_type) (generic_type) (pointer_type)
             (array_type) (implicit_length_array_type) (slice_type) (map_type)
             (channel_type) (function_type) (parenthesized_type)])
    (type_alias name: (type_identifier) @name)
  ] @entity.type)

; Top-level constants: a single `const X = ...`, or each name of a `const ( ... )` block.
(source_file
  (const_declaration
    (const_spec name: (identifier) @name)) @entity.constant
  (#match? @entity.constant "^const\\s+[^(\\s]"))

(source_file
  (const_declaration
    "("
    (const_spec name: (identifier) @name) @entity.constant))

(import_spec) @import
