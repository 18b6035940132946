; Go definitions and references (tree-sitter tags convention).

(function_declaration
  name: (identifier) @name) @definition.function

(method_declaration
  name: (field_identifier) @name) @definition.method

(method_spec
  name: (field_identifier) @name) @definition.method

(type_spec
  name: (type_identifier) @name
  type: (interface_type)) @definition.interface

(type_spec
  name: (type_identifier) @name
  type: (struct_type)) @definition.class

(type_spec
  name: (type_identifier) @name
  type: [(type_identifier) (qualified_type) (generic_type) (pointer_type)
         (array_type) (implicit_length_array_type) (slice_type) (map_type)
         (channel_type) (function_type) (parenthesized_type)]) @definition.type

(type_alias
  name: (type_identifier) @name) @definition.type

(source_file
  (const_declaration
    (const_spec name: (identifier) @name) @definition.constant))

(source_file
  (var_declaration
    (var_spec name: (identifier) @name) @definition.variable))

(package_clause
  (package_identifier) @name) @definition.module

; Calls: f(x), pkg.F(x), recv.M(x), (f)(x)
(call_expression
  function: [
    (identifier) @name
    (parenthesized_expression (identifier) @name)
    (selector_expression field: (field_identifier) @name)
    (parenthesized_expression (selector_expression field: (field_identifier) @name))
  ]) @reference.call

; Type uses (not the name of a type being declared).
(parameter_declaration type: (type_identifier) @name) @reference.type
(variadic_parameter_declaration type: (type_identifier) @name) @reference.type
(field_declaration type: (type_identifier) @name) @reference.type
(pointer_type (type_identifier) @name) @reference.type
(slice_type element: (type_identifier) @name) @reference.type
(array_type element: (type_identifier) @name) @reference.type
(map_type key: (type_identifier) @name) @reference.type
(map_type value: (type_identifier) @name) @reference.type
(channel_type value: (type_identifier) @name) @reference.type
(qualified_type name: (type_identifier) @name) @reference.type
(generic_type type: (type_identifier) @name) @reference.type
(type_arguments (type_identifier) @name) @reference.type
(type_spec type: (type_identifier) @name) @reference.type
(type_alias type: (type_identifier) @name) @reference.type
(function_declaration result: (type_identifier) @name) @reference.type
(method_declaration result: (type_identifier) @name) @reference.type
(method_spec result: (type_identifier) @name) @reference.type
(type_conversion_expression type: (type_identifier) @name) @reference.type
(type_assertion_expression type: (type_identifier) @name) @reference.type
(var_spec type: (type_identifier) @name) @reference.type
(const_spec type: (type_identifier) @name) @reference.type

; Instantiations: T{...}, &T{...}
(composite_literal
  type: (type_identifier) @name) @reference.class

(composite_literal
  type: (qualified_type name: (type_identifier) @name)) @reference.class

; Embedded interfaces / struct fields act as "implements/extends".
(interface_type (constraint_elem (type_identifier) @name)) @reference.implementation
(field_declaration
  !name
  type: (type_identifier) @name) @reference.implementation

(import_spec
  path: (_) @name) @reference.module

; Import bindings (see grammars/README.md): a package comes in under its name, or under the
; last element of its path when the import names none.
(import_spec
  name: (package_identifier) @import.namespace
  path: (_) @import.source)
(import_spec
  !name
  path: (_) @import.source)
(import_spec
  name: (dot)
  path: (_) @import.source)
