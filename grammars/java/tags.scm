; Java definitions and references (tree-sitter tags convention).

(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(enum_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(compact_constructor_declaration name: (identifier) @name) @definition.method
(annotation_type_element_declaration name: (identifier) @name) @definition.method
(enum_constant name: (identifier) @name) @definition.constant
(module_declaration name: (_) @name) @definition.module
(package_declaration [(identifier) (scoped_identifier)] @name) @definition.module

(field_declaration
  (modifiers "static" "final")
  declarator: (variable_declarator name: (identifier) @name)) @definition.constant
(field_declaration
  (modifiers "final" "static")
  declarator: (variable_declarator name: (identifier) @name)) @definition.constant
(constant_declaration
  declarator: (variable_declarator name: (identifier) @name)) @definition.constant

; Calls
(method_invocation
  name: (identifier) @name
  arguments: (argument_list)) @reference.call

(method_reference
  (identifier) @name .) @reference.call

(explicit_constructor_invocation
  constructor: [(this) (super)] @name) @reference.call

; Instantiation
(object_creation_expression
  type: [
    (type_identifier) @name
    (generic_type (type_identifier) @name)
    (scoped_type_identifier (type_identifier) @name .)
    (generic_type (scoped_type_identifier (type_identifier) @name .))
  ]) @reference.class

; extends / implements
(superclass
  [
    (type_identifier) @name
    (generic_type (type_identifier) @name)
    (scoped_type_identifier (type_identifier) @name .)
    (generic_type (scoped_type_identifier (type_identifier) @name .))
  ]) @reference.implementation

(super_interfaces
  (type_list
    [
      (type_identifier) @name
      (generic_type (type_identifier) @name)
      (scoped_type_identifier (type_identifier) @name .)
      (generic_type (scoped_type_identifier (type_identifier) @name .))
    ]) @reference.implementation)

(extends_interfaces
  (type_list
    [
      (type_identifier) @name
      (generic_type (type_identifier) @name)
      (scoped_type_identifier (type_identifier) @name .)
      (generic_type (scoped_type_identifier (type_identifier) @name .))
    ]) @reference.implementation)

; Other type uses
(type_identifier) @name @reference.type

(marker_annotation name: (identifier) @name) @reference.type
(annotation name: (identifier) @name) @reference.type

(import_declaration
  [(identifier) (scoped_identifier)] @name) @reference.module

; Import bindings (see grammars/README.md).
(import_declaration
  (scoped_identifier scope: (_) @import.source name: (identifier) @import.name)
  .)
(import_declaration
  (scoped_identifier) @import.source
  (asterisk))
