; inherits: ecma
; TypeScript definitions and references (tree-sitter tags convention).

[
  (class_declaration name: (type_identifier) @name)
  (abstract_class_declaration name: (type_identifier) @name)
  (class name: (type_identifier) @name)
] @definition.class

(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.type

[
  (module name: [(identifier) (string) (nested_identifier)] @name)
  (internal_module name: [(identifier) (nested_identifier)] @name)
] @definition.module

(function_signature name: (identifier) @name) @definition.function
(method_signature name: [(property_identifier) (private_property_identifier)] @name) @definition.method
(abstract_method_signature name: [(property_identifier) (private_property_identifier)] @name) @definition.method

; extends / implements
(extends_clause
  value: [
    (identifier) @name
    (member_expression property: (property_identifier) @name)
  ]) @reference.implementation

(implements_clause
  [
    (type_identifier) @name
    (generic_type name: (type_identifier) @name)
    (nested_type_identifier name: (type_identifier) @name)
    (generic_type name: (nested_type_identifier name: (type_identifier) @name))
  ]) @reference.implementation

(extends_type_clause
  type: [
    (type_identifier) @name
    (generic_type name: (type_identifier) @name)
    (nested_type_identifier name: (type_identifier) @name)
    (generic_type name: (nested_type_identifier name: (type_identifier) @name))
  ]) @reference.implementation

; Type uses (not the names of declared types)
(type_annotation (type_identifier) @name) @reference.type
(type_annotation (nested_type_identifier name: (type_identifier) @name)) @reference.type
(generic_type name: (type_identifier) @name) @reference.type
(generic_type name: (nested_type_identifier name: (type_identifier) @name)) @reference.type
(type_arguments (type_identifier) @name) @reference.type
(union_type (type_identifier) @name) @reference.type
(intersection_type (type_identifier) @name) @reference.type
(array_type (type_identifier) @name) @reference.type
(as_expression (type_identifier) @name) @reference.type
(satisfies_expression (type_identifier) @name) @reference.type
(type_alias_declaration value: (type_identifier) @name) @reference.type
(constraint (type_identifier) @name) @reference.type

(method_definition
  name: [(property_identifier) (private_property_identifier)] @name) @definition.method

[
  (function_declaration name: (identifier) @name)
  (generator_function_declaration name: (identifier) @name)
] @definition.function

; class fields holding functions: f = () => ...
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.method
