; Scala definitions and references (tree-sitter tags convention).

(class_definition name: (identifier) @name) @definition.class
(object_definition name: (identifier) @name) @definition.class
(package_object name: (identifier) @name) @definition.module
(trait_definition name: (identifier) @name) @definition.interface
(type_definition name: (type_identifier) @name) @definition.type
(package_clause name: (package_identifier) @name) @definition.module

(template_body (function_definition name: (identifier) @name) @definition.method)
(template_body (function_declaration name: (identifier) @name) @definition.method)
(compilation_unit (function_definition name: (identifier) @name) @definition.function)
(block (function_definition name: (identifier) @name) @definition.function)

(object_definition
  body: (template_body
    ((val_definition pattern: (identifier) @name) @definition.constant
     (#match? @name "^[A-Z]"))))

; Calls: f(x), obj.f(x), f[T](x); a capitalised callee is an apply/constructor.
((call_expression
   function: [
     (identifier) @name
     (field_expression field: (identifier) @name)
     (generic_function function: (identifier) @name)
     (generic_function function: (field_expression field: (identifier) @name))
   ]) @reference.call
 (#not-match? @name "^[A-Z]"))

((call_expression
   function: [
     (identifier) @name
     (field_expression field: (identifier) @name)
   ]) @reference.class
 (#match? @name "^[A-Z]"))

; new Foo(x) / new Foo[T]
(instance_expression
  [
    (call_expression function: (identifier) @name)
    (generic_function function: (identifier) @name)
    (call_expression function: (generic_function function: (identifier) @name))
    (identifier) @name
  ]) @reference.class

; extends A with B
(extends_clause
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (compound_type base: (type_identifier) @name)
    (stable_type_identifier (type_identifier) @name .)
  ]) @reference.implementation

(compound_type extra: (type_identifier) @name) @reference.implementation

; Type uses
(_ type: (type_identifier) @name) @reference.type
(_ return_type: (type_identifier) @name) @reference.type
(generic_type type: (type_identifier) @name) @reference.type
(type_arguments (type_identifier) @name) @reference.type

(import_declaration path: (_) @name) @reference.module
