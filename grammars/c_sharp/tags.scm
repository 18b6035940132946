; C# definitions and references (tree-sitter tags convention).

(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(record_struct_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.class
(enum_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(delegate_declaration name: (identifier) @name) @definition.type
(namespace_declaration name: (_) @name) @definition.module
(file_scoped_namespace_declaration name: (_) @name) @definition.module

(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(destructor_declaration name: (identifier) @name) @definition.method
(local_function_statement name: (identifier) @name) @definition.function
(property_declaration name: (identifier) @name) @definition.property
(enum_member_declaration name: (identifier) @name) @definition.constant

(field_declaration
  (modifier "const")
  (variable_declaration
    (variable_declarator (identifier) @name))) @definition.constant

; Calls: F(), x.F(), x?.F(), F<T>()
(invocation_expression
  function: [
    (identifier) @name
    (generic_name (identifier) @name)
    (member_access_expression name: (identifier) @name)
    (member_access_expression name: (generic_name (identifier) @name))
    (conditional_access_expression (member_binding_expression name: (identifier) @name))
  ]) @reference.call

; Instantiation
(object_creation_expression
  type: [
    (identifier) @name
    (generic_name (identifier) @name)
    (qualified_name (identifier) @name .)
  ]) @reference.class

; Base classes and interfaces
(base_list
  [
    (identifier) @name
    (generic_name (identifier) @name)
    (qualified_name (identifier) @name .)
  ]) @reference.implementation

; Other type uses
(_ type: (identifier) @name) @reference.type
(_ type: (generic_name (identifier) @name)) @reference.type
(_ type: (nullable_type (identifier) @name)) @reference.type
(_ type: (array_type type: (identifier) @name)) @reference.type
(type_argument_list (identifier) @name) @reference.type
(type_of_expression (identifier) @name) @reference.type
(attribute name: (identifier) @name) @reference.type

(using_directive [(identifier) (qualified_name)] @name) @reference.module
