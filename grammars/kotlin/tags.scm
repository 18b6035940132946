; Kotlin definitions and references (tree-sitter tags convention).
; The grammar has no field names; children are matched by type and order.

(class_declaration "class" (type_identifier) @name) @definition.class
(class_declaration "interface" (type_identifier) @name) @definition.interface
(object_declaration (type_identifier) @name) @definition.class
(companion_object (type_identifier) @name) @definition.class
(type_alias (type_identifier) @name) @definition.type
(enum_entry (simple_identifier) @name) @definition.constant

(source_file (function_declaration (simple_identifier) @name) @definition.function)
(statements (function_declaration (simple_identifier) @name) @definition.function)
(class_body (function_declaration (simple_identifier) @name) @definition.method)
(enum_class_body (function_declaration (simple_identifier) @name) @definition.method)

(class_body
  (property_declaration
    (variable_declaration (simple_identifier) @name)) @definition.property)

((property_declaration
   (modifiers (property_modifier))
   (variable_declaration (simple_identifier) @name)) @definition.constant
 (#match? @definition.constant "^[^=]*\\bconst\\s+val\\b"))

(package_header (identifier) @name) @definition.module

; Calls: f(x), obj.f(x), f { ... }; a capitalised callee is taken to be a constructor.
((call_expression
   .
   [
     (simple_identifier) @name
     (navigation_expression (navigation_suffix (simple_identifier) @name) .)
   ]
   (call_suffix)) @reference.call
 (#not-match? @name "^[A-Z]"))

((call_expression
   .
   [
     (simple_identifier) @name
     (navigation_expression (navigation_suffix (simple_identifier) @name) .)
   ]
   (call_suffix)) @reference.class
 (#match? @name "^[A-Z]"))

; Supertypes: class A : B(), C
(delegation_specifier
  [
    (user_type (type_identifier) @name .)
    (constructor_invocation (user_type (type_identifier) @name .))
  ]) @reference.implementation

; Type uses
(user_type (type_identifier) @name) @reference.type

(import_header (identifier) @name) @reference.module
