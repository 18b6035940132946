; PHP definitions and references (tree-sitter tags convention).

(namespace_definition name: (namespace_name) @name) @definition.module
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.interface
(class_declaration name: (name) @name) @definition.class
(enum_declaration name: (name) @name) @definition.class
(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.method
(const_declaration (const_element (name) @name)) @definition.constant
(enum_case name: (name) @name) @definition.constant

; Calls
(function_call_expression
  function: [
    (name) @name
    (qualified_name (name) @name)
  ]) @reference.call

(member_call_expression
  name: (name) @name) @reference.call

(nullsafe_member_call_expression
  name: (name) @name) @reference.call

(scoped_call_expression
  name: (name) @name) @reference.call

; Instantiation
(object_creation_expression
  [
    (name) @name
    (qualified_name (name) @name)
  ]) @reference.class

; extends / implements / use Trait;
(base_clause
  [
    (name) @name
    (qualified_name (name) @name)
  ]) @reference.implementation

(class_interface_clause
  [
    (name) @name
    (qualified_name (name) @name)
  ]) @reference.implementation

(use_declaration
  [
    (name) @name
    (qualified_name (name) @name)
  ]) @reference.implementation

; Type uses
(named_type [(name) (qualified_name (name))] @name) @reference.type
(scoped_call_expression scope: [(name) (qualified_name)] @name) @reference.type
(class_constant_access_expression . [(name) (qualified_name)] @name) @reference.type

(namespace_use_clause [(name) (qualified_name)] @name) @reference.module
