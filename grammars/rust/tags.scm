; Rust definitions and references (tree-sitter tags convention).

(struct_item name: (type_identifier) @name) @definition.class
(enum_item name: (type_identifier) @name) @definition.class
(union_item name: (type_identifier) @name) @definition.class
(type_item name: (type_identifier) @name) @definition.type
(trait_item name: (type_identifier) @name) @definition.interface
(mod_item name: (identifier) @name) @definition.module
(macro_definition name: (identifier) @name) @definition.macro
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant

(source_file (function_item name: (identifier) @name) @definition.function)
(mod_item body: (declaration_list (function_item name: (identifier) @name) @definition.function))
(block (function_item name: (identifier) @name) @definition.function)
(foreign_mod_item body: (declaration_list (function_signature_item name: (identifier) @name) @definition.function))

(impl_item
  body: (declaration_list
    (function_item name: (identifier) @name) @definition.method))

(trait_item
  body: (declaration_list
    [
      (function_item name: (identifier) @name)
      (function_signature_item name: (identifier) @name)
    ] @definition.method))

; impl blocks as definitions named by their type, so that their methods have it as container
; (Circle::new resolves to `new` in `impl Circle`); a name never resolves to an impl block.
(impl_item
  type: [
    (type_identifier) @name
    (scoped_type_identifier name: (type_identifier) @name)
    (generic_type type: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
  ]
  body: (_)) @definition.impl

; impl blocks: the type is implemented, the trait (if any) is implemented by it.
(impl_item
  type: [
    (type_identifier) @name
    (scoped_type_identifier name: (type_identifier) @name)
    (generic_type type: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
  ]
  !trait) @reference.implementation

(impl_item
  trait: [
    (type_identifier) @name
    (scoped_type_identifier name: (type_identifier) @name)
    (generic_type type: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
  ]) @reference.implementation

; Calls: f(), path::f(), x.m(), macros.
(call_expression
  function: [
    (identifier) @name
    (scoped_identifier name: (identifier) @name)
    (field_expression field: (field_identifier) @name)
    (generic_function function: (identifier) @name)
    (generic_function function: (scoped_identifier name: (identifier) @name))
    (generic_function function: (field_expression field: (field_identifier) @name))
  ]) @reference.call

(macro_invocation
  macro: [
    (identifier) @name
    (scoped_identifier name: (identifier) @name)
  ]) @reference.call

; Type uses and instantiations.
(struct_expression
  name: [
    (type_identifier) @name
    (scoped_type_identifier name: (type_identifier) @name)
  ]) @reference.class

(scoped_identifier
  path: (identifier) @name
  (#match? @name "^[A-Z]")) @reference.type

(type_arguments (type_identifier) @name) @reference.type
(reference_type type: (type_identifier) @name) @reference.type
(parameter type: (type_identifier) @name) @reference.type
(field_declaration type: (type_identifier) @name) @reference.type
(ordered_field_declaration_list type: (type_identifier) @name) @reference.type
(function_item return_type: (type_identifier) @name) @reference.type
(function_signature_item return_type: (type_identifier) @name) @reference.type
(generic_type type: (type_identifier) @name) @reference.type
(scoped_type_identifier name: (type_identifier) @name) @reference.type
(type_item type: (type_identifier) @name) @reference.type
(let_declaration type: (type_identifier) @name) @reference.type
(const_item type: (type_identifier) @name) @reference.type
(static_item type: (type_identifier) @name) @reference.type
(trait_bounds (type_identifier) @name) @reference.type
(tuple_type (type_identifier) @name) @reference.type
(array_type element: (type_identifier) @name) @reference.type
(pointer_type type: (type_identifier) @name) @reference.type

(use_declaration
  argument: (_) @name) @reference.module

(extern_crate_declaration
  name: (identifier) @name) @reference.module

; Import bindings (see grammars/README.md).
(use_declaration
  argument: (scoped_identifier path: (_) @import.source name: (identifier) @import.name))
(use_declaration
  argument: (use_as_clause
    path: (scoped_identifier path: (_) @import.source name: (identifier) @import.name)
    alias: (identifier) @import.alias))
(use_declaration
  argument: (scoped_use_list
    path: (_) @import.source
    list: (use_list (identifier) @import.name)))
(use_declaration
  argument: (scoped_use_list
    path: (_) @import.source
    list: (use_list (use_as_clause path: (identifier) @import.name alias: (identifier) @import.alias))))
(use_declaration
  argument: (use_wildcard (_) @import.source))
(mod_item
  name: (identifier) @import.source @import.namespace
  !body)
