; Rust entities for the chunker (see grammars/README.md).

; Free functions (at the top level, in modules, in extern blocks, nested in blocks).
(source_file
  (function_item
    name: (identifier) @name
    body: (block) @body) @entity.function)

(mod_item
  body: (declaration_list
    (function_item
      name: (identifier) @name
      body: (block) @body) @entity.function))

(block
  (function_item
    name: (identifier) @name
    body: (block) @body) @entity.function)

; Methods and associated functions in impls and traits.
(impl_item
  body: (declaration_list
    (function_item
      name: (identifier) @name
      body: (block) @body) @entity.method))

(trait_item
  body: (declaration_list
    (function_item
      name: (identifier) @name
      body: (block) @body) @entity.method))

(trait_item
  body: (declaration_list
    (function_signature_item
      name: (identifier) @name) @entity.method))

; impl blocks are named by the type they implement for (`impl Display for Item` is "Item").
(impl_item
  type: [
    (type_identifier) @name
    (scoped_type_identifier name: (type_identifier) @name)
    (generic_type type: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
  ]
  body: (declaration_list) @body) @entity.impl

(trait_item
  name: (type_identifier) @name
  body: (declaration_list) @body) @entity.trait

(struct_item
  name: (type_identifier) @name
  body: (field_declaration_list) @body) @entity.struct

(struct_item
  name: (type_identifier) @name
  body: (ordered_field_declaration_list) @body) @entity.struct

(struct_item
  name: (type_identifier) @name
  !body) @entity.struct

(union_item
  name: (type_identifier) @name
  body: (field_declaration_list) @body) @entity.struct

(enum_item
  name: (type_identifier) @name
  body: (enum_variant_list) @body) @entity.enum

(mod_item
  name: (identifier) @name
  body: (declaration_list) @body) @entity.module

(type_item
  name: (type_identifier) @name) @entity.type

(source_file
  [
    (const_item name: (identifier) @name)
    (static_item name: (identifier) @name)
  ] @entity.constant)

(declaration_list
  [
    (const_item name: (identifier) @name)
    (static_item name: (identifier) @name)
  ] @entity.constant)

(macro_definition
  name: (identifier) @name) @entity.macro

(use_declaration) @import
(extern_crate_declaration) @import

; `mod net;` binds a module defined in another file.
(mod_item !body) @import
