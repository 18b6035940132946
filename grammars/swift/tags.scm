; Swift definitions and references (tree-sitter tags convention).

(class_declaration
  declaration_kind: ["class" "actor" "struct" "enum"]
  name: (type_identifier) @name) @definition.class

(class_declaration
  declaration_kind: "extension"
  name: [
    (user_type (type_identifier) @name)
    (type_identifier) @name
  ]) @reference.implementation

(protocol_declaration name: (type_identifier) @name) @definition.interface
(typealias_declaration name: (type_identifier) @name) @definition.type

(source_file (function_declaration name: (simple_identifier) @name) @definition.function)
(statements (function_declaration name: (simple_identifier) @name) @definition.function)
(class_body (function_declaration name: (simple_identifier) @name) @definition.method)
(enum_class_body (function_declaration name: (simple_identifier) @name) @definition.method)
(protocol_function_declaration name: (simple_identifier) @name) @definition.method
(init_declaration "init" @name) @definition.method

(class_body
  (property_declaration
    name: (pattern bound_identifier: (simple_identifier) @name)) @definition.property)

(protocol_property_declaration
  name: (pattern bound_identifier: (simple_identifier) @name)) @definition.property

(source_file
  (property_declaration
    (value_binding_pattern mutability: "let")
    name: (pattern bound_identifier: (simple_identifier) @name)) @definition.constant)

; Calls: f(x), obj.f(x), f { ... }; a capitalised callee is an initializer call.
((call_expression
   [
     (simple_identifier) @name
     (navigation_expression suffix: (navigation_suffix suffix: (simple_identifier) @name))
   ]
   (call_suffix)) @reference.call
 (#not-match? @name "^[A-Z]"))

((call_expression
   [
     (simple_identifier) @name
     (navigation_expression suffix: (navigation_suffix suffix: (simple_identifier) @name))
   ]
   (call_suffix)) @reference.class
 (#match? @name "^[A-Z]"))

; Conformances and superclasses
(inheritance_specifier
  inherits_from: (user_type (type_identifier) @name)) @reference.implementation

; Type uses
(user_type (type_identifier) @name) @reference.type

(import_declaration (identifier) @name) @reference.module
