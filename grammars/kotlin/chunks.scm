; Kotlin entities for the chunker (see grammars/README.md).
; This grammar (fwcd tree-sitter-kotlin 0.3) has no field names: children are matched
; by type and order. class/interface/enum class are all class_declaration, told apart by
; their keyword or body type; a class without a body is told apart by its text.

(class_declaration
  "class"
  (type_identifier) @name
  (class_body) @body) @entity.class

((class_declaration
   "class"
   (type_identifier) @name) @entity.class
 (#not-match? @entity.class "\\}\\s*$"))

(class_declaration
  (type_identifier) @name
  (enum_class_body) @body) @entity.enum

(class_declaration
  "interface"
  (type_identifier) @name
  (class_body) @body) @entity.interface

((class_declaration
   "interface"
   (type_identifier) @name) @entity.interface
 (#not-match? @entity.interface "\\}\\s*$"))

(object_declaration
  (type_identifier) @name
  (class_body)? @body) @entity.module

((companion_object
   (type_identifier) @name
   (class_body)? @body) @entity.module)

; An unnamed companion object is named "companion".
((companion_object
   "companion" @name
   (class_body)? @body) @entity.module
 (#match? @entity.module "^[^{]*companion\\s+object\\s*(\\{|$)"))

(source_file
  (function_declaration
    (simple_identifier) @name
    (function_body)? @body) @entity.function)

(statements
  (function_declaration
    (simple_identifier) @name
    (function_body)? @body) @entity.function)

(class_body
  (function_declaration
    (simple_identifier) @name
    (function_body)? @body) @entity.method)

(enum_class_body
  (function_declaration
    (simple_identifier) @name
    (function_body)? @body) @entity.method)

(secondary_constructor
  "constructor" @name
  (statements)? @body) @entity.method

(type_alias
  (type_identifier) @name) @entity.type

; const val X = ...
((property_declaration
   (modifiers (property_modifier))
   (variable_declaration (simple_identifier) @name)) @entity.constant
 (#match? @entity.constant "^[^=]*\\bconst\\s+val\\b"))

(import_header) @import
